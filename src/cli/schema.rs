//! `aiproto schema`: the embedded JSON Schemas, the published contract.

use std::io::Write;

use serde::Serialize;

use super::args::{GlobalArgs, SchemaCommand};
use crate::exit::{CliError, CmdResult, ExitStatus};
use crate::output::{self, Format, Painter, Stream};
use crate::schemas::all;

#[derive(Serialize)]
struct Listed<'a> {
    name: String,
    id: String,
    title: &'a str,
}

pub fn run(cmd: &SchemaCommand, g: &GlobalArgs) -> CmdResult {
    let mut out = std::io::stdout().lock();
    match cmd {
        SchemaCommand::List => {
            let p = Painter::new(g.color, Stream::Stdout);
            for (name, text) in all() {
                let json: serde_json::Value = serde_json::from_str(text).unwrap_or_default();
                let title = json.get("title").and_then(|t| t.as_str()).unwrap_or("");
                let id = json
                    .get("$id")
                    .and_then(|t| t.as_str())
                    .unwrap_or("")
                    .to_string();
                match g.format {
                    Format::Json => output::write_json_line(&mut out, &Listed { name, id, title })?,
                    Format::Human => writeln!(out, "{:<44} {}", p.bold(&name), p.dim(title))?,
                }
            }
            Ok(ExitStatus::Ok)
        }
        SchemaCommand::Show { name } => {
            let wanted = name.trim_end_matches(".json").trim_end_matches(".schema");
            let found = all()
                .into_iter()
                .find(|(n, _)| n == wanted || n.strip_prefix("hsp/") == Some(wanted));
            let Some((_, text)) = found else {
                return Err(CliError::usage(format!("no embedded schema `{name}`"))
                    .with_hint("`aiproto schema list` shows the names"));
            };
            out.write_all(text.as_bytes())?;
            Ok(ExitStatus::Ok)
        }
    }
}
