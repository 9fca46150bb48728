//! Per-code severity: a project turns a finding into an error, a warning,
//! or off, by its code or by a family of codes (`CT-REPAIR`).

use std::fmt;

use super::{Diagnostic, Severity, codes};

/// What a code is turned into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Error,
    Warning,
    Off,
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Level::Error => "error",
            Level::Warning => "warning",
            Level::Off => "off",
        })
    }
}

/// One setting: a code or a family, its level, and where it was given.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Rule {
    pub code: String,
    pub level: Level,
    /// `aiproto.toml`'s path, or `--error` / `--warn` / `--ignore`.
    pub origin: String,
    /// Given by a flag (wins over the file).
    #[serde(skip)]
    pub flag: bool,
}

/// The severity settings in force. A flag wins over the file; within each,
/// the most specific rule wins (a code over its family, a longer family
/// over a shorter one), and between equally specific ones the last given.
#[derive(Debug, Clone, Default)]
pub struct SeverityPolicy {
    rules: Vec<Rule>,
}

impl SeverityPolicy {
    /// Adds a rule; `code` must name a code of the catalogue, or a family:
    /// the start of one or more codes, up to a `-` (`CT-REPAIR`, `HSP-SCHEMA`).
    /// `flag`: given on the command line rather than in the file.
    pub fn add(
        &mut self,
        code: &str,
        level: Level,
        origin: &str,
        flag: bool,
    ) -> Result<(), String> {
        let code = code.trim().to_ascii_uppercase();
        if codes::lookup(&code).is_none() && family_members(&code) == 0 {
            return Err(format!(
                "`{code}` is no diagnostic code nor family of codes (see `aiproto validate --help`, docs/output.md)"
            ));
        }
        self.rules.push(Rule {
            code,
            level,
            origin: origin.to_string(),
            flag,
        });
        Ok(())
    }

    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// The level for `code`, if a rule names it.
    pub fn level_of(&self, code: &str) -> Option<Level> {
        let mut best: Option<((bool, usize), &Rule)> = None;
        for rule in &self.rules {
            let specificity = if rule.code == code {
                usize::MAX
            } else if code.starts_with(&rule.code) && code[rule.code.len()..].starts_with('-') {
                rule.code.len()
            } else {
                continue;
            };
            let rank = (rule.flag, specificity);
            if best.is_none_or(|(r, _)| rank >= r) {
                best = Some((rank, rule));
            }
        }
        best.map(|(_, rule)| rule.level)
    }

    /// Applies the rules to a message's findings: `off` ones go, the others
    /// take the level given.
    pub fn apply(&self, diagnostics: &mut Vec<Diagnostic>) {
        if self.rules.is_empty() {
            return;
        }
        diagnostics.retain_mut(|d| match self.level_of(d.code) {
            Some(Level::Off) => false,
            Some(Level::Error) => {
                d.severity = Severity::Error;
                true
            }
            Some(Level::Warning) => {
                d.severity = Severity::Warning;
                true
            }
            None => true,
        });
    }
}

/// How many catalogue codes belong to the family `prefix`.
fn family_members(prefix: &str) -> usize {
    codes::CODES
        .iter()
        .filter(|c| c.id.starts_with(prefix) && c.id[prefix.len()..].starts_with('-'))
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Pos;

    fn finding(code: &'static str, severity: Severity) -> Diagnostic {
        let d = match severity {
            Severity::Error => Diagnostic::error(code, "x"),
            Severity::Warning => Diagnostic::warning(code, "x"),
        };
        d.at(Pos::new(1, 1), 1)
    }

    #[test]
    fn flags_win_then_the_most_specific_rule() {
        let mut p = SeverityPolicy::default();
        let file = |p: &mut SeverityPolicy, code, level| p.add(code, level, "aiproto.toml", false);
        file(&mut p, "CT-REPAIR", Level::Error).unwrap();
        file(&mut p, "ct-repair-markdown", Level::Off).unwrap();
        file(&mut p, "HSP-TYPE-UNKNOWN", Level::Off).unwrap();
        p.add("HSP", Level::Warning, "--warn", true).unwrap();
        assert_eq!(p.level_of("CT-REPAIR-SPACE"), Some(Level::Error));
        assert_eq!(p.level_of("CT-REPAIR-MARKDOWN"), Some(Level::Off));
        // A flag's family wins over the file's code.
        assert_eq!(p.level_of("HSP-TYPE-UNKNOWN"), Some(Level::Warning));
        assert_eq!(p.level_of("CT-BODY-INDENT"), None);
        let mut found = vec![
            finding("CT-REPAIR-SPACE", Severity::Warning),
            finding("CT-REPAIR-MARKDOWN", Severity::Warning),
            finding("CT-BODY-INDENT", Severity::Warning),
        ];
        p.apply(&mut found);
        let kept: Vec<_> = found.iter().map(|d| (d.code, d.severity)).collect();
        assert_eq!(
            kept,
            vec![
                ("CT-REPAIR-SPACE", Severity::Error),
                ("CT-BODY-INDENT", Severity::Warning)
            ]
        );
    }

    #[test]
    fn unknown_codes_and_partial_words_are_refused() {
        let mut p = SeverityPolicy::default();
        assert!(p.add("CT-BODY-INDNET", Level::Off, "x", true).is_err());
        // A family ends at a `-`: `CT-REP` is no family.
        assert!(p.add("CT-REP", Level::Off, "x", true).is_err());
        assert!(p.add("CT", Level::Off, "x", true).is_ok());
    }
}
