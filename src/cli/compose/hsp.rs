//! `aiproto compose hsp`: a new HSP message, or a TaskResult / ACK / NACK
//! answering one, from typed flags, `--set`, `--param` and `--payload-file`.

use std::path::Path;

use serde_json::{Map, Value, json};

use crate::cli::args::{ComposeArgs, GlobalArgs, HspComposeArgs};
use crate::cli::common;
use crate::exit::{CliError, CmdResult, ExitStatus};
use crate::input::Input;
use crate::operations::composing::{self, HspComposeError, HspFields, HspVersion, Kind};
use crate::operations::{self, Protocol, ProtocolSpec};

pub fn run(args: &ComposeArgs, spec: ProtocolSpec, g: &GlobalArgs) -> CmdResult {
    if args.hash {
        return Err(CliError::usage("--hash is for Crosstalk envelopes"));
    }
    let crosstalk_only = [
        ("--intent", args.intent.is_some()),
        ("--meta", !args.meta.is_empty()),
        ("--body", args.body.is_some()),
        ("--body-file", args.body_file.is_some()),
    ];
    if let Some((flag, _)) = crosstalk_only.iter().find(|(_, given)| *given) {
        return Err(CliError::usage(format!(
            "{flag} is for `compose crosstalk`"
        )));
    }
    let original = match &args.reply_to {
        Some(path) => Some(reply_original(path)?),
        None => None,
    };
    let (kind, version) = match (&original, args.kind) {
        (Some(original), kind) => composing::reply_shape(original, kind),
        (None, Some(kind)) => (kind, HspVersion::V1_0),
        (None, None) => {
            return Err(CliError::usage(
                "compose hsp needs a KIND (fact, belief, task-request, …)",
            )
            .with_hint("`aiproto compose --help` lists them"));
        }
    };
    let version = spec.version.and_then(HspVersion::parse).unwrap_or(version);
    let mut payload = match &args.hsp.payload_file {
        Some(path) => read_json_object(path)?,
        None => Map::new(),
    };
    apply_flags(&args.hsp, kind, version, &mut payload)?;
    let fields = HspFields {
        original,
        kind: args.kind,
        version: Some(version),
        from: args.from.clone(),
        to: args.to.clone(),
        correlation_id: args.hsp.correlation_id.clone(),
        requires_ack: args.hsp.requires_ack,
        payload,
        error_code: args.error_code.clone(),
        reason: args.reason.clone(),
    };
    let text = composing::hsp(fields).map_err(|e| match e {
        HspComposeError::NoSender => CliError::usage("compose hsp needs --from DID (the sender)"),
        HspComposeError::CapabilitySchemas(missing) => {
            let flags: Vec<String> = missing.iter().map(|k| format!("--{k}-schema")).collect();
            CliError::usage(format!(
                "an HSP 1.0 capability needs the JSON Schemas of its input and output: give {}",
                flags.join(" and ")
            ))
            .with_hint("e.g. --parameters-schema '{\"type\": \"object\"}' (or write hsp@0.1, where they are optional)")
        }
        other => CliError::usage(other.to_string()),
    })?;
    super::emit_checked(&text, Protocol::Hsp, g)
}

/// The HSP message a reply answers, from a file, stdin or the clipboard.
fn reply_original(path: &Path) -> Result<Value, CliError> {
    let source = operations::read::source(
        &common::input_of(Some(path))?,
        operations::DEFAULT_MAX_MESSAGE_BYTES,
    )?;
    let name = source.name.clone();
    operations::read::hsp_original(source)
        .map_err(|why| CliError::new(ExitStatus::Invalid, anyhow::anyhow!("{name}: {why}")))
}

fn read_json_object(path: &Path) -> Result<Map<String, Value>, CliError> {
    let input = if path.as_os_str() == "-" {
        Input::Stdin
    } else {
        Input::File(path.to_path_buf())
    };
    let source = input.read()?;
    match serde_json::from_str::<Value>(&source.text) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(CliError::usage(format!(
            "{}: a payload is a JSON object",
            source.name
        ))),
        Err(e) => Err(CliError::usage(format!(
            "{}:{}:{}: {e}",
            source.name,
            e.line(),
            e.column()
        ))),
    }
}

/// A flag value that is JSON when it parses as JSON, else text.
fn json_or_text(v: &str) -> Value {
    serde_json::from_str(v).unwrap_or_else(|_| Value::String(v.to_string()))
}

fn key_value<'a>(flag: &str, item: &'a str) -> Result<(&'a str, &'a str), CliError> {
    item.split_once('=')
        .filter(|(k, _)| !k.is_empty())
        .ok_or_else(|| CliError::usage(format!("{flag} `{item}` is not KEY=VALUE")))
}

/// The typed flags, `--param` and `--set`, onto the payload (in that order, so `--set` wins).
fn apply_flags(
    f: &HspComposeArgs,
    kind: Kind,
    version: HspVersion,
    p: &mut Map<String, Value>,
) -> Result<(), CliError> {
    let mut put = |key: &str, value: Option<Value>| {
        if let Some(v) = value {
            p.insert(key.to_string(), v);
        }
    };
    put("statement_nl", f.statement.clone().map(Value::from));
    if let Some(triple) = &f.triple {
        let parts: Vec<&str> = triple.splitn(3, ',').map(str::trim).collect();
        let [s, pr, o] = parts[..] else {
            return Err(CliError::usage("--triple is SUBJECT,PREDICATE,OBJECT"));
        };
        put(
            "statement_structured",
            Some(json!({"subject_uri": s, "predicate_uri": pr, "object_literal": o})),
        );
    }
    put("confidence_score", f.confidence.map(Value::from));
    if !f.tags.is_empty() {
        let key = match kind {
            Kind::DiscoveryQuery => "capability_tags",
            Kind::Discovery => "capabilities",
            _ => "tags",
        };
        put(key, Some(json!(f.tags)));
    }
    let capability_key = if kind == Kind::TaskRequest {
        "capability_id_filter"
    } else {
        "capability_id"
    };
    put(capability_key, f.capability_id.clone().map(Value::from));
    let name_key = match kind {
        Kind::TaskRequest => "capability_name_filter",
        Kind::DiscoveryQuery => "capability_name",
        _ => "name",
    };
    put(name_key, f.name.clone().map(Value::from));
    put("description", f.description.clone().map(Value::from));
    put(
        "availability_status",
        f.availability.clone().map(Value::from),
    );
    if kind == Kind::Capability {
        for (key, flag, given) in [
            ("parameters", "--parameters-schema", &f.parameters_schema),
            ("returns", "--returns-schema", &f.returns_schema),
        ] {
            let Some(text) = given else { continue };
            let schema: Value = serde_json::from_str(text).map_err(|e| {
                CliError::usage(format!("{flag} is not JSON: {e}"))
                    .with_hint("give a JSON Schema, e.g. '{\"type\": \"object\"}'")
            })?;
            put(key, Some(schema));
        }
    }
    put("callback_address", f.callback.clone().map(Value::from));
    put("priority", f.priority.map(Value::from));
    put("status", f.status.clone().map(Value::from));
    put("payload", f.result.as_deref().map(json_or_text));
    put("request_id", f.request_id.clone().map(Value::from));
    put("phenomenon_type", f.phenomenon.clone().map(Value::from));
    put("model_component_name", f.component.clone().map(Value::from));
    put("state_data_chunk", f.chunk.clone().map(Value::from));
    put("sequence_number", f.sequence.map(Value::from));
    put("state_data_format", f.data_format.clone().map(Value::from));
    put("min_trust_score", f.min_trust.map(Value::from));
    if !f.capability_files.is_empty() {
        let caps = f
            .capability_files
            .iter()
            .map(|path| read_json_object(path).map(Value::Object))
            .collect::<Result<Vec<_>, _>>()?;
        put("capabilities", Some(Value::Array(caps)));
    }
    if !f.param.is_empty() {
        let entry = p.entry("parameters").or_insert_with(|| json!({}));
        let Value::Object(params) = entry else {
            return Err(CliError::usage(
                "--param needs the payload's `parameters` to be an object",
            ));
        };
        for item in &f.param {
            let (k, v) = key_value("--param", item)?;
            params.insert(k.to_string(), json_or_text(v));
        }
    }
    for item in &f.set {
        let (k, v) = key_value("--set", item)?;
        // A field the schema types as a string takes the text as it is
        // (`--set version=0.9` is "0.9", not the number 0.9).
        let value = if composing::is_string_field(kind.type_name(), version, k) {
            serde_json::from_str::<String>(v).map_or_else(|_| Value::from(v), Value::from)
        } else {
            json_or_text(v)
        };
        p.insert(k.to_string(), value);
    }
    Ok(())
}
