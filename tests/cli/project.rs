//! `aiproto.toml`: a project's settings, severities and schemas, and the
//! repository fixture a CI pipeline validates (`tests/fixtures/ci-repo`).

use std::collections::BTreeSet;
use std::path::Path;

use super::{REQUEST, aiproto, home, json_lines, repo};

/// Runs aiproto in `dir`: the exit code, and stdout followed by stderr.
fn run(home: &Path, dir: &Path, args: &[&str]) -> (Option<i32>, String) {
    let out = aiproto(home).current_dir(dir).args(args).output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr),
    )
}

/// A copy of the fixture repository, so that a run cannot change the tree.
fn copy_fixture(to: &Path) {
    fn copy(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            let target = to.join(entry.file_name());
            if entry.file_type().unwrap().is_dir() {
                copy(&entry.path(), &target);
            } else {
                std::fs::copy(entry.path(), target).unwrap();
            }
        }
    }
    copy(&repo("tests/fixtures/ci-repo"), to);
}

/// aiproto.toml, found above the working directory: its severities and
/// walk settings apply, flags win over it, `config show` says what is in
/// force and from where, and a typo in it is a usage error with its place.
#[test]
fn the_project_file_sets_severities_and_flags_win_over_it() {
    let h = home();
    let root = h.path().join("project");
    let deep = root.join("messages/sub");
    std::fs::create_dir_all(&deep).unwrap();
    std::fs::create_dir_all(root.join("drafts")).unwrap();
    let legacy = REQUEST.replace("intent: REQUEST", "intent: QUESTION");
    std::fs::write(deep.join("q.crosstalk"), &legacy).unwrap();
    std::fs::write(
        root.join("drafts/bad.crosstalk"),
        REQUEST.replace("intent: REQUEST", "intent: SHOUT"),
    )
    .unwrap();
    std::fs::write(
        root.join("aiproto.toml"),
        "[validate]\nexclude = [\"drafts/\"]\n\n[severity]\nCT-INTENT-LEGACY = \"error\"\nCT-HEADER = \"off\"\n",
    )
    .unwrap();
    let run = |dir: &Path, args: &[&str]| run(h.path(), dir, args);
    // From a directory below the project: the file is found above.
    let (code, text) = run(&deep, &["validate", "."]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("error[CT-INTENT-LEGACY]"), "{text}");
    let (code, text) = run(&root, &["validate", "."]);
    assert_eq!(code, Some(1));
    assert!(!text.contains("drafts"), "excluded by the file: {text}");
    let (code, text) = run(&root, &["validate", "--warn", "CT-INTENT", "."]);
    assert_eq!(code, Some(0), "a flag wins over the file: {text}");
    let (code, text) = run(&root, &["validate", "--no-config", "messages"]);
    assert_eq!(code, Some(0), "{text}");
    let (code, text) = run(&root, &["validate", "--ignore", "CT-NOPE", "."]);
    assert_eq!(code, Some(2));
    assert!(text.contains("`CT-NOPE` is no diagnostic code"), "{text}");

    let (code, text) = run(&deep, &["config", "show", "--format", "json"]);
    assert_eq!(code, Some(0), "{text}");
    let shown: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert!(
        shown["project_file"]
            .as_str()
            .unwrap()
            .ends_with("project/aiproto.toml")
    );
    assert_eq!(shown["validate"]["exclude"]["value"][0], "drafts/");
    assert_eq!(shown["validate"]["strict"]["from"], "default");
    assert_eq!(shown["severity"][1]["code"], "CT-INTENT-LEGACY");

    std::fs::write(root.join("aiproto.toml"), "[validate]\nstrcit = true\n").unwrap();
    let (code, text) = run(&root, &["validate", "."]);
    assert_eq!(code, Some(2));
    assert!(
        text.contains("aiproto.toml: line 2, column 1: unknown field `strcit`"),
        "{text}"
    );
}

/// The repository a CI pipeline validates: messages of all four protocols,
/// broken ones, a README and a package.json, a `.gitignore`, drafts the
/// project file excludes, its severities and its schemas. Every finding is
/// named by file, line, column and code; nothing else is reported.
#[test]
fn the_ci_repository_is_judged_by_its_project_file() {
    let h = home();
    let root = h.path().join("ci-repo");
    copy_fixture(&root);
    // Output of a build step, ignored by the repository's .gitignore.
    std::fs::create_dir_all(root.join("generated")).unwrap();
    std::fs::write(
        root.join("generated/out.crosstalk"),
        REQUEST.replace("intent: REQUEST", "intent: SHOUT"),
    )
    .unwrap();

    let out = aiproto(h.path())
        .current_dir(&root)
        .args(["validate", "-v", "--format", "json", "."])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let reports = json_lines(&out.stdout);
    let findings: BTreeSet<(String, String, u64, u64)> = reports
        .iter()
        .flat_map(|r| {
            let source = r["source"].as_str().unwrap().trim_start_matches("./");
            let all = r["errors"].as_array().unwrap().iter();
            all.chain(r["warnings"].as_array().unwrap()).map(move |f| {
                (
                    source.to_string(),
                    f["code"].as_str().unwrap().to_string(),
                    f["line"].as_u64().unwrap(),
                    f["column"].as_u64().unwrap(),
                )
            })
        })
        .collect();
    let expected: BTreeSet<(String, String, u64, u64)> = [
        // The review block lacks its reviewer; its status is not one the team uses.
        (
            "messages/crosstalk/review.crosstalk",
            "PROJECT-SCHEMA",
            7,
            7,
        ),
        (
            "messages/crosstalk/review.crosstalk",
            "PROJECT-SCHEMA",
            8,
            1,
        ),
        // A method of a class, named against the project's convention.
        ("messages/csdl/glossary.json", "PROJECT-SCHEMA", 14, 12),
        // German is not offered; the result of that request lacks `translation`;
        // a fact below the project's confidence floor.
        ("messages/hsp/bus.jsonl", "PROJECT-SCHEMA", 1, 612),
        ("messages/hsp/bus.jsonl", "PROJECT-SCHEMA", 2, 622),
        ("messages/hsp/bus.jsonl", "PROJECT-SCHEMA", 3, 650),
        // A warning the project raised to an error.
        ("messages/hsp/poll-request.json", "HSP-TYPE-UNKNOWN", 8, 19),
    ]
    .into_iter()
    .map(|(s, c, l, col)| (s.to_string(), c.to_string(), l, col))
    .collect();
    assert_eq!(findings, expected);
    let pointers: Vec<&str> = reports
        .iter()
        .flat_map(|r| r["errors"].as_array().unwrap())
        .filter_map(|f| f["pointer"].as_str())
        .collect();
    assert!(pointers.contains(&"/payload/parameters/to"), "{pointers:?}");
    assert!(pointers.contains(&"/methods/0/n"), "{pointers:?}");
    // Every message of the tree was read; README.md and package.json were
    // skipped; drafts/ and schemas/ (excluded) and generated/ (ignored) were not walked.
    let sources: BTreeSet<&str> = reports
        .iter()
        .map(|r| r["source"].as_str().unwrap().trim_start_matches("./"))
        .collect();
    assert_eq!(sources.len(), 9, "{sources:?}");
    assert!(
        sources
            .iter()
            .all(|s| s.starts_with("messages/") && !s.contains("generated")),
        "{sources:?}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("./README.md: skipped"), "{stderr}");
    assert!(stderr.contains("./package.json: skipped"), "{stderr}");

    // Per-code severities from the command line win over the file.
    let (code, text) = run(
        h.path(),
        &root,
        &["validate", "--ignore", "PROJECT-SCHEMA", "."],
    );
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("11 messages in 9 inputs: 1 invalid (1 error, 0 warnings; 2 files without a message skipped"),
        "{text}"
    );
    let args = [
        "validate",
        "--ignore",
        "PROJECT",
        "--warn",
        "HSP-TYPE-UNKNOWN",
        ".",
    ];
    let (code, text) = run(h.path(), &root, &args);
    assert_eq!(code, Some(0), "{text}");
    let (code, text) = run(
        h.path(),
        &root,
        &["validate", "--strict", "--ignore", "PROJECT", "."],
    );
    assert_eq!(code, Some(1), "--strict makes warnings fail again: {text}");
    // Without the project file, only the protocols' own rules apply.
    let (code, text) = run(h.path(), &root, &["validate", "--no-config", "messages"]);
    assert_eq!(code, Some(0), "{text}");
    // The result is judged by its request, met earlier in the run: alone,
    // nothing names its capability.
    let (code, text) = run(h.path(), &root, &["validate", "messages/hsp/bus.jsonl"]);
    assert_eq!(code, Some(1));
    assert!(text.contains("bus.jsonl:2:622"), "{text}");
    let result_only = root.join("result.jsonl");
    let bus = std::fs::read_to_string(root.join("messages/hsp/bus.jsonl")).unwrap();
    std::fs::write(&result_only, bus.lines().nth(1).unwrap()).unwrap();
    let (code, text) = run(h.path(), &root, &["validate", "result.jsonl"]);
    assert_eq!(code, Some(0), "{text}");

    // The same findings in a CI format, with the schema named.
    let (code, text) = run(
        h.path(),
        &root,
        &["validate", "--format", "github", "messages/csdl"],
    );
    assert_eq!(code, Some(1));
    assert!(
        text.contains("::error file=messages/csdl/glossary.json,line=14,col=12,endColumn=23,title=PROJECT-SCHEMA::\"lookupTerm\" does not match \"^[a-z][a-z0-9_]*$\" (a CSDL `function` element, per schemas/csdl-function.json)"),
        "{text}"
    );
}

/// A broken `[[schema]]` stops the run before anything is judged (exit 2),
/// naming the project file, the table and the schema; a required meta block
/// that is missing is a finding; `config show` lists the schemas.
#[test]
fn project_schemas_are_checked_before_the_run_and_listed() {
    let h = home();
    let root = h.path().join("p");
    std::fs::create_dir_all(root.join("schemas")).unwrap();
    std::fs::write(root.join("m.crosstalk"), REQUEST).unwrap();
    std::fs::write(h.path().join("outside.json"), "{}").unwrap();
    let config = |schema: &str| {
        let text = format!(
            "[[schema]]\ncrosstalk-meta = \"review\"\nrequired = true\nschema = \"{schema}\"\n"
        );
        std::fs::write(root.join("aiproto.toml"), text).unwrap();
    };
    for (schema, content, says) in [
        ("schemas/none.json", None, "cannot read the schema"),
        (
            "schemas/bad.json",
            Some("{\"type\": }"),
            "bad.json:1:10: the schema is not JSON",
        ),
        ("../outside.json", None, "is outside the project"),
        (
            "schemas/ref.json",
            Some("{\"$ref\": \"../../outside.json\"}"),
            "is outside the project",
        ),
        (
            "schemas/net.json",
            Some("{\"$ref\": \"https://example.com/s.json\"}"),
            "aiproto does not fetch schemas",
        ),
        (
            "schemas/wrong.json",
            Some("{\"type\": \"objekt\"}"),
            "not a usable JSON Schema",
        ),
    ] {
        if let Some(content) = content {
            std::fs::write(root.join(schema), content).unwrap();
        }
        config(schema);
        for args in [&["validate", "m.crosstalk"][..], &["config", "show"]] {
            let (code, text) = run(h.path(), &root, args);
            assert_eq!(code, Some(2), "{schema}: {text}");
            assert!(
                text.contains("aiproto.toml: [[schema]] #1: ") && text.contains(says),
                "{schema}: {text}"
            );
        }
    }
    std::fs::write(
        root.join("schemas/review.json"),
        "{\"required\": [\"Reviewer\"]}",
    )
    .unwrap();
    config("schemas/review.json");
    let (code, text) = run(h.path(), &root, &["validate", "m.crosstalk"]);
    assert_eq!(code, Some(1));
    assert!(
        text.contains("m.crosstalk:1:1: error[PROJECT-SCHEMA-MISSING]: this envelope has no `meta: review` block"),
        "{text}"
    );
    let (code, text) = run(h.path(), &root, &["config", "show"]);
    assert_eq!(code, Some(0));
    assert!(
        text.contains("the `meta: review` block (required): schemas/review.json"),
        "{text}"
    );
}

/// The job command of docs/ci.md's GitHub workflow, as it once was.
const GATE: &[&str] = &[
    "validate",
    "--format",
    "github",
    "--report",
    "sarif:aiproto.sarif",
    "messages/",
];

/// The aiproto commands of docs/ci.md's GitHub workflow, as the docs show
/// them now (`- run: aiproto …`).
fn docs_gate_commands() -> Vec<Vec<String>> {
    let docs = std::fs::read_to_string(repo("docs/ci.md")).unwrap();
    let commands: Vec<Vec<String>> = docs
        .lines()
        .filter_map(|l| l.trim().strip_prefix("- run: aiproto "))
        .map(|c| c.split_whitespace().map(str::to_string).collect())
        .collect();
    assert!(commands.len() >= 2, "{commands:?}");
    commands
}

/// The repository of docs/ci.md: its `aiproto.toml` and a broken envelope.
fn docs_repository(toml: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("aiproto.toml"), toml).unwrap();
    std::fs::create_dir_all(dir.path().join("messages/drafts")).unwrap();
    std::fs::write(
        dir.path().join("messages/broken.crosstalk"),
        REQUEST.replace("[[END]]\n", ""),
    )
    .unwrap();
    std::fs::write(dir.path().join("messages/drafts/wip.crosstalk"), "draft").unwrap();
    dir
}

#[test]
fn a_gate_that_checked_nothing_has_not_passed() {
    let h = home();
    // The glob the docs once showed: relative to the folder walked, it
    // matches nothing under messages/, and the broken envelope goes unread.
    let old = docs_repository("[validate]\nglob = [\"messages/**\"]\n");
    let (code, out) = run(h.path(), old.path(), GATE);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("NO-INPUT") && out.contains("--glob messages/**"),
        "{out}"
    );
    let sarif: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(old.path().join("aiproto.sarif")).unwrap())
            .unwrap();
    assert_eq!(
        sarif["runs"][0]["results"][0]["ruleId"], "NO-INPUT",
        "{sarif}"
    );
    // The docs' example now: the broken envelope is read and fails the run.
    let toml = std::fs::read_to_string(repo("docs/ci.md")).unwrap();
    let example = toml
        .split("```toml\n")
        .nth(1)
        .and_then(|t| t.split("```").next())
        .unwrap();
    let now = docs_repository(example);
    std::fs::write(now.path().join("team.keys"), "").unwrap();
    // A message hidden from walks by an ignore file must not pass the gate.
    std::fs::write(now.path().join(".gitignore"), "messages/local/\n").unwrap();
    std::fs::create_dir_all(now.path().join("messages/local")).unwrap();
    std::fs::write(
        now.path().join("messages/local/unsigned.crosstalk"),
        REQUEST,
    )
    .unwrap();
    for command in docs_gate_commands() {
        let args: Vec<&str> = command.iter().map(String::as_str).collect();
        let (code, out) = run(h.path(), now.path(), &args);
        assert_eq!(code, Some(1), "{args:?}: {out}");
        assert!(!out.contains("NO-INPUT"), "{args:?}: {out}");
        match args[0] {
            "validate" => assert!(out.contains("CT-END-MISSING"), "{out}"),
            _ => assert!(
                out.contains("messages/local/unsigned.crosstalk:1: error[SIG-UNSIGNED]"),
                "{args:?}: {out}"
            ),
        }
    }
    // An empty folder, for validate and verify; --allow-empty accepts it.
    let empty = tempfile::tempdir().unwrap();
    for command in ["validate", "verify"] {
        let (code, out) = run(h.path(), empty.path(), &[command, "."]);
        assert_eq!(code, Some(1), "{command}: {out}");
        assert!(
            out.contains("NO-INPUT") && out.contains("gave 0 file(s)"),
            "{command}: {out}"
        );
        let (code, out) = run(h.path(), empty.path(), &[command, "--allow-empty", "."]);
        assert_eq!(code, Some(0), "{command}: {out}");
    }
    // Every file skipped as holding no message.
    std::fs::write(empty.path().join("README.md"), "# notes\n").unwrap();
    let (code, out) = run(h.path(), empty.path(), &["validate", "--no-config", "."]);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("1 passed over as holding no message"), "{out}");
}
