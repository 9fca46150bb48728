//! HTTP: sending POSTs each message to a URL and hands on the reply;
//! receiving runs the server of [`super::server`] on the URL's address.

use std::time::Duration;

use super::{
    Arrival, Ended, Listen, OnArrival, Outgoing, Routing, Transport, TransportError, server,
};

/// `http://…` or `https://…`: each message POSTed on its own; receiving
/// listens on the URL's address.
pub struct HttpTransport {
    pub url: String,
    /// How the server behaves when receiving.
    pub serve: server::ServeOptions,
}

impl Transport for HttpTransport {
    /// POSTs each message with its content type and hands on the reply. A
    /// non-2xx reply is shown too (the peer's ERROR envelope says why), then
    /// it fails. A URL without a path gets the message's `http_path`.
    fn send(
        &mut self,
        messages: &[Outgoing],
        on_reply: &mut dyn FnMut(&str) -> std::io::Result<()>,
    ) -> Result<(), TransportError> {
        let shown = |e| TransportError::Io {
            path: "<stdout>".into(),
            source: e,
        };
        // Every message's URL first: none is sent when one has no route.
        let urls = messages
            .iter()
            .map(|m| url_for(&self.url, &m.routing))
            .collect::<Result<Vec<_>, _>>()?;
        for (message, url) in messages.iter().zip(urls) {
            let (status, reply) = post(&url, &message.text, message.content_type())?;
            on_reply(&reply).map_err(shown)?;
            if !(200..300).contains(&status) {
                return Err(TransportError::Status {
                    url: super::secrets::redact(&url),
                    status,
                    reply,
                });
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
        let routes = match self.serve.exchange.routes() {
            [] => "to any path".to_string(),
            paths => paths.join(", "),
        };
        let served = server::serve(
            &address,
            &self.serve,
            &until,
            !quiet,
            |addr| {
                if !quiet {
                    eprintln!("aiproto: listening on http://{addr} (POST {routes})");
                }
            },
            &mut |text| {
                let origin = format!("http://{address}");
                let answer = on_arrival(Arrival {
                    origin: &origin,
                    topic: None,
                    text,
                    snapshot: false,
                    properties: None,
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

/// `url` as given when it has a path; else `url` with the message's
/// `http_path`, so `--via http://host:port` reaches `aiproto serve`.
fn url_for(url: &str, routing: &Routing) -> Result<String, TransportError> {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let has_path = rest.find('/').is_some_and(|at| rest.len() > at + 1);
    if has_path {
        return Ok(url.to_string());
    }
    match routing.http_path {
        Some(route) => Ok(format!("{}{route}", url.trim_end_matches('/'))),
        None => Err(TransportError::Peer {
            url: url.to_string(),
            why: format!(
                "the HTTP binding has no route for {} messages: give the URL's path \
                 (or convert the message to crosstalk or hsp first)",
                routing.kind
            ),
        }),
    }
}

/// POSTs `body`; returns the status and the reply body (non-2xx included).
pub fn post(url: &str, body: &str, content_type: &str) -> Result<(u16, String), TransportError> {
    post_bytes(url, body.as_bytes(), content_type, Duration::from_secs(30))
}

/// POSTs `body` as it is (bytes that need not be UTF-8), waiting at most
/// `timeout` for the whole exchange; the reply is read as UTF-8, lossily.
pub fn post_bytes(
    url: &str,
    body: &[u8],
    content_type: &str,
    timeout: Duration,
) -> Result<(u16, String), TransportError> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(timeout))
        .build()
        .into();
    let shown = super::secrets::redact(url);
    let mut request = agent.post(url).header("Content-Type", content_type);
    if let Some((host, false)) = super::secrets::host_of(url)
        && let Some(c) = super::secrets::for_host(&host).map_err(TransportError::Credentials)?
    {
        use base64::Engine;
        let pair =
            base64::engine::general_purpose::STANDARD.encode(format!("{}:{}", c.user, c.password));
        request = request.header("Authorization", format!("Basic {pair}"));
    }
    let mut response = request.send(body).map_err(|e| TransportError::Peer {
        url: shown.clone(),
        why: e.to_string().replace(url, &shown),
    })?;
    let status = response.status().as_u16();
    let bytes = response
        .body_mut()
        .with_config()
        .limit(16 * 1024 * 1024)
        .read_to_vec()
        .map_err(|e| TransportError::Peer {
            url: shown.clone(),
            why: format!("reading the reply: {e}"),
        })?;
    Ok((status, String::from_utf8_lossy(&bytes).into_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_without_a_path_gets_the_routing_path() {
        let to = |path| Routing {
            kind: "crosstalk",
            http_path: path,
            ..Routing::default()
        };
        let url = |u, r| url_for(u, &r).unwrap();
        assert_eq!(
            url("http://127.0.0.1:8080", to(Some("/crosstalk/receive"))),
            "http://127.0.0.1:8080/crosstalk/receive"
        );
        assert_eq!(
            url("http://127.0.0.1:8080/", to(Some("/hsp"))),
            "http://127.0.0.1:8080/hsp"
        );
        assert_eq!(
            url("https://peer.example/in", to(Some("/hsp"))),
            "https://peer.example/in"
        );
        let csdl = Routing {
            kind: "csdl",
            ..Routing::default()
        };
        let refused = url_for("http://127.0.0.1:8080", &csdl).unwrap_err();
        assert!(
            refused.to_string().contains("no route for csdl"),
            "{refused}"
        );
        assert_eq!(
            url("http://127.0.0.1:8080/anything", csdl),
            "http://127.0.0.1:8080/anything"
        );
    }
}
