//! HTTP client side: POST a message to a URL and return the reply.

use std::time::Duration;

use super::TransportError;

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
