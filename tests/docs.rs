//! The documentation holds together: every relative link in the README and
//! `docs/` names a file that exists and, with a `#fragment`, a heading of
//! that file (as GitHub makes anchors of headings); and `.ci/run` runs the
//! test command the README gives.

#![allow(clippy::unwrap_used)]

use std::collections::HashSet;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The README and every Markdown file under `docs/`.
fn documents() -> Vec<PathBuf> {
    let mut docs = vec![root().join("README.md"), root().join("CHANGELOG.md")];
    let mut more: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    more.sort();
    docs.extend(more);
    docs
}

/// The lines of `text` outside fenced code blocks, numbered from 1.
fn prose(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut fenced = false;
    text.lines().enumerate().filter_map(move |(i, line)| {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            return None;
        }
        (!fenced).then_some((i + 1, line))
    })
}

/// The anchor GitHub gives a heading: lower case, punctuation dropped
/// (letters, digits, `-` and `_` kept), spaces as `-`.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a Markdown file's headings (a repeated heading gets
/// `-1`, `-2`… as on GitHub).
fn anchors(text: &str) -> HashSet<String> {
    let mut seen = HashSet::new();
    for (_, line) in prose(text) {
        let Some(heading) = line.strip_prefix('#') else {
            continue;
        };
        let base = slug(heading.trim_start_matches('#'));
        let mut anchor = base.clone();
        let mut n = 0;
        while seen.contains(&anchor) {
            n += 1;
            anchor = format!("{base}-{n}");
        }
        seen.insert(anchor);
    }
    seen
}

/// Each `[text](target)` link of a line, with the target.
fn links(line: &str) -> Vec<&str> {
    let mut found = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        let Some(end) = after.find(')') else {
            break;
        };
        found.push(after[..end].split_whitespace().next().unwrap_or(""));
        rest = &after[end..];
    }
    found
}

/// What is wrong with one relative link of `doc`, if anything.
fn broken(doc: &Path, target: &str) -> Option<String> {
    let (path, fragment) = target.split_once('#').unwrap_or((target, ""));
    let file = if path.is_empty() {
        doc.to_path_buf()
    } else {
        doc.parent().unwrap().join(path)
    };
    if !file.exists() {
        return Some(format!("{} does not exist", file.display()));
    }
    if fragment.is_empty() || file.extension().is_none_or(|e| e != "md") {
        return None;
    }
    let text = std::fs::read_to_string(&file).unwrap();
    (!anchors(&text).contains(fragment)).then(|| {
        format!(
            "{} has no heading with the anchor #{fragment}",
            file.display()
        )
    })
}

#[test]
fn every_relative_link_resolves() {
    let mut problems = Vec::new();
    let mut checked = 0;
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).unwrap();
        for (line, content) in prose(&text) {
            for target in links(content) {
                if target.contains("://") || target.starts_with("mailto:") {
                    continue;
                }
                checked += 1;
                if let Some(why) = broken(&doc, target) {
                    let name = doc.strip_prefix(root()).unwrap().display();
                    problems.push(format!("{name}:{line}: ({target}): {why}"));
                }
            }
        }
    }
    assert!(problems.is_empty(), "\n{}\n", problems.join("\n"));
    assert!(
        checked > 20,
        "only {checked} links found: is the parser right?"
    );
}

#[test]
fn every_document_under_docs_is_linked_from_the_readme() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    for doc in documents().iter().skip(2) {
        let name = doc.file_name().unwrap().to_string_lossy();
        assert!(
            readme.contains(&format!("(docs/{name})")),
            "docs/{name} is not linked from the README"
        );
    }
}

#[test]
fn ci_runs_the_readme_test_command() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let ci = std::fs::read_to_string(root().join(".ci/run")).unwrap();
    let command = "cargo test --locked";
    assert!(
        readme.contains(&format!("```sh\n{command}\n```")),
        "the README's test command changed"
    );
    assert!(
        ci.lines().any(|l| l.trim_start().starts_with(command)),
        ".ci/run does not run `{command}`"
    );
}

#[test]
fn anchors_and_links_are_read_as_github_does() {
    assert_eq!(slug(" Assistants: `aiproto mcp`"), "assistants-aiproto-mcp");
    assert_eq!(
        slug(" The MSP pipeline: `aiproto msp`"),
        "the-msp-pipeline-aiproto-msp"
    );
    let text = "# A\n```sh\n# not a heading\n```\n## A\n";
    assert_eq!(anchors(text), HashSet::from(["a".into(), "a-1".into()]));
    assert_eq!(
        links("see [x](docs/a.md#b) and [y](c.md \"title\") and (plain)"),
        ["docs/a.md#b", "c.md"]
    );
    assert!(broken(&root().join("README.md"), "docs/nothing.md").is_some());
    assert!(broken(&root().join("README.md"), "docs/ci.md#no-such-heading").is_some());
    assert!(broken(&root().join("README.md"), "docs/ci.md#use-in-ci").is_none());
}

/// A fenced block of shell commands: the line of its opening fence, the
/// words after the language, and its text.
struct ShellBlock {
    line: usize,
    tags: Vec<String>,
    text: String,
}

/// The `sh`/`bash`/`shell` blocks of `doc`.
fn shell_blocks(doc: &Path) -> Vec<ShellBlock> {
    let text = std::fs::read_to_string(doc).unwrap();
    let mut blocks = Vec::new();
    let mut open: Option<(usize, Vec<String>, String)> = None;
    for (i, line) in text.lines().enumerate() {
        let fence = line.trim_start().strip_prefix("```");
        match (&mut open, fence) {
            (None, Some(info)) => {
                let mut words = info.split_whitespace().map(str::to_string);
                let language = words.next().unwrap_or_default();
                let tags = words.collect();
                open = Some((i + 1, tags, language));
            }
            (Some((start, tags, language)), Some(_)) => {
                if ["sh", "bash", "shell"].contains(&language.as_str()) {
                    let body: Vec<&str> = text.lines().skip(*start).take(i - *start).collect();
                    blocks.push(ShellBlock {
                        line: *start,
                        tags: std::mem::take(tags),
                        text: body.join("\n") + "\n",
                    });
                }
                open = None;
            }
            _ => {}
        }
    }
    blocks
}

/// The shell blocks a test runs as written: (document, the block's first
/// line, the test file that reads the block out of the document and runs it).
const RUN_AS_WRITTEN: &[(&str, &str, &str)] = &[
    (
        "README.md",
        "# 1. Teach chat A (here Claude) the format",
        "tests/cli/readme_loop.rs",
    ),
    ("README.md", "cargo test --locked", "tests/docs.rs"),
];

/// Why a shell block cannot be pasted as written, if it cannot: a comment
/// after a line-continuing backslash ends the command there (the lines
/// after it run as commands of their own), and a backslash followed by
/// spaces continues nothing.
fn paste_problem(block: &str) -> Option<String> {
    for (i, line) in block.lines().enumerate() {
        if let Some(at) = line.find("\\ ")
            && line[at + 1..].trim_start().starts_with('#')
        {
            return Some(format!(
                "line {}: a comment after `\\` ends the command (the next line runs on its own): {line}",
                i + 1
            ));
        }
        if line.ends_with("\\ ") || line.ends_with("\\\t") {
            return Some(format!(
                "line {}: spaces after the line-continuing `\\`: {line}",
                i + 1
            ));
        }
    }
    let checked = std::process::Command::new("bash")
        .arg("-n")
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(block.as_bytes())?;
            child.wait_with_output()
        })
        .unwrap();
    (!checked.status.success()).then(|| {
        format!(
            "not shell syntax: {}",
            String::from_utf8_lossy(&checked.stderr)
        )
    })
}

/// Every shell block either runs in a test as written (listed in
/// [`RUN_AS_WRITTEN`], and the test names the document) or says it is an
/// illustration (```` ```sh illustration ````); and every one can be pasted
/// into a shell: no comment after a continuation, valid syntax.
#[test]
fn every_shell_block_runs_in_a_test_or_says_it_is_an_illustration() {
    let mut problems = Vec::new();
    for doc in documents() {
        let name = doc.strip_prefix(root()).unwrap().display().to_string();
        for block in shell_blocks(&doc) {
            let at = format!("{name}:{}", block.line);
            if let Some(why) = paste_problem(&block.text) {
                problems.push(format!("{at}: {why}"));
            }
            let illustration = block.tags.iter().any(|t| t == "illustration");
            let first = block.text.lines().next().unwrap_or_default().trim();
            let runner = RUN_AS_WRITTEN
                .iter()
                .find(|(d, start, _)| *d == name && first.starts_with(start));
            match (illustration, runner) {
                (true, Some(_)) => problems.push(format!(
                    "{at}: a block a test runs is no illustration; drop the tag"
                )),
                (false, None) => problems.push(format!(
                    "{at}: no test runs this block: run it in one (and list it in RUN_AS_WRITTEN), \
                     or mark it ```sh illustration"
                )),
                (false, Some((_, _, test))) => {
                    let runs = std::fs::read_to_string(root().join(test)).unwrap();
                    let file = Path::new(&name).file_name().unwrap().to_string_lossy();
                    if !runs.contains(file.as_ref()) {
                        problems.push(format!("{at}: {test} does not read {name}"));
                    }
                }
                (true, None) => {}
            }
        }
    }
    assert!(problems.is_empty(), "\n{}\n", problems.join("\n"));
}

#[test]
fn a_comment_after_a_continuation_cannot_be_pasted() {
    let rabbit = "A=1 \\\nB=./x \\   # holds: [x].\nC=2 run -detached\n";
    assert!(paste_problem(rabbit).unwrap().contains("ends the command"));
    assert!(
        paste_problem("a \\ \nb\n")
            .unwrap()
            .contains("spaces after")
    );
    assert!(
        paste_problem("if then\n")
            .unwrap()
            .contains("not shell syntax")
    );
    assert!(paste_problem("a --x \\\n    --y # fine\n").is_none());
}
