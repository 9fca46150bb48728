//! What the end-to-end tests share: the binary in a private home (run to
//! the end, or as a process beside the test), children stopped when
//! dropped, waiting for a child's line, free ports, the embedded broker,
//! skipping when a peer is not installed, and the fixtures several files use.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};

/// The binary, with a private AIPROTO_HOME and no color, run to the end.
pub fn aiproto(home: &Path) -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::cargo_bin("aiproto").expect("binary built");
    cmd.env("AIPROTO_HOME", home)
        .env("NO_COLOR", "1")
        .env_remove("AIPROTO_EMBEDDING_MODEL_DIR")
        .env_remove("RUST_BACKTRACE");
    for var in ["AIPROTO_REPORT", "AIPROTO_REPORT_SESSION", "PRE_COMMIT"] {
        cmd.env_remove(var);
    }
    cmd
}

/// The binary with `args`, as [`aiproto`] sets it up, for a process that
/// runs beside the test: stdout and stderr piped, not started yet (add a
/// working directory, stdin or environment first).
pub fn spawn(home: &Path, args: &[&str]) -> std::process::Command {
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("aiproto"));
    cmd.args(args)
        .env("AIPROTO_HOME", home)
        .env("NO_COLOR", "1")
        .env_remove("AIPROTO_EMBEDDING_MODEL_DIR")
        .env_remove("RUST_BACKTRACE")
        .env_remove("AIPROTO_REPORT")
        .env_remove("AIPROTO_REPORT_SESSION")
        .env_remove("PRE_COMMIT")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

/// [`spawn`], started.
pub fn aiproto_child(home: &Path, args: &[&str]) -> Child {
    spawn(home, args).spawn().expect("aiproto starts")
}

/// A child process stopped when dropped.
pub struct Running(pub Child);

/// Starts `command` (stdout piped, stderr dropped) and returns it with the
/// first line it prints: the URL or address a listening face announces.
pub fn started_with_line(mut command: std::process::Command) -> (Running, String) {
    let mut child = command
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("aiproto starts");
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut BufReader::new(child.stdout.take().expect("stdout is piped")),
        &mut line,
    )
    .expect("a first line");
    (Running(child), line.trim().to_string())
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Reads a child's stderr until a line containing `needle`, and returns
/// that line; the rest is drained, so the child never blocks on a full pipe.
pub fn wait_for(child: &mut Child, needle: &str) -> String {
    let mut stderr = BufReader::new(child.stderr.take().expect("stderr is piped"));
    let mut line = String::new();
    let mut said = String::new();
    loop {
        line.clear();
        assert!(
            stderr.read_line(&mut line).unwrap() > 0,
            "stderr closed before `{needle}`; it said:\n{said}"
        );
        if line.contains(needle) {
            break;
        }
        said.push_str(&line);
    }
    std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
    line
}

/// `aiproto recv ARGS` once its subscription stands (its "subscribed" line).
pub fn subscribed(home: &Path, args: &[&str]) -> Child {
    let mut recv = spawn(home, &["recv"])
        .args(args)
        .spawn()
        .expect("aiproto starts");
    wait_for(&mut recv, "subscribed");
    recv
}

/// `aiproto recv ARGS` with its stderr written to `log`, once its
/// subscription stands: for tests that read what it said.
pub fn subscribed_logged(home: &Path, args: &[&str], log: &Path) -> Child {
    let file = std::fs::File::create(log).expect("a log file");
    let recv = spawn(home, &["recv"])
        .args(args)
        .stderr(file)
        .spawn()
        .expect("aiproto starts");
    let started = std::time::Instant::now();
    while !std::fs::read_to_string(log).is_ok_and(|t| t.contains("subscribed")) {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(30),
            "recv never subscribed: {}",
            std::fs::read_to_string(log).unwrap_or_default()
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    recv
}

/// A loopback port no one listens on (now).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .expect("a free port")
        .local_addr()
        .expect("its address")
        .port()
}

/// `aiproto broker` on a free loopback port, once it listens.
pub fn embedded_broker(h: &Path) -> (Running, u16) {
    let port = free_port();
    let mut child = aiproto_child(h, &["broker", "--listen", &format!("127.0.0.1:{port}")]);
    wait_for(&mut child, "listening");
    (Running(child), port)
}

/// Whether `program` runs (with `probe` as its arguments); when it does
/// not, says `SKIPPED test` with how to install it, and the test returns.
pub fn installed(test: &str, program: &str, probe: &[&str], install: &str) -> bool {
    let runs = std::process::Command::new(program)
        .args(probe)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok();
    if !runs {
        eprintln!("SKIPPED {test}: `{program}` is not installed ({install})");
    }
    runs
}

/// A temporary directory that lives as long as the test.
pub fn home() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp dir")
}

/// A path inside the repository.
pub fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// The JSON Lines of a `--format json` run.
pub fn json_lines(stdout: &[u8]) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("every stdout line is JSON"))
        .collect()
}

/// A small valid 1.1 envelope.
pub const REQUEST: &str = "[[CLAUDE→CHATGPT v1]]
user: kalle
session: 2025-10-09T16Z abc123
thread: 01J9J3D3M6A4M3WQX8G1ZQ0S7K
message: 01J9J3DBC4N7P2Q3R5S7T9W1V2
context: review
intent: REQUEST
body: |
  Please review.
sig: none
[[END]]
";

/// An archive of `count` envelopes (copies of [`REQUEST`], each with its own
/// id and a body long enough that the archive spans several of the pieces
/// the readers stream in), with `damage` applied to envelope `broken_at`.
/// Returns the archive and the line at which that envelope begins.
pub fn big_archive(
    count: usize,
    broken_at: Option<usize>,
    damage: impl Fn(&str) -> String,
) -> (String, usize) {
    let mut archive = String::new();
    let mut broken_line = 0;
    for i in 0..count {
        let mut envelope = REQUEST.replace("01J9J3DBC4N7P2Q3R5S7T9W1V2", &big_archive_id(i));
        envelope = envelope.replace("review", &"review ".repeat(40));
        if Some(i) == broken_at {
            broken_line = archive.matches('\n').count() + 1;
            envelope = damage(&envelope);
        }
        archive.push_str(&envelope);
        archive.push('\n');
    }
    (archive, broken_line)
}

/// The id of envelope `i` of [`big_archive`].
pub fn big_archive_id(i: usize) -> String {
    format!("01J9J3DBC4N7P2Q3R5{i:08}")
}

/// The messages of `text` signed with the keystore key `key` (in `h`).
pub fn sign(h: &std::path::Path, key: &str, text: &str) -> String {
    let out = aiproto(h)
        .args(["sign", "--key", key])
        .write_stdin(text.to_string())
        .assert()
        .code(0);
    String::from_utf8_lossy(&out.get_output().stdout).to_string()
}

/// A TCP connection to `port` from the loopback address `from`
/// (127.0.0.2, …), as a client elsewhere would make.
pub fn connect_from(from: [u8; 4], port: u16) -> std::net::TcpStream {
    let socket = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
    socket
        .bind(&std::net::SocketAddr::from((from, 0)).into())
        .unwrap();
    socket
        .connect(&std::net::SocketAddr::from(([127, 0, 0, 1], port)).into())
        .unwrap();
    socket.into()
}

/// `aiproto broker ARGS` on a free port with its stderr in `log`, once it listens.
pub fn logged_broker(dir: &Path, args: &[&str], log: &Path) -> (Running, u16) {
    let port = free_port();
    let child = spawn(dir, &["broker", "--listen", &format!("127.0.0.1:{port}")])
        .args(args)
        .stderr(std::fs::File::create(log).unwrap())
        .spawn()
        .unwrap();
    let running = Running(child);
    let started = std::time::Instant::now();
    while !std::fs::read_to_string(log)
        .unwrap_or_default()
        .contains("listening")
    {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "the broker did not start"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    (running, port)
}

/// One request on a fresh connection: status, head, body.
pub fn raw(address: &str, head: &str, body: &[u8]) -> (u16, String, String) {
    let mut stream = std::net::TcpStream::connect(address).unwrap();
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(30)))
        .unwrap();
    let request = format!(
        "{head}Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(request.as_bytes()).unwrap();
    stream.write_all(body).unwrap();
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer).to_string();
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, head.to_string(), body.to_string())
}
