//! Writes an [`Envelope`] in the canonical text form.
//!
//! Canonical form (documented in docs/crosstalk.md): LF line ends; the header line
//! `[[SENDER→RECEIVER vN]]` with the Unicode arrow; known headers in the
//! order user, session, thread, parent, message, context, intent, then any
//! unknown headers as read; `name: value` with one space; when there are meta
//! blocks, a blank line before each block and one after the last; `body: |`
//! with every non-empty line indented by two spaces and empty lines left
//! empty; `sig:`; `hash:` when the envelope has one (written afresh);
//! `[[END]]` and a final line end. For an envelope already in
//! this form, render(parse(x)) == x byte for byte.

use super::envelope::{Envelope, HEADER_ORDER};

/// Renders one envelope in canonical form, ending with a line end.
pub fn render(env: &Envelope) -> String {
    let mut out = String::with_capacity(256 + env.body.as_ref().map_or(0, |b| b.len() * 2));
    let version = if env.version_token.is_empty() {
        "v1"
    } else {
        &env.version_token
    };
    out.push_str("[[");
    out.push_str(&env.sender);
    out.push('→');
    out.push_str(&env.receiver);
    out.push(' ');
    out.push_str(version);
    out.push_str("]]\n");
    for name in HEADER_ORDER {
        if let Some(value) = env.header(name) {
            field(&mut out, name, value);
        }
    }
    for (name, value) in &env.extra_headers {
        field(&mut out, name, value);
    }
    if !env.meta.is_empty() {
        out.push('\n');
        for block in &env.meta {
            field(&mut out, "meta", &block.namespace);
            for (key, value) in &block.entries {
                field(&mut out, key, value);
            }
            out.push('\n');
        }
    }
    if let Some(body) = &env.body {
        out.push_str("body: |\n");
        if !body.is_empty() {
            for line in body.split('\n') {
                if !line.is_empty() {
                    out.push_str("  ");
                    out.push_str(line);
                }
                out.push('\n');
            }
        }
    }
    if let Some(sig) = &env.sig {
        field(&mut out, "sig", sig);
    }
    if env.hash.is_some() {
        let hash = hash_of(&out);
        field(&mut out, "hash", &hash);
    }
    out.push_str("[[END]]\n");
    out
}

/// The `hash:` of an envelope rendered up to its `sig:` line: the CRC-32 of
/// that text without its last line end, in lower-case hex, as the upstream
/// proposal computes it.
pub fn hash_of(up_to_sig: &str) -> String {
    format!(
        "{:08x}",
        crc32fast::hash(up_to_sig.strip_suffix('\n').unwrap_or(up_to_sig).as_bytes())
    )
}

/// What the `hash:` of an envelope should be: the hash of its canonical
/// form up to its `sig:` line.
pub fn expected_hash(env: &Envelope) -> String {
    let unhashed = Envelope {
        hash: None,
        ..env.clone()
    };
    let text = render(&unhashed);
    hash_of(text.strip_suffix("[[END]]\n").unwrap_or(&text))
}

/// Renders many envelopes, separated by one blank line.
pub fn render_all<'a>(envs: impl IntoIterator<Item = &'a Envelope>) -> String {
    let mut out = String::new();
    for env in envs {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&render(env));
    }
    out
}

fn field(out: &mut String, name: &str, value: &str) {
    out.push_str(name);
    out.push(':');
    if !value.is_empty() {
        out.push(' ');
        out.push_str(value);
    }
    out.push('\n');
}
