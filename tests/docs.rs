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
