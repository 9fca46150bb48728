//! Message identifiers: ULIDs (the default) and UUIDv7, generated and checked.

use std::str::FromStr;

/// Which kind of identifier an id string is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdKind {
    Ulid,
    UuidV7,
}

/// Recognises a ULID (26 Crockford base32 characters, upper or lower case,
/// first character 0–7) or a UUID of version 7 with the RFC 9562 variant.
pub fn classify(id: &str) -> Option<IdKind> {
    if id.len() == 26 && ulid::Ulid::from_str(id).is_ok() {
        return Some(IdKind::Ulid);
    }
    if id.len() == 36 {
        let uuid = uuid::Uuid::try_parse(id).ok()?;
        if uuid.get_version_num() == 7 && uuid.get_variant() == uuid::Variant::RFC4122 {
            return Some(IdKind::UuidV7);
        }
    }
    None
}

/// The creation time (milliseconds since the Unix epoch) carried by an id.
pub fn timestamp_ms(id: &str) -> Option<u64> {
    match classify(id)? {
        IdKind::Ulid => ulid::Ulid::from_str(id).ok().map(|u| u.timestamp_ms()),
        IdKind::UuidV7 => {
            let uuid = uuid::Uuid::try_parse(id).ok()?;
            let (secs, nanos) = uuid.get_timestamp()?.to_unix();
            Some(secs * 1000 + u64::from(nanos) / 1_000_000)
        }
    }
}

/// A fresh ULID, as the spec's examples write them (upper case).
pub fn new_ulid() -> String {
    ulid::Ulid::generate().to_string()
}

/// A fresh UUIDv7 in its hyphenated lower-case form.
pub fn new_uuid7() -> String {
    uuid::Uuid::now_v7().hyphenated().to_string()
}

/// A fresh id of the given kind.
pub fn new_id(kind: IdKind) -> String {
    match kind {
        IdKind::Ulid => new_ulid(),
        IdKind::UuidV7 => new_uuid7(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_spec_examples() {
        assert_eq!(classify("01J9J3D3M6A4M3WQX8G1ZQ0S7K"), Some(IdKind::Ulid));
        assert_eq!(
            classify("018c8e5a-3b2f-7890-abcd-ef1234567890"),
            Some(IdKind::UuidV7)
        );
    }

    #[test]
    fn rejects_truncated_and_v4_ids() {
        assert_eq!(classify("01J9J3D9C2V8M4..."), None);
        assert_eq!(classify("01J9J3D3M6A4M3WQX8G1ZQILOU"), None);
        assert_eq!(classify("f47ac10b-58cc-4372-a567-0e02b2c3d479"), None);
        assert_eq!(classify("<original-thread>"), None);
    }

    #[test]
    fn generated_ids_are_recognised_and_carry_their_time() {
        assert_eq!(classify(&new_ulid()), Some(IdKind::Ulid));
        assert_eq!(classify(&new_uuid7()), Some(IdKind::UuidV7));
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as u64)
            .unwrap_or(0);
        let t = timestamp_ms(&new_uuid7()).unwrap_or(0);
        assert!(t.abs_diff(now) < 60_000);
    }
}
