//! How results reach people and programs: color decisions, diagnostics with
//! a caret under the offending text, and JSON Lines.

use std::io::{IsTerminal, Write};

use colored::Colorize;

use crate::diag::{Diagnostic, Severity};

/// `--color`: when to use ANSI colors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ColorChoice {
    /// Color when the stream is a terminal, NO_COLOR is unset and TERM is not dumb.
    #[default]
    Auto,
    Always,
    Never,
}

/// How a command prints: for people or for programs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// Readable text, colored on a terminal.
    #[default]
    Human,
    /// One JSON object per line (JSON Lines), stable field names.
    Json,
}

/// `--format`: the two forms every command prints, and the reports CI
/// systems read, which only `validate` and `verify` write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum FormatChoice {
    /// Readable text, colored on a terminal.
    #[default]
    Human,
    /// One JSON object per line (JSON Lines), stable field names.
    Json,
    /// validate, verify: GitHub Actions workflow commands (annotations on a pull request).
    Github,
    /// validate, verify: a SARIF 2.1.0 log (GitHub code scanning, VS Code, Azure DevOps).
    Sarif,
    /// validate, verify: JUnit XML, a test case per message (GitLab, Jenkins, CircleCI).
    Junit,
    /// validate, verify: a GitLab code quality report (JSON).
    Gitlab,
    /// conformance (a graded run): one self-contained HTML page.
    Html,
}

impl FormatChoice {
    /// The CI report this names, if it is one.
    pub fn report(self) -> Option<crate::report::ReportFormat> {
        use crate::report::ReportFormat;
        match self {
            FormatChoice::Human | FormatChoice::Json | FormatChoice::Html => None,
            FormatChoice::Github => Some(ReportFormat::Github),
            FormatChoice::Sarif => Some(ReportFormat::Sarif),
            FormatChoice::Junit => Some(ReportFormat::Junit),
            FormatChoice::Gitlab => Some(ReportFormat::Gitlab),
        }
    }

    /// How the command prints besides a report: JSON for `json`, else for people.
    pub fn base(self) -> Format {
        match self {
            FormatChoice::Json => Format::Json,
            _ => Format::Human,
        }
    }
}

/// Which stream a painter writes to; color is decided per stream.
#[derive(Debug, Clone, Copy)]
pub enum Stream {
    Stdout,
    Stderr,
}

/// Applies colors, or not, as decided once for one stream.
#[derive(Debug, Clone, Copy)]
pub struct Painter {
    pub enabled: bool,
}

impl Painter {
    pub fn new(choice: ColorChoice, stream: Stream) -> Self {
        let enabled = match choice {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                let terminal = match stream {
                    Stream::Stdout => std::io::stdout().is_terminal(),
                    Stream::Stderr => std::io::stderr().is_terminal(),
                };
                terminal
                    && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                    && std::env::var("TERM").map_or(true, |t| t != "dumb")
            }
        };
        // The painter decides; the colored crate must not second-guess it.
        colored::control::set_override(true);
        Painter { enabled }
    }

    pub fn plain() -> Self {
        Painter { enabled: false }
    }

    fn paint(&self, text: &str, style: impl Fn(&str) -> colored::ColoredString) -> String {
        if self.enabled {
            style(text).to_string()
        } else {
            text.to_string()
        }
    }

    pub fn error(&self, t: &str) -> String {
        self.paint(t, |s| s.red().bold())
    }
    pub fn warning(&self, t: &str) -> String {
        self.paint(t, |s| s.yellow().bold())
    }
    pub fn good(&self, t: &str) -> String {
        self.paint(t, |s| s.green().bold())
    }
    pub fn bold(&self, t: &str) -> String {
        self.paint(t, |s| s.bold())
    }
    pub fn dim(&self, t: &str) -> String {
        self.paint(t, |s| s.dimmed())
    }
    pub fn accent(&self, t: &str) -> String {
        self.paint(t, |s| s.cyan())
    }
}

/// Text from a message or a key id made safe to show on a terminal:
/// control characters (an escape sequence could clear a line, retitle the
/// window or hide what follows) and the invisible bidirectional controls
/// are shown escaped, as `\x1b` or `\u{202e}`, as `less` and `git` show
/// them. Tabs and line ends are kept. JSON output needs none of this: JSON
/// escapes control characters itself.
pub fn escape_controls(text: &str) -> std::borrow::Cow<'_, str> {
    let hidden = |c: char| {
        (c.is_control() && c != '\t' && c != '\n')
            || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    };
    if !text.chars().any(hidden) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            c if !hidden(c) => out.push(c),
            c if (c as u32) < 0x80 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push_str(&format!("\\u{{{:04x}}}", c as u32)),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Formats one finding as `path:line:col: error[code]: message`, followed by
/// the source line with a caret under the offending text, and the hint.
///
/// `line` is the text of the source line the finding points at, when known
/// (see [`SourceLines`]).
pub fn format_diagnostic(
    p: &Painter,
    path: &str,
    line: Option<&str>,
    d: &Diagnostic,
    strict: bool,
) -> String {
    let is_error = d.severity == Severity::Error || strict;
    let label = if is_error {
        p.error("error")
    } else {
        p.warning("warning")
    };
    let mut out = format!(
        "{}: {label}[{}]: {}\n",
        p.bold(&format!(
            "{}:{}:{}",
            escape_controls(path),
            d.line,
            d.column
        )),
        d.code,
        escape_controls(&d.message)
    );
    if let Some(text) = line {
        let text = text.strip_suffix('\r').unwrap_or(text);
        let gutter = d.line.to_string();
        let pad = " ".repeat(gutter.len());
        let (shown, lead) = snippet(text, d.column);
        let caret = "^".repeat(d.length.clamp(1, 200));
        let caret = if is_error {
            p.error(&caret)
        } else {
            p.warning(&caret)
        };
        out.push_str(&format!(
            "{} {}\n",
            p.dim(&format!("{gutter} |")),
            escape_controls(&shown)
        ));
        out.push_str(&format!("{} {lead}{caret}\n", p.dim(&format!("{pad} |"))));
    }
    if let Some(hint) = &d.hint {
        out.push_str(&format!(
            "  {} {}\n",
            p.accent("= hint:"),
            escape_controls(hint)
        ));
    }
    out
}

/// The lines of a source text, found by number without rescanning the text
/// (a file with thousands of findings stays linear). The line index is
/// built on the first look-up: a valid file, the common case, needs none.
pub struct SourceLines<'a> {
    text: &'a str,
    starts: std::cell::OnceCell<Vec<usize>>,
}

impl<'a> SourceLines<'a> {
    pub fn new(text: &'a str) -> Self {
        SourceLines {
            text,
            starts: std::cell::OnceCell::new(),
        }
    }

    /// The 1-based line `n`, without its line end.
    pub fn get(&self, n: usize) -> Option<&'a str> {
        let starts = self.starts.get_or_init(|| {
            std::iter::once(0)
                .chain(memchr::memchr_iter(b'\n', self.text.as_bytes()).map(|i| i + 1))
                .collect()
        });
        let start = *starts.get(n.checked_sub(1)?)?;
        let end = starts.get(n).map_or(self.text.len(), |e| e - 1);
        let line = self.text.get(start..end.max(start))?;
        Some(line.strip_suffix('\r').unwrap_or(line))
    }
}

/// Long lines (a minified blob pasted as one line) are cut for display.
/// The part of a source line shown under a finding, and the blanks that
/// put the caret under `column`: the whole line when it is short, else a
/// window of it around the column, cut with `…` on either side, so that a
/// finding on a very long line prints a few hundred characters, not the line.
fn snippet(text: &str, column: usize) -> (String, String) {
    const MAX: usize = 300;
    const BEFORE: usize = 100;
    let blank = |c: char| if c == '\t' { '\t' } else { ' ' };
    let at = column.saturating_sub(1);
    if text.len() <= MAX || text.chars().nth(MAX).is_none() {
        let lead = text.chars().take(at).map(blank).collect();
        return (text.to_string(), lead);
    }
    let start = at.saturating_sub(BEFORE);
    let window: String = text.chars().skip(start).take(MAX).collect();
    let more_after = text.chars().nth(start + MAX).is_some();
    let mut shown = String::with_capacity(window.len() + 8);
    let mut lead = String::new();
    if start > 0 {
        shown.push('…');
        lead.push(' ');
    }
    lead.extend(window.chars().take(at - start).map(blank));
    shown.push_str(&window);
    if more_after {
        shown.push('…');
    }
    (shown, lead)
}

/// Writes one value as a line of JSON.
pub fn write_json_line(out: &mut impl Write, value: &impl serde::Serialize) -> std::io::Result<()> {
    // Serialised first, so that a closed pipe surfaces as the writer's own
    // BrokenPipe error (and ends the program quietly), not as a JSON error.
    let mut line = serde_json::to_vec(value).map_err(std::io::Error::other)?;
    line.push(b'\n');
    out.write_all(&line)
}

/// The first non-empty line of a text, cut to `max` characters.
pub fn summary(text: &str, max: usize) -> String {
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    if line.chars().count() > max {
        format!("{}…", line.chars().take(max).collect::<String>())
    } else {
        line.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Pos;

    #[test]
    fn caret_sits_under_the_offending_text() {
        let d = Diagnostic::error("CT-X", "bad").at(Pos::new(2, 9), 3);
        let text = "[[A→B v1]]\nintent: FOO\n";
        let out = format_diagnostic(
            &Painter::plain(),
            "m.crosstalk",
            SourceLines::new(text).get(2),
            &d,
            false,
        );
        assert_eq!(SourceLines::new("a\r\nb\n").get(3), Some(""));
        assert_eq!(SourceLines::new("a\r\nb").get(1), Some("a"));
        assert_eq!(SourceLines::new("a").get(2), None);
        assert_eq!(
            out,
            "m.crosstalk:2:9: error[CT-X]: bad\n2 | intent: FOO\n  |         ^^^\n"
        );
    }

    #[test]
    fn escape_sequences_are_shown_not_obeyed() {
        assert_eq!(escape_controls("ok\u{1b}[2K\r"), "ok\\x1b[2K\\x0d");
        assert_eq!(escape_controls("a\u{202e}b\tc\n"), "a\\u{202e}b\tc\n");
        assert!(matches!(
            escape_controls("plain"),
            std::borrow::Cow::Borrowed(_)
        ));
    }

    #[test]
    fn a_finding_far_along_a_long_line_shows_a_window_of_it() {
        let line = format!("{}X{}", "a".repeat(100_000), "b".repeat(100_000));
        let (shown, lead) = snippet(&line, 100_001);
        assert!(shown.len() < 1_000 && lead.len() < 200);
        assert_eq!(shown.chars().nth(lead.chars().count()), Some('X'));
        let (shown, lead) = snippet("short X", 7);
        assert_eq!((shown.as_str(), lead.as_str()), ("short X", "      "));
    }
}
