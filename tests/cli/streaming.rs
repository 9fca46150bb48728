//! The commands that read many messages keep their promises on inputs
//! larger than the pieces they are read in: all or nothing across pieces,
//! findings placed in the whole input, order kept, nothing lost.

use super::{aiproto, big_archive, big_archive_id, home, json_lines};

/// Enough envelopes (over 8 MB) for several pieces.
const COUNT: usize = 12_000;

fn shout(envelope: &str) -> String {
    envelope.replace("intent: REQUEST", "intent: SHOUT")
}

#[test]
fn send_refuses_a_large_input_with_one_invalid_envelope_near_its_end() {
    let h = home();
    let (archive, start) = big_archive(COUNT, Some(COUNT - 3), shout);
    let path = h.path().join("archive.crosstalk");
    std::fs::write(&path, &archive).unwrap();
    let mailbox = h.path().join("box.crosstalk");
    let via = format!("file:{}", mailbox.display());
    let out = aiproto(h.path())
        .args(["send", path.to_str().unwrap(), "--via", &via])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("archive.crosstalk:{}:9:", start + 6))
            && stderr.contains("nothing sent"),
        "{stderr}"
    );
    assert!(!mailbox.exists(), "something was written");

    // Repaired, from stdin (kept in a temporary file for the second pass):
    // every envelope, in order; sent again, nothing is appended.
    let (archive, _) = big_archive(COUNT, None, shout);
    for appended in [COUNT, 0] {
        let out = aiproto(h.path())
            .args(["send", "--via", &via])
            .write_stdin(archive.clone())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(&format!("appended {appended} message(s)")),
            "{stderr}"
        );
    }
    let converted = aiproto(h.path())
        .args(["convert", "--to", "hsp", mailbox.to_str().unwrap()])
        .output()
        .unwrap();
    let ids: Vec<String> = json_lines(&converted.stdout)
        .iter()
        .map(|m| m["message_id"].as_str().unwrap().to_string())
        .collect();
    let expected: Vec<String> = (0..COUNT).map(big_archive_id).collect();
    assert!(ids == expected, "messages out of order or lost");

    // One id on other content, at the end of a large input: nothing written.
    let before = std::fs::metadata(&mailbox).unwrap().len();
    let mut conflicting = archive.replace("01J9J3DBC4N7P2Q3R5", "01J9J3DBC4N7P2Q3R6");
    conflicting.push_str(&big_archive(1, Some(0), |e| e.replace("Please", "Kindly")).0);
    let out = aiproto(h.path())
        .args(["send", "--via", &via])
        .write_stdin(conflicting)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("with different content; nothing written")
    );
    assert_eq!(std::fs::metadata(&mailbox).unwrap().len(), before);
}

#[test]
fn send_to_stdout_keeps_every_envelope_apart() {
    let h = home();
    let (archive, _) = big_archive(COUNT, None, shout);
    let out = aiproto(h.path())
        .args(["send", "-q", "--via", "-"])
        .write_stdin(archive.clone())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    // The canonical form of the archive: one blank line between envelopes,
    // also where one piece ends and the next begins, no space at a line's
    // end, none after the last.
    let expected = format!("{}\n", archive.replace(" \n", "\n").trim_end());
    assert!(
        String::from_utf8_lossy(&out.stdout) == expected,
        "output differs"
    );
}

#[test]
fn sign_in_place_rewrites_a_large_file_and_keeps_the_text_around() {
    let h = home();
    aiproto(h.path())
        .args(["keygen", "-q", "--id", "claude", "--signs-for", "CLAUDE"])
        .assert()
        .code(0);
    let (archive, _) = big_archive(COUNT, None, shout);
    let text = format!("Notes before.\n\n{archive}Notes after.\n");
    let path = h.path().join("archive.crosstalk");
    std::fs::write(&path, &text).unwrap();
    aiproto(h.path())
        .args([
            "sign",
            "-q",
            "-i",
            "--key",
            "claude",
            path.to_str().unwrap(),
        ])
        .assert()
        .code(0);
    let signed = std::fs::read_to_string(&path).unwrap();
    assert!(
        signed.starts_with("Notes before.\n\n[[") && signed.ends_with("[[END]]\n\nNotes after.\n")
    );
    assert_eq!(signed.matches("\nsig: none").count(), 0);
    assert_eq!(signed.matches("[[END]]").count(), COUNT);
    let verified = aiproto(h.path())
        .args(["verify", "--format", "json", path.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(
        verified.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&verified.stderr)
    );

    // An invalid envelope near the end: the file is left as it was.
    let (broken, _) = big_archive(COUNT, Some(COUNT - 1), shout);
    std::fs::write(&path, &broken).unwrap();
    let out = aiproto(h.path())
        .args(["sign", "-i", "--key", "claude", path.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nothing signed"));
    assert!(
        std::fs::read_to_string(&path).unwrap() == broken,
        "the file was changed"
    );
}

#[test]
fn relay_and_thread_read_a_large_stdin_whole() {
    let h = home();
    let (archive, _) = big_archive(COUNT, None, shout);
    let mailbox = h.path().join("relayed.crosstalk");
    let out = aiproto(h.path())
        .args(["relay", "--from", "-", "--to"])
        .arg(format!("file:{}", mailbox.display()))
        .write_stdin(archive.clone())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains(&format!("relayed {COUNT} message(s)")));
    let relayed = std::fs::read_to_string(&mailbox).unwrap();
    assert_eq!(relayed.matches("meta: audit").count(), COUNT);

    let tree = aiproto(h.path())
        .args(["thread", "--format", "json"])
        .write_stdin(archive)
        .output()
        .unwrap();
    assert_eq!(tree.status.code(), Some(0));
    // No envelope answers another: one tree per envelope, in order.
    let trees = json_lines(&tree.stdout);
    assert_eq!(trees.len(), COUNT);
    assert_eq!(trees[COUNT - 1]["root"]["id"], big_archive_id(COUNT - 1));
}

/// A named pipe is read once, as it comes: a small file is read whole
/// ahead of its report, but a pipe holds no size to trust and what is read
/// from it cannot be read again (a second open would wait for a writer
/// that is gone).
#[test]
fn validate_reads_a_named_pipe_once_and_whole() {
    let h = home();
    let (archive, start) = big_archive(COUNT, Some(COUNT - 3), shout);
    let pipe = h.path().join("incoming.crosstalk");
    rustix::fs::mknodat(
        rustix::fs::CWD,
        &pipe,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
        0,
    )
    .unwrap();
    let writer = {
        let pipe = pipe.clone();
        std::thread::spawn(move || std::fs::write(&pipe, archive))
    };
    let out = aiproto(h.path())
        .args(["validate", pipe.to_str().unwrap()])
        .timeout(std::time::Duration::from_secs(120))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stdout.contains(&format!("incoming.crosstalk:{}:9:", start + 6)),
        "{stdout}"
    );
    assert!(
        stderr.contains(&format!("{COUNT} messages"))
            || stdout.contains(&format!("{COUNT} messages")),
        "{stderr}"
    );
    // Joined last: a writer no reader took would wait for ever.
    writer.join().unwrap().unwrap();
}
