//! How a message is told from another under the same id, wherever messages
//! are remembered (an archive, a receiver's inbox and state file, a
//! server's memory): the id compared as aiproto compares ids everywhere (a
//! ULID or a UUID in any case is one id, [`crate::ids::comparable`]), and
//! the content digested with the id written that way, so that the same
//! message with its id retyped in other capitals is the same message, and
//! another message under that id is not.

use sha2::{Digest, Sha256};

/// The id as compared, and the SHA-256 of the message's text with the id
/// written as compared.
pub fn keyed(id: &str, text: &str) -> (String, [u8; 32]) {
    let key = crate::ids::comparable(id);
    let digest = if key == id {
        Sha256::digest(text.as_bytes())
    } else {
        Sha256::digest(text.replace(id, &key).as_bytes())
    };
    (key.into_owned(), digest.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_retyped_in_capitals_is_the_same_message_and_other_content_is_not() {
        let lower = r#"{"trace_id":"6f1c1b8e-1d2a-4c3b-9e4f-5a6b7c8d9e0f","x":1}"#;
        let upper = lower.replace(
            "6f1c1b8e-1d2a-4c3b-9e4f-5a6b7c8d9e0f",
            "6F1C1B8E-1D2A-4C3B-9E4F-5A6B7C8D9E0F",
        );
        let (id, digest) = keyed("6f1c1b8e-1d2a-4c3b-9e4f-5a6b7c8d9e0f", lower);
        assert_eq!(
            keyed("6F1C1B8E-1D2A-4C3B-9E4F-5A6B7C8D9E0F", &upper),
            (id.clone(), digest)
        );
        let other = lower.replace("\"x\":1", "\"x\":2");
        let (other_id, other_digest) = keyed("6f1c1b8e-1d2a-4c3b-9e4f-5a6b7c8d9e0f", &other);
        assert_eq!(other_id, id);
        assert_ne!(other_digest, digest);
        // An id that is neither a ULID nor a UUID compares as written.
        assert_ne!(keyed("Msg-1", "a").0, keyed("msg-1", "a").0);
    }
}
