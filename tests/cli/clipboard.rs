//! The clipboard transport against a real X server (Xvfb) and a real peer
//! (xclip): what aiproto copies is pasteable after it exits, what xclip
//! copies is read back envelope by envelope, and no display is exit 3.
//! Without Xvfb and xclip the tests say they skipped and why.

use std::io::Write;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::{REQUEST, aiproto, home, installed, json_lines, repo, spawn};

/// A private X display for one test; the server stops when it is dropped.
pub struct Display {
    name: String,
    server: Child,
}

impl Display {
    /// The `DISPLAY` of this server.
    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn start(test: &str) -> Option<Display> {
        let install = "apt-get install xvfb xclip";
        if !installed(test, "Xvfb", &["-help"], install)
            || !installed(test, "xclip", &["-version"], install)
        {
            return None;
        }
        // A display number of our own: tests run in parallel in this process
        // (a shared counter), and other test processes may run beside it.
        static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        for _ in 0..50 {
            let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let number = 100 + (std::process::id() % 400) * 50 + n;
            if Path::new(&format!("/tmp/.X11-unix/X{number}")).exists() {
                continue;
            }
            let mut server = Command::new("Xvfb")
                .args([format!(":{number}"), "-nolisten".into(), "tcp".into()])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .ok()?;
            let started = Instant::now();
            while started.elapsed() < Duration::from_secs(10) {
                // Our server, not one another process started on this number.
                if server.try_wait().is_ok_and(|ended| ended.is_some()) {
                    break;
                }
                if Path::new(&format!("/tmp/.X11-unix/X{number}")).exists() {
                    return Some(Display {
                        name: format!(":{number}"),
                        server,
                    });
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        eprintln!("SKIPPED {test}: Xvfb did not start");
        None
    }

    pub fn xclip_out(&self) -> String {
        let out = Command::new("xclip")
            .args(["-o", "-selection", "clipboard"])
            .env("DISPLAY", &self.name)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The pid of the xclip process that owns this display's clipboard
    /// (the last one started on it).
    fn xclip_owner(&self) -> u32 {
        let wanted = format!("DISPLAY={}", self.name);
        std::fs::read_dir("/proc")
            .unwrap()
            .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
            .filter(|pid| {
                std::fs::read_to_string(format!("/proc/{pid}/comm"))
                    .is_ok_and(|comm| comm.trim_end() == "xclip")
                    && std::fs::read(format!("/proc/{pid}/environ")).is_ok_and(|environ| {
                        environ
                            .split(|&b| b == 0)
                            .any(|var| var == wanted.as_bytes())
                    })
            })
            .max()
            .expect("an xclip owns the clipboard")
    }

    pub fn xclip_in(&self, text: &str) {
        self.xclip_in_typed(text.as_bytes(), "UTF8_STRING");
    }

    /// Puts bytes of a given type on the clipboard (text, an image), and
    /// returns once the clipboard offers them.
    fn xclip_in_typed(&self, bytes: &[u8], target: &str) {
        // In one CI run of the whole suite, xclip had not taken the
        // clipboard after 10 s (the cause was not seen): another try, then
        // a failure that says what xclip and the display said.
        let mut said = String::new();
        for attempt in 1..=3 {
            let log = tempfile::NamedTempFile::new().unwrap();
            let mut xclip = Command::new("xclip")
                .args(["-i", "-selection", "clipboard", "-t", target])
                .env("DISPLAY", &self.name)
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                // A file, not a pipe: the forked owner keeps it open.
                .stderr(log.reopen().unwrap())
                .spawn()
                .unwrap();
            xclip.stdin.take().unwrap().write_all(bytes).unwrap();
            let status = xclip.wait().unwrap();
            // xclip's parent exits once it has forked, and the child may
            // not have told the X server it owns the clipboard yet: a read
            // at once could still find the clipboard empty. Wait until the
            // owner lists the type.
            let started = Instant::now();
            let mut last = String::new();
            while status.success() && started.elapsed() < Duration::from_secs(10) {
                let offered = Command::new("xclip")
                    .args(["-o", "-selection", "clipboard", "-t", "TARGETS"])
                    .env("DISPLAY", &self.name)
                    .output()
                    .unwrap();
                let listed = String::from_utf8_lossy(&offered.stdout).into_owned();
                if listed.lines().any(|line| line == target) {
                    return;
                }
                last = format!("{listed}{}", String::from_utf8_lossy(&offered.stderr));
                std::thread::sleep(Duration::from_millis(20));
            }
            said.push_str(&format!(
                "attempt {attempt}: xclip -i {status}, said {:?}; TARGETS last gave {last:?}\n",
                std::fs::read_to_string(log.path()).unwrap_or_default()
            ));
        }
        panic!("xclip did not take the clipboard of {}:\n{said}", self.name);
    }
}

impl Drop for Display {
    fn drop(&mut self) {
        let _ = self.server.kill();
        let _ = self.server.wait();
    }
}

#[test]
fn what_aiproto_copies_is_pasteable_after_it_exits() {
    let Some(display) = Display::start("what_aiproto_copies_is_pasteable_after_it_exits") else {
        return;
    };
    let h = home();
    let file = repo("examples/crosstalk/valid/v1_1-poll-and-answers.crosstalk");
    let started = Instant::now();
    aiproto(h.path())
        .args(["send", "--via", "clipboard"])
        .arg(&file)
        .env("DISPLAY", &display.name)
        .timeout(Duration::from_secs(20))
        .assert()
        .code(0)
        .stderr(predicates::str::contains(
            "copied 3 message(s) to the clipboard",
        ));
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "send returns at once"
    );
    let canonical = aiproto(h.path())
        .args(["convert", "--canonical"])
        .arg(&file)
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    assert_eq!(display.xclip_out(), String::from_utf8_lossy(&canonical));
    // Another program takes the clipboard: that text wins.
    display.xclip_in("something else");
    assert_eq!(display.xclip_out(), "something else");
}

#[test]
fn what_xclip_copies_is_read_envelope_by_envelope() {
    let Some(display) = Display::start("what_xclip_copies_is_read_envelope_by_envelope") else {
        return;
    };
    let h = home();
    let second = REQUEST
        .replace("01J9J3DBC4N7P2Q3R5S7T9W1V2", "01J9J3DK0000000000000000NK")
        .replace("[[CLAUDE→CHATGPT v1]]", "[[CHATGPT→CLAUDE v1]]");
    display.xclip_in(&format!(
        "Sure! Here is the envelope:\n\n```\n{REQUEST}```\n\n> {}\nThanks.\n",
        second.replace('\n', "\n> ")
    ));
    let out = aiproto(h.path())
        .args(["recv", "--via", "clipboard", "--format", "json"])
        .env("DISPLAY", &display.name)
        .timeout(Duration::from_secs(20))
        .assert()
        .code(0);
    let found = json_lines(&out.get_output().stdout);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(
        found
            .iter()
            .all(|f| f["valid"] == true && f["protocol"] == "crosstalk")
    );
    assert!(
        found[1]["message"]
            .as_str()
            .unwrap()
            .starts_with("[[CHATGPT→CLAUDE v1]]")
    );
}

#[test]
fn a_watched_clipboard_prints_each_new_envelope_once() {
    let Some(display) = Display::start("a_watched_clipboard_prints_each_new_envelope_once") else {
        return;
    };
    let h = home();
    let watcher = spawn(h.path(), &[])
        .args([
            "recv",
            "--via",
            "clipboard",
            "--watch",
            "--count",
            "2",
            "--timeout",
            "20",
        ])
        .env("DISPLAY", &display.name)
        .spawn()
        .unwrap();
    display.xclip_in(REQUEST);
    std::thread::sleep(Duration::from_millis(600));
    // The same envelope again, then a new one.
    display.xclip_in(&format!("again:\n{REQUEST}"));
    std::thread::sleep(Duration::from_millis(600));
    let reply = REQUEST.replace("01J9J3DBC4N7P2Q3R5S7T9W1V2", "01J9J3DK0000000000000000NK");
    display.xclip_in(&reply);
    let out = watcher.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.matches("[[END]]").count(), 2, "{text}");
    assert!(text.contains("01J9J3DK0000000000000000NK"));
}

#[test]
fn no_display_is_exit_3_with_a_message_that_says_so() {
    let h = home();
    for args in [
        vec!["send", "--via", "clipboard", "-"],
        vec!["recv", "--via", "clipboard"],
    ] {
        aiproto(h.path())
            .args(&args)
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY")
            .write_stdin(REQUEST)
            .timeout(Duration::from_secs(30))
            .assert()
            .code(3)
            .stderr(predicates::str::contains("no clipboard"));
    }
}

#[test]
fn a_followed_file_prints_each_appended_envelope() {
    let h = home();
    let path = h.path().join("inbox.crosstalk");
    let follower = spawn(h.path(), &[])
        .args(["recv", "--via"])
        .arg(format!("file:{}", path.display()))
        .args([
            "--follow",
            "--count",
            "2",
            "--timeout",
            "20",
            "--format",
            "json",
        ])
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    std::fs::write(&path, REQUEST).unwrap();
    std::thread::sleep(Duration::from_millis(500));
    let reply = REQUEST.replace("01J9J3DBC4N7P2Q3R5S7T9W1V2", "01J9J3DK0000000000000000NK");
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    write!(file, "\n{reply}").unwrap();
    let out = follower.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(json_lines(&out.stdout).len(), 2);
    // Read once, without --follow: both, then exit.
    let once = aiproto(h.path())
        .args(["recv", "--via"])
        .arg(format!("file:{}", path.display()))
        .assert()
        .code(0);
    assert_eq!(
        String::from_utf8_lossy(&once.get_output().stdout)
            .matches("[[END]]")
            .count(),
        2
    );
}

/// A reply as ChatGPT's UI leaves it when copied: bold around the header
/// and [[END]], and non-breaking spaces for the body's indentation.
fn rendered_reply() -> String {
    format!(
        "Here is my answer:\n\n**{}",
        REQUEST
            .replace("[[CLAUDE→CHATGPT v1]]\n", "[[CLAUDE→CHATGPT v1]]**\n")
            .replace("  Please review.", "\u{a0}\u{a0}Please review.")
            .replace("[[END]]", "**[[END]]**")
    )
}

#[test]
fn commands_read_the_clipboard_directly() {
    let Some(display) = Display::start("commands_read_the_clipboard_directly") else {
        return;
    };
    let h = home();
    display.xclip_in(&format!(
        "{REQUEST}\n{}",
        rendered_reply().replace("01J9J3DBC4N7P2Q3R5S7T9W1V2", "01J9J3DK0000000000000000NK")
    ));
    aiproto(h.path())
        .args(["validate", "clipboard:"])
        .env("DISPLAY", &display.name)
        .assert()
        .code(0)
        .stdout(predicates::str::contains(
            "<clipboard>:15:1: warning[CT-REPAIR-MARKDOWN]",
        ))
        .stdout(predicates::str::contains("CT-REPAIR-MARKDOWN"))
        .stdout(predicates::str::contains("CT-REPAIR-INDENT"));
    aiproto(h.path())
        .args(["validate", "-q", "--strict", "clipboard:"])
        .env("DISPLAY", &display.name)
        .assert()
        .code(1);
    // The reply answers the last envelope pasted.
    let out = aiproto(h.path())
        .args([
            "compose",
            "--reply-to",
            "clipboard:",
            "--body",
            "Looks good.",
        ])
        .env("DISPLAY", &display.name)
        .assert()
        .code(0)
        .stderr(predicates::str::contains(
            "answering envelope 2 of 2 in <clipboard>",
        ));
    let reply = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(reply.starts_with("[[CHATGPT→CLAUDE v1]]"), "{reply}");
    assert!(
        reply.contains("parent: 01J9J3DK0000000000000000NK"),
        "{reply}"
    );
}

#[test]
fn recv_from_the_clipboard_reports_repairs_and_refuses_a_cut_off_reply() {
    let Some(display) =
        Display::start("recv_from_the_clipboard_reports_repairs_and_refuses_a_cut_off_reply")
    else {
        return;
    };
    let h = home();
    display.xclip_in(&rendered_reply());
    let out = aiproto(h.path())
        .args(["recv", "--via", "clipboard"])
        .env("DISPLAY", &display.name)
        .assert()
        .code(0)
        .stderr(predicates::str::contains("warning[CT-REPAIR-MARKDOWN]"));
    // What recv prints is the clean envelope: it validates strictly.
    let clean = out.get_output().stdout.clone();
    aiproto(h.path())
        .args(["validate", "-q", "--strict", "-"])
        .write_stdin(clean)
        .assert()
        .code(0);
    // The copy missed the end.
    let cut: String = REQUEST.lines().take(8).map(|l| format!("{l}\n")).collect();
    display.xclip_in(&cut);
    let out = aiproto(h.path())
        .args(["recv", "--via", "clipboard"])
        .env("DISPLAY", &display.name)
        .assert()
        .code(1)
        .stderr(predicates::str::contains("error[CT-END-MISSING]"));
    assert!(out.get_output().stdout.is_empty());
}

#[test]
fn the_primer_with_the_envelope_goes_on_the_clipboard() {
    let Some(display) = Display::start("the_primer_with_the_envelope_goes_on_the_clipboard") else {
        return;
    };
    let h = home();
    display.xclip_in(&format!("from the other chat:\n{REQUEST}"));
    aiproto(h.path())
        .args(["primer", "--reply-to", "clipboard:", "--via", "clipboard"])
        .env("DISPLAY", &display.name)
        .timeout(Duration::from_secs(20))
        .assert()
        .code(0);
    let primer = display.xclip_out();
    assert!(primer.contains("Never stop before [[END]]"), "{primer}");
    // The example reply is marked as the primer's, never a message; the
    // envelope to answer is valid.
    let out = aiproto(h.path())
        .args(["validate", "--format", "json", "-"])
        .write_stdin(primer.clone())
        .assert()
        .code(1);
    let found = json_lines(&out.get_output().stdout);
    assert_eq!(found.len(), 2);
    assert_eq!(found[0]["valid"], false);
    assert_eq!(found[0]["errors"][0]["code"], "CT-PRIMER-EXAMPLE");
    assert_eq!(found[1]["id"], "01J9J3DBC4N7P2Q3R5S7T9W1V2");
    assert_eq!(found[1]["valid"], true);
    // The person forgot to copy the assistant's answer: the clipboard still
    // holds the primer, and the loop archives nothing.
    let archive = h.path().join("chat.crosstalk");
    let received = aiproto(h.path())
        .args(["recv", "--via", "clipboard"])
        .env("DISPLAY", &display.name)
        .timeout(Duration::from_secs(20))
        .output()
        .unwrap();
    assert_eq!(received.status.code(), Some(1));
    let said = String::from_utf8_lossy(&received.stderr);
    assert!(
        said.contains("CT-PRIMER-EXAMPLE") && said.contains("copy the assistant's answer"),
        "{said}"
    );
    aiproto(h.path())
        .args(["send", "--via"])
        .arg(format!("file:{}", archive.display()))
        .write_stdin(primer)
        .assert()
        .code(1)
        .stderr(predicates::str::contains("CT-PRIMER-EXAMPLE"));
    assert!(!archive.exists(), "nothing archived");
}

#[test]
fn an_empty_clipboard_and_an_image_say_which() {
    let Some(display) = Display::start("an_empty_clipboard_and_an_image_say_which") else {
        return;
    };
    let h = home();
    for args in [
        vec!["recv", "--via", "clipboard"],
        vec!["validate", "clipboard:"],
    ] {
        aiproto(h.path())
            .args(&args)
            .env("DISPLAY", &display.name)
            .timeout(Duration::from_secs(20))
            .assert()
            .code(1)
            .stderr(predicates::str::contains("the clipboard is empty"));
    }
    // The eight bytes of a PNG signature and a header chunk's start.
    display.xclip_in_typed(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", "image/png");
    aiproto(h.path())
        .args(["recv", "--via", "clipboard"])
        .env("DISPLAY", &display.name)
        .timeout(Duration::from_secs(20))
        .assert()
        .code(1)
        .stderr(predicates::str::contains(
            "the clipboard holds an image (image/png), not text",
        ));
}

#[test]
fn an_owner_that_does_not_answer_is_not_an_empty_clipboard() {
    let Some(display) = Display::start("an_owner_that_does_not_answer_is_not_an_empty_clipboard")
    else {
        return;
    };
    let h = home();
    display.xclip_in("[[CROSSTALK 1.1]]");
    // The program owning the clipboard stops answering (a hung editor).
    let owner = display.xclip_owner();
    let signal = |name: &str| {
        assert!(
            Command::new("kill")
                .args([name, &owner.to_string()])
                .status()
                .unwrap()
                .success()
        );
    };
    signal("-STOP");
    let out = aiproto(h.path())
        .args(["validate", "clipboard:"])
        .env("DISPLAY", display.name())
        .timeout(Duration::from_secs(30))
        .output()
        .unwrap();
    signal("-CONT");
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{said}");
    assert!(
        said.contains("did not answer") && !said.contains("empty"),
        "{said}"
    );
}
