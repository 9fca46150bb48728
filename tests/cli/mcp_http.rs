//! `aiproto mcp --listen` over real HTTP on loopback: who gets in (the
//! bearer token, Host, Origin), the bounds a listening face keeps, the
//! refusals at start, the declared output schemas, and the same answers
//! as over stdio for the same calls. Requests are written by hand, as the
//! 2026-07-28 revision's stateless wire has them; the official clients
//! (Python SDK, MCP Inspector) and the conformance suite run in `.ci/run`.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};

use super::mcp::{call, start};
use super::{REQUEST, Running, aiproto, home, raw, spawn, started_with_line};

const TOKEN: &str = "test-token-0123456789abcdef";

/// A running `aiproto mcp --listen`: its `127.0.0.1:PORT`.
struct Listening {
    _child: Running,
    address: String,
}

fn listen(root: &Path, h: &Path, extra: &[&str]) -> Listening {
    let token_file = h.join("mcp.token");
    std::fs::write(&token_file, format!("{TOKEN}\n")).unwrap();
    let mut command = spawn(h, &["mcp", "--listen", "127.0.0.1:0", "--root"]);
    command
        .arg(root)
        .arg("--token-file")
        .arg(&token_file)
        .args(extra);
    let (child, line) = started_with_line(command);
    let address = line
        .trim()
        .strip_prefix("http://")
        .and_then(|rest| rest.strip_suffix("/mcp"))
        .unwrap_or_else(|| panic!("the URL on stdout: {line:?}"))
        .to_string();
    Listening {
        _child: child,
        address,
    }
}

/// A stateless 2026-07-28 JSON-RPC request body.
fn rpc(method: &str, params: Value) -> String {
    let mut params = params;
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": { "name": "aiproto-tests", "version": "1" },
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    json!({ "jsonrpc": "2.0", "id": 7, "method": method, "params": params }).to_string()
}

/// The head of a POST to /mcp with `auth` (an Authorization value) and
/// `extra` header lines.
fn head(
    address: &str,
    method: &str,
    name: Option<&str>,
    auth: Option<&str>,
    extra: &str,
) -> String {
    let mut head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: {method}\r\n{extra}"
    );
    if let Some(name) = name {
        head.push_str(&format!("Mcp-Name: {name}\r\n"));
    }
    if let Some(auth) = auth {
        head.push_str(&format!("Authorization: {auth}\r\n"));
    }
    head
}

/// The JSON-RPC result of a call, read from a JSON or an event-stream body.
fn result_of(body: &str) -> Value {
    let message = body
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .map(str::trim)
        .chain(std::iter::once(body.trim()))
        .filter_map(|d| serde_json::from_str::<Value>(d).ok())
        .find(|v| v.get("id").is_some())
        .unwrap_or_else(|| panic!("no JSON-RPC answer in {body}"));
    assert!(message.get("error").is_none(), "{message}");
    message["result"].clone()
}

/// `tools/call` over HTTP with the right token: the tool's result.
fn http_call(server: &Listening, tool: &str, arguments: Value) -> Value {
    let bearer = format!("Bearer {TOKEN}");
    let (status, _, body) = raw(
        &server.address,
        &head(&server.address, "tools/call", Some(tool), Some(&bearer), ""),
        rpc(
            "tools/call",
            json!({ "name": tool, "arguments": arguments }),
        )
        .as_bytes(),
    );
    assert_eq!(status, 200, "{body}");
    result_of(&body)
}

fn tools_list(server: &Listening) -> Vec<Value> {
    let bearer = format!("Bearer {TOKEN}");
    let (status, _, body) = raw(
        &server.address,
        &head(&server.address, "tools/list", None, Some(&bearer), ""),
        rpc("tools/list", json!({})).as_bytes(),
    );
    assert_eq!(status, 200, "{body}");
    result_of(&body)["tools"].as_array().unwrap().clone()
}

#[test]
fn the_token_host_and_origin_are_checked_before_anything_runs() {
    let (root, h) = (home(), home());
    let server = listen(root.path(), h.path(), &[]);
    let a = server.address.as_str();
    let body = rpc("tools/list", json!({}));
    let right = format!("Bearer {TOKEN}");

    let (status, head_, text) = raw(a, &head(a, "tools/list", None, None, ""), body.as_bytes());
    assert_eq!(status, 401, "{text}");
    assert!(
        head_.to_lowercase().contains("www-authenticate: bearer"),
        "{head_}"
    );
    assert!(text.contains("Authorization: Bearer"), "{text}");
    assert!(!text.contains(TOKEN));

    let (status, _, text) = raw(
        a,
        &head(
            a,
            "tools/list",
            None,
            Some("Bearer wrong-token-0123456789"),
            "",
        ),
        body.as_bytes(),
    );
    assert_eq!(status, 401);
    assert!(!text.contains(TOKEN), "a refusal never shows the token");
    // The token with one byte less, and a Basic scheme, are wrong too.
    let shorter = format!("Bearer {}", &TOKEN[..TOKEN.len() - 1]);
    assert_eq!(
        raw(
            a,
            &head(a, "tools/list", None, Some(&shorter), ""),
            body.as_bytes()
        )
        .0,
        401
    );
    assert_eq!(
        raw(
            a,
            &head(a, "tools/list", None, Some(&format!("Basic {TOKEN}")), ""),
            body.as_bytes()
        )
        .0,
        401
    );

    // The scheme's name in any case (RFC 7235).
    let lower = format!("bearer {TOKEN}");
    assert_eq!(
        raw(
            a,
            &head(a, "tools/list", None, Some(&lower), ""),
            body.as_bytes()
        )
        .0,
        200
    );

    // DNS rebinding: another name in Host, or a page of another origin,
    // with the right token still gets 403.
    let evil = head(a, "tools/list", None, Some(&right), "")
        .replace(&format!("Host: {a}"), "Host: evil.example.com");
    assert_eq!(raw(a, &evil, body.as_bytes()).0, 403);
    let page = head(
        a,
        "tools/list",
        None,
        Some(&right),
        "Origin: http://evil.example.com\r\n",
    );
    assert_eq!(raw(a, &page, body.as_bytes()).0, 403);
    let other_port = head(
        a,
        "tools/list",
        None,
        Some(&right),
        "Origin: http://127.0.0.1:1\r\n",
    );
    assert_eq!(raw(a, &other_port, body.as_bytes()).0, 403);
    let own = head(
        a,
        "tools/list",
        None,
        Some(&right),
        &format!("Origin: http://{a}\r\n"),
    );
    assert_eq!(raw(a, &own, body.as_bytes()).0, 200);

    let elsewhere =
        head(a, "tools/list", None, Some(&right), "").replace("POST /mcp ", "POST /admin ");
    assert_eq!(raw(a, &elsewhere, body.as_bytes()).0, 404);
}

#[test]
fn every_tool_declares_annotations_and_an_output_schema_and_fixtures_need_the_flag() {
    let (root, h) = (home(), home());
    let server = listen(
        root.path(),
        h.path(),
        &["--allow-network", "--allow-signing"],
    );
    let tools = tools_list(&server);
    assert_eq!(tools.len(), 10);
    for tool in &tools {
        assert_eq!(tool["outputSchema"]["type"], "object", "{tool}");
        assert!(tool["annotations"]["readOnlyHint"].is_boolean(), "{tool}");
    }
    assert!(!tools.iter().any(|t| t["name"] == "test_simple_text"));

    let (root2, h2) = (home(), home());
    let fixtures = listen(root2.path(), h2.path(), &["--conformance-fixtures"]);
    let names: Vec<Value> = tools_list(&fixtures)
        .iter()
        .map(|t| t["name"].clone())
        .collect();
    assert!(names.contains(&json!("test_simple_text")) && names.contains(&json!("validate")));
}

#[tokio::test]
async fn stdio_and_http_answer_the_same_calls_alike() {
    let (root, h) = (home(), home());
    std::fs::write(root.path().join("req.crosstalk"), REQUEST).unwrap();
    let server = listen(root.path(), h.path(), &[]);
    let stdio = start(root.path(), h.path(), &[]).await;
    let calls = [
        ("validate", json!({ "text": REQUEST })),
        ("validate", json!({ "path": "req.crosstalk" })),
        ("validate", json!({ "text": "[[A→B v1]]\nno end" })),
        ("inspect", json!({ "text": REQUEST })),
        ("verify", json!({ "text": REQUEST })),
        ("convert", json!({ "text": REQUEST, "to": "crosstalk@1.0" })),
        ("thread", json!({ "texts": [REQUEST] })),
    ];
    for (tool, arguments) in calls {
        let over_http = http_call(&server, tool, arguments.clone());
        let over_stdio = call(&stdio, tool, arguments.clone()).await;
        let over_stdio = serde_json::to_value(&over_stdio).unwrap();
        assert_eq!(
            over_http["structuredContent"], over_stdio["structuredContent"],
            "{tool} {arguments}"
        );
        assert_eq!(
            over_http["isError"], over_stdio["isError"],
            "{tool} {arguments}"
        );
    }
    // A path outside the root is refused alike.
    let outside = http_call(&server, "validate", json!({ "path": "/etc/passwd" }));
    assert_eq!(outside["isError"], true);
    stdio.cancel().await.unwrap();
}

#[test]
fn bounds_hold_over_http() {
    let (root, h) = (home(), home());
    let server = listen(
        root.path(),
        h.path(),
        &["--max-bytes", "1000", "--read-timeout", "1", "--rate", "3"],
    );
    let a = server.address.as_str();
    let right = format!("Bearer {TOKEN}");
    // A body larger than the limit (with the JSON-RPC room over --max-bytes).
    let big = rpc(
        "tools/call",
        json!({ "name": "validate", "arguments": { "text": "x".repeat(200_000) } }),
    );
    let (status, _, _) = raw(
        a,
        &head(a, "tools/call", Some("validate"), Some(&right), ""),
        big.as_bytes(),
    );
    assert_eq!(status, 413);

    // A body that never arrives: 408 after --read-timeout.
    let mut stream = TcpStream::connect(a).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let promised = format!(
        "{}Content-Length: 500\r\n\r\n{{\"jsonrpc\"",
        head(a, "tools/list", None, Some(&right), "")
    );
    stream.write_all(promised.as_bytes()).unwrap();
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");

    // A burst from one address: past the rate, 429 with Retry-After.
    let statuses: Vec<u16> = (0..8)
        .map(|_| {
            raw(
                a,
                &head(a, "tools/list", None, Some(&right), ""),
                rpc("tools/list", json!({})).as_bytes(),
            )
            .0
        })
        .collect();
    assert!(statuses.contains(&429), "{statuses:?}");
}

#[test]
fn a_network_face_is_refused_at_start_unless_safe() {
    let h = home();
    let out = aiproto(h.path())
        .args(["mcp", "--root", "."])
        .args(["--listen", "0.0.0.0:0"])
        .env("AIPROTO_MCP_TOKEN", TOKEN)
        .timeout(Duration::from_secs(10))
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(err.contains("--allow-remote"), "{err}");

    let out = aiproto(h.path())
        .args([
            "mcp",
            "--root",
            ".",
            "--listen",
            "0.0.0.0:0",
            "--allow-remote",
            "--conformance-fixtures",
        ])
        .env("AIPROTO_MCP_TOKEN", TOKEN)
        .timeout(Duration::from_secs(10))
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(err.contains("loopback only"), "{err}");

    // A short token, given by the environment, is refused (and not echoed).
    let out = aiproto(h.path())
        .args(["mcp", "--root", ".", "--listen", "127.0.0.1:0"])
        .env("AIPROTO_MCP_TOKEN", "hunter2")
        .timeout(Duration::from_secs(10))
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(
        err.contains("at least 16") && !err.contains("hunter2"),
        "{err}"
    );

    // The flags of the HTTP face mean nothing on stdio: refused.
    aiproto(h.path())
        .args(["mcp", "--root", ".", "--allow-remote"])
        .timeout(Duration::from_secs(10))
        .assert()
        .code(2);
}
