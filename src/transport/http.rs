//! HTTP: sending POSTs each message to a URL and hands on the reply;
//! receiving runs the server of [`super::server`] on the URL's address.

use std::time::Duration;

use crate::protocols::Protocol;

use super::{Arrival, Ended, Listen, OnArrival, Outgoing, Transport, TransportError, server};

/// `http://…` or `https://…`: each message POSTed on its own; receiving
/// listens on the URL's address.
pub struct HttpTransport {
    pub url: String,
    /// How the server behaves when receiving.
    pub serve: server::ServeOptions,
}

impl Transport for HttpTransport {
    /// POSTs each message (`text/plain; charset=utf-8` for a Crosstalk
    /// envelope, else `application/json`) and hands on the reply. A non-2xx
    /// reply is shown too (the peer's ERROR envelope says why), then it fails.
    /// A URL without a path gets the route of the message's protocol
    /// (see [`route_of`]).
    fn send(
        &mut self,
        messages: &[Outgoing<'_>],
        on_reply: &mut dyn FnMut(&str) -> std::io::Result<()>,
    ) -> Result<(), TransportError> {
        let shown = |e| TransportError::Io {
            path: "<stdout>".into(),
            source: e,
        };
        // Every message's URL first: none is sent when one has no route.
        let urls = messages
            .iter()
            .map(|m| url_for(&self.url, m.found.protocol))
            .collect::<Result<Vec<_>, _>>()?;
        for (message, url) in messages.iter().zip(urls) {
            let content_type = if message.is_envelope() {
                "text/plain; charset=utf-8"
            } else {
                "application/json"
            };
            let (status, reply) = post(&url, &message.text, content_type)?;
            on_reply(&reply).map_err(shown)?;
            if !(200..300).contains(&status) {
                return Err(TransportError::Status { url, status, reply });
            }
        }
        Ok(())
    }

    /// Listens on the URL's address (as `aiproto serve` does: POST
    /// /crosstalk/receive or /hsp, each valid message answered with its ACK)
    /// and hands on each message POSTed.
    fn receive(
        &mut self,
        listen: &Listen,
        on_arrival: &mut OnArrival<'_>,
    ) -> Result<Ended, TransportError> {
        let Some(address) = self.url.strip_prefix("http://") else {
            return Err(TransportError::CannotReceive(
                self.url.clone(),
                ": aiproto listens on http:// only (put a TLS proxy in front)",
            ));
        };
        let address = address.split('/').next().unwrap_or_default().to_string();
        let until = server::Until {
            stop: std::sync::Arc::clone(&listen.stop),
            deadline: listen.timeout.map(|t| std::time::Instant::now() + t),
        };
        let quiet = listen.quiet;
        let served = server::serve(
            &address,
            &self.serve,
            &until,
            !quiet,
            |addr| {
                if !quiet {
                    eprintln!(
                        "aiproto: listening on http://{addr} (POST /crosstalk/receive, /hsp)"
                    );
                }
            },
            &mut |_found, text| {
                let origin = format!("http://{address}");
                let answer = on_arrival(Arrival {
                    origin: &origin,
                    topic: None,
                    text,
                    snapshot: false,
                })?;
                Ok(answer.stop)
            },
        );
        match served {
            Ok(server::Served::Stopped) if listen.is_stopped() => Ok(Ended::Interrupted),
            Ok(server::Served::Stopped) => Ok(Ended::Stopped),
            Ok(server::Served::Timeout) => Ok(Ended::Timeout),
            Err(e) => match e.downcast::<std::io::Error>() {
                Ok(io) => Err(TransportError::Peer {
                    url: self.url.clone(),
                    why: io.to_string(),
                }),
                Err(e) => Err(TransportError::Handler(e)),
            },
        }
    }
}

/// The path the HTTP binding gives a protocol's messages (the one
/// `aiproto serve` answers on), if it has one.
pub fn route_of(protocol: Protocol) -> Option<&'static str> {
    match protocol {
        Protocol::Crosstalk => Some("/crosstalk/receive"),
        Protocol::Hsp => Some("/hsp"),
        Protocol::Csdl | Protocol::Msp => None,
    }
}

/// `url` as given when it has a path; else `url` with the route of the
/// message's protocol, so `--via http://host:port` reaches `aiproto serve`.
fn url_for(url: &str, protocol: Protocol) -> Result<String, TransportError> {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let has_path = rest.find('/').is_some_and(|at| rest.len() > at + 1);
    if has_path {
        return Ok(url.to_string());
    }
    match route_of(protocol) {
        Some(route) => Ok(format!("{}{route}", url.trim_end_matches('/'))),
        None => Err(TransportError::Peer {
            url: url.to_string(),
            why: format!(
                "the HTTP binding has no route for {} messages: give the URL's path \
                 (or convert the message to crosstalk or hsp first)",
                protocol.name()
            ),
        }),
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
        .map_err(|e| TransportError::Peer {
            url: url.to_string(),
            why: e.to_string(),
        })?;
    let status = response.status().as_u16();
    let text = response
        .body_mut()
        .with_config()
        .limit(16 * 1024 * 1024)
        .read_to_string()
        .map_err(|e| TransportError::Peer {
            url: url.to_string(),
            why: format!("reading the reply: {e}"),
        })?;
    Ok((status, text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_without_a_path_gets_the_route_of_the_protocol() {
        let url = |u, p| url_for(u, p).unwrap();
        assert_eq!(
            url("http://127.0.0.1:8080", Protocol::Crosstalk),
            "http://127.0.0.1:8080/crosstalk/receive"
        );
        assert_eq!(
            url("http://127.0.0.1:8080/", Protocol::Hsp),
            "http://127.0.0.1:8080/hsp"
        );
        assert_eq!(
            url("https://peer.example/in", Protocol::Hsp),
            "https://peer.example/in"
        );
        let csdl = url_for("http://127.0.0.1:8080", Protocol::Csdl).unwrap_err();
        assert!(csdl.to_string().contains("no route for csdl"), "{csdl}");
        assert_eq!(
            url("http://127.0.0.1:8080/anything", Protocol::Csdl),
            "http://127.0.0.1:8080/anything"
        );
    }
}
