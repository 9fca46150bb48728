//! The arguments of the commands about keys and signatures: keygen, keys, sign, verify.
#![allow(rustdoc::broken_intra_doc_links, rustdoc::invalid_html_tags)]

use std::path::PathBuf;

use clap::{Args, Subcommand};

use super::{InputArgs, ReportArgs};

#[derive(Debug, Args)]
pub struct KeygenArgs {
    /// The key id others see in signatures (e.g. alice@example.com).
    #[arg(long, required_unless_present = "rotate")]
    pub id: Option<String>,

    /// Signature algorithm.
    #[arg(long, value_enum, default_value = "ed25519")]
    pub algorithm: crate::sign::key::Algorithm,

    /// Replace an existing key of the same id without telling anyone: the
    /// old key is kept as retired here, but peers get no transition
    /// statement (prefer --rotate).
    #[arg(long)]
    pub force: bool,

    /// Rotate the key ID: a new key takes its id and senders, the old one
    /// is kept as retired (your earlier messages still verify), and a key
    /// transition statement signed by the old key is printed, for peers to
    /// apply with `aiproto keys apply-transition`.
    #[arg(long, value_name = "ID", conflicts_with_all = ["id", "force", "signs_for"])]
    pub rotate: Option<String>,

    /// When the key stops signing: a date (2027-12-31, or RFC 3339) or a
    /// time from now (90d, 52w, 1y). Messages dated later fail verify
    /// (SIG-EXPIRED); earlier ones still verify.
    #[arg(long, value_name = "WHEN", value_parser = parse_expiry)]
    pub expires: Option<chrono::DateTime<chrono::Utc>>,

    /// Also write a REVOKE of the new key, signed by it, into FILE (mode
    /// 0600): keep it safe, and if the key is ever lost or stolen, send it
    /// to your peers (`aiproto keys apply-revoke FILE`).
    #[arg(long, value_name = "FILE")]
    pub revocation: Option<PathBuf>,

    /// A sender this key signs for (a name, or a pattern with `*` such as
    /// `*@example.com`); repeat for more. Default: the key id only. A
    /// verifier refuses the key's signature on a message from anyone else.
    #[arg(long, value_name = "SENDER")]
    pub signs_for: Vec<String>,
}

/// `--expires`: a date, or a time from now.
fn parse_expiry(text: &str) -> Result<chrono::DateTime<chrono::Utc>, String> {
    match parse_duration(text) {
        Ok(d) => Ok(chrono::Utc::now() + d),
        Err(_) => crate::sign::key_line::parse_date(text),
    }
}

/// A span of time: a number and a unit (s, m, h, d, w, y): `90d`, `12h`.
pub fn parse_duration(text: &str) -> Result<chrono::Duration, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .ok_or_else(|| format!("`{text}`: give a unit (s, m, h, d, w or y), e.g. 30d"))?;
    let (number, unit) = text.split_at(split);
    let n: i64 = number
        .parse()
        .map_err(|_| format!("`{text}`: expected a number then a unit, e.g. 30d"))?;
    let seconds = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        "w" => 7 * 86_400,
        "y" => 365 * 86_400,
        _ => return Err(format!("`{text}`: the units are s, m, h, d, w and y")),
    };
    n.checked_mul(seconds)
        .and_then(chrono::Duration::try_seconds)
        .ok_or_else(|| format!("`{text}` is too long"))
}

#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum KeysCommand {
    /// Your own keys, the keys you trust for others, the retired and the
    /// revoked ones, with fingerprints, senders and dates.
    List,
    /// Print a public key.
    Export {
        /// The key id.
        id: String,
        /// How to write it: a keystore line (`<id> <algorithm> <base64>`), PEM (SPKI), raw base64, or minisign's public key.
        #[arg(long = "encoding", value_enum, default_value = "line")]
        encoding: KeyFormat,
    },
    /// Pin the keys of a file of keystore lines (as `export` writes).
    ///
    /// Each key is stored for its own id only, whatever `signs-for=` the
    /// file says (it is shown, not granted): give --signs-for to let the
    /// keys sign for more. A key already pinned under the same id is not
    /// replaced unless --replace.
    Import {
        /// The file to read.
        file: PathBuf,
        /// A sender the imported keys may sign for (a name or a `*`
        /// pattern); repeat for more. Default: each key's own id.
        #[arg(long, value_name = "SENDER")]
        signs_for: Vec<String>,
        /// Replace a different key already pinned under the same id.
        #[arg(long)]
        replace: bool,
    },
    /// Pin a key for an id: any encoding `keys export` writes (a keystore
    /// line, PEM, raw base64, a minisign public key), or a file holding it.
    Trust {
        /// The key id.
        id: String,
        /// The public key, or a file holding it.
        key: String,
        /// A sender the key may sign for (a name or a `*` pattern); repeat
        /// for more. Default: the key id only (a keystore line's
        /// `signs-for=` is shown, not granted).
        #[arg(long, value_name = "SENDER")]
        signs_for: Vec<String>,
        /// A key id whose signed REVOKE of this key you will apply (the key
        /// itself always may); repeat for more.
        #[arg(long, value_name = "ID")]
        may_revoke: Vec<String>,
        /// Replace a different key already pinned under this id.
        #[arg(long)]
        replace: bool,
    },
    /// Remove the pinned key of an id.
    Forget {
        /// The key id.
        id: String,
    },
    /// Apply a signed Crosstalk REVOKE of a key: later signatures by that key fail.
    ///
    /// The envelope's `meta: revocation` says `Type: key` and names the key in
    /// `Key-ID:` (the signer's own key when absent). It is applied only when
    /// signed by the key it revokes (as `keygen --revocation` writes it), or
    /// by a key you named with `keys trust … --may-revoke ID`.
    ApplyRevoke {
        /// The file holding the REVOKE envelope(s).
        path: PathBuf,
    },
    /// Withdraw the revocations of a key id you applied by mistake.
    Unrevoke {
        /// The key id.
        id: String,
    },
    /// Apply a key transition statement (`keygen --rotate` prints it): the
    /// pinned key it names as old, which must have signed it, is retired
    /// (it still verifies what it signed before) and the new key takes its
    /// place, for the same senders.
    ApplyTransition {
        /// The file holding the statement.
        path: PathBuf,
    },
}

/// How `keys export` writes a public key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum KeyFormat {
    Line,
    Pem,
    Raw,
    /// minisign's public key file (Ed25519 keys).
    Minisign,
}

#[derive(Debug, Args)]
pub struct SignArgs {
    /// The message file (`-` or nothing for stdin, `clipboard:` for the clipboard).
    #[arg(value_name = "PATH")]
    pub path: Option<PathBuf>,

    /// The id of the keystore key to sign with.
    #[arg(long, value_name = "ID")]
    pub key: String,

    /// Rewrite the file in place instead of printing.
    #[arg(short = 'i', long = "in-place", requires = "path")]
    pub in_place: bool,

    /// Leave the public key out of the signature.
    #[arg(long)]
    pub no_public_key: bool,

    /// Sign only your own messages of a transcript and leave the others as
    /// they are: those whose sender the key is bound to and whose text you
    /// composed here (`aiproto compose`, the desk), never one that only
    /// claims your name. Without it, any other sender is refused and
    /// nothing is signed.
    #[arg(long)]
    pub only_mine: bool,

    /// Sign the file as bytes into `PATH.minisig` (minisign's format; Ed25519 keys).
    #[arg(long, requires = "path", conflicts_with = "in_place")]
    pub detached: bool,

    /// Crosstalk: the spec's `<alg>:pkid=…;sig=…` line (keyed), or the
    /// upstream appendix's detached JWS (jws; Ed25519 keys, no public key).
    #[arg(long, value_enum, default_value = "keyed")]
    pub sig_format: SigFormat,
}

/// The two `sig:` forms aiproto writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SigFormat {
    Keyed,
    Jws,
}

#[derive(Debug, Args)]
pub struct VerifyArgs {
    #[command(flatten)]
    pub input: InputArgs,

    #[command(flatten)]
    pub report: ReportArgs,

    /// Verify with this public key only (PEM, raw base64, or a keystore line).
    #[arg(long, value_name = "FILE", conflicts_with = "trusted_keys")]
    pub pubkey: Option<PathBuf>,

    /// Trust only the keys in this file of `<id> <algorithm> <base64>` lines; nothing is pinned.
    #[arg(long, value_name = "FILE")]
    pub trusted_keys: Option<PathBuf>,

    /// Trust on first use: pin the key an unknown signer presents.
    #[arg(long)]
    pub tofu: bool,

    /// Let directory walks skip hidden files and what .gitignore, .ignore
    /// and .git/info/exclude name, as `validate` does. By default `verify`,
    /// a trust gate, reads them too (never `.git`): a message hidden from git
    /// is still a message that must verify.
    #[arg(long, conflicts_with_all = ["no_ignore", "hidden"])]
    pub respect_ignore: bool,

    /// Check a detached minisign signature (`.minisig`) of the one file given.
    #[arg(long, value_name = "FILE")]
    pub signature: Option<PathBuf>,

    /// A relay archive's rule: messages from these senders must carry a good
    /// signature; an unsigned message from any other sender (an assistant)
    /// is allowed and counted. A signature that is there must be good
    /// whoever sent it. Comma-separated or repeated: HUMAN,ALICE.
    #[arg(long, value_name = "SENDER", value_delimiter = ',')]
    pub require_signed_from: Vec<String>,

    /// Refuse messages dated longer ago than this (30s, 10m, 12h, 7d, …),
    /// by the date they carry (HSP `timestamp_sent`, else the time in the
    /// message id); a message without a date is refused too (SIG-STALE).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub max_age: Option<chrono::Duration>,

    /// Refuse messages dated in the future (beyond five minutes of clock
    /// skew) instead of only naming them (SIG-FUTURE).
    #[arg(long)]
    pub strict: bool,

    /// Exit 0 when the inputs hold no message at all; without it a run
    /// that verified nothing fails with NO-INPUT.
    #[arg(long)]
    pub allow_empty: bool,
}
