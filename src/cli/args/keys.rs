//! The arguments of the commands about keys and signatures: keygen, keys, sign, verify.
#![allow(rustdoc::broken_intra_doc_links, rustdoc::invalid_html_tags)]

use std::path::PathBuf;

use clap::{Args, Subcommand};

use super::{InputArgs, ReportArgs};

#[derive(Debug, Args)]
pub struct KeygenArgs {
    /// The key id others see in signatures (e.g. alice@example.com).
    #[arg(long)]
    pub id: String,

    /// Signature algorithm.
    #[arg(long, value_enum, default_value = "ed25519")]
    pub algorithm: crate::sign::key::Algorithm,

    /// Replace an existing key of the same id.
    #[arg(long)]
    pub force: bool,

    /// A sender this key signs for (a name, or a pattern with `*` such as
    /// `*@example.com`); repeat for more. Default: the key id only. A
    /// verifier refuses the key's signature on a message from anyone else.
    #[arg(long, value_name = "SENDER")]
    pub signs_for: Vec<String>,
}

#[derive(Debug, Subcommand)]
pub enum KeysCommand {
    /// Your own keys and the pinned keys of others, with fingerprints.
    List,
    /// Print a public key.
    Export {
        /// The key id.
        id: String,
        /// How to write it: a keystore line (`<id> <algorithm> <base64>`), PEM (SPKI), raw base64, or minisign's public key.
        #[arg(long = "encoding", value_enum, default_value = "line")]
        encoding: KeyFormat,
    },
    /// Pin the keys of a file of `<id> <algorithm> <base64>` lines (as `export` writes).
    Import {
        /// The file to read.
        file: PathBuf,
    },
    /// Pin a key for an id: any encoding `keys export` writes (a keystore
    /// line, PEM, raw base64, a minisign public key), or a file holding it.
    Trust {
        /// The key id.
        id: String,
        /// The public key, or a file holding it.
        key: String,
        /// A sender the key may sign for (a name or a `*` pattern); repeat
        /// for more. Default: those of a keystore line, else the key id only.
        #[arg(long, value_name = "SENDER")]
        signs_for: Vec<String>,
    },
    /// Remove the pinned key of an id.
    Forget {
        /// The key id.
        id: String,
    },
    /// Apply a signed Crosstalk REVOKE of a key: later signatures by that key fail.
    ///
    /// The envelope's `meta: revocation` says `Type: key` and names the key in
    /// `Key-ID:` (the signer's own key when absent). The REVOKE itself must
    /// verify with a trusted key.
    ApplyRevoke {
        /// The file holding the REVOKE envelope(s).
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

    /// Check a detached minisign signature (`.minisig`) of the one file given.
    #[arg(long, value_name = "FILE")]
    pub signature: Option<PathBuf>,
}
