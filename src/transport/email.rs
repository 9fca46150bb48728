//! Email (`email:ADDRESS`): one RFC 5322 message per payload, written to
//! a `.eml` file or sent over SMTP. What a mail says — its Subject,
//! Message-ID, In-Reply-To and body — comes with the payload's routing
//! (the delivery layer words it from the message; see `delivery::mail`).

use std::time::SystemTime;

use lettre::message::Body;
use lettre::message::header::{ContentTransferEncoding, ContentType, MIME_VERSION_1_0};
use lettre::{Message, SmtpTransport, Transport as _};

use super::{Ended, Listen, OnArrival, Outgoing, Transport, TransportError};

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
        messages: &[Outgoing],
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
            let plain;
            let mail = match &message.routing.mail {
                Some(mail) => mail,
                None => {
                    plain = Mail::plain(&message.text);
                    &plain
                }
            };
            let from = from
                .clone()
                .or_else(|| mail.sender.clone())
                .unwrap_or_else(|| "aiproto@localhost".into());
            let built = build(mail, &from, &self.address)?;
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
    /// `<id@domain>`, angle brackets included.
    pub message_id: Option<String>,
    pub in_reply_to: Option<String>,
    pub body: String,
    /// The From address when the message names one (its sender is an
    /// `email:` address); `Delivery::from` comes first.
    pub sender: Option<String>,
}

impl Mail {
    /// A payload no one worded a mail for: a generic subject, the text as body.
    pub fn plain(text: &str) -> Mail {
        Mail {
            subject: "[aiproto] message".into(),
            message_id: None,
            in_reply_to: None,
            body: text.to_string(),
            sender: None,
        }
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
    // 8bit keeps the envelope readable in the raw mail, a signature line
    // whole: RFC 5322 allows lines up to 998 bytes (lettre would pick
    // quoted-printable past 76, splitting the `sig:` line). A longer line,
    // or a bare CR, needs an encoding, which lettre then picks; aiproto's
    // readers decode it either way.
    let eight_bit = !mail.body.contains('\r') && mail.body.lines().all(|l| l.len() <= 998);
    let body = if eight_bit {
        let mut crlf = mail.body.replace('\n', "\r\n");
        if !crlf.ends_with("\r\n") {
            crlf.push_str("\r\n");
        }
        Body::dangerous_pre_encoded(crlf.into_bytes(), ContentTransferEncoding::EightBit)
    } else {
        Body::new(mail.body.clone())
    };
    builder
        .body(body)
        .map_err(|e| EmailError::Build(e.to_string()))
}

/// Sends a built message over SMTP (`smtp://host:port`, `smtps://…`,
/// `smtp://…?tls=required`; user and password from the URL, else the
/// environment or the credentials file: see [`super::secrets`]).
pub fn send(message: &Message, url: &str) -> Result<(), EmailError> {
    let smtp = |why: String| EmailError::Smtp {
        url: super::secrets::redact(url),
        why: why.replace(url, &super::secrets::redact(url)),
    };
    let mut builder = SmtpTransport::from_url(url)
        .map_err(|e| smtp(e.to_string()))?
        .timeout(Some(std::time::Duration::from_secs(30)));
    if let Some((host, false)) = super::secrets::host_of(url)
        && let Some(c) = super::secrets::for_host(&host).map_err(smtp)?
    {
        builder = builder.credentials(lettre::transport::smtp::authentication::Credentials::new(
            c.user, c.password,
        ));
    }
    let transport = builder.build();
    transport
        .send(message)
        .map(|_| ())
        .map_err(|e| smtp(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mail() -> Mail {
        Mail {
            subject: "[AI Crosstalk] api-design - RESPOND".into(),
            message_id: Some("<01J9J3DF8WQ0R2T4V6X8Z0B2D4@aiproto.invalid>".into()),
            in_reply_to: Some("<01J9J3DBC4N7P2Q3R5S7T9W1V2@aiproto.invalid>".into()),
            body: "[[CHATGPT→CLAUDE v1]]\nintent: RESPOND\n[[END]]\n".into(),
            sender: None,
        }
    }

    #[test]
    fn a_mail_threads_under_its_parent() {
        let eml = String::from_utf8(
            build(&mail(), "relay@example.com", "kalle@example.com")
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
        assert!(
            eml.contains("Message-ID: <01J9J3DF8WQ0R2T4V6X8Z0B2D4@aiproto.invalid>\r\n"),
            "{eml}"
        );
        assert!(eml.contains("Content-Transfer-Encoding: 8bit\r\n"), "{eml}");
        assert!(eml.contains("[[CHATGPT→CLAUDE v1]]"), "{eml}");
    }

    #[test]
    fn bad_addresses_are_named() {
        assert!(matches!(
            build(&mail(), "a@b.c", "not an address"),
            Err(EmailError::Address(_))
        ));
    }
}
