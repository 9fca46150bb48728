//! `serve --exec` and `--inbox` under the load a hostile or unlucky client
//! brings: a handler that echoes a large message, a handler that fails
//! and the client's retry, the same id-less message thirty times, an inbox
//! at its quota.

use crate::REQUEST;
use crate::home;
use crate::http::{Server, raw_exchange};

#[test]
fn a_handler_that_echoes_a_large_message_answers_it() {
    let h = home();
    let server = Server::start(h.path(), &["--exec", "cat", "--max-bytes", "4000000"]);
    let big = REQUEST.replace("Please review.", &"x".repeat(1024 * 1024));
    let (status, body) = raw_exchange(&server.url, "/crosstalk/receive", &big);
    assert_eq!(status, 200);
    assert_eq!(body.len(), big.len());
}

#[test]
fn a_message_is_acknowledged_only_once_its_handler_succeeded() {
    let h = home();
    // Fails the first time, succeeds the second; counts its runs.
    let runs = h.path().join("runs");
    let handler = format!(
        "echo run >> '{0}'; [ $(wc -l < '{0}') -ge 2 ] || exit 1; echo handled",
        runs.display()
    );
    let server = Server::start(h.path(), &["--inbox", "inbox", "--exec", &handler]);
    let post = || raw_exchange(&server.url, "/crosstalk/receive", REQUEST);
    let count = || std::fs::read_to_string(&runs).unwrap().lines().count();
    let (status, _) = post();
    assert_eq!(status, 502, "the handler failed");
    assert!(
        !h.path()
            .join("inbox/01J9J3DBC4N7P2Q3R5S7T9W1V2.crosstalk")
            .exists(),
        "nothing kept of a message its handler did not take"
    );
    // The client's retry runs the handler again, and it succeeds.
    let (status, body) = post();
    assert_eq!((status, body.as_str()), (200, "handled\n"));
    assert_eq!(count(), 2);
    // A retry after success is acknowledged without a third run.
    let (status, body) = post();
    assert_eq!(status, 200);
    assert!(body.contains("intent: ACK"), "{body}");
    assert_eq!(count(), 2);
}

#[test]
fn a_handler_past_its_deadline_is_stopped_and_the_server_goes_on() {
    let h = home();
    let server = Server::start(h.path(), &["--exec", "sleep 30", "--exec-timeout", "1"]);
    let started = std::time::Instant::now();
    let (status, body) = raw_exchange(&server.url, "/crosstalk/receive", REQUEST);
    assert_eq!(status, 502);
    assert!(body.contains("did not finish within 1 s"), "{body}");
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
}

#[test]
fn the_inbox_keeps_an_id_less_message_once_and_stays_within_its_quota() {
    let h = home();
    let server = Server::start(h.path(), &["--inbox", "inbox", "--max-inbox-files", "3"]);
    // A Crosstalk 1.0 envelope has no message id.
    let id_less = std::fs::read_to_string(crate::repo(
        "examples/crosstalk/valid/v1_0-question.crosstalk",
    ))
    .unwrap();
    for _ in 0..30 {
        let (status, body) = raw_exchange(&server.url, "/crosstalk/receive", &id_less);
        assert_eq!(status, 200, "{body}");
    }
    let files = || std::fs::read_dir(h.path().join("inbox")).unwrap().count();
    assert_eq!(files(), 1, "thirty identical posts, one file");
    // Two more fill the quota of three; the next is refused with 507.
    let other = |n: u32| {
        REQUEST.replace(
            "01J9J3DBC4N7P2Q3R5S7T9W1V2",
            &format!("01J9J3DBC4N7P2Q3R5S7T9W1V{n}"),
        )
    };
    assert_eq!(
        raw_exchange(&server.url, "/crosstalk/receive", &other(3)).0,
        200
    );
    assert_eq!(
        raw_exchange(&server.url, "/crosstalk/receive", &other(4)).0,
        200
    );
    let (status, body) = raw_exchange(&server.url, "/crosstalk/receive", &other(5));
    assert_eq!(status, 507, "{body}");
    assert!(body.contains("--max-inbox-files 3"), "{body}");
    assert_eq!(files(), 3);
}
