//! Who may drive the desk: a request must name this server by its address
//! (no DNS rebinding), and an API call must carry the session cookie the
//! page got for the token of the printed URL, and come from the page's own
//! origin (no other local user, no other web page in the same browser).
//!
//! The token is used once: the page exchanges it (`POST /api/login`) for
//! an HttpOnly, SameSite=Strict cookie, and the URL stops working, so the
//! copy a browser keeps in its history opens nothing.

use std::net::{IpAddr, SocketAddr};

use crate::transport::bearer::{random_secret, same_bytes};
use crate::transport::http_conn::Request;

/// The header the login call carries the token in.
pub const TOKEN_HEADER: &str = "X-Aiproto-Token";

/// The name of the session cookie.
pub const COOKIE: &str = "aiproto_desk";

/// The token, whether it was used, the sessions it opened, and the port
/// the desk answers on.
pub struct Guard {
    token: String,
    port: u16,
    used: std::sync::atomic::AtomicBool,
    sessions: std::sync::Mutex<Vec<String>>,
}

impl Guard {
    /// A fresh token of 256 random bits.
    pub fn new(port: u16) -> anyhow::Result<Guard> {
        Ok(Guard {
            token: random_secret()?,
            port,
            used: std::sync::atomic::AtomicBool::new(false),
            sessions: std::sync::Mutex::default(),
        })
    }

    /// `POST /api/login`: the URL's token, the first time it comes, opens a
    /// session; the answer is the `Set-Cookie` value. A second use is
    /// refused (the URL a browser's history keeps opens nothing).
    pub fn login(&self, request: &Request) -> Result<String, String> {
        self.check_origin(request)?;
        let Some(given) = request.header(TOKEN_HEADER) else {
            return Err(format!(
                "no {TOKEN_HEADER} header: open the URL `aiproto desk` printed"
            ));
        };
        if !same_bytes(given.as_bytes(), self.token.as_bytes()) {
            return Err("wrong token: open the URL `aiproto desk` printed".into());
        }
        if self.used.swap(true, std::sync::atomic::Ordering::SeqCst) {
            return Err(
                "this desk's address was used already: go back to the tab that opened it, or restart `aiproto desk` for a new one"
                    .into(),
            );
        }
        let session = random_secret().map_err(|e| e.to_string())?;
        self.sessions
            .lock()
            .map_err(|_| "the desk's sessions were poisoned".to_string())?
            .push(session.clone());
        Ok(format!(
            "{COOKIE}={session}; HttpOnly; SameSite=Strict; Path=/"
        ))
    }

    /// The page's URL: the token rides in the fragment, which browsers
    /// never send to a server or in a Referer.
    pub fn url(&self, address: SocketAddr) -> String {
        let host = match address.ip() {
            ip if ip.is_unspecified() => "127.0.0.1".to_string(),
            IpAddr::V6(ip) => format!("[{ip}]"),
            IpAddr::V4(ip) => ip.to_string(),
        };
        format!("http://{host}:{}/#token={}", self.port, self.token)
    }

    /// The `Host` header must be an IP address or `localhost`, with this
    /// desk's port: a page reached through another name (DNS rebinding)
    /// is refused.
    pub fn check_host(&self, request: &Request) -> Result<(), String> {
        let host = request
            .header("Host")
            .ok_or("the request has no Host header")?;
        if self.is_own_host(host) {
            Ok(())
        } else {
            Err(format!(
                "Host `{host}` is not this desk (open it as http://127.0.0.1:{}/)",
                self.port
            ))
        }
    }

    fn is_own_host(&self, host: &str) -> bool {
        let Some((name, port)) = host.rsplit_once(':') else {
            return false;
        };
        if port.parse::<u16>() != Ok(self.port) {
            return false;
        }
        let name = name
            .strip_prefix('[')
            .and_then(|n| n.strip_suffix(']'))
            .unwrap_or(name);
        name.eq_ignore_ascii_case("localhost") || name.parse::<IpAddr>().is_ok()
    }

    /// An API call needs a session cookie of this desk, and, when a
    /// browser says where the call comes from (`Origin`), this desk's own
    /// origin.
    pub fn check_api(&self, request: &Request) -> Result<(), String> {
        let session = request.header("Cookie").and_then(|cookies| {
            cookies
                .split(';')
                .filter_map(|c| c.trim().split_once('='))
                .find(|(name, _)| *name == COOKIE)
                .map(|(_, value)| value.to_string())
        });
        let Some(session) = session else {
            return Err("no session: open the URL `aiproto desk` printed".into());
        };
        let known = self
            .sessions
            .lock()
            .map_err(|_| "the desk's sessions were poisoned".to_string())?
            .iter()
            .any(|s| same_bytes(s.as_bytes(), session.as_bytes()));
        if !known {
            return Err("an unknown session: open the URL `aiproto desk` printed".into());
        }
        self.check_origin(request)
    }

    /// A call from another origin or site is refused.
    fn check_origin(&self, request: &Request) -> Result<(), String> {
        if let Some(origin) = request.header("Origin") {
            let host = request.header("Host").unwrap_or_default();
            if origin != format!("http://{host}") {
                return Err(format!("calls from {origin} are refused"));
            }
        }
        if request
            .header("Sec-Fetch-Site")
            .is_some_and(|site| site != "same-origin" && site != "none")
        {
            return Err("calls from other sites are refused".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guard() -> Guard {
        Guard {
            token: "secret".into(),
            port: 4000,
            used: Default::default(),
            sessions: Default::default(),
        }
    }

    #[test]
    fn hosts_are_addresses_or_localhost_with_the_port() {
        let g = guard();
        for ok in [
            "127.0.0.1:4000",
            "localhost:4000",
            "[::1]:4000",
            "LOCALHOST:4000",
        ] {
            assert!(g.is_own_host(ok), "{ok}");
        }
        for bad in [
            "127.0.0.1:4001",
            "evil.example:4000",
            "127.0.0.1",
            "127.0.0.1.nip.io:4000",
            "",
        ] {
            assert!(!g.is_own_host(bad), "{bad}");
        }
    }

    #[test]
    fn the_url_carries_the_token_in_its_fragment() {
        let g = guard();
        let url = g.url("0.0.0.0:4000".parse().unwrap());
        assert_eq!(url, "http://127.0.0.1:4000/#token=secret");
        assert_eq!(
            g.url("[::1]:4000".parse().unwrap()),
            "http://[::1]:4000/#token=secret"
        );
    }
}
