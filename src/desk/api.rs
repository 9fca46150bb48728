//! The page's API: `POST /api/NAME` with a JSON object, answered with the
//! operation's JSON (200), or `{error, details}` (422 for what the
//! operation refuses, 400 for a body that is not the operation's
//! arguments, 404 for an unknown name).

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::input::Source;
use crate::operations::Document;
use crate::operations::ReadOptions;
use crate::operations::{self, Context, OpError, OpResult, params};

/// The arguments of `archive`: the text whose messages to keep.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Archive {
    text: String,
}

/// The arguments of `archived`: the id of a message in the archive.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Archived {
    id: String,
}

/// The operations the page calls, by the name after `/api/`.
pub const NAMES: [&str; 12] = [
    "read", "compose", "convert", "sign", "verify", "primer", "archive", "archived", "thread",
    "keys", "registry", "info",
];

/// Runs the operation `name` on the JSON `body`: the status and the answer.
pub fn call(ctx: &Context, name: &str, body: &[u8]) -> (u16, Value) {
    let result = match name {
        "read" => with(body, |p| operations::examine(ctx, p)),
        "compose" => with(body, |p| operations::compose(ctx, p)),
        "convert" => with(body, |p| operations::convert(ctx, p)),
        "sign" => with(body, |p| operations::sign(ctx, p)),
        "verify" => with(body, |p| operations::verify(ctx, p)),
        "primer" => with(body, |p: params::Primer| {
            operations::primer(ctx, p).map(|text| json!({ "text": text }))
        }),
        "archive" => with(body, |p: Archive| archive(ctx, p)),
        "archived" => with(body, |p: Archived| archived(ctx, &p.id)),
        "thread" => with(body, |p: params::Conversation| operations::thread(ctx, p)),
        "keys" => Ok(operations::keys()),
        "registry" => Ok(Ok(operations::registry())),
        "info" => Ok(Ok(info(ctx))),
        _ => {
            return (
                404,
                json!({ "error": format!("no operation `{name}`: one of {}", NAMES.join(", ")) }),
            );
        }
    };
    match result {
        Ok(Ok(value)) => (200, value),
        Ok(Err(e)) => (422, refusal(e)),
        Err(why) => (400, json!({ "error": why })),
    }
}

/// Parses the body as `P` (an empty body as `{}`), then runs `op`. The
/// outer error: the body is not `P`.
fn with<P: DeserializeOwned>(
    body: &[u8],
    op: impl FnOnce(P) -> OpResult,
) -> Result<OpResult, String> {
    let body = if body.iter().all(u8::is_ascii_whitespace) {
        b"{}".as_slice()
    } else {
        body
    };
    let p = serde_json::from_slice(body).map_err(|e| format!("the request body: {e}"))?;
    Ok(op(p))
}

fn refusal(e: OpError) -> Value {
    match e.details {
        Some(details) => json!({ "error": e.message, "details": details }),
        None => json!({ "error": e.message }),
    }
}

/// Adds the messages of a text to the desk's archive, each once.
fn archive(ctx: &Context, p: Archive) -> OpResult {
    if p.text.len() > ctx.max_bytes {
        return Err(OpError::new(format!(
            "{} bytes, over this desk's limit of {}: start `aiproto desk --max-bytes N` to take more",
            p.text.len(),
            ctx.max_bytes
        )));
    }
    let Some(path) = &ctx.archive else {
        return Err(OpError::new("this desk keeps no archive"));
    };
    let source = Source {
        name: "<pasted>".into(),
        text: p.text,
    };
    let doc = Document::from_source(source, None, &ReadOptions::default());
    operations::append_checked(path, doc)
}

/// The text of the message with this id in the archive (its first copy).
fn archived(ctx: &Context, id: &str) -> OpResult {
    let Some(path) = &ctx.archive else {
        return Err(OpError::new("this desk keeps no archive"));
    };
    let (line, text) = operations::archived_message(path, id)?
        .ok_or_else(|| OpError::new(format!("no message {id} in {}", path.display())))?;
    Ok(json!({ "id": id, "line": line, "text": text }))
}

/// What the page shows about the desk itself.
fn info(ctx: &Context) -> Value {
    json!({
        "version": env!("CARGO_PKG_VERSION"),
        "archive": ctx.archive.as_ref().map(|a| a.display().to_string()),
        "max_bytes": ctx.max_bytes,
    })
}
