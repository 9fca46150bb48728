//! A project's own JSON Schemas (`[[schema]]` in `aiproto.toml`): what each
//! one constrains, and compiling them offline, with `$ref`s resolved to
//! files inside the project and nowhere else.
//!
//! ```toml
//! [[schema]]
//! hsp-type = "Fact"                      # the payload of HSP::Fact messages
//! schema = "schemas/fact.json"
//!
//! [[schema]]
//! capability-parameters = "translate"    # TaskRequest parameters
//! schema = "schemas/translate-in.json"
//!
//! [[schema]]
//! crosstalk-meta = "review"              # the `meta: review` block
//! schema = "schemas/review.json"
//! required = true                        # … which every envelope must have
//! ```

use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use crate::protocols::csdl::checks::ELEMENT_TYPES;
use crate::protocols::hsp::message_type::MessageType;

/// One `[[schema]]` table as written.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct SchemaEntry {
    pub hsp_type: Option<String>,
    pub capability_parameters: Option<String>,
    pub capability_result: Option<String>,
    pub crosstalk_meta: Option<String>,
    pub csdl: Option<String>,
    /// The schema file, relative to the `aiproto.toml` it is named in.
    pub schema: String,
    /// Crosstalk meta only: every envelope must carry the block.
    #[serde(default)]
    pub required: bool,
}

/// The keys that name what a schema constrains; an entry gives exactly one.
const TARGET_KEYS: &str =
    "hsp-type, capability-parameters, capability-result, crosstalk-meta, csdl";

/// What a project schema constrains.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// The payload of HSP messages of this type (`Fact`, or a custom type).
    HspType(String),
    /// `payload.parameters` of an HSP TaskRequest for this capability (by
    /// `capability_name_filter` or `capability_id_filter`).
    CapabilityParameters(String),
    /// `payload.payload` of an HSP TaskResult answering such a request.
    CapabilityResult(String),
    /// A Crosstalk `meta:` block, as an object of string values.
    CrosstalkMeta { namespace: String, required: bool },
    /// Every CSDL element of this type (`t`, or `type` in the full spelling).
    CsdlElement(String),
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Target::HspType(name) => write!(f, "the payload of HSP::{name}"),
            Target::CapabilityParameters(c) => write!(f, "the parameters of capability `{c}`"),
            Target::CapabilityResult(c) => write!(f, "the result of capability `{c}`"),
            Target::CrosstalkMeta { namespace, .. } => write!(f, "the `meta: {namespace}` block"),
            Target::CsdlElement(t) => write!(f, "a CSDL `{t}` element"),
        }
    }
}

impl SchemaEntry {
    /// The one target the entry names, checked.
    pub fn target(&self) -> Result<Target, String> {
        let given: Vec<Target> = [
            self.hsp_type.as_deref().map(hsp_type),
            self.capability_parameters.as_deref().map(|c| {
                Ok(Target::CapabilityParameters(non_empty(
                    c,
                    "capability-parameters",
                )?))
            }),
            self.capability_result
                .as_deref()
                .map(|c| Ok(Target::CapabilityResult(non_empty(c, "capability-result")?))),
            self.crosstalk_meta.as_deref().map(|n| {
                Ok(Target::CrosstalkMeta {
                    namespace: non_empty(n, "crosstalk-meta")?,
                    required: self.required,
                })
            }),
            self.csdl.as_deref().map(csdl_element),
        ]
        .into_iter()
        .flatten()
        .collect::<Result<_, String>>()?;
        if self.required && self.crosstalk_meta.is_none() {
            return Err("`required` applies to crosstalk-meta schemas only".into());
        }
        match <[Target; 1]>::try_from(given) {
            Ok([target]) => Ok(target),
            Err(given) if given.is_empty() => {
                Err(format!("names nothing to check: give one of {TARGET_KEYS}"))
            }
            Err(_) => Err(format!(
                "names more than one target: give one of {TARGET_KEYS} per [[schema]]"
            )),
        }
    }
}

fn non_empty(value: &str, key: &str) -> Result<String, String> {
    let value = value.trim();
    if value.is_empty() {
        return Err(format!("{key} is empty"));
    }
    Ok(value.to_string())
}

/// `Fact`, `HSP::Fact` or `HSP::Fact_v0.1`: the type name, for every version.
fn hsp_type(raw: &str) -> Result<Target, String> {
    let name = raw.trim();
    let name = name.strip_prefix("HSP::").unwrap_or(name);
    let typed = format!("HSP::{name}");
    let name = MessageType::parse(&typed).map_or(name, |t| t.name);
    let valid = name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name.chars().all(|c| c.is_ascii_alphanumeric());
    if !valid {
        return Err(format!(
            "hsp-type `{raw}` is not an HSP type name (say `Fact`, or `HSP::Fact_v0.1`)"
        ));
    }
    Ok(Target::HspType(name.to_string()))
}

fn csdl_element(raw: &str) -> Result<Target, String> {
    let name = raw.trim();
    if !ELEMENT_TYPES.contains(&name) {
        return Err(format!(
            "csdl `{raw}` is not a CSDL element type (known: {})",
            ELEMENT_TYPES.join(", ")
        ));
    }
    Ok(Target::CsdlElement(name.to_string()))
}

/// A project schema, compiled.
pub struct ProjectSchema {
    pub target: Target,
    /// The file as the project file names it, for findings.
    pub file: String,
    pub validator: jsonschema::Validator,
}

/// Compiles an entry of the project file in `project_dir`. Every `$ref`
/// resolves to a file inside `project_dir`, or the schema is refused.
pub fn compile(entry: &SchemaEntry, project_dir: &Path) -> Result<ProjectSchema, String> {
    let target = entry.target()?;
    let root = project_dir.canonicalize().map_err(|e| {
        format!(
            "cannot open the project directory {}: {e}",
            project_dir.display()
        )
    })?;
    let path = root.join(&entry.schema);
    let schema = ProjectFiles { root: root.clone() }.load(&path)?;
    let validator = jsonschema::options()
        .with_base_uri(file_uri(&path.canonicalize().unwrap_or(path.clone())))
        .with_retriever(ProjectFiles { root })
        .should_validate_formats(true)
        .build(&schema)
        .map_err(|e| format!("{}: not a usable JSON Schema: {e}", entry.schema))?;
    Ok(ProjectSchema {
        target,
        file: entry.schema.clone(),
        validator,
    })
}

/// `file://` and the path, percent-encoded where a URI needs it.
fn file_uri(path: &Path) -> String {
    const PATH: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
        .remove(b'/')
        .remove(b'-')
        .remove(b'_')
        .remove(b'.')
        .remove(b'~');
    let text = path.to_string_lossy();
    format!(
        "file://{}",
        percent_encoding::utf8_percent_encode(&text, PATH)
    )
}

/// Reads schema files, inside the project only.
struct ProjectFiles {
    /// The project directory, canonical.
    root: PathBuf,
}

impl ProjectFiles {
    fn load(&self, path: &Path) -> Result<Value, String> {
        let canonical = path
            .canonicalize()
            .map_err(|e| format!("cannot read the schema {}: {e}", path.display()))?;
        if !canonical.starts_with(&self.root) {
            return Err(format!(
                "{} is outside the project ({}): a project's schemas and their $refs stay inside it",
                path.display(),
                self.root.display()
            ));
        }
        let text = std::fs::read_to_string(&canonical)
            .map_err(|e| format!("cannot read the schema {}: {e}", path.display()))?;
        serde_json::from_str(&text).map_err(|e| {
            format!(
                "{}:{}:{}: the schema is not JSON: {e}",
                path.display(),
                e.line(),
                e.column()
            )
        })
    }
}

impl jsonschema::Retrieve for ProjectFiles {
    fn retrieve(
        &self,
        uri: &jsonschema::Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        if uri.scheme().as_str() != "file" {
            return Err(format!(
                "$ref {uri}: aiproto does not fetch schemas; copy it into the project and refer to it by a relative path"
            )
            .into());
        }
        let path = PathBuf::from(uri.path().decode().to_string_lossy().into_owned());
        Ok(self.load(&path)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(toml: &str) -> SchemaEntry {
        toml::from_str(toml).unwrap()
    }

    #[test]
    fn an_entry_names_exactly_one_target() {
        let target = |t: &str| entry(&format!("{t}\nschema = \"s.json\"")).target();
        assert_eq!(
            target("hsp-type = \"HSP::Fact_v0.1\""),
            Ok(Target::HspType("Fact".into()))
        );
        assert_eq!(
            target("hsp-type = \"Custom\""),
            Ok(Target::HspType("Custom".into()))
        );
        assert!(
            target("hsp-type = \"Fa ct\"")
                .unwrap_err()
                .contains("not an HSP type")
        );
        assert!(
            target("csdl = \"functoin\"")
                .unwrap_err()
                .contains("known: function")
        );
        assert!(target("").unwrap_err().contains("names nothing"));
        assert!(
            target("csdl = \"message\"\nhsp-type = \"Fact\"")
                .unwrap_err()
                .contains("more than one")
        );
        assert!(
            target("csdl = \"message\"\nrequired = true")
                .unwrap_err()
                .contains("crosstalk-meta")
        );
        assert_eq!(
            target("crosstalk-meta = \"review\"\nrequired = true"),
            Ok(Target::CrosstalkMeta {
                namespace: "review".into(),
                required: true
            })
        );
    }

    #[test]
    fn refs_resolve_inside_the_project_and_nowhere_else() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("my project");
        std::fs::create_dir_all(project.join("schemas")).unwrap();
        std::fs::write(
            project.join("schemas/common.json"),
            r#"{"$defs": {"lang": {"enum": ["en", "fr"]}}}"#,
        )
        .unwrap();
        std::fs::write(
            project.join("schemas/params.json"),
            r#"{"type": "object", "properties": {"to": {"$ref": "common.json#/$defs/lang"}}}"#,
        )
        .unwrap();
        let compiled = compile(
            &entry("capability-parameters = \"translate\"\nschema = \"schemas/params.json\""),
            &project,
        )
        .unwrap();
        assert!(
            compiled
                .validator
                .is_valid(&serde_json::json!({"to": "fr"}))
        );
        assert!(
            !compiled
                .validator
                .is_valid(&serde_json::json!({"to": "de"}))
        );

        // A $ref that leaves the project, or goes to the network, is refused.
        std::fs::write(dir.path().join("outside.json"), "{}").unwrap();
        for reference in ["../../outside.json", "https://example.com/s.json"] {
            std::fs::write(
                project.join("schemas/bad.json"),
                format!(r#"{{"$ref": "{reference}"}}"#),
            )
            .unwrap();
            let e = compile(
                &entry("csdl = \"message\"\nschema = \"schemas/bad.json\""),
                &project,
            )
            .err()
            .unwrap();
            assert!(
                e.contains("outside the project") || e.contains("does not fetch"),
                "{reference}: {e}"
            );
        }
        // So is the schema itself outside, and a broken one names its place.
        let e = compile(
            &entry("csdl = \"message\"\nschema = \"../outside.json\""),
            &project,
        )
        .err()
        .unwrap();
        assert!(e.contains("outside the project"), "{e}");
        std::fs::write(project.join("schemas/broken.json"), "{\n  \"type\": }").unwrap();
        let e = compile(
            &entry("csdl = \"message\"\nschema = \"schemas/broken.json\""),
            &project,
        )
        .err()
        .unwrap();
        assert!(e.contains("broken.json:2:11"), "{e}");
        std::fs::write(project.join("schemas/wrong.json"), r#"{"type": "objekt"}"#).unwrap();
        let e = compile(
            &entry("csdl = \"message\"\nschema = \"schemas/wrong.json\""),
            &project,
        )
        .err()
        .unwrap();
        assert!(e.contains("not a usable JSON Schema"), "{e}");
    }
}
