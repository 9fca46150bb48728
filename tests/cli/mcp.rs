//! `aiproto mcp` driven by the official Rust SDK's client over stdio: the
//! tool list, each tool's answers against the command line's, the path
//! sandbox, and `send` only with `--allow-network`.

use std::path::Path;

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult, GetPromptRequestParams};
use rmcp::service::{RoleClient, RunningService};
use serde_json::{Value, json};

use super::{REQUEST, aiproto, home, json_lines};
use super::{embedded_broker, subscribed};

pub(crate) type Client = RunningService<RoleClient, ()>;

/// `aiproto mcp ARGS` in `root` (its working directory and default root).
pub(crate) async fn start(root: &Path, home: &Path, args: &[&str]) -> Client {
    // The SDK's client over the child's pipes (its async-rw transport): the
    // server exits when the client drops its end of stdin.
    let mut child = tokio::process::Command::new(assert_cmd::cargo::cargo_bin("aiproto"))
        .arg("mcp")
        .args(args)
        .current_dir(root)
        .env("AIPROTO_HOME", home)
        .env_remove("AIPROTO_EMBEDDING_MODEL_DIR")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let transport = (child.stdout.take().unwrap(), child.stdin.take().unwrap());
    ().serve(transport).await.unwrap()
}

pub(crate) async fn call(client: &Client, tool: &str, args: Value) -> CallToolResult {
    let Value::Object(args) = args else {
        panic!("arguments are an object")
    };
    client
        .call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(args))
        .await
        .unwrap()
}

pub(crate) fn structured(result: &CallToolResult) -> &Value {
    result
        .structured_content
        .as_ref()
        .expect("structured content")
}

fn is_error(result: &CallToolResult) -> bool {
    result.is_error == Some(true)
}

/// The text of an error result.
fn error_text(result: &CallToolResult) -> String {
    serde_json::to_string(&result.content).unwrap()
}

async fn tool_names(client: &Client) -> Vec<String> {
    let mut names: Vec<String> = client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.to_string())
        .collect();
    names.sort();
    names
}

#[tokio::test]
async fn tools_prompts_and_resources_are_listed_and_send_only_when_allowed() {
    let (root, h) = (home(), home());
    let client = start(root.path(), h.path(), &[]).await;
    assert_eq!(
        tool_names(&client).await,
        [
            "compose",
            "convert",
            "inspect",
            "poll_collate",
            "thread",
            "validate",
            "verify"
        ]
    );
    let refused = client
        .call_tool(
            CallToolRequestParams::new("send").with_arguments(
                json!({"text": REQUEST, "via": "file:a.crosstalk"})
                    .as_object()
                    .unwrap()
                    .clone(),
            ),
        )
        .await;
    assert!(refused.is_err(), "an unlisted tool cannot be called");
    assert!(!root.path().join("a.crosstalk").exists());
    let prompts = client.list_all_prompts().await.unwrap();
    assert_eq!(prompts[0].name, "crosstalk_primer");
    let resources = client.list_all_resources().await.unwrap();
    let uris: Vec<&str> = resources.iter().map(|r| r.uri.as_str()).collect();
    assert!(uris.contains(&"aiproto://protocols/crosstalk"), "{uris:?}");
    assert!(uris.contains(&"aiproto://schemas/hsp/1.0/fact"), "{uris:?}");
    client.cancel().await.unwrap();

    let client = start(root.path(), h.path(), &["--allow-network"]).await;
    let names = tool_names(&client).await;
    assert!(names.contains(&"send".to_string()) && names.contains(&"recv".to_string()));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn validate_answers_as_the_command_line_does() {
    let (root, h) = (home(), home());
    let cut = REQUEST.replace("[[END]]\n", "");
    let text = format!("{REQUEST}\n{cut}");
    std::fs::write(root.path().join("two.crosstalk"), &text).unwrap();
    let cli = aiproto(h.path())
        .args(["validate", "--format", "json", "two.crosstalk"])
        .current_dir(root.path())
        .output()
        .unwrap();
    let want = json_lines(&cli.stdout);
    assert_eq!(want.len(), 2);

    let client = start(root.path(), h.path(), &[]).await;
    let by_path = call(&client, "validate", json!({"path": "two.crosstalk"})).await;
    assert!(!is_error(&by_path));
    let got = structured(&by_path);
    assert_eq!(got["valid"], false);
    assert_eq!(got["messages"].as_array().unwrap(), &want);

    // The same text handed in: the same verdicts, under another source name.
    let by_text = call(&client, "validate", json!({"text": text})).await;
    let messages = structured(&by_text)["messages"].as_array().unwrap().clone();
    assert_eq!(messages[0]["source"], "<text>");
    assert_eq!(messages[1]["errors"], want[1]["errors"]);
    assert_eq!(messages[1]["valid"], false);

    // One id on two messages: the same finding on both faces.
    let other = REQUEST.replace("Please review.", "Please review it again.");
    std::fs::write(
        root.path().join("dup.crosstalk"),
        format!("{REQUEST}\n{other}"),
    )
    .unwrap();
    let cli = aiproto(h.path())
        .args(["validate", "--format", "json", "dup.crosstalk"])
        .current_dir(root.path())
        .output()
        .unwrap();
    let want = json_lines(&cli.stdout);
    let codes: Vec<&Value> = want[1]["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| &w["code"])
        .collect();
    assert!(codes.iter().any(|c| *c == "ID-DUPLICATE"), "{want:?}");
    let got = call(&client, "validate", json!({"path": "dup.crosstalk"})).await;
    assert_eq!(structured(&got)["messages"].as_array().unwrap(), &want);

    let nothing = call(&client, "validate", json!({})).await;
    assert!(is_error(&nothing));
    let unknown = call(&client, "validate", json!({"text": "x", "stict": true})).await;
    assert!(is_error(&unknown), "a misspelt argument is refused");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn compose_replies_in_the_thread_and_sign_binds_the_key_to_the_sender() {
    let (root, h) = (home(), home());
    let client = start(root.path(), h.path(), &["--allow-signing"]).await;
    let reply = call(
        &client,
        "compose",
        json!({"protocol": "crosstalk", "reply_to": format!("Here it is:\n\n{REQUEST}"), "body": "Looks good."}),
    )
    .await;
    assert!(!is_error(&reply), "{}", error_text(&reply));
    let reply = structured(&reply).clone();
    assert_eq!(reply["thread"], "01J9J3D3M6A4M3WQX8G1ZQ0S7K");
    assert_eq!(reply["parent"], "01J9J3DBC4N7P2Q3R5S7T9W1V2");
    assert_eq!(reply["answered"]["sender"], "CLAUDE");
    let text = reply["text"].as_str().unwrap();
    assert!(text.starts_with("[[CHATGPT→CLAUDE v1]]"), "{text}");
    aiproto(h.path())
        .args(["validate", "-"])
        .write_stdin(text)
        .assert()
        .code(0);

    let bad = call(
        &client,
        "compose",
        json!({"protocol": "crosstalk", "from": "A"}),
    )
    .await;
    assert!(is_error(&bad));
    assert!(
        error_text(&bad).contains("`from`, `to` and `intent`"),
        "{}",
        error_text(&bad)
    );

    // A key bound to CHATGPT signs CHATGPT's reply; verify names both.
    aiproto(h.path())
        .args([
            "keygen",
            "-q",
            "--id",
            "chatgpt-key",
            "--signs-for",
            "CHATGPT",
        ])
        .assert()
        .code(0);
    let signed = call(&client, "sign", json!({"text": text, "key": "chatgpt-key"})).await;
    assert!(!is_error(&signed), "{}", error_text(&signed));
    let signed = structured(&signed).clone();
    assert_eq!(signed["verified_here"][0]["valid"], true);
    let verdict = call(&client, "verify", json!({"text": signed["text"]})).await;
    let verdict = structured(&verdict);
    assert_eq!(verdict["valid"], true);
    assert_eq!(verdict["messages"][0]["key_id"], "chatgpt-key");
    assert_eq!(verdict["messages"][0]["sender"], "CHATGPT");
    assert_eq!(verdict["messages"][0]["bound"], true);

    // The same key on CLAUDE's message signs nothing.
    let other = call(
        &client,
        "sign",
        json!({"text": REQUEST, "key": "chatgpt-key"}),
    )
    .await;
    assert!(is_error(&other));
    assert!(
        error_text(&other).contains("the sender is `CLAUDE`"),
        "{}",
        error_text(&other)
    );
    let secret = serde_json::to_string(&signed).unwrap();
    assert!(!secret.contains("PRIVATE") && !secret.contains("secret"));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn paths_outside_the_root_are_refused() {
    let (root, h, outside) = (home(), home(), home());
    std::fs::write(outside.path().join("secret.crosstalk"), REQUEST).unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("secret.crosstalk"),
        root.path().join("link.crosstalk"),
    )
    .unwrap();
    std::fs::write(root.path().join("ok.crosstalk"), REQUEST).unwrap();
    let client = start(root.path(), h.path(), &["--allow-network"]).await;
    let secret = outside.path().join("secret.crosstalk");
    for path in [
        "../secret.crosstalk".to_string(),
        secret.display().to_string(),
        "link.crosstalk".to_string(),
        "/etc/passwd".to_string(),
    ] {
        let refused = call(&client, "inspect", json!({"path": path})).await;
        assert!(is_error(&refused), "{path} was read");
        let text = error_text(&refused);
        assert!(
            text.contains("..") || text.contains("outside the roots"),
            "{text}"
        );
    }
    let sent = call(&client, "send", json!({"text": REQUEST, "via": format!("file:{}", outside.path().join("a.crosstalk").display())})).await;
    assert!(is_error(&sent));
    assert!(!outside.path().join("a.crosstalk").exists());
    let read = call(&client, "inspect", json!({"path": "ok.crosstalk"})).await;
    assert_eq!(
        structured(&read)["messages"][0]["message"]["sender"],
        "CLAUDE"
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn send_appends_once_and_publishes_to_the_embedded_broker() {
    let (root, h) = (home(), home());
    let client = start(
        root.path(),
        h.path(),
        &["--allow-network", "--archive", "project.crosstalk"],
    )
    .await;
    for appended in [1, 0] {
        let sent = call(
            &client,
            "send",
            json!({"text": REQUEST, "via": "file:project.crosstalk"}),
        )
        .await;
        assert!(!is_error(&sent), "{}", error_text(&sent));
        assert_eq!(structured(&sent)["appended"], appended);
    }
    let archive = std::fs::read_to_string(root.path().join("project.crosstalk")).unwrap();
    assert_eq!(archive.matches("[[END]]").count(), 1);
    let tree = call(&client, "thread", json!({})).await;
    assert_eq!(structured(&tree)["records"][0]["root"]["sender"], "CLAUDE");

    let cut = REQUEST.replace("[[END]]\n", "");
    let refused = call(
        &client,
        "send",
        json!({"text": cut, "via": "file:project.crosstalk"}),
    )
    .await;
    assert!(is_error(&refused));
    assert!(
        error_text(&refused).contains("cut off"),
        "{}",
        error_text(&refused)
    );

    // No file a tool reads as configuration: a JSON document (a
    // package.json would be corrupted, .vscode/tasks.json runs commands),
    // nor anything in a hidden folder, whatever its extension.
    std::fs::write(root.path().join("package.json"), "{\"name\": \"p\"}\n").unwrap();
    std::fs::create_dir(root.path().join(".vscode")).unwrap();
    for via in [
        "file:package.json",
        "file:.vscode/tasks.json",
        "file:.vscode/notes.jsonl",
        "file:.git/hooks.crosstalk",
    ] {
        let refused = call(&client, "send", json!({"text": REQUEST, "via": via})).await;
        assert!(is_error(&refused), "{via}");
    }
    assert_eq!(
        std::fs::read_to_string(root.path().join("package.json")).unwrap(),
        "{\"name\": \"p\"}\n"
    );
    assert!(!root.path().join(".vscode/tasks.json").exists());
    assert!(!root.path().join(".vscode/notes.jsonl").exists());

    let (_broker, port) = embedded_broker(h.path());
    let recv = subscribed(
        h.path(),
        &[
            "--via",
            &format!("mqtt://127.0.0.1:{port}/relay/chatgpt"),
            "--count",
            "1",
            "--timeout",
            "20",
        ],
    );
    let sent = call(
        &client,
        "send",
        json!({"text": REQUEST, "via": format!("mqtt://127.0.0.1:{port}/relay/chatgpt")}),
    )
    .await;
    assert!(!is_error(&sent), "{}", error_text(&sent));
    let out = recv.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("01J9J3DBC4N7P2Q3R5S7T9W1V2"));
    client.cancel().await.unwrap();
}

/// `recv` takes what arrives through the inbox every face uses: a message
/// that comes twice is handed on once, as `aiproto recv` prints it once.
#[tokio::test]
async fn recv_hands_each_message_on_once_as_the_command_line_does() {
    let (root, h) = (home(), home());
    let twice = format!("{REQUEST}\n{REQUEST}");
    std::fs::write(root.path().join("inbox.crosstalk"), &twice).unwrap();
    let client = start(root.path(), h.path(), &["--allow-network"]).await;
    let got = call(
        &client,
        "recv",
        json!({"via": "file:inbox.crosstalk", "count": 5, "timeout_seconds": 2}),
    )
    .await;
    assert!(!is_error(&got), "{}", error_text(&got));
    let messages = structured(&got)["messages"].as_array().unwrap().clone();
    assert_eq!(messages.len(), 1, "{messages:#?}");
    assert_eq!(messages[0]["text"], REQUEST);
    assert_eq!(messages[0]["verdict"]["valid"], true);
    client.cancel().await.unwrap();

    let cli = aiproto(h.path())
        .args([
            "recv",
            "--via",
            "file:inbox.crosstalk",
            "--count",
            "5",
            "--timeout",
            "2",
        ])
        .current_dir(root.path())
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&cli.stdout)
            .matches("[[END]]")
            .count(),
        1
    );
}

/// What an assistant composes is never remembered as the person's own
/// text: `sign --only-mine` does not sign it for them.
#[tokio::test]
async fn what_the_assistant_composes_is_not_the_persons() {
    let (root, h) = (home(), home());
    let client = start(root.path(), h.path(), &[]).await;
    let composed = call(
        &client,
        "compose",
        json!({"protocol": "crosstalk", "from": "ME", "to": "CLAUDE", "intent": "REQUEST", "body": "Pay 1000 EUR."}),
    )
    .await;
    assert!(!is_error(&composed), "{}", error_text(&composed));
    client.cancel().await.unwrap();
    assert!(
        !h.path().join("composed").exists(),
        "an assistant's text was remembered as the person's"
    );
}

#[tokio::test]
async fn the_primer_prompt_carries_the_ids_of_the_envelope_answered() {
    let (root, h) = (home(), home());
    let client = start(root.path(), h.path(), &[]).await;
    let mut args = serde_json::Map::new();
    args.insert("reply_to".into(), json!(REQUEST));
    let prompt = client
        .get_prompt(GetPromptRequestParams::new("crosstalk_primer").with_arguments(args))
        .await
        .unwrap();
    let text = serde_json::to_string(&prompt.messages).unwrap();
    assert!(text.contains("01J9J3D3M6A4M3WQX8G1ZQ0S7K"), "{text}");
    assert!(text.contains("CHATGPT"), "{text}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn hostile_input_gets_a_tool_error_or_a_finding_never_a_crash() {
    let (root, h) = (home(), home());
    std::fs::write(root.path().join("binary.crosstalk"), b"[[A\xff\xfe\x00").unwrap();
    std::fs::write(root.path().join("big.crosstalk"), "x".repeat(2048)).unwrap();
    let client = start(root.path(), h.path(), &["--max-bytes", "1024"]).await;

    // A file that is not text is a finding, as the command line reports it.
    let binary = call(&client, "validate", json!({"path": "binary.crosstalk"})).await;
    assert!(!is_error(&binary), "{}", error_text(&binary));
    let verdict = structured(&binary);
    assert_eq!(verdict["valid"], false);
    let error = &verdict["messages"][0]["errors"][0];
    assert_eq!(error["code"], "INPUT-NOT-UTF8", "{verdict}");
    assert_eq!(
        (&error["line"], &error["column"]),
        (&json!(1), &json!(4)),
        "{verdict}"
    );

    for big in [
        call(&client, "validate", json!({"path": "big.crosstalk"})).await,
        call(&client, "validate", json!({"text": "y".repeat(2048)})).await,
    ] {
        assert!(is_error(&big));
        assert!(
            error_text(&big).contains("over this server's limit of 1024"),
            "{}",
            error_text(&big)
        );
    }

    let invisible = REQUEST.replace("intent: REQUEST", "intent:\u{200B} REQUEST");
    let found = call(&client, "validate", json!({"text": invisible})).await;
    let record = serde_json::to_string(structured(&found)).unwrap();
    assert!(record.contains("U+200B"), "{record}");

    let wrong_type = call(&client, "convert", json!({"text": REQUEST, "to": 5})).await;
    assert!(is_error(&wrong_type));
    assert!(
        error_text(&wrong_type).contains("invalid arguments"),
        "{}",
        error_text(&wrong_type)
    );
    let protocol = call(
        &client,
        "validate",
        json!({"text": REQUEST, "protocol": "smtp"}),
    )
    .await;
    assert!(is_error(&protocol));

    // The server still answers after all of that.
    let ok = call(&client, "validate", json!({"text": REQUEST})).await;
    assert_eq!(structured(&ok)["valid"], true);
    client.cancel().await.unwrap();
}

/// What an assistant may not do unless the person allowed it: sign with
/// their key, append to a file that is not a message file, ask for a QoS
/// MQTT has not.
#[tokio::test]
async fn the_assistant_signs_and_writes_only_what_the_person_allowed() {
    let (root, h) = (home(), home());
    aiproto(h.path())
        .args(["keygen", "-q", "--id", "CLAUDE"])
        .assert()
        .code(0);
    let client = start(root.path(), h.path(), &["--allow-network"]).await;
    assert!(!tool_names(&client).await.contains(&"sign".to_string()));
    let refused = client
        .call_tool(
            CallToolRequestParams::new("sign").with_arguments(
                json!({"text": REQUEST, "key": "CLAUDE"})
                    .as_object()
                    .unwrap()
                    .clone(),
            ),
        )
        .await;
    assert!(refused.is_err(), "an unlisted sign cannot be called");
    std::fs::write(root.path().join(".bashrc"), "# shell\n").unwrap();
    for via in ["file:.bashrc", "file:notes.txt", "file:run.sh"] {
        let sent = call(&client, "send", json!({"text": REQUEST, "via": via})).await;
        assert!(is_error(&sent), "{via}");
        assert!(
            error_text(&sent).contains("message file"),
            "{}",
            error_text(&sent)
        );
    }
    assert_eq!(
        std::fs::read_to_string(root.path().join(".bashrc")).unwrap(),
        "# shell\n"
    );
    assert!(!root.path().join("notes.txt").exists());
    // A message file inside the roots takes it.
    let sent = call(
        &client,
        "send",
        json!({"text": REQUEST, "via": "file:kept.crosstalk"}),
    )
    .await;
    assert!(!is_error(&sent), "{}", error_text(&sent));
    let qos = call(
        &client,
        "send",
        json!({"text": REQUEST, "via": "mqtt://127.0.0.1:1/t", "qos": 7}),
    )
    .await;
    assert!(is_error(&qos));
    client.cancel().await.unwrap();
    let tools = {
        let client = start(root.path(), h.path(), &["--allow-signing"]).await;
        let listed = client.list_all_tools().await.unwrap();
        client.cancel().await.unwrap();
        listed
    };
    let sign = tools.iter().find(|t| t.name == "sign").unwrap();
    let annotations = sign.annotations.as_ref().unwrap();
    assert_eq!(annotations.read_only_hint, Some(false));
    assert!(
        sign.description
            .as_deref()
            .unwrap()
            .starts_with("Speaks as the person")
    );
}

#[test]
fn a_root_of_slash_or_home_is_refused_unless_named() {
    let h = home();
    // The home directory is h/people/me: h/people holds it.
    let me = h.path().join("people/me");
    std::fs::create_dir_all(&me).unwrap();
    for dir in [
        std::path::PathBuf::from("/"),
        me.clone(),
        h.path().join("people"),
    ] {
        aiproto(h.path())
            .current_dir(&dir)
            .env("HOME", &me)
            .arg("mcp")
            .assert()
            .code(2)
            .stderr(predicates::str::contains("--root DIR"));
    }
}
