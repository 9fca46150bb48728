//! Moving messages to a destination named by a URI: `file:PATH` (append to
//! a .crosstalk or .jsonl file), `http(s)://…` (POST; `serve` is the other
//! side), `mqtt://…`, `clipboard` and `-` (stdout).

pub mod clipboard;
pub mod email;
pub mod file;
pub mod http;
pub mod mqtt;
pub mod server;

use std::io::Write;
use std::path::PathBuf;

/// A destination for `send`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Destination {
    Stdout,
    File(PathBuf),
    /// An `http://` or `https://` URL the message is POSTed to.
    Http(String),
    /// An MQTT broker (and topic) messages are published to.
    Mqtt(mqtt::MqttUri),
    /// The system clipboard: all messages at once, ready to paste.
    Clipboard,
    /// A mailbox (`email:ADDRESS`): see [`email`]; `send` writes or sends the mails.
    Email(String),
}

/// Why a destination could not be used.
#[derive(Debug, thiserror::Error)]
pub enum TransportError {
    #[error(
        "unknown destination `{0}`: this version sends to file:PATH, http(s)://…, mqtt://…, clipboard, email:ADDRESS or - (stdout)"
    )]
    Unsupported(String),
    #[error("{url}: {why}")]
    Http { url: String, why: String },
    #[error("{url} answered HTTP {status}")]
    Status {
        url: String,
        status: u16,
        reply: String,
    },
    #[error(transparent)]
    Clipboard(#[from] clipboard::ClipboardError),
    #[error(transparent)]
    Email(#[from] email::EmailError),
    #[error("email:{0}: give --out FILE.eml to write the mail, or --smtp URL to send it")]
    EmailHow(String),
    #[error("cannot write to {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

impl std::str::FromStr for Destination {
    type Err = TransportError;

    fn from_str(uri: &str) -> Result<Self, Self::Err> {
        if uri == "-" || uri == "stdout:" {
            return Ok(Destination::Stdout);
        }
        if uri == "clipboard" || uri == "clipboard:" {
            return Ok(Destination::Clipboard);
        }
        if let Some(address) = uri.strip_prefix("email:").filter(|a| a.contains('@')) {
            return Ok(Destination::Email(address.to_string()));
        }
        if uri.starts_with("http://") || uri.starts_with("https://") {
            return Ok(Destination::Http(uri.to_string()));
        }
        if uri.starts_with("mqtt://") {
            return mqtt::MqttUri::parse(uri)
                .map(Destination::Mqtt)
                .map_err(|why| TransportError::Http {
                    url: uri.to_string(),
                    why,
                });
        }
        match uri
            .strip_prefix("file://")
            .or_else(|| uri.strip_prefix("file:"))
        {
            Some(path) if !path.is_empty() => Ok(Destination::File(PathBuf::from(path))),
            _ => Err(TransportError::Unsupported(uri.to_string())),
        }
    }
}

/// Rendered messages as one text: Crosstalk envelopes with a blank line
/// between them, JSON messages one per line.
pub fn join_messages(texts: &[String]) -> String {
    let mut out = String::with_capacity(texts.iter().map(|t| t.len() + 1).sum());
    for (i, text) in texts.iter().enumerate() {
        if i > 0 && text.starts_with("[[") {
            out.push('\n');
        }
        out.push_str(text);
    }
    out
}

impl Destination {
    /// Delivers one rendered message; `text_envelope` says it is Crosstalk
    /// (a blank line between envelopes in a file; `text/plain` over HTTP,
    /// else `application/json`). Returns the reply of an HTTP peer.
    pub fn send(&self, text: &str, text_envelope: bool) -> Result<Option<String>, TransportError> {
        let blank_line = text_envelope;
        match self {
            Destination::Clipboard => clipboard::copy(text).map(|()| None).map_err(Into::into),
            // A mail needs more than the text (From, --out or --smtp): `send` writes it.
            Destination::Email(address) => Err(TransportError::EmailHow(address.clone())),
            Destination::Mqtt(uri) => {
                let topic = uri.topic.clone().ok_or_else(|| TransportError::Http {
                    url: "mqtt".into(),
                    why: "give the topic in the URI: mqtt://host/topic".into(),
                })?;
                mqtt::publish(
                    uri,
                    vec![(topic, text.as_bytes().to_vec())],
                    1,
                    false,
                    std::time::Duration::from_secs(30),
                )
                .map(|()| None)
            }
            Destination::Http(url) => {
                let content_type = if text_envelope {
                    "text/plain; charset=utf-8"
                } else {
                    "application/json"
                };
                let (status, reply) = http::post(url, text, content_type)?;
                if (200..300).contains(&status) {
                    Ok(Some(reply))
                } else {
                    Err(TransportError::Status {
                        url: url.clone(),
                        status,
                        reply,
                    })
                }
            }
            Destination::Stdout => std::io::stdout()
                .lock()
                .write_all(text.as_bytes())
                .map(|()| None)
                .map_err(|source| TransportError::Io {
                    path: "<stdout>".into(),
                    source,
                }),
            Destination::File(path) => {
                file::append(path, text, blank_line)
                    .map(|()| None)
                    .map_err(|source| TransportError::Io {
                        path: path.display().to_string(),
                        source,
                    })
            }
        }
    }
}
