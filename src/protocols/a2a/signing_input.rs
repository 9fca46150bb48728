//! The bytes an Agent Card signature covers (A2A 1.0, section 8.4.1): the
//! card without its `signatures`, without the fields proto3 would not
//! write (rule 1), in RFC 8785 canonical JSON.
//!
//! Rule 1 is read two ways, because the two are in use and disagree
//! (a2aproject/A2A#2122 is still open):
//! - [`Reading::Spec`], the specification's text: a field that is neither
//!   REQUIRED nor declared `optional` is left out when it holds its
//!   default (`""`, `false`, `0`, `[]`, `{}`, `null`); REQUIRED fields,
//!   `optional` ones and message fields stay as written. Fields the proto
//!   does not know stay too: a signature covers everything it was shown.
//! - [`Reading::Sdk`], what both official SDKs sign (a2a-sdk for Python
//!   and @a2a-js/sdk, 1.3.0): the same, then every empty string, list and
//!   object and every null removed at any depth, REQUIRED ones included
//!   (their `_clean_empty` / `cleanEmpty`).
//!
//! The two agree on every card with no empty value. Where they differ,
//! aiproto signs under each (two signatures, the specification's first),
//! and accepts a signature under either.

use serde_json::{Map, Value};

/// Which reading of rule 1 (field presence) the signing input follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reading {
    /// The A2A 1.0 specification's text.
    Spec,
    /// The official SDKs (Python and JS, 1.3.0): empty values removed everywhere.
    Sdk,
}

impl Reading {
    pub const ALL: [Reading; 2] = [Reading::Spec, Reading::Sdk];

    pub fn name(self) -> &'static str {
        match self {
            Reading::Spec => "spec",
            Reading::Sdk => "a2a-sdk",
        }
    }
}

/// Why a card has no signing input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SigningInputError {
    #[error("an Agent Card is a JSON object")]
    NotAnObject,
    #[error(
        "the signing input still carries `signatures`: a signature cannot cover the field that holds it (A2A 8.4.1 rule 3)"
    )]
    SignaturesPresent,
    #[error("the signing input is not RFC 8785 canonical JSON: {0}")]
    NotCanonical(String),
}

/// The field that holds the signatures, never signed.
pub const SIGNATURES: &str = "signatures";

/// The exact bytes a signature over `card` covers, read as `reading` says.
pub fn signing_input(card: &Value, reading: Reading) -> Result<Vec<u8>, SigningInputError> {
    let Value::Object(map) = card else {
        return Err(SigningInputError::NotAnObject);
    };
    let mut unsigned = map.clone();
    unsigned.remove(SIGNATURES);
    let mut value = Value::Object(unsigned);
    drop_defaults(&mut value, Shape::Message(AGENT_CARD));
    if reading == Reading::Sdk {
        value = clean_empty(value).unwrap_or_else(|| Value::Object(Map::new()));
    }
    Ok(canonical(&value))
}

/// RFC 8785 canonical JSON of any value (serialising a `Value` cannot fail).
pub fn canonical(value: &Value) -> Vec<u8> {
    serde_json_canonicalizer::to_vec(value).unwrap_or_default()
}

/// Checks bytes presented as a card's signing input: they must be RFC 8785
/// canonical JSON of an object without `signatures`.
pub fn check_presented(bytes: &[u8]) -> Result<(), SigningInputError> {
    let value: Value = serde_json::from_slice(bytes)
        .map_err(|e| SigningInputError::NotCanonical(e.to_string()))?;
    let Value::Object(map) = &value else {
        return Err(SigningInputError::NotAnObject);
    };
    if map.contains_key(SIGNATURES) {
        return Err(SigningInputError::SignaturesPresent);
    }
    if canonical(&value) != bytes {
        return Err(SigningInputError::NotCanonical(
            "the same JSON in canonical form is other bytes".into(),
        ));
    }
    Ok(())
}

/// What the proto says a JSON value is.
#[derive(Debug, Clone, Copy)]
enum Shape {
    /// A message: its fields are known.
    Message(&'static [Field]),
    /// A list or a map of messages.
    Many(&'static [Field]),
    /// A scalar, a list of scalars, or a `google.protobuf.Struct`: taken
    /// as written.
    Opaque,
}

/// One field of a message, by its JSON name.
#[derive(Debug, Clone, Copy)]
struct Field {
    name: &'static str,
    /// Neither REQUIRED nor `optional` nor a message: left out at its default.
    plain: bool,
    shape: Shape,
}

const fn kept(name: &'static str, shape: Shape) -> Field {
    Field {
        name,
        plain: false,
        shape,
    }
}

const fn plain(name: &'static str, shape: Shape) -> Field {
    Field {
        name,
        plain: true,
        shape,
    }
}

const OPAQUE: Shape = Shape::Opaque;

// The proto of A2A 1.0 (`a2a.proto`), the messages an Agent Card holds.
const AGENT_CARD: &[Field] = &[
    kept("name", OPAQUE),
    kept("description", OPAQUE),
    kept("supportedInterfaces", Shape::Many(AGENT_INTERFACE)),
    kept("provider", Shape::Message(AGENT_PROVIDER)),
    kept("version", OPAQUE),
    kept("documentationUrl", OPAQUE),
    kept("capabilities", Shape::Message(AGENT_CAPABILITIES)),
    plain("securitySchemes", Shape::Many(SECURITY_SCHEME)),
    plain("securityRequirements", Shape::Many(SECURITY_REQUIREMENT)),
    kept("defaultInputModes", OPAQUE),
    kept("defaultOutputModes", OPAQUE),
    kept("skills", Shape::Many(AGENT_SKILL)),
    kept("iconUrl", OPAQUE),
];
const AGENT_INTERFACE: &[Field] = &[
    kept("url", OPAQUE),
    kept("protocolBinding", OPAQUE),
    plain("tenant", OPAQUE),
    kept("protocolVersion", OPAQUE),
];
const AGENT_PROVIDER: &[Field] = &[kept("url", OPAQUE), kept("organization", OPAQUE)];
const AGENT_CAPABILITIES: &[Field] = &[
    kept("streaming", OPAQUE),
    kept("pushNotifications", OPAQUE),
    plain("extensions", Shape::Many(AGENT_EXTENSION)),
    kept("extendedAgentCard", OPAQUE),
];
const AGENT_EXTENSION: &[Field] = &[
    plain("uri", OPAQUE),
    plain("description", OPAQUE),
    plain("required", OPAQUE),
    kept("params", OPAQUE),
];
const AGENT_SKILL: &[Field] = &[
    kept("id", OPAQUE),
    kept("name", OPAQUE),
    kept("description", OPAQUE),
    kept("tags", OPAQUE),
    plain("examples", OPAQUE),
    plain("inputModes", OPAQUE),
    plain("outputModes", OPAQUE),
    plain("securityRequirements", Shape::Many(SECURITY_REQUIREMENT)),
];
const SECURITY_REQUIREMENT: &[Field] = &[plain("schemes", Shape::Many(STRING_LIST))];
const STRING_LIST: &[Field] = &[plain("list", OPAQUE)];
const SECURITY_SCHEME: &[Field] = &[
    kept("apiKeySecurityScheme", Shape::Message(API_KEY_SCHEME)),
    kept("httpAuthSecurityScheme", Shape::Message(HTTP_AUTH_SCHEME)),
    kept("oauth2SecurityScheme", Shape::Message(OAUTH2_SCHEME)),
    kept(
        "openIdConnectSecurityScheme",
        Shape::Message(OPEN_ID_SCHEME),
    ),
    kept("mtlsSecurityScheme", Shape::Message(DESCRIBED)),
];
const DESCRIBED: &[Field] = &[plain("description", OPAQUE)];
const API_KEY_SCHEME: &[Field] = &[
    plain("description", OPAQUE),
    kept("location", OPAQUE),
    kept("name", OPAQUE),
];
const HTTP_AUTH_SCHEME: &[Field] = &[
    plain("description", OPAQUE),
    kept("scheme", OPAQUE),
    plain("bearerFormat", OPAQUE),
];
const OAUTH2_SCHEME: &[Field] = &[
    plain("description", OPAQUE),
    kept("flows", Shape::Message(OAUTH_FLOWS)),
    plain("oauth2MetadataUrl", OPAQUE),
];
const OPEN_ID_SCHEME: &[Field] = &[
    plain("description", OPAQUE),
    kept("openIdConnectUrl", OPAQUE),
];
const OAUTH_FLOWS: &[Field] = &[
    kept("authorizationCode", Shape::Message(AUTHORIZATION_CODE_FLOW)),
    kept("clientCredentials", Shape::Message(CLIENT_CREDENTIALS_FLOW)),
    kept("implicit", Shape::Message(IMPLICIT_FLOW)),
    kept("password", Shape::Message(PASSWORD_FLOW)),
    kept("deviceCode", Shape::Message(DEVICE_CODE_FLOW)),
];
const AUTHORIZATION_CODE_FLOW: &[Field] = &[
    kept("authorizationUrl", OPAQUE),
    kept("tokenUrl", OPAQUE),
    plain("refreshUrl", OPAQUE),
    kept("scopes", OPAQUE),
    plain("pkceRequired", OPAQUE),
];
const CLIENT_CREDENTIALS_FLOW: &[Field] = &[
    kept("tokenUrl", OPAQUE),
    plain("refreshUrl", OPAQUE),
    kept("scopes", OPAQUE),
];
const IMPLICIT_FLOW: &[Field] = &[
    plain("authorizationUrl", OPAQUE),
    plain("refreshUrl", OPAQUE),
    plain("scopes", OPAQUE),
];
const PASSWORD_FLOW: &[Field] = &[
    plain("tokenUrl", OPAQUE),
    plain("refreshUrl", OPAQUE),
    plain("scopes", OPAQUE),
];
const DEVICE_CODE_FLOW: &[Field] = &[
    kept("deviceAuthorizationUrl", OPAQUE),
    kept("tokenUrl", OPAQUE),
    plain("refreshUrl", OPAQUE),
    kept("scopes", OPAQUE),
];

/// Whether a value is what proto3 writes for an unset plain field.
fn is_default(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
    }
}

/// Rule 1 in the specification's reading, in place.
fn drop_defaults(value: &mut Value, shape: Shape) {
    match (shape, value) {
        (Shape::Message(fields), Value::Object(map)) => {
            map.retain(|name, v| {
                !fields
                    .iter()
                    .any(|f| f.name == name && f.plain && is_default(v))
            });
            for (name, v) in map.iter_mut() {
                if let Some(field) = fields.iter().find(|f| f.name == name) {
                    drop_defaults(v, field.shape);
                }
            }
        }
        (Shape::Many(fields), Value::Array(items)) => {
            for item in items {
                drop_defaults(item, Shape::Message(fields));
            }
        }
        (Shape::Many(fields), Value::Object(map)) => {
            for item in map.values_mut() {
                drop_defaults(item, Shape::Message(fields));
            }
        }
        _ => {}
    }
}

/// The SDKs' `_clean_empty`: nulls, empty strings, lists and objects removed
/// at every depth (`None` when nothing is left of the value).
fn clean_empty(value: Value) -> Option<Value> {
    match value {
        Value::Object(map) => {
            let kept: Map<String, Value> = map
                .into_iter()
                .filter_map(|(k, v)| clean_empty(v).map(|v| (k, v)))
                .collect();
            (!kept.is_empty()).then_some(Value::Object(kept))
        }
        Value::Array(items) => {
            let kept: Vec<Value> = items.into_iter().filter_map(clean_empty).collect();
            (!kept.is_empty()).then_some(Value::Array(kept))
        }
        Value::String(s) if s.is_empty() => None,
        Value::Null => None,
        other => Some(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text(card: &Value, reading: Reading) -> String {
        String::from_utf8(signing_input(card, reading).unwrap()).unwrap()
    }

    #[test]
    fn the_specifications_worked_example_is_reproduced() {
        // A2A 1.0 section 8.4.1: REQUIRED empties stay, `optional` falses
        // stay, a plain empty repeated field goes.
        let card = json!({
            "name": "Example Agent",
            "description": "",
            "capabilities": {"streaming": false, "pushNotifications": false, "extensions": []},
            "skills": []
        });
        assert_eq!(
            text(&card, Reading::Spec),
            r#"{"capabilities":{"pushNotifications":false,"streaming":false},"description":"","name":"Example Agent","skills":[]}"#
        );
        // The SDKs remove the REQUIRED empties too.
        assert_eq!(
            text(&card, Reading::Sdk),
            r#"{"capabilities":{"pushNotifications":false,"streaming":false},"name":"Example Agent"}"#
        );
    }

    #[test]
    fn plain_defaults_go_at_every_depth_and_structs_stay_as_written() {
        let card = json!({
            "name": "A",
            "supportedInterfaces": [{"url": "u", "protocolBinding": "JSONRPC", "protocolVersion": "1.0", "tenant": ""}],
            "capabilities": {"extensions": [{"uri": "x", "required": false, "params": {"empty": "", "zero": 0}}]},
            "skills": [{"id": "s", "examples": [], "tags": []}],
            "securitySchemes": {},
            "unknownField": ""
        });
        assert_eq!(
            text(&card, Reading::Spec),
            r#"{"capabilities":{"extensions":[{"params":{"empty":"","zero":0},"uri":"x"}]},"name":"A","skills":[{"id":"s","tags":[]}],"supportedInterfaces":[{"protocolBinding":"JSONRPC","protocolVersion":"1.0","url":"u"}],"unknownField":""}"#
        );
    }

    #[test]
    fn signatures_are_never_covered() {
        let card = json!({"name": "A", "signatures": [{"protected": "x", "signature": "y"}]});
        for reading in Reading::ALL {
            assert_eq!(text(&card, reading), r#"{"name":"A"}"#);
        }
        assert_eq!(
            check_presented(br#"{"name":"A","signatures":[]}"#),
            Err(SigningInputError::SignaturesPresent)
        );
        assert!(check_presented(br#"{"name":"A"}"#).is_ok());
        assert!(check_presented(br#"{"name": "A"}"#).is_err());
    }
}

/// The a2a-jcs-v01 corpus of the A2A TCK (tests/interop/a2a-jcs-v01):
/// every vector checked against upstream's manifest, then run.
#[cfg(test)]
mod corpus {
    use super::*;
    use sha2::{Digest, Sha256};
    use std::path::PathBuf;

    fn root() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/interop/a2a-jcs-v01")
    }

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// The vectors, after checking each file's digest and the manifest's own.
    fn vectors() -> Vec<Value> {
        let raw = std::fs::read(root().join("MANIFEST.json")).unwrap();
        let manifest: Value = serde_json::from_slice(&raw).unwrap();
        let stored = manifest["corpusDigest"].as_str().unwrap();
        // The digest is of the manifest's body as Python's json.dumps(indent=2)
        // writes it: the file without its last member and closing brace.
        let text = String::from_utf8(raw).unwrap();
        let body_end = text.rfind(",\n  \"corpusDigest\"").unwrap();
        let body = format!("{}\n}}", &text[..body_end]);
        assert_eq!(
            hex(&Sha256::digest(body.as_bytes())),
            stored,
            "MANIFEST.json changed"
        );
        let listed = manifest["vectors"].as_array().unwrap();
        assert_eq!(listed.len(), 57);
        listed
            .iter()
            .map(|entry| {
                let path = entry["path"].as_str().unwrap();
                let bytes = std::fs::read(root().join(path)).unwrap();
                assert_eq!(
                    hex(&Sha256::digest(&bytes)),
                    entry["sha256"].as_str().unwrap(),
                    "{path} is not upstream's"
                );
                serde_json::from_slice(&bytes).unwrap()
            })
            .collect()
    }

    #[test]
    fn every_accept_vector_gives_its_bytes_and_every_reject_vector_is_refused() {
        let (mut accepted, mut refused) = (0, 0);
        let mut sdk_departs = Vec::new();
        for vector in vectors() {
            let id = vector["id"].as_str().unwrap();
            match vector["disposition"].as_str().unwrap() {
                "MUST-ACCEPT" => {
                    let expected = vector["expected"]["canonical_utf8_hex"].as_str().unwrap();
                    let got = signing_input(&vector["input"], Reading::Spec).unwrap();
                    assert_eq!(hex(&got), expected, "{id}");
                    // The SDKs' reading departs where an empty value is.
                    let python = signing_input(&vector["input"], Reading::Sdk).unwrap();
                    if hex(&python) != expected {
                        sdk_departs.push(id.to_string());
                    }
                    accepted += 1;
                }
                "MUST-REJECT" => {
                    let raw = vector["input_raw"].as_str().unwrap();
                    if vector["clause"] == "a2a-spec-8.4.1-rule-3" {
                        // Bytes presented as a signing input that still hold
                        // `signatures`.
                        assert_eq!(
                            check_presented(raw.as_bytes()),
                            Err(SigningInputError::SignaturesPresent),
                            "{id}"
                        );
                    } else {
                        // A lone surrogate or NaN/Infinity: no JSON value holds
                        // it, so the reader refuses it before any signing input.
                        assert!(serde_json::from_str::<Value>(raw).is_err(), "{id}");
                    }
                    refused += 1;
                }
                other => panic!("{id}: disposition {other}"),
            }
        }
        assert_eq!((accepted, refused), (47, 10));
        assert_eq!(
            sdk_departs,
            ["A4-005", "A6-001", "A6-002", "A6-005", "A6-006", "A6-008"]
        );
    }
}

#[cfg(test)]
mod proptests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    /// Card-like JSON: the card's own field names beside others, keys and
    /// strings that sort differently by code point and by UTF-16, empty
    /// values of every kind, numbers JCS writes its own way.
    fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(json!(null)),
            any::<bool>().prop_map(Value::from),
            prop_oneof![
                Just(json!(0)),
                Just(json!(-0.0)),
                Just(json!(1e21)),
                Just(json!(0.000001)),
                Just(json!(9007199254740993u64)),
                Just(json!(-17)),
                any::<f64>()
                    .prop_filter("finite", |f| f.is_finite())
                    .prop_map(Value::from),
            ],
            prop_oneof![
                Just(""),
                Just("Café"),
                Just("b😀"),
                Just("b！"),
                Just("a\u{1}\"\\")
            ]
            .prop_map(Value::from),
        ];
        let key = prop_oneof![
            Just("name"),
            Just("description"),
            Just("capabilities"),
            Just("extensions"),
            Just("params"),
            Just("skills"),
            Just("tags"),
            Just("examples"),
            Just("tenant"),
            Just("signatures"),
            Just(""),
            Just("b😀"),
            Just("b！"),
        ];
        leaf.prop_recursive(4, 48, 5, move |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::vec((key.clone(), inner), 0..5).prop_map(|members| {
                    Value::Object(
                        members
                            .into_iter()
                            .map(|(k, v)| (k.to_string(), v))
                            .collect(),
                    )
                }),
            ]
        })
    }

    fn empty(v: &Value) -> bool {
        match v {
            Value::Null => true,
            Value::String(s) => s.is_empty(),
            Value::Array(a) => a.is_empty() || a.iter().any(empty),
            Value::Object(o) => o.is_empty() || o.values().any(empty),
            _ => false,
        }
    }

    proptest! {
        #![proptest_config(crate::proptest_config::config(512))]

        /// Under every reading the signing input is RFC 8785 canonical JSON
        /// of an object without `signatures` (what a verifier takes for
        /// one), whatever `signatures` held; the SDKs' reading holds no
        /// empty value.
        #[test]
        fn the_signing_input_is_canonical_and_never_covers_signatures(
            card in prop::collection::vec(("[a-z]{1,3}|name|skills|capabilities", value()), 0..6),
            signatures in value(),
        ) {
            let card: Map<String, Value> = card.into_iter().collect();
            let unsigned = Value::Object(card.clone());
            let mut signed = card;
            signed.insert(SIGNATURES.into(), signatures);
            let signed = Value::Object(signed);
            for reading in Reading::ALL {
                let bytes = signing_input(&signed, reading).unwrap();
                prop_assert_eq!(check_presented(&bytes), Ok(()));
                prop_assert_eq!(&bytes, &signing_input(&unsigned, reading).unwrap());
                let back: Value = serde_json::from_slice(&bytes).unwrap();
                if reading == Reading::Sdk {
                    prop_assert!(back.as_object().unwrap().values().all(|v| !empty(v)), "{}", back);
                }
            }
        }
    }
}
