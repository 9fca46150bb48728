//! `aiproto desk` over real HTTP on loopback, without a browser: who may
//! call the API (token, Host, Origin), the limits it shares with `serve`,
//! and each operation's answer. The page itself is driven by Chromium in
//! `tests/interop/desk_browser.cjs`.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};

use super::{REQUEST, Running, aiproto, home, spawn, started_with_line};

/// A running desk: its address (`127.0.0.1:PORT`), the token of its URL
/// (used once, to log in) and the session cookie that got.
pub(crate) struct Desk {
    child: Running,
    address: String,
    token: String,
    cookie: String,
}

pub(crate) fn start(home: &Path, archive: &Path, extra: &[&str]) -> Desk {
    let mut command = spawn(home, &["desk", "--listen", "127.0.0.1:0", "--archive"]);
    command.arg(archive).args(extra);
    let (child, url) = started_with_line(command);
    let url = url.as_str();
    let (base, token) = url.split_once("/#token=").expect("the URL carries a token");
    let mut desk = Desk {
        child,
        address: base.trim_start_matches("http://").to_string(),
        token: token.to_string(),
        cookie: String::new(),
    };
    let (status, head, body) = login(&desk);
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    let set = head
        .lines()
        .find_map(|l| l.strip_prefix("Set-Cookie: "))
        .expect("a session cookie");
    assert!(
        set.contains("HttpOnly") && set.contains("SameSite=Strict"),
        "{set}"
    );
    desk.cookie = set.split(';').next().unwrap().to_string();
    desk
}

/// `POST /api/login` with the URL's token, as the page sends it.
fn login(desk: &Desk) -> (u16, String, Vec<u8>) {
    let head = format!(
        "POST /api/login HTTP/1.1\r\nHost: {0}\r\nOrigin: http://{0}\r\nX-Aiproto-Token: {1}\r\n",
        desk.address, desk.token
    );
    raw(desk, &head, b"")
}

/// One request on a fresh connection, headers as given: status, headers, body.
fn raw(desk: &Desk, head: &str, body: &[u8]) -> (u16, String, Vec<u8>) {
    let mut stream = TcpStream::connect(&desk.address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let request = format!("{head}Content-Length: {}\r\n\r\n", body.len());
    stream.write_all(request.as_bytes()).unwrap();
    stream.write_all(body).unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).unwrap();
    let split = answer
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a response head");
    let head = String::from_utf8_lossy(&answer[..split]).to_string();
    let status = head[9..12].parse().unwrap();
    (status, head, answer[split + 4..].to_vec())
}

/// `POST /api/NAME` as the page sends it: session cookie, Host, same Origin.
pub(crate) fn call(desk: &Desk, name: &str, body: &Value) -> (u16, Value) {
    let head = format!(
        "POST /api/{name} HTTP/1.1\r\nHost: {0}\r\nOrigin: http://{0}\r\nCookie: {1}\r\nContent-Type: application/json\r\n",
        desk.address, desk.cookie
    );
    let (status, _, body) = raw(desk, &head, body.to_string().as_bytes());
    (
        status,
        serde_json::from_slice(&body).expect("a JSON answer"),
    )
}

fn ok(desk: &Desk, name: &str, body: &Value) -> Value {
    let (status, answer) = call(desk, name, body);
    assert_eq!(status, 200, "{name}: {answer}");
    answer
}

#[test]
fn api_calls_need_the_session_the_host_and_the_origin() {
    let h = home();
    let desk = start(h.path(), &h.path().join("a.crosstalk"), &[]);
    let a = &desk.address;
    let c = &desk.cookie;
    let t = &desk.token;
    let post = |headers: &str| {
        raw(
            &desk,
            &format!("POST /api/info HTTP/1.1\r\n{headers}"),
            b"{}",
        )
    };
    assert_eq!(post(&format!("Host: {a}\r\nCookie: {c}\r\n")).0, 200);
    assert_eq!(
        post(&format!("Host: {a}\r\nCookie: other=1; {c}; more=2\r\n")).0,
        200
    );
    let refused = [
        ("no session", format!("Host: {a}\r\n")),
        (
            "the token instead of a session",
            format!("Host: {a}\r\nX-Aiproto-Token: {t}\r\n"),
        ),
        ("a wrong session", format!("Host: {a}\r\nCookie: {c}x\r\n")),
        (
            "an empty session",
            format!("Host: {a}\r\nCookie: aiproto_desk=\r\n"),
        ),
        (
            "a foreign Origin",
            format!("Host: {a}\r\nOrigin: http://evil.example\r\nCookie: {c}\r\n"),
        ),
        (
            "an opaque Origin",
            format!("Host: {a}\r\nOrigin: null\r\nCookie: {c}\r\n"),
        ),
        (
            "a cross-site fetch",
            format!("Host: {a}\r\nSec-Fetch-Site: cross-site\r\nCookie: {c}\r\n"),
        ),
        (
            "a rebound host name",
            format!(
                "Host: evil.example:{}\r\nCookie: {c}\r\n",
                a.rsplit(':').next().unwrap()
            ),
        ),
        ("no Host", format!("Cookie: {c}\r\n")),
    ];
    for (what, headers) in refused {
        let (status, _, body) = post(&headers);
        assert_eq!(status, 403, "{what}: {}", String::from_utf8_lossy(&body));
    }
    // The URL's token opened one session: the copy in a browser's history
    // opens nothing.
    let (status, _, body) = login(&desk);
    assert_eq!(status, 403);
    assert!(String::from_utf8_lossy(&body).contains("used already"));
    // The page itself holds no data but is not served under another name either.
    let get = |host: &str| raw(&desk, &format!("GET / HTTP/1.1\r\nHost: {host}\r\n"), b"").0;
    assert_eq!(get(a), 200);
    assert_eq!(get("rebind.example:80"), 403);
}

#[test]
fn the_page_is_self_contained_under_a_strict_policy() {
    let h = home();
    let desk = start(h.path(), &h.path().join("a.crosstalk"), &[]);
    let host = format!("Host: {}\r\n", desk.address);
    let (status, head, page) = raw(&desk, &format!("GET / HTTP/1.1\r\n{host}"), b"");
    assert_eq!(status, 200);
    assert!(
        head.contains("Content-Security-Policy: default-src 'self'"),
        "{head}"
    );
    assert!(head.contains("X-Content-Type-Options: nosniff"));
    let page = String::from_utf8(page).unwrap();
    for asset in ["/desk.js", "/desk.css", "/favicon.svg"] {
        assert!(page.contains(asset), "the page loads {asset}");
        let (status, head, body) = raw(&desk, &format!("GET {asset} HTTP/1.1\r\n{host}"), b"");
        assert_eq!(status, 200, "{asset}");
        assert!(head.contains("Content-Security-Policy"));
        let body = String::from_utf8(body).unwrap();
        // Nothing is fetched from elsewhere (the SVG names its XML namespace only).
        let external = body
            .matches("http")
            .count()
            .saturating_sub(body.matches("http://www.w3.org/2000/svg").count());
        assert_eq!(external, 0, "{asset} names another site");
        assert!(!body.contains("innerHTML"), "{asset} writes HTML");
    }
    assert!(!page.contains("<script>"), "no inline script");
    let (status, _, _) = raw(&desk, &format!("GET /nothing HTTP/1.1\r\n{host}"), b"");
    assert_eq!(status, 404);
}

#[test]
fn limits_are_serves() {
    let h = home();
    let desk = start(
        h.path(),
        &h.path().join("a.crosstalk"),
        &["--max-bytes", "2000", "--read-timeout", "1"],
    );
    let big = json!({ "text": "x".repeat(3000) });
    let (status, answer) = call(&desk, "read", &big);
    assert_eq!(status, 413, "{answer}");
    assert!(answer["error"].as_str().unwrap().contains("2000"));
    // A client that sends half a request gets 408 after --read-timeout.
    let mut stream = TcpStream::connect(&desk.address).unwrap();
    stream
        .write_all(format!("POST /api/read HTTP/1.1\r\nHost: {}\r\n", desk.address).as_bytes())
        .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    // A body announced but not sent: 408 as well.
    let mut stream = TcpStream::connect(&desk.address).unwrap();
    stream
        .write_all(
            format!(
                "POST /api/read HTTP/1.1\r\nHost: {}\r\nCookie: {}\r\nContent-Length: 100\r\n\r\n{{",
                desk.address, desk.cookie
            )
            .as_bytes(),
        )
        .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
}

#[test]
fn wrong_calls_get_their_status() {
    let h = home();
    let desk = start(h.path(), &h.path().join("a.crosstalk"), &[]);
    assert_eq!(call(&desk, "nothing", &json!({})).0, 404);
    let (status, answer) = call(&desk, "read", &json!({ "txt": "typo" }));
    assert_eq!(status, 400, "{answer}");
    assert!(answer["error"].as_str().unwrap().contains("txt"));
    // A path is never read: the page hands over texts.
    let (status, answer) = call(&desk, "read", &json!({ "path": "/etc/passwd" }));
    assert_eq!(status, 422, "{answer}");
    let head = format!(
        "GET /api/info HTTP/1.1\r\nHost: {}\r\nCookie: {}\r\n",
        desk.address, desk.cookie
    );
    assert_eq!(raw(&desk, &head, b"").0, 405);
}

#[test]
fn read_reply_archive_and_thread() {
    let h = home();
    let archive = h.path().join("project.crosstalk");
    let desk = start(h.path(), &archive, &[]);
    let answer = REQUEST.replace("01J9J3DBC4N7P2Q3R5S7T9W1V2", "01J9J3DBC4N7P2Q3R5S7T9W1V3");
    let transcript =
        format!("Here is the first:\n\n```\n{REQUEST}```\n\nand the second:\n{answer}");
    let read = ok(&desk, "read", &json!({ "text": transcript }));
    let messages = read["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 2);
    assert_eq!(messages[0]["verdict"]["line"], 4);
    assert_eq!(messages[0]["inspect"]["message"]["sender"], "CLAUDE");
    assert_eq!(messages[0]["signature"]["code"], "SIG-UNSIGNED");
    assert_eq!(messages[0]["id_times"]["id"], "2024-10-06T23:42:37.956Z");

    let cut = &REQUEST[..REQUEST.find("sig:").unwrap()];
    let read = ok(&desk, "read", &json!({ "text": cut }));
    assert_eq!(read["valid"], false);
    assert_eq!(read["messages"][0]["complete"], false);
    assert_eq!(
        read["messages"][0]["verdict"]["errors"][0]["code"],
        "CT-END-MISSING"
    );

    let reply = ok(
        &desk,
        "compose",
        &json!({ "protocol": "crosstalk", "reply_to": transcript, "pick": "1", "body": "Reviewed." }),
    );
    assert_eq!(reply["thread"], "01J9J3D3M6A4M3WQX8G1ZQ0S7K");
    assert_eq!(reply["parent"], "01J9J3DBC4N7P2Q3R5S7T9W1V2");
    let text = reply["text"].as_str().unwrap();
    assert!(text.starts_with("[[CHATGPT→CLAUDE v1]]"), "{text}");
    // The desk is the person's page: what it composes is theirs, and
    // `sign --only-mine` knows it (docs/signing.md).
    let ledger = std::fs::read_to_string(h.path().join("composed")).unwrap();
    assert_eq!(ledger.lines().count(), 1, "{ledger}");

    let first = ok(&desk, "archive", &json!({ "text": text }));
    assert_eq!(first["appended"], 1);
    let again = ok(&desk, "archive", &json!({ "text": text }));
    assert_eq!(again["appended"], 0);
    assert_eq!(again["already_there"].as_array().unwrap().len(), 1);
    let kept = std::fs::read_to_string(&archive).unwrap();
    assert_eq!(kept.matches("[[END]]").count(), 1, "{kept}");
    // A cut-off envelope is not archived, and nothing with it.
    let (status, refused) = call(
        &desk,
        "archive",
        &json!({ "text": format!("{REQUEST}{cut}") }),
    );
    assert_eq!(status, 422);
    assert!(
        refused["error"].as_str().unwrap().contains("cut off"),
        "{refused}"
    );
    assert_eq!(std::fs::read_to_string(&archive).unwrap(), kept);

    ok(&desk, "archive", &json!({ "text": REQUEST }));
    let thread = ok(&desk, "thread", &json!({}));
    let root = &thread["records"][0]["root"];
    assert_eq!(root["id"], "01J9J3DBC4N7P2Q3R5S7T9W1V2");
    assert_eq!(root["children"][0]["id"], reply["id"]);
    let opened = ok(&desk, "archived", &json!({ "id": reply["id"] }));
    assert_eq!(opened["text"], text);

    let primer = ok(&desk, "primer", &json!({ "reply_to": text }));
    assert!(primer["text"].as_str().unwrap().contains(text.trim_end()));
    let converted = ok(&desk, "convert", &json!({ "text": text, "to": "hsp" }));
    let hsp = converted["messages"][0]["text"].as_str().unwrap();
    let back = ok(&desk, "convert", &json!({ "text": hsp, "to": "crosstalk" }));
    assert!(
        back["messages"][0]["text"]
            .as_str()
            .unwrap()
            .contains("Reviewed.")
    );
}

#[test]
fn signing_uses_the_keystore_without_showing_a_private_key() {
    let h = home();
    aiproto(h.path())
        .args([
            "keygen",
            "-q",
            "--id",
            "claude-key",
            "--signs-for",
            "CLAUDE",
        ])
        .assert()
        .success();
    let desk = start(h.path(), &h.path().join("a.crosstalk"), &[]);
    let keys = ok(&desk, "keys", &json!({}));
    assert_eq!(keys["keys"][0]["id"], "claude-key");
    let private: Value = serde_json::from_str(
        &std::fs::read_to_string(h.path().join("keys/claude-key.key")).unwrap(),
    )
    .unwrap();
    let secret = private["secret"].as_str().unwrap();
    assert!(!keys.to_string().contains(secret));

    let signed = ok(
        &desk,
        "sign",
        &json!({ "text": REQUEST, "key": "claude-key" }),
    );
    assert!(!signed.to_string().contains(secret));
    assert_eq!(signed["verified_here"][0]["valid"], true);
    let text = signed["text"].as_str().unwrap();
    let verified = ok(&desk, "verify", &json!({ "text": text }));
    assert_eq!(verified["messages"][0]["valid"], true);
    let read = ok(&desk, "read", &json!({ "text": text }));
    assert_eq!(read["messages"][0]["signature"]["key_id"], "claude-key");
    assert_eq!(read["messages"][0]["signature"]["bound"], true);
    // The same key on another sender's message signs nothing.
    let other = REQUEST.replace("CLAUDE→CHATGPT", "CHATGPT→CLAUDE");
    let (status, answer) = call(
        &desk,
        "sign",
        &json!({ "text": other, "key": "claude-key" }),
    );
    assert_eq!(status, 422, "{answer}");
    assert!(
        answer["error"]
            .as_str()
            .unwrap()
            .contains("the sender is `CHATGPT`, and the key `claude-key` signs for CLAUDE only"),
        "{answer}"
    );
}

#[test]
fn requests_over_the_limit_get_503_and_slow_heads_take_no_place() {
    let h = home();
    let desk = start(
        h.path(),
        &h.path().join("a.crosstalk"),
        // A read timeout well past the wait below: the stalled body must
        // still hold its place when a loaded machine is slow to read heads.
        &["--max-connections", "1", "--read-timeout", "30"],
    );
    // Clients sending their head a byte at a time hold no place…
    let slow: Vec<TcpStream> = (0..50)
        .map(|_| {
            let mut s = TcpStream::connect(&desk.address).unwrap();
            s.write_all(b"P").unwrap();
            s
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    ok(&desk, "info", &json!({}));
    // …a request whose head arrived and whose body is slow holds the only one…
    let head = format!(
        "POST /api/info HTTP/1.1\r\nHost: {0}\r\nOrigin: http://{0}\r\nCookie: {1}\r\nContent-Length: 100\r\n\r\n{{",
        desk.address, desk.cookie
    );
    let stall = || {
        let mut stalled = TcpStream::connect(&desk.address).unwrap();
        stalled.write_all(head.as_bytes()).unwrap();
        stalled.set_nonblocking(true).unwrap();
        stalled
    };
    let mut stalled = stall();
    // …so, once its head is read (on a loaded machine that may take a
    // moment), the next is refused at once, and told why. A probe that
    // held the place just when the stalled head was read made the stalled
    // one the refused request (it was answered): it is sent again.
    let started = std::time::Instant::now();
    let (status, answer) = loop {
        let (status, answer) = call(&desk, "info", &json!({}));
        if status == 503 || started.elapsed() > Duration::from_secs(20) {
            break (status, answer);
        }
        if stalled.peek(&mut [0u8; 1]).is_ok_and(|n| n > 0) {
            stalled = stall();
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(status, 503, "{answer}");
    assert!(answer["error"].as_str().unwrap().contains("busy"));
    drop((stalled, slow));
}

#[test]
fn ctrl_c_stops_it() {
    let h = home();
    let mut desk = start(h.path(), &h.path().join("a.crosstalk"), &[]);
    assert_eq!(call(&desk, "info", &json!({})).0, 200);
    let pid = desk.child.0.id().to_string();
    assert!(
        std::process::Command::new("kill")
            .args(["-INT", &pid])
            .status()
            .unwrap()
            .success()
    );
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(status) = desk.child.0.try_wait().unwrap() {
            assert!(status.success(), "{status}");
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "still running after SIGINT"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        TcpStream::connect(&desk.address).is_err(),
        "nothing listens any more"
    );
}

/// An archive that grew past --max-bytes still opens: its tree and each
/// message in it, at any size; a paste over the limit names the flag.
#[test]
fn an_archive_past_the_request_limit_still_opens() {
    let h = home();
    let archive = h.path().join("big.crosstalk");
    let (text, _) = crate::big_archive(4000, None, str::to_string);
    assert!(text.len() > 2 * 1024 * 1024, "{}", text.len());
    std::fs::write(&archive, &text).unwrap();
    let desk = start(h.path(), &archive, &[]);
    let thread = ok(&desk, "thread", &json!({}));
    assert_eq!(thread["records"].as_array().unwrap().len(), 4000);
    let last = crate::big_archive_id(3999);
    let opened = ok(&desk, "archived", &json!({ "id": last }));
    assert!(opened["text"].as_str().unwrap().contains(&last));
    // A paste over the request limit is refused, saying how to take it.
    let (status, refused) = call(&desk, "archive", &json!({ "text": "x".repeat(1_100_000) }));
    assert_eq!(status, 413, "{refused}");
    assert!(
        refused["error"].as_str().unwrap().contains("--max-bytes"),
        "{refused}"
    );
}

/// `desk --open` never puts the token on the opener's command line, where
/// any local user reads it in the process list: the opener gets a page
/// only this user can read, which sends the browser on.
#[cfg(unix)]
#[test]
fn open_hands_the_browser_no_token_on_its_command_line() {
    use std::os::unix::fs::PermissionsExt;
    let h = home();
    let bin = h.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let seen = h.path().join("seen");
    let opener = bin.join("xdg-open");
    std::fs::write(
        &opener,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$@\" > '{0}.args'\npage=\"${{1#file://}}\"\nstat -c %a \"$page\" > '{0}.mode'\nstat -c %a \"$(dirname \"$page\")\" > '{0}.dirmode'\ncat \"$page\" > '{0}.page'\n",
            seen.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&opener, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let archive = h.path().join("a.crosstalk");
    let mut command = spawn(
        h.path(),
        &["desk", "--listen", "127.0.0.1:0", "--open", "--archive"],
    );
    command.arg(&archive).env("PATH", path);
    let (_running, line) = started_with_line(command);
    let token = line.split_once("#token=").unwrap().1.to_string();
    let file = |ext: &str| seen.with_extension(ext);
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while !file("page").exists() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(200));
    let args = std::fs::read_to_string(file("args")).unwrap();
    assert!(
        !args.contains(&token),
        "the token is on the command line: {args}"
    );
    assert!(args.trim().starts_with("file://"), "{args}");
    assert_eq!(std::fs::read_to_string(file("mode")).unwrap().trim(), "600");
    assert_eq!(
        std::fs::read_to_string(file("dirmode")).unwrap().trim(),
        "700"
    );
    let page = std::fs::read_to_string(file("page")).unwrap();
    assert!(
        page.contains(line.trim()),
        "the page sends the browser on: {page}"
    );
}
