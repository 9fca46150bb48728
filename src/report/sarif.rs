//! SARIF 2.1.0: one run, a rule per diagnostic code (from the catalogue,
//! with its help text), a result per finding with its region. Columns are
//! counted in Unicode code points, as aiproto counts them.

use std::io::Write;

use serde_json::{Value, json};

use super::{Report, Tool, Verdict, has_place, paths, text_with_hint};
use crate::diag::{Severity, codes};

pub struct Sarif<'w> {
    out: Box<dyn Write + 'w>,
    tool: Tool,
    results: Vec<Value>,
    /// Codes met that the catalogue does not list (none, if it is complete),
    /// given rules of their own after the catalogue's.
    extra_rules: Vec<&'static str>,
}

impl<'w> Sarif<'w> {
    pub fn new(out: Box<dyn Write + 'w>, tool: Tool) -> Self {
        Sarif {
            out,
            tool,
            results: Vec::new(),
            extra_rules: Vec::new(),
        }
    }

    /// The index of a code's rule.
    fn rule_index(&mut self, code: &'static str) -> usize {
        if let Some(i) = codes::CODES.iter().position(|c| c.id == code) {
            return i;
        }
        let extra = match self.extra_rules.iter().position(|c| *c == code) {
            Some(i) => i,
            None => {
                self.extra_rules.push(code);
                self.extra_rules.len() - 1
            }
        };
        codes::CODES.len() + extra
    }
}

impl Report for Sarif<'_> {
    fn verdict(&mut self, verdict: &Verdict<'_>) -> std::io::Result<()> {
        let artifact = artifact_location(verdict.source);
        for finding in &verdict.findings {
            let d = finding.diagnostic;
            let level = match finding.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
            };
            let mut location = json!({"physicalLocation": {"artifactLocation": artifact}});
            let line = if has_place(d) {
                Some(d.line)
            } else {
                verdict.line
            };
            if let Some(line) = line {
                let mut region = json!({"startLine": line});
                if has_place(d) && d.column > 0 {
                    region["startColumn"] = json!(d.column);
                    region["endColumn"] = json!(d.column + d.length.max(1));
                }
                location["physicalLocation"]["region"] = region;
            }
            let mut result = json!({
                "ruleId": d.code,
                "ruleIndex": self.rule_index(d.code),
                "level": level,
                "message": {"text": text_with_hint(d)},
                "locations": [location],
            });
            if let Some(pointer) = &d.pointer {
                result["properties"] = json!({"jsonPointer": pointer});
            }
            self.results.push(result);
        }
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> std::io::Result<()> {
        let mut rules: Vec<Value> = codes::CODES.iter().map(|c| rule(c.id, c.summary)).collect();
        rules.extend(self.extra_rules.iter().map(|code| rule(code, code)));
        let root = std::env::current_dir().ok().map(|dir| {
            format!(
                "file://{}/",
                paths::uri_reference(&crate::path_names::name(&dir))
            )
        });
        let mut run = json!({
            "tool": {"driver": {
                "name": "aiproto",
                "semanticVersion": env!("CARGO_PKG_VERSION"),
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "automationDetails": {"id": format!("aiproto/{}/", self.tool.command)},
            "columnKind": "unicodeCodePoints",
            "results": std::mem::take(&mut self.results),
        });
        if let Some(root) = root {
            run["originalUriBaseIds"] = json!({"SRCROOT": {"uri": root}});
        }
        let log = json!({
            "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
            "version": "2.1.0",
            "runs": [run],
        });
        serde_json::to_writer_pretty(&mut self.out, &log)?;
        writeln!(self.out)?;
        self.out.flush()
    }
}

/// Where an input is: relative to the working directory (`SRCROOT`) when
/// it is under it, else an absolute `file:` URI; a name that is no path
/// (`<stdin>`, `clipboard:`) as a bare relative reference.
fn artifact_location(source: &str) -> Value {
    let relative = paths::relative(source);
    if std::path::Path::new(&relative).is_absolute() {
        return json!({"uri": format!("file://{}", paths::uri_reference(&relative))});
    }
    if source.starts_with('<') || source.ends_with(':') {
        return json!({"uri": paths::uri_reference(source)});
    }
    json!({"uri": paths::uri_reference(&relative), "uriBaseId": "SRCROOT"})
}

/// A rule: the code, what it means, and where the codes are explained.
fn rule(id: &str, summary: &str) -> Value {
    json!({
        "id": id,
        "shortDescription": {"text": summary},
        "help": {"text": summary},
    })
}
