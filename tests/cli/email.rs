//! `send --via email:ADDRESS`: an RFC 5322 mail written to a file, and sent
//! to a real SMTP server (Python's aiosmtpd, which `.ci/run` installs) on a
//! loopback port. Without aiosmtpd the SMTP test says it skipped and why.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use predicates::prelude::*;

use super::{REQUEST, Running, aiproto, free_port, home};

#[test]
fn a_mail_file_carries_the_envelope_with_its_subject_and_threading() {
    let h = home();
    let eml = h.path().join("out.eml");
    aiproto(h.path())
        .args([
            "send",
            "--via",
            "email:kalle@example.com",
            "--mail-from",
            "relay@example.com",
            "--out",
        ])
        .arg(&eml)
        .write_stdin(REQUEST)
        .assert()
        .code(0)
        .stderr(predicate::str::contains(
            "1 mail(s) to kalle@example.com written to",
        ));
    let mail = std::fs::read_to_string(&eml).unwrap();
    for header in [
        "From: relay@example.com\r\n",
        "To: kalle@example.com\r\n",
        "Subject: [AI Crosstalk] review - REQUEST\r\n",
        "Message-ID: <01J9J3DBC4N7P2Q3R5S7T9W1V2@aiproto.invalid>\r\n",
        "MIME-Version: 1.0\r\n",
    ] {
        assert!(mail.contains(header), "{header:?} missing in\n{mail}");
    }
    // The mail itself is a message source: the envelope (with its meta: email
    // block) is found in it and is valid.
    aiproto(h.path())
        .args(["validate", "--strict"])
        .arg(&eml)
        .assert()
        .code(0);
    aiproto(h.path())
        .arg("inspect")
        .arg(&eml)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("Message-ID"));
}

#[test]
fn email_needs_a_way_out() {
    let h = home();
    aiproto(h.path())
        .args(["send", "--via", "email:kalle@example.com"])
        .write_stdin(REQUEST)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "give --out FILE.eml to write the mail, or --smtp URL",
        ));
    aiproto(h.path())
        .args([
            "send",
            "--via",
            "email:kalle@example.com",
            "--smtp",
            "smtp://127.0.0.1:1",
        ])
        .write_stdin(REQUEST)
        .assert()
        .code(3)
        .stderr(predicate::str::contains("SMTP smtp://127.0.0.1:1"));
}

#[test]
fn mail_is_delivered_to_a_real_smtp_server() {
    let available = Command::new("python3")
        .args(["-c", "import aiosmtpd"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !available {
        eprintln!(
            "SKIPPED mail_is_delivered_to_a_real_smtp_server: python3 -m pip install aiosmtpd"
        );
        return;
    }
    let h = home();
    let maildir = h.path().join("maildir");
    let port = free_port();
    // A real SMTP server storing what it receives in a maildir.
    let _server = Running(
        Command::new("python3")
            .args([
                "-m",
                "aiosmtpd",
                "-n",
                "-l",
                &format!("127.0.0.1:{port}"),
                "-c",
                "aiosmtpd.handlers.Mailbox",
            ])
            .arg(&maildir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let started = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "aiosmtpd did not start"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    aiproto(h.path())
        .args([
            "send",
            "--via",
            "email:kalle@example.com",
            "--smtp",
            &format!("smtp://127.0.0.1:{port}"),
        ])
        .write_stdin(REQUEST)
        .assert()
        .code(0)
        .stderr(predicate::str::contains("sent over SMTP"));
    let delivered: Vec<_> = std::fs::read_dir(maildir.join("new"))
        .unwrap()
        .flatten()
        .collect();
    assert_eq!(delivered.len(), 1);
    let mail = std::fs::read_to_string(delivered[0].path()).unwrap();
    assert!(
        mail.contains("Subject: [AI Crosstalk] review - REQUEST"),
        "{mail}"
    );
    assert!(mail.contains("[[CLAUDE→CHATGPT v1]]"), "{mail}");
    // The same envelope mailed through the same server by Python's
    // smtplib, quoted-printable and base64 as a mail client may send it.
    let script = r#"
import sys, smtplib, email.charset
from email.mime.text import MIMEText
text = sys.stdin.read()
with smtplib.SMTP("127.0.0.1", int(sys.argv[1])) as smtp:
    for encoding in (email.charset.QP, email.charset.BASE64):
        charset = email.charset.Charset("utf-8")
        charset.body_encoding = encoding
        mail = MIMEText(text, "plain", charset)
        mail["Subject"] = "Re: review"
        mail["From"] = "chatgpt@example.com"
        mail["To"] = "kalle@example.com"
        smtp.send_message(mail)
"#;
    let mut python = Command::new("python3")
        .args(["-c", script, &port.to_string()])
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut python.stdin.take().unwrap(), REQUEST.as_bytes()).unwrap();
    assert!(python.wait().unwrap().success());
    let delivered: Vec<_> = std::fs::read_dir(maildir.join("new"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert_eq!(delivered.len(), 3);
    let encodings: Vec<String> = delivered
        .iter()
        .map(|p| {
            let mail = std::fs::read_to_string(p).unwrap();
            ["8bit", "quoted-printable", "base64"]
                .into_iter()
                .find(|e| mail.contains(&format!("Content-Transfer-Encoding: {e}")))
                .unwrap_or("none")
                .to_string()
        })
        .collect();
    for encoding in ["8bit", "quoted-printable", "base64"] {
        assert!(encodings.iter().any(|e| e == encoding), "{encodings:?}");
    }
    // What the server stored reads back as the message, whatever its encoding.
    for path in &delivered {
        let out = aiproto(h.path())
            .args(["convert", "--canonical"])
            .arg(path)
            .assert()
            .code(0);
        // aiproto's own mail adds its Message-ID in a `meta: email` block.
        let read = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
        let without_mail_meta = read.replace(
            "\nmeta: email\nMessage-ID: <01J9J3DBC4N7P2Q3R5S7T9W1V2@aiproto.invalid>\n\n",
            "",
        );
        assert_eq!(without_mail_meta, REQUEST, "{}", path.display());
    }
}

/// A signed envelope survives the mail both ways: aiproto's own mail (8bit,
/// the `sig:` line whole), and the same
/// envelope as Python's `email` package writes it — quoted-printable,
/// base64, and a multipart mail with an HTML part — each read back and
/// verified.
#[test]
fn a_signed_envelope_is_read_back_out_of_any_mail() {
    let available = Command::new("python3")
        .args(["-c", "import email"])
        .status()
        .is_ok_and(|s| s.success());
    if !available {
        eprintln!("SKIPPED a_signed_envelope_is_read_back_out_of_any_mail: no python3");
        return;
    }
    let h = home();
    aiproto(h.path())
        .args(["keygen", "-q", "--id", "CLAUDE"])
        .assert()
        .code(0);
    let signed = crate::sign(h.path(), "CLAUDE", REQUEST);
    let envelope = h.path().join("signed.crosstalk");
    std::fs::write(&envelope, &signed).unwrap();
    let eml = h.path().join("out.eml");
    aiproto(h.path())
        .args(["send", "--via", "email:kalle@example.com", "--out"])
        .arg(&eml)
        .arg(&envelope)
        .assert()
        .code(0);
    let mail = std::fs::read_to_string(&eml).unwrap();
    assert!(mail.contains("Content-Transfer-Encoding: 8bit"), "{mail}");
    let sig_line = signed.lines().find(|l| l.starts_with("sig: ")).unwrap();
    assert!(mail.contains(sig_line), "the sig: line whole: {mail}");
    let script = r#"
import sys, email.charset
from email.mime.text import MIMEText
from email.mime.multipart import MIMEMultipart
text = open(sys.argv[1], encoding="utf-8").read()
out = sys.argv[2]
for name, encoding in (("qp", email.charset.QP), ("base64", email.charset.BASE64)):
    charset = email.charset.Charset("utf-8")
    charset.body_encoding = encoding
    part = MIMEText(text, "plain", charset)
    part["Subject"] = "re"
    open(f"{out}/{name}.eml", "w").write(part.as_string())
both = MIMEMultipart("alternative")
both["Subject"] = "re"
plain = email.charset.Charset("utf-8")
plain.body_encoding = email.charset.QP
both.attach(MIMEText(text, "plain", plain))
both.attach(MIMEText("<p>" + text.replace("\n", "<br>") + "</p>", "html", "utf-8"))
open(f"{out}/multipart.eml", "w").write(both.as_string())
"#;
    let written = Command::new("python3")
        .args(["-c", script])
        .arg(&envelope)
        .arg(h.path())
        .status()
        .unwrap();
    assert!(written.success());
    let qp = std::fs::read_to_string(h.path().join("qp.eml")).unwrap();
    assert!(qp.contains("=E2=86=92"), "really quoted-printable: {qp}");
    for name in ["out.eml", "qp.eml", "base64.eml", "multipart.eml"] {
        aiproto(h.path())
            .arg("verify")
            .arg(h.path().join(name))
            .assert()
            .code(0)
            .stdout(predicate::str::contains("ok signed by CLAUDE"));
    }
}
