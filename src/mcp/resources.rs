//! What the host can read and ask for besides the tools: the embedded JSON
//! Schemas, a summary of each protocol, the archive given at start-up, and
//! the Crosstalk primer as a prompt.

use rmcp::model::{
    GetPromptResult, Prompt, PromptArgument, PromptMessage, ReadResourceResult, Resource,
    ResourceContents, Role,
};
use serde_json::{Map, Value};

use crate::operations::{self, Context, OpError, archive_source, params};

/// Each protocol's summary, in aiproto's words.
const SUMMARIES: &[(&str, &str, &str)] = &[
    ("hsp", "HSP envelopes", include_str!("summaries/hsp.md")),
    (
        "crosstalk",
        "AI Crosstalk envelopes",
        include_str!("summaries/crosstalk.md"),
    ),
    ("csdl", "CSDL documents", include_str!("summaries/csdl.md")),
    (
        "msp",
        "MSP minimal signals",
        include_str!("summaries/msp.md"),
    ),
    (
        "a2a",
        "A2A 1.0 messages, tasks and Agent Cards",
        include_str!("summaries/a2a.md"),
    ),
];

const SCHEMA_PREFIX: &str = "aiproto://schemas/";
const SUMMARY_PREFIX: &str = "aiproto://protocols/";
pub const ARCHIVE_URI: &str = "aiproto://archive";

pub fn list(ctx: &Context) -> Vec<Resource> {
    let mut out: Vec<Resource> = SUMMARIES
        .iter()
        .map(|(name, title, text)| {
            Resource::new(format!("{SUMMARY_PREFIX}{name}"), format!("{name} summary"))
                .with_title(*title)
                .with_description(format!(
                    "How aiproto reads {title}: fields, rules, signatures"
                ))
                .with_mime_type("text/markdown")
                .with_size(text.len() as u64)
        })
        .collect();
    for (name, text) in crate::schemas::all() {
        out.push(
            Resource::new(format!("{SCHEMA_PREFIX}{name}"), format!("schema {name}"))
                .with_description(format!("The JSON Schema aiproto checks {name} against"))
                .with_mime_type("application/schema+json")
                .with_size(text.len() as u64),
        );
    }
    if let Some(archive) = &ctx.archive {
        out.push(
            Resource::new(ARCHIVE_URI, "archive")
                .with_title(archive.display().to_string())
                .with_description(
                    "The conversation archive this server was started with (--archive)",
                )
                .with_mime_type("text/plain"),
        );
    }
    out
}

pub fn read(ctx: &Context, uri: &str) -> Result<ReadResourceResult, OpError> {
    let text = |text: String, mime: &str| {
        ReadResourceResult::new(vec![match ResourceContents::text(text, uri) {
            ResourceContents::TextResourceContents {
                uri, text, meta, ..
            } => ResourceContents::TextResourceContents {
                uri,
                mime_type: Some(mime.into()),
                text,
                meta,
            },
            other => other,
        }])
    };
    if let Some(name) = uri.strip_prefix(SUMMARY_PREFIX)
        && let Some((_, _, summary)) = SUMMARIES.iter().find(|(n, _, _)| *n == name)
    {
        return Ok(text((*summary).to_string(), "text/markdown"));
    }
    if let Some(name) = uri.strip_prefix(SCHEMA_PREFIX)
        && let Some((_, schema)) = crate::schemas::all().into_iter().find(|(n, _)| n == name)
    {
        return Ok(text(schema.to_string(), "application/schema+json"));
    }
    if uri == ARCHIVE_URI
        && let Some(archive) = &ctx.archive
    {
        return Ok(text(archive_source(ctx, archive)?.text, "text/plain"));
    }
    Err(OpError::new(format!("no resource {uri}")))
}

pub const PRIMER: &str = "crosstalk_primer";

pub fn prompts() -> Vec<Prompt> {
    let arg = |name: &str, description: &str| {
        PromptArgument::new(name)
            .with_description(description)
            .with_required(false)
    };
    vec![Prompt::new(
        PRIMER,
        Some(
            "Teaches a chat assistant to answer in a valid AI Crosstalk envelope, \
             filled with the ids its reply must carry",
        ),
        Some(vec![
            arg("from", "Who writes the answer (default ASSISTANT)"),
            arg("to", "Whom the answer goes to (default HUMAN)"),
            arg(
                "reply_to",
                "The envelope (or whole paste) being answered: the reply keeps its thread and names it as parent",
            ),
            arg(
                "pick",
                "Which envelope of reply_to: 1-based place, negative from the end, or a message id (default the last)",
            ),
        ]),
    )]
}

pub fn get_prompt(
    ctx: &Context,
    name: &str,
    arguments: Option<&Map<String, Value>>,
) -> Result<GetPromptResult, OpError> {
    if name != PRIMER {
        return Err(OpError::new(format!("no prompt {name}")));
    }
    let arg = |key: &str| {
        arguments
            .and_then(|a| a.get(key))
            .and_then(Value::as_str)
            .filter(|s| !s.trim().is_empty())
            .map(str::to_string)
    };
    let text = operations::primer(
        ctx,
        params::Primer {
            from: arg("from"),
            to: arg("to"),
            reply_to: arg("reply_to"),
            pick: arg("pick"),
        },
    )?;
    Ok(
        GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)])
            .with_description("The AI Crosstalk primer"),
    )
}
