//! The HSP JSON Schemas (draft 2020-12) in `schemas/hsp/`, embedded in the
//! binary and compiled once per version, offline: every `$ref` resolves
//! through an in-memory registry.

use std::sync::OnceLock;

use serde_json::Value;

use super::Version;

/// One embedded schema file.
pub struct SchemaFile {
    pub version: Version,
    /// The file stem, e.g. `envelope` or `fact`.
    pub name: &'static str,
    pub text: &'static str,
}

macro_rules! embed {
    ($($version:ident $dir:literal [$($name:literal),* $(,)?]);* $(;)?) => {
        /// Every embedded HSP schema.
        pub const FILES: &[SchemaFile] = &[
            $($(SchemaFile {
                version: Version::$version,
                name: $name,
                text: include_str!(concat!("../../../schemas/hsp/", $dir, "/", $name, ".schema.json")),
            },)*)*
        ];
    };
}

embed! {
    V0_1 "0.1" ["envelope", "common", "fact", "belief", "opinion", "capability_advertisement", "task_request", "task_result",
        "environmental_state", "ai_state_synchronization", "acknowledgement", "negative_acknowledgement",
        "capability_discovery_query", "capability_discovery_response", "heartbeat", "discovery", "error"];
    V1_0 "1.0" ["envelope", "common", "fact", "belief", "opinion", "capability_advertisement", "task_request", "task_result",
        "environmental_state", "ai_state_synchronization", "acknowledgement", "negative_acknowledgement",
        "capability_discovery_query", "capability_discovery_response", "heartbeat", "discovery", "error"];
}

/// The `$id` base every HSP schema lives under.
pub const ID_BASE: &str = "https://aiproto.dev/schemas/hsp";

fn parse(file: &SchemaFile) -> Value {
    // The files are part of the build; a broken one is caught by the tests.
    serde_json::from_str(file.text).unwrap_or(Value::Null)
}

/// The envelope validator of a version (payloads are checked through it).
pub fn envelope_validator(version: Version) -> &'static jsonschema::Validator {
    static V0_1: OnceLock<jsonschema::Validator> = OnceLock::new();
    static V1_0: OnceLock<jsonschema::Validator> = OnceLock::new();
    let cell = match version {
        Version::V0_1 => &V0_1,
        Version::V1_0 => &V1_0,
    };
    cell.get_or_init(|| {
        build(version).unwrap_or_else(|e| {
            panic!(
                "embedded HSP {} schemas do not compile: {e}",
                version.as_str()
            )
        })
    })
}

/// Compiles the envelope schema of a version against all embedded files.
pub fn build(version: Version) -> Result<jsonschema::Validator, String> {
    let mut registry = jsonschema::Registry::new();
    for file in FILES.iter().filter(|f| f.version == version) {
        let uri = format!(
            "{ID_BASE}/{}/{}.schema.json",
            file.version.as_str(),
            file.name
        );
        registry = registry.add(uri, parse(file)).map_err(|e| e.to_string())?;
    }
    let registry = registry.prepare().map_err(|e| e.to_string())?;
    let envelope = FILES
        .iter()
        .find(|f| f.version == version && f.name == "envelope")
        .map(parse)
        .ok_or("no envelope schema")?;
    jsonschema::options()
        .offline()
        .should_validate_formats(true)
        .with_registry(&registry)
        .build(&envelope)
        .map_err(|e| e.to_string())
}

/// A schema by `VERSION/NAME` (e.g. `0.1/fact`) or the file name.
pub fn find(name: &str) -> Option<&'static SchemaFile> {
    let name = name.trim_end_matches(".json").trim_end_matches(".schema");
    let name = name.strip_prefix("hsp/").unwrap_or(name);
    FILES
        .iter()
        .find(|f| format!("{}/{}", f.version.as_str(), f.name) == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_schema_is_valid_2020_12_and_compiles() {
        for file in FILES {
            let schema = parse(file);
            assert!(
                jsonschema::meta::is_valid(&schema),
                "{}/{} is not a valid schema",
                file.version.as_str(),
                file.name
            );
        }
        for version in [Version::V0_1, Version::V1_0] {
            build(version).unwrap();
        }
    }

    #[test]
    fn finds_schemas_by_name() {
        assert_eq!(find("0.1/fact").map(|f| f.name), Some("fact"));
        assert_eq!(
            find("hsp/1.0/envelope.schema.json").map(|f| f.name),
            Some("envelope")
        );
        assert!(find("2.0/fact").is_none());
    }
}
