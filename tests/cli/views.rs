//! `inspect`, `thread`, `poll collate` and `id`: views over many messages.

use predicates::prelude::*;

use super::{REQUEST, aiproto, home, json_lines, repo};

fn reply(id: &str, parent: &str, from: &str, body: &str) -> String {
    format!(
        "[[{from}→CLAUDE v1]]\nthread: 01J9J3D3M6A4M3WQX8G1ZQ0S7K\nparent: {parent}\nmessage: {id}\nintent: RESPOND\nbody: |\n  {body}\nsig: none\n[[END]]\n"
    )
}

#[test]
fn inspect_shows_who_what_and_the_body() {
    let h = home();
    aiproto(h.path())
        .arg("inspect")
        .write_stdin(REQUEST)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("from      CLAUDE"))
        .stdout(predicate::str::contains("intent    REQUEST"))
        .stdout(predicate::str::contains(
            "message   01J9J3DBC4N7P2Q3R5S7T9W1V2  (2024-",
        ))
        .stdout(predicate::str::contains("│ Please review."))
        .stdout(predicate::str::contains("signature none (unsigned)"));
}

#[test]
fn thread_draws_the_tree_and_reports_orphans() {
    let h = home();
    let input = [
        REQUEST.to_string(),
        reply(
            "01J9J3DF8WQ0R2T4V6X8Z0B2D4",
            "01J9J3DBC4N7P2Q3R5S7T9W1V2",
            "CHATGPT",
            "first answer",
        ),
        reply(
            "01J9J3DG8WQ0R2T4V6X8Z0B2D4",
            "01J9J3DF8WQ0R2T4V6X8Z0B2D4",
            "GEMINI",
            "on the answer",
        ),
        reply(
            "01J9J3DH8WQ0R2T4V6X8Z0B2D4",
            "01J9J3DZZZZZZZZZZZZZZZZZZZ",
            "GROK",
            "lost",
        ),
    ]
    .join("\n");
    let out = aiproto(h.path())
        .arg("thread")
        .write_stdin(input.clone())
        .assert()
        .code(0);
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(
        stdout.contains("├─ 01J9J3DBC4N7P2Q3R5S7T9W1V2 CLAUDE→CHATGPT REQUEST"),
        "{stdout}"
    );
    assert!(
        stdout.contains("│  └─ 01J9J3DF8WQ0R2T4V6X8Z0B2D4 CHATGPT→CLAUDE RESPOND first answer"),
        "{stdout}"
    );
    assert!(
        stdout.contains("│     └─ 01J9J3DG8WQ0R2T4V6X8Z0B2D4 GEMINI→CLAUDE RESPOND"),
        "{stdout}"
    );
    assert!(
        stdout.contains("└─ 01J9J3DH8WQ0R2T4V6X8Z0B2D4 GROK→CLAUDE RESPOND lost"),
        "{stdout}"
    );
    assert!(String::from_utf8_lossy(&out.get_output().stderr).contains("orphan"));
    let out = aiproto(h.path())
        .args(["thread", "--format", "json"])
        .write_stdin(input)
        .assert()
        .code(0);
    let lines = json_lines(&out.get_output().stdout);
    assert_eq!(lines[0]["type"], "tree");
    assert_eq!(
        lines[0]["root"]["children"][0]["children"][0]["sender"],
        "GEMINI"
    );
    assert!(lines.iter().any(|l| l["problem"] == "orphan"));
}

/// A parent id retyped with a slip (one character changed, two swapped,
/// lower case) is named with the id it nearly is, on stderr and in JSON;
/// one that is near two ids, or far from every one, gets no guess.
#[test]
fn an_orphan_whose_parent_is_a_slip_gets_a_did_you_mean() {
    let h = home();
    for (parent, guess) in [
        (
            "01J9J3DBC4N7P2Q3R5S7T9W1VZ",
            Some("01J9J3DBC4N7P2Q3R5S7T9W1V2"),
        ),
        (
            "01j9j3dbc4n7p2q3r5s7t9w12v",
            Some("01J9J3DBC4N7P2Q3R5S7T9W1V2"),
        ),
        ("01J9J3DBC4N7P2Q3R5S7T9WXYZ", None),
    ] {
        let input = [
            REQUEST.to_string(),
            reply("01J9J3DF8WQ0R2T4V6X8Z0B2D4", parent, "CHATGPT", "answer"),
        ]
        .join("\n");
        let out = aiproto(h.path())
            .arg("thread")
            .write_stdin(input.clone())
            .assert()
            .code(0);
        let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
        assert!(stderr.contains("(orphan)"), "{stderr}");
        match guess {
            Some(id) => assert!(
                stderr.contains(&format!("did you mean {id} (<stdin>:1, CLAUDE→CHATGPT)?")),
                "{stderr}"
            ),
            None => assert!(!stderr.contains("did you mean"), "{stderr}"),
        }
        let out = aiproto(h.path())
            .args(["thread", "--format", "json"])
            .write_stdin(input)
            .assert()
            .code(0);
        let lines = json_lines(&out.get_output().stdout);
        let orphan = lines.iter().find(|l| l["problem"] == "orphan").unwrap();
        assert_eq!(orphan["did_you_mean"].as_str(), guess, "{orphan}");
    }
}

#[test]
fn thread_cycles_exit_1() {
    let h = home();
    let input = [
        reply(
            "01J9J3DF8WQ0R2T4V6X8Z0B2D4",
            "01J9J3DG8WQ0R2T4V6X8Z0B2D4",
            "A",
            "x",
        ),
        reply(
            "01J9J3DG8WQ0R2T4V6X8Z0B2D4",
            "01J9J3DF8WQ0R2T4V6X8Z0B2D4",
            "B",
            "y",
        ),
    ]
    .join("\n");
    aiproto(h.path())
        .arg("thread")
        .write_stdin(input)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("cycle"));
}

/// The ULID of a number: distinct ids for generated chains.
fn nth_id(n: usize) -> String {
    ulid::Ulid::from_parts(1_700_000_000_000 + n as u64, n as u128).to_string()
}

/// A chain of `n` replies, each answering the one before.
fn chain(n: usize) -> String {
    (0..n)
        .map(|i| {
            let parent = if i == 0 {
                nth_id(usize::MAX >> 20)
            } else {
                nth_id(i - 1)
            };
            reply(&nth_id(i), &parent, "A", &format!("m{i}"))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_deep_thread_continues_below_the_depth_cap_in_linear_output() {
    let h = home();
    let n = 3_000;
    let out = aiproto(h.path())
        .arg("thread")
        .write_stdin(chain(n))
        .assert()
        .code(0);
    let text = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    // Every message once; no line indented past the cap.
    assert_eq!(
        text.matches(" A→CLAUDE RESPOND ").count(),
        n,
        "{}",
        &text[..2000]
    );
    assert!(text.lines().all(|l| l.chars().count() < 400));
    assert!(text.contains("continued: the replies to"));
    let out = aiproto(h.path())
        .args(["thread", "--format", "json"])
        .write_stdin(chain(n))
        .assert()
        .code(0);
    let lines = json_lines(&out.get_output().stdout);
    let trees: Vec<_> = lines.iter().filter(|l| l["type"] == "tree").collect();
    // 33 levels per tree line: the root's, then each continuation's.
    assert_eq!(trees.len(), n.div_ceil(33));
    assert_eq!(trees[1]["continued_from"]["depth"], 32);
    assert_eq!(trees[1]["continued_from"]["id"], nth_id(32));
    assert_eq!(trees[1]["root"]["id"], nth_id(33));
    assert_eq!(trees[2]["continued_from"]["depth"], 65);
}

#[test]
fn a_cycle_below_a_long_chain_is_reported_once() {
    let h = home();
    let (a, b) = (nth_id(1 << 30), nth_id((1 << 30) + 1));
    let mut input = vec![reply(&a, &b, "A", "a"), reply(&b, &a, "B", "b")];
    let n = 5_000;
    for i in 0..n {
        let parent = if i + 1 == n { a.clone() } else { nth_id(i + 1) };
        input.push(reply(&nth_id(i), &parent, "C", "x"));
    }
    let out = aiproto(h.path())
        .args(["thread", "--format", "json"])
        .write_stdin(input.join("\n"))
        .assert()
        .code(1);
    let lines = json_lines(&out.get_output().stdout);
    let cycles: Vec<_> = lines.iter().filter(|l| l["problem"] == "cycle").collect();
    assert_eq!(cycles.len(), 1);
    assert_eq!(cycles[0]["messages"].as_array().unwrap().len(), 2);
}

#[test]
fn poll_collate_tallies_the_example() {
    let h = home();
    let out = aiproto(h.path())
        .args(["poll", "collate", "--format", "json"])
        .arg(repo(
            "examples/crosstalk/valid/v1_1-poll-and-answers.crosstalk",
        ))
        .assert()
        .code(0);
    let c = json_lines(&out.get_output().stdout).remove(0);
    assert_eq!(c["answers"][0]["answer"], "monday");
    assert_eq!(c["answers"][0]["count"], 2);
    assert_eq!(c["missing"], serde_json::json!(["GEMINI"]));
    aiproto(h.path())
        .args(["poll", "collate"])
        .arg(repo(
            "examples/crosstalk/valid/v1_1-poll-and-answers.crosstalk",
        ))
        .assert()
        .stdout(predicate::str::contains("2 × monday"))
        .stdout(predicate::str::contains("not answered: GEMINI"));
}

#[test]
fn id_prints_distinct_sortable_ids() {
    let h = home();
    let out = aiproto(h.path()).args(["id", "-n", "50"]).assert().code(0);
    let ids: Vec<String> = String::from_utf8_lossy(&out.get_output().stdout)
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(ids.len(), 50);
    assert!(ids.iter().all(|i| i.len() == 26));
    let mut unique = ids.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), 50);
    let out = aiproto(h.path()).args(["id", "--uuid7"]).assert().code(0);
    let uuid = String::from_utf8_lossy(&out.get_output().stdout)
        .trim()
        .to_string();
    assert_eq!(&uuid[14..15], "7");
}
