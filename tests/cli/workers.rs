//! `recv --exec`: a worker that acknowledges each task to the broker only
//! once its handler succeeded, so that a worker killed mid-stream, or a
//! handler that fails, loses no task (tested on Mosquitto, which keeps a
//! persistent session's unacknowledged messages).

use std::collections::HashMap;
use std::path::Path;
use std::process::Child;
use std::time::{Duration, Instant};

use super::support::{aiproto, home, subscribed_logged};

/// `n` HSP TaskRequests, one a line, with message ids `…-000000000000` up.
fn tasks(n: usize) -> String {
    (0..n)
        .map(|i| {
            serde_json::json!({
                "hsp_envelope_version": "1.0",
                "message_id": format!("018f4a70-0000-7000-8000-{i:012}"),
                "correlation_id": null,
                "sender_ai_id": "did:hsp:requester",
                "recipient_ai_id": "did:hsp:translator",
                "timestamp_sent": "2026-11-28T14:00:00Z",
                "message_type": "HSP::TaskRequest_v1.0",
                "protocol_version": "1.0",
                "communication_pattern": "request",
                "qos_parameters": {"priority": "medium", "requires_ack": false},
                "payload": {
                    "request_id": format!("018f4a70-0000-7000-9000-{i:012}"),
                    "requester_ai_id": "did:hsp:requester",
                    "capability_id_filter": "translate",
                    "parameters": {"text": format!("task {i}")},
                    "callback_address": "hsp/results/requester"
                }
            })
            .to_string()
                + "\n"
        })
        .collect()
}

/// A worker: `recv --exec` whose handler writes the message id it handles
/// to `done` (one line each, after a short piece of work); what it says
/// goes to `done` + `.log`.
fn worker(
    dir: &Path,
    uri: &str,
    version: &str,
    session: &str,
    done: &Path,
    extra: &[&str],
) -> Child {
    let handler = format!(
        "sed -n 's/.*\"message_id\": *\"\\([^\"]*\\)\".*/\\1/p' > {0}.part; sleep 0.01; cat {0}.part >> {0}",
        done.display()
    );
    let mut args = vec!["--via", uri, "--share", "translators", "--qos", "1"];
    args.extend([
        "--mqtt-version",
        version,
        "--session",
        session,
        "--exec",
        &handler,
    ]);
    args.extend(extra);
    subscribed_logged(dir, &args, &log_of(done))
}

fn log_of(done: &Path) -> std::path::PathBuf {
    done.with_extension("log")
}

fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

/// Three workers take 300 tasks; one is killed (SIGKILL) after a few and
/// started again under its session: every task is handled, and a task
/// handled twice is one the broker said it sent again. With MQTT 5 the
/// broker gives a worker one task at a time (Receive Maximum 1): at most
/// the one in hand comes again; over 3.1.1, the broker's window of tasks
/// not yet acknowledged (Mosquitto: 20), unless --state remembers them.
#[test]
fn a_worker_killed_mid_stream_loses_no_task() {
    let Some(binary) = super::mqtt::mosquitto("a_worker_killed_mid_stream_loses_no_task") else {
        return;
    };
    let h = home();
    let (_mosquitto, port) = super::mqtt::anonymous_mosquitto(binary, h.path());
    let file = h.path().join("tasks.jsonl");
    std::fs::write(&file, tasks(300)).unwrap();
    for (version, state) in [("3.1.1", false), ("5", true)] {
        let uri = format!(
            "mqtt://127.0.0.1:{port}/pool/{}/tasks",
            version.replace('.', "")
        );
        let done = |n: &str| h.path().join(format!("done-{version}-{n}"));
        let session = |n: usize| format!("translator-{}-{n}", version.replace('.', ""));
        let state_file = h.path().join(format!("state-{version}"));
        let extra: Vec<&str> = if state {
            vec!["--state", state_file.to_str().unwrap()]
        } else {
            vec![]
        };
        let mut workers: Vec<Child> = (1..=3)
            .map(|n| {
                let mut with_timeout = extra.clone();
                with_timeout.extend(["--timeout", "12"]);
                worker(
                    h.path(),
                    &uri,
                    version,
                    &session(n),
                    &done(&n.to_string()),
                    &with_timeout,
                )
            })
            .collect();
        aiproto(h.path())
            .args([
                "send",
                "--via",
                &uri,
                "--qos",
                "1",
                "--mqtt-version",
                version,
            ])
            .arg(&file)
            .assert()
            .code(0);
        // Killed once it has handled a few.
        let started = Instant::now();
        while lines(&done("2")).len() < 5 {
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "worker 2 handled nothing"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        let mut killed = workers.remove(1);
        killed.kill().unwrap();
        killed.wait().unwrap();
        let mut again_args = extra.clone();
        again_args.extend(["--timeout", "8"]);
        let again = worker(
            h.path(),
            &uri,
            version,
            &session(2),
            &done("2b"),
            &again_args,
        );
        for w in workers.into_iter().chain([again]) {
            w.wait_with_output().unwrap();
        }
        let again_err = std::fs::read_to_string(log_of(&done("2b"))).unwrap();
        let mut handled: HashMap<String, usize> = HashMap::new();
        for n in ["1", "2", "2b", "3"] {
            for id in lines(&done(n)) {
                *handled.entry(id).or_default() += 1;
            }
        }
        assert_eq!(handled.len(), 300, "MQTT {version}: tasks lost");
        let twice = handled.values().filter(|n| **n > 1).count();
        let said = again_err
            .matches("a message the broker sends again")
            .count();
        assert!(
            twice <= said,
            "MQTT {version}: {twice} handled twice, {said} said:\n{again_err}"
        );
        let bound = if version == "5" || state { 1 } else { 20 };
        assert!(twice <= bound, "MQTT {version}: {twice} handled twice");
    }
}

/// A handler that fails stops the worker with its task unacknowledged
/// (exit 3, said): the worker started again under its session gets it.
#[test]
fn a_failing_handler_leaves_its_task_with_the_broker() {
    let Some(binary) = super::mqtt::mosquitto("a_failing_handler_leaves_its_task_with_the_broker")
    else {
        return;
    };
    let h = home();
    let (_mosquitto, port) = super::mqtt::anonymous_mosquitto(binary, h.path());
    let uri = format!("mqtt://127.0.0.1:{port}/solo/tasks");
    let file = h.path().join("one.jsonl");
    std::fs::write(&file, tasks(1)).unwrap();
    // First run: subscribe and fail on the task.
    let log = h.path().join("first.log");
    let first = subscribed_logged(
        h.path(),
        &[
            "--via",
            &uri,
            "--qos",
            "1",
            "--session",
            "solo",
            "--exec",
            "cat > /dev/null; exit 7",
            "--timeout",
            "10",
        ],
        &log,
    );
    aiproto(h.path())
        .args(["send", "--via", &uri, "--qos", "1"])
        .arg(&file)
        .assert()
        .code(0);
    let out = first.wait_with_output().unwrap();
    let err = std::fs::read_to_string(&log).unwrap();
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains("exited with"), "{err}");
    assert!(err.contains("not acknowledged"), "{err}");
    // Second run, same session: the task comes again and is handled.
    let out = aiproto(h.path())
        .args(["recv", "--via", &uri, "--qos", "1", "--session", "solo"])
        .args([
            "--exec",
            "grep -o 'task 0'",
            "--count",
            "1",
            "--timeout",
            "10",
        ])
        .assert()
        .code(0);
    assert_eq!(
        String::from_utf8_lossy(&out.get_output().stdout),
        "task 0\n"
    );
}
