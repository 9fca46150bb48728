//! The vectors: read from the manifests embedded at build time, selected
//! by protocol, level and kind, and written out for other implementations.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/conformance_kit.rs"));
}

/// The kit's version: vectors are only added, changed or removed with a new one.
pub const KIT_VERSION: &str = "2";

/// The protocols, in the order a run grades them.
pub const PROTOCOLS: [&str; 5] = ["hsp", "crosstalk", "csdl", "msp", "a2a"];

/// How binding a vector is.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// What the spec requires.
    Mandatory,
    /// What the spec recommends (and what a copy-paste reader should repair).
    Recommended,
    /// aiproto's documented reading where the spec is silent or vague.
    Decision,
}

impl Level {
    pub const ALL: [Level; 3] = [Level::Mandatory, Level::Recommended, Level::Decision];

    pub fn name(self) -> &'static str {
        match self {
            Level::Mandatory => "mandatory",
            Level::Recommended => "recommended",
            Level::Decision => "decision",
        }
    }
}

/// What a vector exercises.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// A message (or a file of them) to accept or refuse.
    Message,
    /// An envelope as a chat UI or editor leaves it: a reader repairs it or refuses it.
    Damage,
    /// A signed message and a public key: the signature verifies or not.
    Signature,
    /// A probe for a live HSP agent over MQTT, and what it must answer.
    Agent,
}

/// What a live agent must send back to an [`Kind::Agent`] probe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AgentAnswer {
    /// An ACK whose correlation_id is the probe's message_id.
    Ack,
    /// A NACK naming the probe (and never an ACK).
    Nack,
    /// Nothing at all.
    Silence,
    /// After the probe, a Fact asking for an ACK is still acknowledged.
    Survive,
    /// A TaskResult on the callback topic answering the TaskRequest.
    TaskResult,
}

/// The verdict a conforming implementation gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Expect {
    Accept,
    Reject,
}

impl Expect {
    pub fn name(self) -> &'static str {
        match self {
            Expect::Accept => "accept",
            Expect::Reject => "reject",
        }
    }
}

/// One test vector, as its manifest describes it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Vector {
    /// `protocol/…`, unique in the kit.
    pub id: String,
    pub kind: Kind,
    /// Where the bytes are in aiproto's repository (in a written kit: beside the manifest).
    pub file: String,
    /// For signature vectors: the public key to verify with (a keystore line).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// For agent probes: what must come back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<AgentAnswer>,
    /// The protocol version the vector is written in.
    pub version: String,
    /// The spec section it tests, by name.
    pub section: String,
    pub level: Level,
    pub expect: Expect,
    /// aiproto's error codes on it (for implementations that report codes).
    #[serde(default)]
    pub codes: Vec<String>,
    /// aiproto's warning codes on it: for a damage, the repairs it names.
    #[serde(default)]
    pub warnings: Vec<String>,
    /// What it is, in a sentence.
    pub about: String,
}

impl Vector {
    pub fn protocol(&self) -> &str {
        self.id.split('/').next().unwrap_or_default()
    }

    /// The vector's bytes.
    pub fn bytes(&self) -> &'static [u8] {
        file_bytes(&self.file)
    }

    /// The public key's bytes, for a signature vector.
    pub fn key_bytes(&self) -> Option<&'static [u8]> {
        self.key.as_deref().map(file_bytes)
    }

    /// Its file name in a written kit: the id with the file's extension.
    pub fn kit_path(&self) -> PathBuf {
        let ext = Path::new(&self.file)
            .extension()
            .map(|e| e.to_string_lossy().into_owned())
            .unwrap_or_else(|| "txt".into());
        PathBuf::from(format!("{}.{ext}", self.id))
    }

    /// Its key's file name in a written kit.
    pub fn kit_key_path(&self) -> Option<PathBuf> {
        let key = self.key.as_deref()?;
        let name = Path::new(key).file_name()?;
        Some(Path::new("keys").join(name))
    }
}

fn file_bytes(name: &str) -> &'static [u8] {
    embedded::FILES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, b)| *b)
        .unwrap_or_else(|| {
            panic!("the build embeds every file a manifest names; {name} is missing")
        })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Manifest {
    kit: String,
    protocol: String,
    vector: Vec<Vector>,
}

/// Every vector of the kit, protocol by protocol in [`PROTOCOLS`] order,
/// each in its manifest's order.
pub fn all() -> Vec<Vector> {
    let mut out = Vec::new();
    for protocol in PROTOCOLS {
        let (_, text) = embedded::MANIFESTS
            .iter()
            .find(|(p, _)| *p == protocol)
            .unwrap_or_else(|| panic!("the kit has a manifest for {protocol}"));
        let manifest: Manifest = toml::from_str(text)
            .unwrap_or_else(|e| panic!("conformance/{protocol}.toml does not parse: {e}"));
        assert_eq!(manifest.kit, KIT_VERSION, "conformance/{protocol}.toml");
        assert_eq!(manifest.protocol, protocol, "conformance/{protocol}.toml");
        out.extend(manifest.vector);
    }
    out
}

/// Which vectors a run takes.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// Empty: every protocol.
    pub protocols: Vec<String>,
    /// Empty: every level.
    pub levels: Vec<Level>,
    /// Empty: every kind.
    pub kinds: Vec<Kind>,
    /// Empty: every vector; else those [`only`] takes for one of them.
    pub only: Vec<String>,
}

/// Whether `pattern` (`--only`) names the vector: its id, a glob over ids
/// (`hsp/1.0/*`), or its spec section or a part of the section's name
/// (`§4.3`, `acknowledgements`), in any case.
pub fn only(pattern: &str, v: &Vector) -> bool {
    if pattern == v.id {
        return true;
    }
    if pattern.contains(['*', '?', '[']) {
        return globset::Glob::new(pattern).is_ok_and(|g| g.compile_matcher().is_match(&v.id));
    }
    !pattern.trim().is_empty()
        && v.section
            .to_lowercase()
            .contains(&pattern.trim().to_lowercase())
}

impl Selection {
    pub fn takes(&self, v: &Vector) -> bool {
        (self.protocols.is_empty() || self.protocols.iter().any(|p| p == v.protocol()))
            && (self.levels.is_empty() || self.levels.contains(&v.level))
            && (self.kinds.is_empty() || self.kinds.contains(&v.kind))
            && (self.only.is_empty() || self.only.iter().any(|p| only(p, v)))
    }

    pub fn of(&self, vectors: Vec<Vector>) -> Vec<Vector> {
        vectors.into_iter().filter(|v| self.takes(v)).collect()
    }
}

/// The manifest of a written kit (`manifest.json`): the vectors with their
/// paths relative to it.
#[derive(Serialize)]
struct WrittenManifest {
    kit: &'static str,
    written_by: String,
    vectors: Vec<Vector>,
}

/// Writes `vectors` under `dir` (created if need be): each at its
/// [`Vector::kit_path`], the keys under `keys/`, and `manifest.json`. A
/// directory that holds files but no `manifest.json` is refused, so a
/// mistyped `--out` cannot scatter files into a project.
pub fn write_kit(dir: &Path, vectors: &[Vector]) -> std::io::Result<usize> {
    if dir.exists() {
        let mut entries = std::fs::read_dir(dir)?;
        if entries.next().is_some() && !dir.join("manifest.json").is_file() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::AlreadyExists,
                format!(
                    "{} holds files but no manifest.json: give an empty or new directory",
                    dir.display()
                ),
            ));
        }
    }
    let mut written = Vec::with_capacity(vectors.len());
    for v in vectors {
        let path = dir.join(v.kit_path());
        write_file(&path, v.bytes())?;
        let mut entry = v.clone();
        entry.file = v.kit_path().to_string_lossy().into_owned();
        if let (Some(key), Some(bytes)) = (v.kit_key_path(), v.key_bytes()) {
            write_file(&dir.join(&key), bytes)?;
            entry.key = Some(key.to_string_lossy().into_owned());
        }
        written.push(entry);
    }
    let manifest = WrittenManifest {
        kit: KIT_VERSION,
        written_by: format!("aiproto {}", env!("CARGO_PKG_VERSION")),
        vectors: written,
    };
    let mut text = serde_json::to_string_pretty(&manifest).map_err(std::io::Error::other)?;
    text.push('\n');
    write_file(&dir.join("manifest.json"), text.as_bytes())?;
    Ok(vectors.len())
}

fn write_file(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(path, bytes)
        .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kit_has_over_300_vectors_each_with_a_section_and_a_unique_id() {
        let all = all();
        assert!(all.len() >= 300, "{} vectors", all.len());
        let mut ids = std::collections::HashSet::new();
        for v in &all {
            assert!(ids.insert(v.id.clone()), "{} twice", v.id);
            assert!(!v.section.is_empty() && !v.about.is_empty(), "{}", v.id);
            assert!(PROTOCOLS.contains(&v.protocol()), "{}", v.id);
            assert_eq!(v.kind == Kind::Signature, v.key.is_some(), "{}", v.id);
            assert_eq!(v.kind == Kind::Agent, v.answer.is_some(), "{}", v.id);
            let _ = v.bytes();
        }
        for protocol in PROTOCOLS {
            for expect in [Expect::Accept, Expect::Reject] {
                assert!(
                    all.iter().any(|v| v.protocol() == protocol
                        && v.expect == expect
                        && v.level == Level::Mandatory),
                    "{protocol} has mandatory vectors to {}",
                    expect.name()
                );
            }
        }
    }

    #[test]
    fn a_written_kit_holds_every_vector_byte_for_byte_and_a_manifest_naming_them() {
        let dir = tempfile::tempdir().unwrap();
        let vectors = all();
        assert_eq!(write_kit(dir.path(), &vectors).unwrap(), vectors.len());
        let manifest: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.path().join("manifest.json")).unwrap())
                .unwrap();
        let listed = manifest["vectors"].as_array().unwrap();
        assert_eq!(listed.len(), vectors.len());
        for (v, entry) in vectors.iter().zip(listed) {
            let file = entry["file"].as_str().unwrap();
            assert_eq!(
                std::fs::read(dir.path().join(file)).unwrap(),
                v.bytes(),
                "{}",
                v.id
            );
            if let Some(key) = entry["key"].as_str() {
                assert!(dir.path().join(key).is_file());
            }
        }
        // Written again over itself: allowed; into a stranger's folder: refused.
        write_kit(dir.path(), &vectors[..3]).unwrap();
        let other = tempfile::tempdir().unwrap();
        std::fs::write(other.path().join("main.rs"), "fn main() {}").unwrap();
        let err = write_kit(other.path(), &vectors).unwrap_err();
        assert!(err.to_string().contains("no manifest.json"), "{err}");
    }
}
