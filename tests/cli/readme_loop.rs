//! The README's relay loop, run exactly as written: each command of its
//! shell block through `sh`, under a real X server with the clipboard,
//! with this test playing both chats — and the forgotten copy, when the
//! clipboard still holds the primer.

use crate::clipboard::Display;
use crate::{home, repo};

/// The commands of the README's "Relay between chat assistants" block.
fn readme_commands() -> Vec<String> {
    let readme = std::fs::read_to_string(repo("README.md")).unwrap();
    let section = readme
        .split("### Relay between chat assistants")
        .nth(1)
        .unwrap();
    let block = section
        .split("```sh\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .unwrap();
    block
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

/// What an assistant answers after the primer: its example envelope with a
/// body of its own, in a code block inside some prose.
fn answer_to(primer: &str, body: &str) -> String {
    let example = primer
        .split("```\n")
        .nth(1)
        .expect("the primer shows an example envelope");
    let example = example.split("```").next().unwrap();
    let mut envelope = String::new();
    let mut in_placeholder = false;
    for line in example.lines() {
        if line == "body: |" {
            envelope.push_str(&format!("body: |\n  {body}\n"));
            in_placeholder = true;
            continue;
        }
        if in_placeholder && line.starts_with("  ") {
            continue;
        }
        in_placeholder = false;
        envelope.push_str(line);
        envelope.push('\n');
    }
    format!("Sure, here is my message:\n\n```\n{envelope}```\n\nLet me know!\n")
}

#[test]
fn the_readme_relay_loop_runs_as_written() {
    let Some(display) = Display::start("the_readme_relay_loop_runs_as_written") else {
        return;
    };
    let h = home();
    let work = tempfile::tempdir().unwrap();
    let bin = assert_cmd::cargo::cargo_bin("aiproto");
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let run = |command: &str| {
        let out = std::process::Command::new("sh")
            .args(["-c", command])
            .current_dir(work.path())
            .env("PATH", &path)
            .env("AIPROTO_HOME", h.path())
            .env("DISPLAY", display.name())
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).to_string()
                + &String::from_utf8_lossy(&out.stderr),
        )
    };
    let commands = readme_commands();
    assert_eq!(commands.len(), 11, "{commands:#?}");
    // Set up, once: the person's key (the README's "Set up").
    let (code, out) = run("aiproto keygen --id you@example.com --signs-for HUMAN");
    assert_eq!(code, Some(0), "{out}");
    let archive = work.path().join("project.crosstalk");
    let archived = || {
        std::fs::read_to_string(&archive)
            .unwrap_or_default()
            .matches("[[END]]")
            .count()
    };

    // 1. The primer for chat A, addressed to chat B.
    let (code, out) = run(&commands[0]);
    assert_eq!(code, Some(0), "{}: {out}", commands[0]);
    let primer_a = display.xclip_out();
    assert!(primer_a.contains("[[CLAUDE→CHATGPT v1]]"), "{primer_a}");
    // Chat A answers; 2. checked and archived.
    display.xclip_in(&answer_to(&primer_a, "Please review the pagination patch."));
    for command in &commands[1..3] {
        let (code, out) = run(command);
        assert_eq!(code, Some(0), "{command}: {out}");
    }
    assert_eq!(archived(), 1, "chat A's first envelope is archived");

    // 3. The primer for chat B, with the envelope to answer.
    let (code, out) = run(&commands[3]);
    assert_eq!(code, Some(0), "{}: {out}", commands[3]);
    let primer_b = display.xclip_out();
    assert!(
        primer_b.contains("[[CHATGPT→CLAUDE v1]]"),
        "chat B answers as itself: {primer_b}"
    );

    // The forgotten copy: the clipboard still holds the primer. Nothing is
    // archived, and the person is told why.
    let (code, out) = run(&commands[4]);
    assert_ne!(code, Some(0), "{out}");
    assert!(out.contains("CT-PRIMER-EXAMPLE"), "{out}");
    assert_eq!(archived(), 1, "the primer's example is not archived");

    // Chat B answers; 4. archived, and the thread has no orphan.
    display.xclip_in(&answer_to(&primer_b, "Looks right to me."));
    let (code, out) = run(&commands[4]);
    assert_eq!(code, Some(0), "{}: {out}", commands[4]);
    assert_eq!(archived(), 2);
    let (code, out) = run(&commands[5]);
    assert_eq!(code, Some(0), "{}: {out}", commands[5]);
    assert!(!out.contains("orphan"), "{out}");
    assert!(
        out.contains("CLAUDE → CHATGPT") || out.contains("CLAUDE→CHATGPT"),
        "{out}"
    );

    // 5. The person answers as themself, signs, archives and copies it.
    for command in &commands[6..10] {
        let (code, out) = run(command);
        assert_eq!(code, Some(0), "{command}: {out}");
    }
    assert_eq!(archived(), 3, "the person's own envelope is archived");
    let reply = display.xclip_out();
    assert!(reply.starts_with("[[HUMAN→CHATGPT v1]]"), "{reply}");
    assert!(
        reply.contains("sig: ed25519:pkid=you@example.com;"),
        "{reply}"
    );

    // 6. The archive verifies as a relay's: the two assistants' envelopes
    // unsigned and allowed, the person's signed and good.
    let (code, out) = run(&commands[10]);
    assert_eq!(code, Some(0), "{}: {out}", commands[10]);
    assert!(
        out.contains("ok signed by you@example.com for HUMAN"),
        "{out}"
    );
    // An edit of the person's envelope in the archive fails it.
    let text = std::fs::read_to_string(&archive).unwrap();
    std::fs::write(
        &archive,
        text.replace("Agreed, ship it.", "Agreed, ship it now."),
    )
    .unwrap();
    let (code, out) = run(&commands[10]);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("SIG-BAD"), "{out}");
}
