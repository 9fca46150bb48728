//! Email (`email:ADDRESS`): one RFC 5322 message per protocol message, the
//! message itself as the body — for Crosstalk with the Subject
//! `[AI Crosstalk] <context> - <intent>` — written to a `.eml` file or sent
//! over SMTP. Message-IDs come from the message ids, so a reply's
//! `In-Reply-To` names its parent and mail clients thread the conversation.

use std::time::SystemTime;

use lettre::message::Body;
use lettre::message::header::{ContentTransferEncoding, ContentType, MIME_VERSION_1_0};
use lettre::{Message, SmtpTransport, Transport as _};
use serde_json::Value;

use super::{Ended, Listen, OnArrival, Outgoing, Transport, TransportError};
use crate::protocols::Value as Parsed;
use crate::protocols::crosstalk::{self, Envelope};

/// The right-hand side of the Message-IDs aiproto writes.
const ID_DOMAIN: &str = "aiproto.invalid";

/// Why a mail could not be written or sent.
#[derive(Debug, thiserror::Error)]
pub enum EmailError {
    #[error("`{0}` is not an email address")]
    Address(String),
    #[error("cannot build the mail: {0}")]
    Build(String),
    #[error("SMTP {url}: {why}")]
    Smtp { url: String, why: String },
}

/// How mails leave: written to a file, or sent over SMTP.
#[derive(Debug, Clone, Default)]
pub struct Delivery {
    /// Write the (one) mail to this `.eml` file.
    pub out: Option<std::path::PathBuf>,
    /// Send over SMTP: `smtp://…`, `smtps://…`.
    pub smtp: Option<String>,
    /// The From address; by default the sender when it is an `email:`
    /// address, else `aiproto@localhost`.
    pub from: Option<String>,
}

/// `email:ADDRESS`.
pub struct EmailTransport {
    pub address: String,
    pub delivery: Delivery,
}

impl Transport for EmailTransport {
    fn send(
        &mut self,
        messages: &[Outgoing<'_>],
        _on_reply: &mut dyn FnMut(&str) -> std::io::Result<()>,
    ) -> Result<(), TransportError> {
        let Delivery { out, smtp, from } = &self.delivery;
        if out.is_none() && smtp.is_none() {
            return Err(TransportError::EmailHow(self.address.clone()));
        }
        if out.is_some() && messages.len() != 1 {
            return Err(TransportError::EmailOneFile(messages.len()));
        }
        for message in messages {
            let (mail, sender) = match &message.found.value {
                Parsed::Crosstalk(p) => (
                    crosstalk_mail(&p.envelope),
                    p.envelope.sender.strip_prefix("email:").map(str::to_string),
                ),
                Parsed::Hsp(Some(m)) => (json_mail("hsp", &m.json), None),
                Parsed::Csdl(Some(d)) => (json_mail("csdl", &d.json), None),
                Parsed::Msp(Some(d)) => (json_mail("msp", &d.json), None),
                _ => continue,
            };
            let from = from
                .clone()
                .or(sender)
                .unwrap_or_else(|| "aiproto@localhost".into());
            let built = build(&mail, &from, &self.address)?;
            if let Some(path) = out {
                std::fs::write(path, built.formatted()).map_err(|source| TransportError::Io {
                    path: path.display().to_string(),
                    source,
                })?;
            } else if let Some(url) = smtp {
                send(&built, url)?;
            }
        }
        Ok(())
    }

    fn receive(
        &mut self,
        _listen: &Listen,
        _on_arrival: &mut OnArrival<'_>,
    ) -> Result<Ended, TransportError> {
        Err(TransportError::CannotReceive(
            format!("email:{}", self.address),
            ": save the mail and read it with file:PATH",
        ))
    }
}

/// What a mail says, before it is built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mail {
    pub subject: String,
    pub message_id: Option<String>,
    pub in_reply_to: Option<String>,
    pub body: String,
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
/// from `message_id` / `correlation_id` (or `trace_id` / `parent_id`).
pub fn json_mail(protocol: &str, json: &Value) -> Mail {
    let text = |k: &str| json.get(k).and_then(Value::as_str);
    let what = text("message_type")
        .or_else(|| text("intent"))
        .or_else(|| text("t"))
        .unwrap_or("message");
    Mail {
        subject: format!("[{}] {what}", protocol.to_uppercase()),
        message_id: text("message_id").or_else(|| text("trace_id")).map(mail_id),
        in_reply_to: text("correlation_id")
            .or_else(|| text("parent_id"))
            .map(mail_id),
        body: format!(
            "{}\n",
            serde_json::to_string_pretty(json).unwrap_or_default()
        ),
    }
}

/// Builds the RFC 5322 message.
pub fn build(mail: &Mail, from: &str, to: &str) -> Result<Message, EmailError> {
    let mailbox = |a: &str| a.parse().map_err(|_| EmailError::Address(a.to_string()));
    let mut builder = Message::builder()
        .from(mailbox(from)?)
        .to(mailbox(to)?)
        .subject(mail.subject.clone())
        .date(SystemTime::now())
        .message_id(mail.message_id.clone())
        .header(MIME_VERSION_1_0)
        .header(ContentType::TEXT_PLAIN);
    if let Some(parent) = &mail.in_reply_to {
        builder = builder
            .in_reply_to(parent.clone())
            .references(parent.clone());
    }
    // 8bit keeps the envelope readable (and parseable) in the raw mail; a
    // line over 998 bytes needs an encoding, which lettre then picks.
    let body = Body::new_with_encoding(mail.body.clone(), ContentTransferEncoding::EightBit)
        .unwrap_or_else(|_| Body::new(mail.body.clone()));
    builder
        .body(body)
        .map_err(|e| EmailError::Build(e.to_string()))
}

/// Sends a built message over SMTP (`smtp://host:port`, `smtps://…`,
/// `smtp://…?tls=required`; user and password in the URL).
pub fn send(message: &Message, url: &str) -> Result<(), EmailError> {
    let smtp = |why: String| EmailError::Smtp {
        url: url.to_string(),
        why,
    };
    let transport = SmtpTransport::from_url(url)
        .map_err(|e| smtp(e.to_string()))?
        .timeout(Some(std::time::Duration::from_secs(30)))
        .build();
    transport
        .send(message)
        .map(|_| ())
        .map_err(|e| smtp(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocols::crosstalk::parse_all;

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
        let mail = json_mail(
            "hsp",
            &serde_json::json!({"message_type": "HSP::Fact_v1.0"}),
        );
        assert_eq!(mail.subject, "[HSP] HSP::Fact_v1.0");
        assert!(matches!(
            build(&mail, "a@b.c", "not an address"),
            Err(EmailError::Address(_))
        ));
    }
}
