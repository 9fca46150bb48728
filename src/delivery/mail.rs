//! The mail that carries a message: its Subject (`[AI Crosstalk] CONTEXT -
//! INTENT`, `[HSP] MESSAGE-TYPE`), Message-ID and In-Reply-To from the
//! message's ids (so a reply threads under its parent in a mail client),
//! and the message itself as the body.

use serde_json::Value;

use crate::protocols::Value as Parsed;
use crate::protocols::crosstalk::{self, Envelope};
use crate::protocols::json_doc::compact;
use crate::protocols::{Found, Protocol};
use crate::transport::email::Mail;

/// The right-hand side of the Message-IDs aiproto writes.
const ID_DOMAIN: &str = "aiproto.invalid";

/// The mail of a message read, when it can be worded; `written` is the
/// message as sent ([`Found::written`]).
pub fn mail_of(found: &Found, written: &str) -> Option<Mail> {
    let json = |name: &str, value| json_mail(name, value, written);
    match &found.value {
        Parsed::Crosstalk(p) => Some(crosstalk_mail(&p.envelope)),
        Parsed::Hsp(Some(m)) => Some(json(Protocol::Hsp.name(), &m.json)),
        Parsed::Csdl(Some(d)) => Some(json(Protocol::Csdl.name(), &d.json)),
        Parsed::Msp(Some(d)) => Some(json(Protocol::Msp.name(), &d.json)),
        _ => None,
    }
}

fn mail_id(id: &str) -> String {
    format!("<{id}@{ID_DOMAIN}>")
}

/// A Crosstalk envelope as a mail; 1.1 envelopes that are not signed get a
/// `meta: email` block naming the mail's Message-ID and In-Reply-To.
pub fn crosstalk_mail(env: &Envelope) -> Mail {
    let mut env = env.clone();
    let message_id = env.message.as_deref().map(mail_id);
    let in_reply_to = env.parent.as_deref().map(mail_id);
    let signed = env.sig.as_deref().is_some_and(|s| s != "none");
    if !signed && env.version() == crosstalk::Version::V1_1 {
        let block = env.meta_block_mut("email");
        for (key, value) in [("Message-ID", &message_id), ("In-Reply-To", &in_reply_to)] {
            if let Some(v) = value
                && block.get(key).is_none()
            {
                block.entries.push((key.to_string(), v.clone()));
            }
        }
    }
    Mail {
        sender: env.sender.strip_prefix("email:").map(str::to_string),
        subject: format!(
            "[AI Crosstalk] {} - {}",
            env.context.as_deref().unwrap_or("(no context)"),
            env.intent.as_deref().unwrap_or("(no intent)")
        ),
        message_id,
        in_reply_to,
        body: crosstalk::render(&env),
    }
}

/// A JSON message (HSP, CSDL, MSP) as a mail: `[HSP] <message type>`, ids
/// from `message_id` / `correlation_id` (or `trace_id` / `parent_id`), and
/// as the body `written` (its text as sent) indented, tokens unchanged.
pub fn json_mail(protocol: &str, json: &Value, written: &str) -> Mail {
    let text = |k: &str| json.get(k).and_then(Value::as_str);
    let what = text("message_type")
        .or_else(|| text("intent"))
        .or_else(|| text("t"))
        .unwrap_or("message");
    Mail {
        sender: None,
        subject: format!("[{}] {what}", protocol.to_uppercase()),
        message_id: text("message_id").or_else(|| text("trace_id")).map(mail_id),
        in_reply_to: text("correlation_id")
            .or_else(|| text("parent_id"))
            .map(mail_id),
        // Indented for the reader, with the sender's tokens as written.
        body: format!(
            "{}\n",
            compact::pretty(written)
                .unwrap_or_else(|| serde_json::to_string_pretty(json).unwrap_or_default())
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocols::crosstalk::parse_all;
    use crate::transport::email::{EmailError, build};

    const REPLY: &str = "[[CHATGPT→CLAUDE v1]]\nthread: 01J9J3D3M6A4M3WQX8G1ZQ0S7K\nparent: 01J9J3DBC4N7P2Q3R5S7T9W1V2\nmessage: 01J9J3DF8WQ0R2T4V6X8Z0B2D4\ncontext: api-design\nintent: RESPOND\nbody: |\n  Cursor.\nsig: none\n[[END]]\n";

    #[test]
    fn a_crosstalk_reply_threads_under_its_parent() {
        let env = parse_all(REPLY).remove(0).envelope;
        let mail = crosstalk_mail(&env);
        assert_eq!(mail.subject, "[AI Crosstalk] api-design - RESPOND");
        assert_eq!(
            mail.in_reply_to.as_deref(),
            Some("<01J9J3DBC4N7P2Q3R5S7T9W1V2@aiproto.invalid>")
        );
        assert!(mail.body.contains("\nmeta: email\nMessage-ID: <01J9J3DF8WQ0R2T4V6X8Z0B2D4@aiproto.invalid>\nIn-Reply-To: <01J9J3DBC4N7P2Q3R5S7T9W1V2@aiproto.invalid>\n"), "{}", mail.body);
        let eml = String::from_utf8(
            build(&mail, "relay@example.com", "kalle@example.com")
                .unwrap()
                .formatted(),
        )
        .unwrap();
        assert!(
            eml.contains("Subject: [AI Crosstalk] api-design - RESPOND\r\n"),
            "{eml}"
        );
        assert!(
            eml.contains("In-Reply-To: <01J9J3DBC4N7P2Q3R5S7T9W1V2@aiproto.invalid>\r\n"),
            "{eml}"
        );
        assert!(eml.contains("Content-Transfer-Encoding: 8bit\r\n"), "{eml}");
        assert!(eml.contains("[[CHATGPT→CLAUDE v1]]"), "{eml}");
    }

    #[test]
    fn bad_addresses_are_named() {
        let json = serde_json::json!({"message_type": "HSP::Fact_v1.0"});
        let mail = json_mail("hsp", &json, &json.to_string());
        assert_eq!(mail.subject, "[HSP] HSP::Fact_v1.0");
        assert!(matches!(
            build(&mail, "a@b.c", "not an address"),
            Err(EmailError::Address(_))
        ));
    }
}
