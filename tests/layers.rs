//! The layers of DESIGN.md, checked on the source: each file's references
//! to `crate::…` modules must point down (or sideways where allowed). A
//! new arrow that points the wrong way fails with the file and the line.

#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

/// A rule: files under `from` (a path prefix inside `src/`) must not name
/// `crate::<to>`; why, for the message.
struct Rule {
    from: &'static [&'static str],
    except: &'static [&'static str],
    to: &'static str,
    why: &'static str,
}

const CLI_WHY: &str = "a face (the command line, MCP, the desk, the A2A bridge) is argument parsing, streaming and printing around an operation (`crate::operations`), the one every face calls";

const RULES: &[Rule] = &[
    Rule {
        from: &["cli/", "mcp/", "desk/", "bridge/"],
        except: &[],
        to: "protocols",
        why: CLI_WHY,
    },
    Rule {
        from: &["cli/", "mcp/", "desk/", "bridge/"],
        except: &[],
        to: "reader",
        why: CLI_WHY,
    },
    Rule {
        from: &["cli/", "mcp/", "desk/", "bridge/"],
        except: &[],
        to: "delivery",
        why: CLI_WHY,
    },
    Rule {
        from: &[
            "protocols/",
            "model/",
            "reader/",
            "transport/",
            "delivery/",
            "sign/",
        ],
        except: &[],
        to: "prose",
        why: "the MSP codec reads and writes signals; reading English into them (encoder, fact check, judge, BERT) is a layer above the protocols",
    },
    Rule {
        from: &["conformance/"],
        except: &[],
        to: "protocols",
        why: "the kit grades from the outside: verdicts come from the vectors, never from aiproto's own readers",
    },
    Rule {
        from: &["conformance/"],
        except: &[],
        to: "reader",
        why: "the kit grades from the outside: verdicts come from the vectors, never from aiproto's own readers",
    },
    Rule {
        from: &["conformance/"],
        except: &[],
        to: "convert",
        why: "the kit grades from the outside: verdicts come from the vectors, never from aiproto's own readers",
    },
    Rule {
        from: &["conformance/"],
        except: &[],
        to: "sign",
        why: "the kit grades from the outside: verdicts come from the vectors, never from aiproto's own readers",
    },
    Rule {
        from: &["transport/"],
        except: &[],
        to: "protocols",
        why: "transports move bytes; what a message is belongs to delivery, above them",
    },
    Rule {
        from: &["transport/"],
        except: &[],
        to: "reader",
        why: "transports move bytes; what a message is belongs to delivery, above them",
    },
    Rule {
        from: &["transport/"],
        except: &[],
        to: "delivery",
        why: "transports move bytes; what a message is belongs to delivery, above them",
    },
    Rule {
        from: &["transport/"],
        except: &[],
        to: "convert",
        why: "transports move bytes; what a message is belongs to delivery, above them",
    },
    Rule {
        from: &["transport/"],
        except: &[],
        to: "sign",
        why: "transports move bytes; what a message is belongs to delivery, above them",
    },
    Rule {
        from: &["transport/"],
        except: &[],
        to: "model",
        why: "transports move bytes; what a message is belongs to delivery, above them",
    },
    Rule {
        from: &["protocols/"],
        except: &[],
        to: "convert",
        why: "protocols map to and from the model; convert orchestrates them",
    },
    Rule {
        from: &["model.rs", "model/"],
        except: &[],
        to: "protocols",
        why: "every protocol stands on the model, not the other way round",
    },
    Rule {
        from: &[""],
        except: &["cli/", "main.rs", "lib.rs"],
        to: "cli",
        why: "the command line is a face: nothing below it imports it",
    },
    Rule {
        from: &["mcp/"],
        except: &[],
        to: "desk",
        why: "faces do not import each other; what both need lives in operations",
    },
    Rule {
        from: &["desk/"],
        except: &[],
        to: "mcp",
        why: "faces do not import each other; what both need lives in operations",
    },
    Rule {
        from: &["mcp/", "desk/"],
        except: &[],
        to: "bridge",
        why: "faces do not import each other; what both need lives in operations",
    },
    Rule {
        from: &["bridge/"],
        except: &[],
        to: "mcp",
        why: "faces do not import each other; what both need lives in operations",
    },
    Rule {
        from: &["bridge/"],
        except: &[],
        to: "desk",
        why: "faces do not import each other; what both need lives in operations",
    },
    Rule {
        from: &["operations/"],
        except: &[],
        to: "bridge",
        why: "operations lie below the faces",
    },
    Rule {
        from: &["operations/"],
        except: &[],
        to: "mcp",
        why: "operations lie below the faces",
    },
    Rule {
        from: &["operations/"],
        except: &[],
        to: "desk",
        why: "operations lie below the faces",
    },
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The lines (1-based) of `text` that name `crate::<module>`, directly or
/// inside a `use crate::{…}` group; comments are skipped.
fn references(text: &str, module: &str) -> Vec<usize> {
    let direct = format!("crate::{module}");
    let mut found = Vec::new();
    let mut group: Option<usize> = None;
    for (i, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        let named = |s: &str| {
            s.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .any(|w| w == module)
        };
        if code.contains(&direct)
            && code[code.find(&direct).unwrap() + direct.len()..]
                .chars()
                .next()
                .is_none_or(|c| !(c.is_alphanumeric() || c == '_'))
        {
            found.push(i + 1);
        } else if let Some(start) = code.find("crate::{") {
            if named(&code[start + 8..]) {
                found.push(i + 1);
            }
            if !code.contains(';') {
                group = Some(i + 1);
            }
        } else if let Some(first) = group {
            if named(code) {
                found.push(first);
            }
            if code.contains(';') {
                group = None;
            }
        }
    }
    found.dedup();
    found
}

/// Every wrong-way arrow in the tree: (file relative to src/, module, line, why).
fn wrong_arrows(src: &Path) -> Vec<(String, &'static str, usize, &'static str)> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files.sort();
    let mut arrows = Vec::new();
    for file in files {
        let rel = file
            .strip_prefix(src)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let text = std::fs::read_to_string(&file).unwrap();
        for rule in RULES {
            let applies = rule.from.iter().any(|f| rel.starts_with(f))
                && !rule.except.iter().any(|e| rel.starts_with(e))
                && !rel.starts_with(&format!("{}/", rule.to))
                && rel != format!("{}.rs", rule.to);
            if !applies {
                continue;
            }
            for line in references(&text, rule.to) {
                arrows.push((rel.clone(), rule.to, line, rule.why));
            }
        }
    }
    arrows
}

#[test]
fn layers_only_import_downward() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let arrows = wrong_arrows(&src);
    let problems: Vec<String> = arrows
        .iter()
        .map(|(file, to, line, why)| {
            format!("src/{file}:{line}: imports crate::{to}, against the layers: {why}")
        })
        .collect();
    assert!(problems.is_empty(), "\n{}\n", problems.join("\n"));
}

#[test]
fn references_are_found_in_every_spelling() {
    let text = "use crate::protocols::Found;\n\
                // use crate::cli::args; (a comment)\n\
                use crate::{\n    ids,\n    protocols::{Protocol},\n};\n\
                let p = crate::protocols_extra::x();\n\
                use crate::{cli, model};\n";
    assert_eq!(references(text, "protocols"), vec![1, 3]);
    assert_eq!(references(text, "cli"), vec![8]);
    assert_eq!(references(text, "model"), vec![8]);
}

/// Where a message may be written from its parsed value (`Found::canonical`):
/// a conversion, asked for by name, and the places that only compare or
/// fuzz. Every path that moves a message writes `Found::written`, its
/// bytes as they came (DESIGN.md, "one writing path").
const CANONICAL_ALLOWED: &[&str] = &[
    "convert/",
    "fuzzing.rs",
    // The identity of a node of the conversation tree; nothing is written.
    "records/thread.rs",
    "protocols/mod.rs",
    "protocols/crosstalk/proptests.rs",
];

#[test]
fn only_a_conversion_writes_a_message_anew() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut problems = Vec::new();
    for file in files {
        let rel = file
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if CANONICAL_ALLOWED.iter().any(|a| rel.starts_with(a)) {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        for (i, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if code.contains(".canonical()") {
                problems.push(format!(
                    "src/{rel}:{}: writes a message from its parsed value; a path that moves a message writes `Found::written` (its bytes as they came)",
                    i + 1
                ));
            }
        }
    }
    assert!(problems.is_empty(), "\n{}\n", problems.join("\n"));
}

/// The sibling modules a file names through `super::` (`super::a`,
/// `super::{a, b::c}`), comments skipped.
fn sibling_references(text: &str) -> Vec<String> {
    let mut names = Vec::new();
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(at) = rest.find("super::") {
            let after = &rest[at + "super::".len()..];
            if let Some(grandparent) = after.strip_prefix("super::") {
                // A grandparent's module: not a sibling.
                rest = grandparent;
                continue;
            }
            if let Some(group) = after.strip_prefix('{') {
                let group = group.split('}').next().unwrap_or("");
                for item in group.split(',') {
                    let name = item.trim().split("::").next().unwrap_or("").trim();
                    if !name.is_empty() && name != "self" {
                        names.push(name.to_string());
                    }
                }
            } else {
                let name: String = after
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                // `super::f(…)` calls a function of the parent module.
                if !name.is_empty() && !after[name.len()..].starts_with(['(', '!']) {
                    names.push(name);
                }
            }
            rest = after;
        }
    }
    names.sort();
    names.dedup();
    names
}

/// Every circle of imports between the modules of one folder: a pair (or
/// more) of files that each name the other through `super::`.
fn import_circles(src: &Path) -> Vec<Vec<String>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files.sort();
    // Module path (folder/name) → the sibling modules it names.
    let mut edges: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for file in &files {
        let rel = file.strip_prefix(src).unwrap().with_extension("");
        let rel = rel.to_string_lossy().replace('\\', "/");
        if rel.ends_with("/mod") || rel == "lib" || rel == "main" {
            continue;
        }
        let folder = rel.rsplit_once('/').map_or("", |(f, _)| f).to_string();
        let text = std::fs::read_to_string(file).unwrap();
        let named = sibling_references(&text)
            .into_iter()
            .map(|n| {
                if folder.is_empty() {
                    n
                } else {
                    format!("{folder}/{n}")
                }
            })
            .filter(|n| *n != rel)
            .collect();
        edges.insert(rel, named);
    }
    // A circle is a module that reaches itself again.
    let mut circles: Vec<Vec<String>> = Vec::new();
    for start in edges.keys() {
        let mut stack = vec![(start.clone(), vec![start.clone()])];
        let mut seen = std::collections::HashSet::new();
        while let Some((at, path)) = stack.pop() {
            for next in edges.get(&at).into_iter().flatten() {
                if next == start {
                    let mut circle = path.clone();
                    let least = circle.iter().min().unwrap().clone();
                    let turn = circle.iter().position(|m| *m == least).unwrap();
                    circle.rotate_left(turn);
                    if !circles.contains(&circle) {
                        circles.push(circle);
                    }
                } else if seen.insert(next.clone()) {
                    let mut longer = path.clone();
                    longer.push(next.clone());
                    stack.push((next.clone(), longer));
                }
            }
        }
    }
    circles
}

#[test]
fn no_module_imports_a_sibling_that_imports_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let circles: Vec<String> = import_circles(&src)
        .iter()
        .map(|c| format!("src/{} → src/{}", c.join(" → src/"), c[0]))
        .collect();
    assert!(
        circles.is_empty(),
        "\nimport circles (move what both need into a module below them):\n{}\n",
        circles.join("\n")
    );
}

#[test]
fn sibling_references_are_found_in_every_spelling() {
    let text = "use super::cues;\n\
                use super::fields::{missing, wrong_type};\n\
                use super::{brief, lists::kept};\n\
                let x = super::meaning::is_negation(w); // super::ignored::x\n\
                use super::super::csdl::checks;\n";
    assert_eq!(
        sibling_references(text),
        vec!["brief", "cues", "fields", "lists", "meaning"]
    );
}
