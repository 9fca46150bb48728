//! HTTP client side: POST a message to a URL and return the reply.

use std::time::Duration;

use super::{Ended, Listen, OnArrival, Outgoing, Transport, TransportError};

/// `http://…` or `https://…`: each message POSTed on its own.
pub struct HttpTransport {
    pub url: String,
}

impl Transport for HttpTransport {
    /// POSTs each message (`text/plain; charset=utf-8` for a Crosstalk
    /// envelope, else `application/json`) and hands on the reply. A non-2xx
    /// reply is shown too (the peer's ERROR envelope says why), then it fails.
    fn send(
        &mut self,
        messages: &[Outgoing<'_>],
        on_reply: &mut dyn FnMut(&str) -> std::io::Result<()>,
    ) -> Result<(), TransportError> {
        let shown = |e| TransportError::Io {
            path: "<stdout>".into(),
            source: e,
        };
        for message in messages {
            let content_type = if message.is_envelope() {
                "text/plain; charset=utf-8"
            } else {
                "application/json"
            };
            let (status, reply) = post(&self.url, &message.text, content_type)?;
            on_reply(&reply).map_err(shown)?;
            if !(200..300).contains(&status) {
                return Err(TransportError::Status {
                    url: self.url.clone(),
                    status,
                    reply,
                });
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
            self.url.clone(),
            ": an HTTP URL is sent to; `aiproto serve --listen ADDR:PORT` receives",
        ))
    }
}

/// POSTs `body`; returns the status and the reply body (non-2xx included).
pub fn post(url: &str, body: &str, content_type: &str) -> Result<(u16, String), TransportError> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(30)))
        .build()
        .into();
    let mut response = agent
        .post(url)
        .header("Content-Type", content_type)
        .send(body)
        .map_err(|e| TransportError::Http {
            url: url.to_string(),
            why: e.to_string(),
        })?;
    let status = response.status().as_u16();
    let text = response
        .body_mut()
        .with_config()
        .limit(16 * 1024 * 1024)
        .read_to_string()
        .map_err(|e| TransportError::Http {
            url: url.to_string(),
            why: format!("reading the reply: {e}"),
        })?;
    Ok((status, text))
}
