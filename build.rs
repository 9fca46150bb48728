//! Embeds the conformance kit: the manifests of `conformance/*.toml` and
//! every file they name (`file = "…"`, `key = "…"`), so that
//! `aiproto conformance` works from the binary alone.

use std::path::Path;

fn main() {
    let root = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let root = Path::new(&root);
    let kit = root.join("conformance");
    println!("cargo::rerun-if-changed=conformance");
    let mut manifests = Vec::new();
    let mut files = std::collections::BTreeSet::new();
    let mut entries: Vec<_> = std::fs::read_dir(&kit)
        .expect("conformance/ is part of the source")
        .map(|e| e.expect("readable conformance/").path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    entries.sort();
    for path in entries {
        println!("cargo::rerun-if-changed={}", path.display());
        let text = std::fs::read_to_string(&path).expect("readable manifest");
        for line in text.lines() {
            for key in ["file = ", "key = "] {
                if let Some(quoted) = line.strip_prefix(key) {
                    let name = quoted.trim().trim_matches('"').to_string();
                    files.insert(name);
                }
            }
        }
        let protocol = path
            .file_stem()
            .expect("a manifest has a name")
            .to_string_lossy()
            .into_owned();
        manifests.push((protocol, path));
    }
    let mut out = String::from(
        "/// The manifests, by protocol.\npub static MANIFESTS: &[(&str, &str)] = &[\n",
    );
    for (protocol, path) in &manifests {
        out.push_str(&format!(
            "    ({protocol:?}, include_str!({:?})),\n",
            path.display().to_string()
        ));
    }
    out.push_str("];\n\n/// The files the manifests name, by their path in the repository.\npub static FILES: &[(&str, &[u8])] = &[\n");
    for name in &files {
        let path = root.join(name);
        assert!(
            path.is_file(),
            "conformance manifest names {name}, which is not a file"
        );
        println!("cargo::rerun-if-changed={}", path.display());
        out.push_str(&format!(
            "    ({name:?}, include_bytes!({:?})),\n",
            path.display().to_string()
        ));
    }
    out.push_str("];\n");
    let dest = Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"))
        .join("conformance_kit.rs");
    std::fs::write(dest, out).expect("OUT_DIR is writable");
}
