//! One HTTP/1.1 request on one connection, read under deadlines: the
//! receiving server's wire layer. Headers are parsed by `httparse` (the
//! parser hyper uses); bodies need a `Content-Length`; each connection
//! carries one request and is closed after the answer. Every read has a
//! deadline, so a client that stalls costs its own connection only.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// The most header bytes read before the request is refused.
const MAX_HEAD: usize = 64 * 1024;

/// The least rate, in bytes a second, a body must keep to earn more time
/// than the read timeout: each this many bytes received give one more
/// second (Apache's `mod_reqtimeout` MinRate). A large body sent steadily
/// arrives; a trickle holds its place no longer than the timeout.
pub const MIN_BODY_RATE: u64 = 1000;

/// How many times the read timeout a body may take in all, however fast
/// it keeps coming.
const MAX_BODY_PATIENCE: u32 = 10;

/// When a request's body must have arrived: `timeout` from its start,
/// extended by each [`MIN_BODY_RATE`] bytes received, at most
/// ten times `timeout` in all.
#[derive(Debug, Clone, Copy)]
pub struct BodyDeadline {
    at: Instant,
    ceiling: Instant,
}

impl BodyDeadline {
    pub fn new(start: Instant, timeout: Duration) -> Self {
        BodyDeadline {
            at: start + timeout,
            ceiling: start + timeout * MAX_BODY_PATIENCE,
        }
    }

    /// `bytes` more arrived: more time, up to the ceiling.
    pub fn received(&mut self, bytes: usize) {
        let more = Duration::from_secs_f64(bytes as f64 / MIN_BODY_RATE as f64);
        self.at = (self.at + more).min(self.ceiling);
    }

    pub fn at(&self) -> Instant {
        self.at
    }
}

/// Why no request could be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The client did not send it before the deadline.
    #[error("the client sent nothing more before the deadline")]
    Timeout,
    /// Not HTTP, or a form this server does not read (status to answer, why).
    #[error("{1}")]
    Malformed(u16, String),
    /// The connection failed or closed first.
    #[error("{0}")]
    Io(std::io::Error),
}

/// A request whose head has been read; the body is read on demand.
pub struct Request {
    pub method: String,
    /// The path, without the query string.
    pub path: String,
    /// The headers, names as sent (compare without case: [`Request::header`]).
    pub headers: Vec<(String, String)>,
    stream: TcpStream,
    /// Body bytes that arrived with the head.
    pending: Vec<u8>,
    content_length: Option<usize>,
}

impl Request {
    /// Reads the request line and headers before `deadline`.
    pub fn read_head(mut stream: TcpStream, deadline: Instant) -> Result<Request, ReadError> {
        let mut buf = Vec::with_capacity(1024);
        let mut chunk = [0u8; 4096];
        loop {
            if let Some(end) = find_head_end(&buf) {
                return Request::parse(stream, &buf, end);
            }
            if buf.len() > MAX_HEAD {
                return Err(ReadError::Malformed(
                    431,
                    "the request headers are too large".into(),
                ));
            }
            let n = read_until(&mut stream, &mut chunk, deadline)?;
            if n == 0 {
                return Err(ReadError::Io(std::io::ErrorKind::UnexpectedEof.into()));
            }
            buf.extend_from_slice(&chunk[..n]);
        }
    }

    fn parse(stream: TcpStream, buf: &[u8], end: usize) -> Result<Request, ReadError> {
        let mut headers = [httparse::EMPTY_HEADER; 64];
        let mut parsed = httparse::Request::new(&mut headers);
        match parsed.parse(&buf[..end]) {
            Ok(httparse::Status::Complete(_)) => {}
            Ok(httparse::Status::Partial) => {
                return Err(ReadError::Malformed(400, "incomplete request head".into()));
            }
            Err(e) => {
                return Err(ReadError::Malformed(
                    400,
                    format!("not an HTTP request: {e}"),
                ));
            }
        }
        let header = |name: &str| {
            parsed
                .headers
                .iter()
                .find(|h| h.name.eq_ignore_ascii_case(name))
                .map(|h| String::from_utf8_lossy(h.value).trim().to_string())
        };
        if header("Transfer-Encoding").is_some() {
            return Err(ReadError::Malformed(
                411,
                "send the body with a Content-Length (chunked bodies are not read)".into(),
            ));
        }
        let content_length = match header("Content-Length") {
            None => None,
            Some(v) => Some(v.parse::<usize>().map_err(|_| {
                ReadError::Malformed(400, format!("Content-Length `{v}` is not a number"))
            })?),
        };
        let path = parsed.path.unwrap_or("/");
        let headers = parsed
            .headers
            .iter()
            .map(|h| {
                (
                    h.name.to_string(),
                    String::from_utf8_lossy(h.value).trim().to_string(),
                )
            })
            .collect();
        Ok(Request {
            method: parsed.method.unwrap_or("").to_string(),
            headers,
            path: path.split('?').next().unwrap_or("/").to_string(),
            pending: buf[end..].to_vec(),
            content_length,
            stream,
        })
    }

    /// Reads the body before `deadline`. `Ok(None)`: over `max` bytes (what
    /// the client declared, or sent); the rest is not read.
    pub fn read_body(
        &mut self,
        max: usize,
        mut deadline: BodyDeadline,
    ) -> Result<Option<Vec<u8>>, ReadError> {
        let length = self.content_length.unwrap_or(0);
        if length > max {
            return Ok(None);
        }
        let mut body = std::mem::take(&mut self.pending);
        body.truncate(length);
        let mut chunk = [0u8; 16 * 1024];
        while body.len() < length {
            let want = (length - body.len()).min(chunk.len());
            let n = read_until(&mut self.stream, &mut chunk[..want], deadline.at())?;
            if n == 0 {
                return Err(ReadError::Io(std::io::ErrorKind::UnexpectedEof.into()));
            }
            deadline.received(n);
            body.extend_from_slice(&chunk[..n]);
        }
        Ok(Some(body))
    }

    /// The value of header `name` (compared without case), if sent.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Answers and closes the connection. A client that went away is its
    /// own problem, not the server's.
    pub fn respond(self, status: u16, content_type: &str, body: &str) {
        self.respond_with(status, content_type, &[], body.as_bytes());
    }

    /// Answers with more headers (`Name`, `value`) and closes the connection.
    pub fn respond_with(
        mut self,
        status: u16,
        content_type: &str,
        extra: &[(&str, &str)],
        body: &[u8],
    ) {
        let _ = self.stream.set_write_timeout(Some(Duration::from_secs(10)));
        let mut head = format!(
            "HTTP/1.1 {status} {}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n",
            reason(status),
            body.len()
        );
        for (name, value) in extra {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str("\r\n");
        let _ = self
            .stream
            .write_all(head.as_bytes())
            .and_then(|()| self.stream.write_all(body))
            .and_then(|()| self.stream.flush());
        let _ = self.stream.shutdown(std::net::Shutdown::Write);
        // Read what the client still sends (briefly, 200 ms in all, however
        // it trickles): closing with unread data would reset the connection
        // before the answer is read.
        let until = Instant::now() + Duration::from_millis(200);
        let mut sink = [0u8; 4096];
        while matches!(read_until(&mut self.stream, &mut sink, until), Ok(n) if n > 0) {}
    }
}

/// Answers a connection whose request could not be read.
pub fn respond_raw(stream: TcpStream, status: u16, content_type: &str, body: &str) {
    Request {
        method: String::new(),
        path: String::new(),
        headers: Vec::new(),
        stream,
        pending: Vec::new(),
        content_length: None,
    }
    .respond(status, content_type, body);
}

/// One read that gives up at `deadline`.
fn read_until(
    stream: &mut TcpStream,
    buf: &mut [u8],
    deadline: Instant,
) -> Result<usize, ReadError> {
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(ReadError::Timeout);
        }
        stream.set_read_timeout(Some(left)).map_err(ReadError::Io)?;
        match stream.read(buf) {
            Ok(n) => return Ok(n),
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                return Err(ReadError::Timeout);
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(ReadError::Io(e)),
        }
    }
}

fn find_head_end(buf: &[u8]) -> Option<usize> {
    buf.windows(4).position(|w| w == b"\r\n\r\n").map(|i| i + 4)
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        409 => "Conflict",
        411 => "Length Required",
        413 => "Payload Too Large",
        422 => "Unprocessable Content",
        429 => "Too Many Requests",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        507 => "Insufficient Storage",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_earns_a_second_per_thousand_bytes_up_to_ten_timeouts() {
        let start = Instant::now();
        let timeout = Duration::from_secs(2);
        let mut deadline = BodyDeadline::new(start, timeout);
        assert_eq!(deadline.at(), start + timeout);
        deadline.received(500);
        assert_eq!(deadline.at(), start + Duration::from_millis(2_500));
        deadline.received(1_000_000);
        assert_eq!(deadline.at(), start + Duration::from_secs(20));
    }
}
