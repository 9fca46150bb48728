//! The MCP conformance suite's fixtures (`--conformance-fixtures`): the
//! tools, resources and prompts every SDK's test server carries
//! (`test_simple_text`, `test://static-text`, `test_simple_prompt`, …), so
//! that the suite grades aiproto's own transport, discovery, headers and
//! errors. Served beside aiproto's tools, on loopback only, never in normal
//! use. The names, texts and shapes follow what the suite asks for (as
//! the official Rust SDK's conformance server answers it; that project is
//! under Apache-2.0, with older parts MIT).
//!
//! Sampling, roots and logging are deprecated from revision 2026-07-28
//! (SEP-2577), but the 2025-11-25 scenarios still call them.
#![allow(deprecated)]

use rmcp::ErrorData as McpError;
use rmcp::model::{
    AudioContent, CallToolRequestParams, CallToolResponse, CallToolResult, CompleteRequestParams,
    CompleteResult, CompletionInfo, ContentBlock, CreateMessageRequest, CreateMessageRequestParams,
    ElicitRequest, ElicitRequestParams, ElicitationAction, ElicitationSchema,
    GetPromptRequestParams, GetPromptResponse, GetPromptResult, ImageContent, InputRequest,
    InputRequests, InputRequiredResult, InputResponses, ListRootsRequest, LoggingLevel,
    LoggingMessageNotificationParam, ProgressNotificationParam, Prompt, PromptArgument,
    PromptMessage, ReadResourceResponse, ReadResourceResult, Reference, Resource, ResourceContents,
    ResourceTemplate, Role, SamplingMessage, Tool,
};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

use rmcp::RoleServer;
use rmcp::model::{ClientCapabilities, RequestStateCodec};
use rmcp::service::{RequestContext, SubscriptionContext, SubscriptionSink};
use serde_json::{Map, Value, json};

/// A 1×1 red PNG.
const IMAGE: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8/5+hHgAHggJ/PchI7wAAAABJRU5ErkJggg==";
/// A WAV of silence.
const AUDIO: &str = "UklGRiQAAABXQVZFZm10IBAAAAABAAEARKwAAIhYAQACABAAZGF0YQAAAAA=";

/// The fixtures' state: the key that seals `requestState` (new each
/// start), and the open `subscriptions/listen` streams.
pub struct Fixtures {
    codec: RequestStateCodec,
    subscriptions: tokio::sync::Mutex<HashMap<u64, SubscriptionSink>>,
    next_subscription: AtomicU64,
}

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

fn no_arguments() -> Map<String, Value> {
    object(json!({ "type": "object", "properties": {} }))
}

fn text(t: impl Into<String>) -> Result<CallToolResponse, McpError> {
    Ok(CallToolResult::success(vec![ContentBlock::text(t)]).into())
}

/// The tools without arguments, with their descriptions.
const PLAIN_TOOLS: &[(&str, &str)] = &[
    ("test_simple_text", "Returns simple text content"),
    ("test_image_content", "Returns image content"),
    ("test_audio_content", "Returns audio content"),
    (
        "test_embedded_resource",
        "Returns embedded resource content",
    ),
    (
        "test_multiple_content_types",
        "Returns multiple content types",
    ),
    (
        "test_tool_with_logging",
        "Sends logging notifications during execution",
    ),
    ("test_error_handling", "Always returns an error"),
    ("test_tool_with_progress", "Reports progress notifications"),
    (
        "test_elicitation_sep1034_defaults",
        "Tests elicitation with default values (SEP-1034)",
    ),
    (
        "test_elicitation_sep1330_enums",
        "Tests enum schema improvements (SEP-1330)",
    ),
    (
        "test_input_required_result_elicitation",
        "Requires an elicitation input (SEP-2322)",
    ),
    (
        "test_input_required_result_sampling",
        "Requires a sampling input (SEP-2322)",
    ),
    (
        "test_input_required_result_list_roots",
        "Requires a roots/list input (SEP-2322)",
    ),
    (
        "test_input_required_result_request_state",
        "Round-trips a sealed requestState (SEP-2322)",
    ),
    (
        "test_input_required_result_multiple_inputs",
        "Requires three inputs in one round (SEP-2322)",
    ),
    (
        "test_input_required_result_multi_round",
        "Drives several input rounds (SEP-2322)",
    ),
    (
        "test_input_required_result_tampered_state",
        "Rejects a tampered requestState (SEP-2322)",
    ),
    (
        "test_input_required_result_capabilities",
        "Requests only declared inputs (SEP-2322)",
    ),
    (
        "test_missing_capability",
        "Requires the sampling client capability",
    ),
    (
        "test_streaming_elicitation",
        "Returns an input_required result with an elicitation request",
    ),
    (
        "test_logging_tool",
        "Logs only when the request asks for a logLevel",
    ),
    (
        "test_trigger_tool_change",
        "Notifies subscriptions that the tool list changed",
    ),
    (
        "test_trigger_prompt_change",
        "Notifies subscriptions that the prompt list changed",
    ),
];

fn elicitation(message: &str, properties: Value, required: &[&str]) -> InputRequest {
    InputRequest::Elicitation(ElicitRequest::new(
        ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: message.into(),
            requested_schema: form(json!({
                "type": "object", "properties": properties, "required": required,
            })),
        },
    ))
}

fn form(schema: Value) -> ElicitationSchema {
    serde_json::from_value(schema)
        .unwrap_or_else(|_| ElicitationSchema::builder().build_unchecked())
}

fn sampling(prompt: &str) -> InputRequest {
    InputRequest::CreateMessage(CreateMessageRequest::new(CreateMessageRequestParams::new(
        vec![SamplingMessage::user_text(prompt)],
        100,
    )))
}

fn roots() -> InputRequest {
    InputRequest::ListRoots(ListRootsRequest::default())
}

/// An answer given for `key`, when it is an object (anything else counts
/// as missing, and is asked again).
fn response<'a>(
    responses: Option<&'a InputResponses>,
    key: &str,
) -> Option<&'a Map<String, Value>> {
    responses
        .and_then(|r| r.get(key))
        .and_then(Value::as_object)
}

fn ask(requests: InputRequests, state: Option<String>) -> Result<CallToolResponse, McpError> {
    Ok(InputRequiredResult::new(Some(requests), state).into())
}

fn action(a: &ElicitationAction) -> &'static str {
    match a {
        ElicitationAction::Accept => "accept",
        ElicitationAction::Decline => "decline",
        _ => "cancel",
    }
}

impl Fixtures {
    pub fn new() -> anyhow::Result<Fixtures> {
        let key = crate::transport::bearer::random_secret()?;
        Ok(Fixtures {
            codec: RequestStateCodec::new_unchecked(key.into_bytes()),
            subscriptions: tokio::sync::Mutex::default(),
            next_subscription: AtomicU64::new(0),
        })
    }

    /// Holds a `subscriptions/listen` stream open until the client ends it,
    /// so that the trigger tools can notify it.
    pub async fn listen(&self, context: SubscriptionContext) -> Result<(), McpError> {
        let key = self.next_subscription.fetch_add(1, Ordering::Relaxed);
        self.subscriptions
            .lock()
            .await
            .insert(key, context.sink().clone());
        context.cancelled().await;
        self.subscriptions.lock().await.remove(&key);
        Ok(())
    }

    async fn listeners(&self) -> Vec<SubscriptionSink> {
        self.subscriptions.lock().await.values().cloned().collect()
    }

    pub fn tools() -> Vec<Tool> {
        let mut tools: Vec<Tool> = PLAIN_TOOLS
            .iter()
            .map(|(name, description)| Tool::new(*name, *description, no_arguments()))
            .collect();
        tools.push(Tool::new(
            "test_sampling",
            "Requests LLM sampling from client",
            object(json!({
                "type": "object",
                "properties": { "prompt": { "type": "string" } },
                "required": ["prompt"],
            })),
        ));
        tools.push(Tool::new(
            "test_elicitation",
            "Requests user input from client",
            object(json!({
                "type": "object",
                "properties": { "message": { "type": "string" } },
                "required": ["message"],
            })),
        ));
        tools
    }

    pub fn is_tool(name: &str) -> bool {
        name == "test_sampling"
            || name == "test_elicitation"
            || PLAIN_TOOLS.iter().any(|(n, _)| *n == name)
    }

    fn sealed(&self, state: Value) -> Result<String, McpError> {
        self.codec
            .seal_json(&state)
            .map_err(|e| McpError::internal_error(e.to_string(), None))
    }

    fn opened(&self, sealed: &str) -> Result<Value, McpError> {
        self.codec.open_json(sealed).map_err(|_| {
            McpError::invalid_params("requestState failed integrity verification", None)
        })
    }

    pub async fn call(
        &self,
        request: CallToolRequestParams,
        cx: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let responses = request.input_responses.as_ref();
        let state = request.request_state.as_deref();
        let args = request.arguments.clone().unwrap_or_default();
        match request.name.as_ref() {
            "test_simple_text" => text("This is a simple text response for testing."),
            "test_image_content" => {
                Ok(CallToolResult::success(vec![ContentBlock::image(IMAGE, "image/png")]).into())
            }
            "test_audio_content" => Ok(CallToolResult::success(vec![ContentBlock::Audio(
                AudioContent::new(AUDIO, "audio/wav"),
            )])
            .into()),
            "test_embedded_resource" => Ok(CallToolResult::success(vec![ContentBlock::resource(
                ResourceContents::TextResourceContents {
                    uri: "test://embedded-resource".into(),
                    mime_type: Some("text/plain".into()),
                    text: "This is an embedded resource content.".into(),
                    meta: None,
                },
            )])
            .into()),
            "test_multiple_content_types" => Ok(CallToolResult::success(vec![
                ContentBlock::text("Multiple content types test:"),
                ContentBlock::image(IMAGE, "image/png"),
                ContentBlock::resource(ResourceContents::TextResourceContents {
                    uri: "test://mixed-content-resource".into(),
                    mime_type: Some("application/json".into()),
                    text: r#"{"test":"data","value":123}"#.into(),
                    meta: None,
                }),
            ])
            .into()),
            "test_tool_with_logging" => {
                for message in [
                    "Tool execution started",
                    "Tool processing data",
                    "Tool execution completed",
                ] {
                    let _ = cx
                        .peer
                        .notify_logging_message(
                            LoggingMessageNotificationParam::new(
                                LoggingLevel::Info,
                                json!(message),
                            )
                            .with_logger("aiproto"),
                        )
                        .await;
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                }
                text("Logging test completed")
            }
            "test_error_handling" => Ok(CallToolResult::error(vec![ContentBlock::text(
                "This tool intentionally returns an error for testing",
            )])
            .into()),
            "test_tool_with_progress" => {
                let token = cx.meta.get_progress_token();
                for (progress, message) in
                    [(0.0, "Starting"), (50.0, "Halfway"), (100.0, "Complete")]
                {
                    if let Some(token) = &token {
                        let _ = cx
                            .peer
                            .notify_progress(
                                ProgressNotificationParam::new(token.clone(), progress)
                                    .with_total(100.0)
                                    .with_message(message),
                            )
                            .await;
                    }
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                }
                text("Progress test completed")
            }
            "test_sampling" => {
                let prompt = args
                    .get("prompt")
                    .and_then(Value::as_str)
                    .unwrap_or("Hello");
                let asked = cx
                    .peer
                    .create_message(CreateMessageRequestParams::new(
                        vec![SamplingMessage::user_text(prompt)],
                        100,
                    ))
                    .await;
                match asked {
                    Ok(result) => {
                        let said = result
                            .message
                            .content
                            .first()
                            .and_then(|c| c.as_text())
                            .map(|t| t.text.clone())
                            .unwrap_or_else(|| "No text response".into());
                        text(format!("LLM response: {said}"))
                    }
                    Err(e) => Ok(CallToolResult::error(vec![ContentBlock::text(format!(
                        "Sampling error: {e}"
                    ))])
                    .into()),
                }
            }
            "test_elicitation" => {
                let message = args
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("Please provide your information");
                let schema = json!({
                    "type": "object",
                    "properties": {
                        "username": { "type": "string", "description": "User's response" },
                        "email": { "type": "string", "description": "User's email address" },
                    },
                    "required": ["username", "email"],
                });
                self.elicit(cx, message, schema, "User response").await
            }
            "test_elicitation_sep1034_defaults" => {
                let schema = json!({
                    "type": "object",
                    "properties": {
                        "name": { "type": "string", "description": "User's name", "default": "John Doe" },
                        "age": { "type": "integer", "description": "User's age", "default": 30 },
                        "score": { "type": "number", "description": "User's score", "default": 95.5 },
                        "status": {
                            "type": "string", "description": "User's status",
                            "enum": ["active", "inactive", "pending"], "default": "active",
                        },
                        "verified": { "type": "boolean", "description": "Whether user is verified", "default": true },
                    },
                });
                self.elicit(
                    cx,
                    "Please provide values (all have defaults)",
                    schema,
                    "Elicitation completed",
                )
                .await
            }
            "test_elicitation_sep1330_enums" => {
                let schema = json!({
                    "type": "object",
                    "properties": {
                        "untitledSingle": { "type": "string", "enum": ["option1", "option2", "option3"] },
                        "titledSingle": {
                            "type": "string",
                            "oneOf": [
                                { "const": "value1", "title": "First Option" },
                                { "const": "value2", "title": "Second Option" },
                                { "const": "value3", "title": "Third Option" },
                            ],
                        },
                        "legacyEnum": {
                            "type": "string", "enum": ["opt1", "opt2", "opt3"],
                            "enumNames": ["Option One", "Option Two", "Option Three"],
                        },
                        "untitledMulti": {
                            "type": "array",
                            "items": { "type": "string", "enum": ["option1", "option2", "option3"] },
                        },
                        "titledMulti": {
                            "type": "array",
                            "items": {
                                "anyOf": [
                                    { "const": "value1", "title": "First Choice" },
                                    { "const": "value2", "title": "Second Choice" },
                                    { "const": "value3", "title": "Third Choice" },
                                ],
                            },
                        },
                    },
                });
                self.elicit(
                    cx,
                    "Test enum schema improvements",
                    schema,
                    "Enum elicitation completed",
                )
                .await
            }
            "test_input_required_result_elicitation" => match response(responses, "user_name") {
                Some(answer) => {
                    let name = answer
                        .get("content")
                        .and_then(|c| c.get("name"))
                        .and_then(Value::as_str)
                        .unwrap_or("friend");
                    text(format!("Hello, {name}!"))
                }
                None => ask([("user_name".into(), name_request())].into(), None),
            },
            "test_input_required_result_sampling" => {
                match response(responses, "capital_question") {
                    Some(answer) => {
                        let said = answer
                            .get("content")
                            .and_then(|c| c.get("text"))
                            .and_then(Value::as_str)
                            .unwrap_or("(no sampling text)");
                        text(format!("Sampling response: {said}"))
                    }
                    None => ask(
                        [(
                            "capital_question".into(),
                            sampling("What is the capital of France?"),
                        )]
                        .into(),
                        None,
                    ),
                }
            }
            "test_input_required_result_list_roots" => match response(responses, "client_roots") {
                Some(answer) => {
                    let uris: Vec<&str> = answer
                        .get("roots")
                        .and_then(Value::as_array)
                        .map(|roots| {
                            roots
                                .iter()
                                .filter_map(|r| r.get("uri").and_then(Value::as_str))
                                .collect()
                        })
                        .unwrap_or_default();
                    text(format!("Client roots: [{}]", uris.join(", ")))
                }
                None => ask([("client_roots".into(), roots())].into(), None),
            },
            "test_input_required_result_request_state"
            | "test_input_required_result_tampered_state" => match state {
                None => ask(
                    [(
                        "confirm".into(),
                        elicitation(
                            "Please confirm",
                            json!({ "ok": { "type": "boolean" } }),
                            &["ok"],
                        ),
                    )]
                    .into(),
                    Some(self.sealed(json!({ "stage": "confirm" }))?),
                ),
                Some(sealed) => {
                    self.opened(sealed)?;
                    text("Confirmed: state-ok")
                }
            },
            "test_input_required_result_multiple_inputs" => {
                if let Some(sealed) = state {
                    self.opened(sealed)?;
                }
                let all = ["user_name", "greeting", "client_roots"]
                    .iter()
                    .all(|key| response(responses, key).is_some());
                if all && state.is_some() {
                    return text("All inputs received");
                }
                ask(
                    [
                        ("user_name".into(), name_request()),
                        ("greeting".into(), sampling("Generate a greeting")),
                        ("client_roots".into(), roots()),
                    ]
                    .into(),
                    Some(self.sealed(json!({ "stage": "gather" }))?),
                )
            }
            "test_input_required_result_multi_round" => {
                let round = match state {
                    None => 0,
                    Some(sealed) => self
                        .opened(sealed)?
                        .get("round")
                        .and_then(Value::as_i64)
                        .unwrap_or(0),
                };
                match round {
                    0 => ask(
                        [(
                            "step1".into(),
                            elicitation(
                                "Step 1: What is your name?",
                                json!({ "name": { "type": "string" } }),
                                &["name"],
                            ),
                        )]
                        .into(),
                        Some(self.sealed(json!({ "round": 1 }))?),
                    ),
                    1 => ask(
                        [(
                            "step2".into(),
                            elicitation(
                                "Step 2: What is your favorite color?",
                                json!({ "color": { "type": "string" } }),
                                &["color"],
                            ),
                        )]
                        .into(),
                        Some(self.sealed(json!({ "round": 2 }))?),
                    ),
                    _ => text("Multi-round flow complete"),
                }
            }
            "test_input_required_result_capabilities" => {
                if responses.is_some() {
                    return text("Capability-aware flow complete");
                }
                let declared = cx.meta.client_capabilities().unwrap_or_default();
                let mut requests = InputRequests::new();
                if declared.elicitation.is_some() {
                    requests.insert("user_name".into(), name_request());
                }
                if declared.sampling.is_some() {
                    requests.insert("greeting".into(), sampling("Generate a greeting"));
                }
                if declared.roots.is_some() {
                    requests.insert("client_roots".into(), roots());
                }
                if requests.is_empty() {
                    text("Client declared no MRTR-capable capabilities")
                } else {
                    ask(requests, None)
                }
            }
            "test_missing_capability" => {
                let declared = cx.meta.client_capabilities().unwrap_or_default();
                if declared.sampling.is_none() {
                    return Err(McpError::missing_required_client_capability(
                        ClientCapabilities::builder().enable_sampling().build(),
                    ));
                }
                text("Required capability declared")
            }
            "test_streaming_elicitation" => ask(
                [(
                    "streaming_elicitation".into(),
                    elicitation(
                        "Provide a value",
                        json!({ "value": { "type": "string" } }),
                        &["value"],
                    ),
                )]
                .into(),
                None,
            ),
            "test_logging_tool" => {
                if let Some(level) = cx.meta.log_level() {
                    let _ = cx
                        .peer
                        .notify_logging_message(
                            LoggingMessageNotificationParam::new(
                                level,
                                json!("logLevel was requested"),
                            )
                            .with_logger("aiproto"),
                        )
                        .await;
                }
                text("Logging tool completed")
            }
            "test_trigger_tool_change" => {
                for listener in self.listeners().await {
                    let _ = listener.notify_tool_list_changed().await;
                }
                text("Tool list change triggered")
            }
            "test_trigger_prompt_change" => {
                for listener in self.listeners().await {
                    let _ = listener.notify_prompt_list_changed().await;
                }
                text("Prompt list change triggered")
            }
            other => Err(McpError::invalid_params(format!("no tool {other}"), None)),
        }
    }

    async fn elicit(
        &self,
        cx: &RequestContext<RoleServer>,
        message: &str,
        schema: Value,
        said: &str,
    ) -> Result<CallToolResponse, McpError> {
        let asked = cx
            .peer
            .create_elicitation(ElicitRequestParams::FormElicitationParams {
                meta: None,
                message: message.into(),
                requested_schema: form(schema),
            })
            .await;
        match asked {
            Ok(result) => text(format!(
                "{said}: action={}, content={:?}",
                action(&result.action),
                result.content
            )),
            Err(e) => Ok(CallToolResult::error(vec![ContentBlock::text(format!(
                "Elicitation error: {e}"
            ))])
            .into()),
        }
    }

    pub fn resources() -> Vec<Resource> {
        vec![
            Resource::new("test://static-text", "Static Text Resource")
                .with_description("A static text resource for testing")
                .with_mime_type("text/plain"),
            Resource::new("test://static-binary", "Static Binary Resource")
                .with_description("A static binary/blob resource for testing")
                .with_mime_type("image/png"),
        ]
    }

    pub fn templates() -> Vec<ResourceTemplate> {
        vec![
            ResourceTemplate::new("test://template/{id}/data", "Dynamic Resource")
                .with_description("A dynamic resource with parameter substitution")
                .with_mime_type("application/json"),
        ]
    }

    /// A fixture resource, or `None` for a URI outside `test://`.
    pub fn read(uri: &str) -> Option<Result<ReadResourceResponse, McpError>> {
        if !uri.starts_with("test://") {
            return None;
        }
        let contents = match uri {
            "test://static-text" => ResourceContents::TextResourceContents {
                uri: uri.into(),
                mime_type: Some("text/plain".into()),
                text: "This is the content of the static text resource.".into(),
                meta: None,
            },
            "test://static-binary" => ResourceContents::BlobResourceContents {
                uri: uri.into(),
                mime_type: Some("image/png".into()),
                blob: IMAGE.into(),
                meta: None,
            },
            _ => match uri
                .strip_prefix("test://template/")
                .and_then(|rest| rest.strip_suffix("/data"))
            {
                Some(id) => ResourceContents::TextResourceContents {
                    uri: uri.into(),
                    mime_type: Some("application/json".into()),
                    text: json!({ "id": id, "templateTest": true, "data": format!("Data for ID: {id}") })
                        .to_string(),
                    meta: None,
                },
                None => {
                    return Some(Err(McpError::resource_not_found(
                        format!("Resource not found: {uri}"),
                        Some(json!({ "uri": uri })),
                    )));
                }
            },
        };
        Some(Ok(ReadResourceResult::new(vec![contents]).into()))
    }

    pub fn prompts() -> Vec<Prompt> {
        vec![
            Prompt::new(
                "test_simple_prompt",
                Some("A simple test prompt with no arguments"),
                None,
            ),
            Prompt::new(
                "test_prompt_with_arguments",
                Some("A test prompt that accepts arguments"),
                Some(vec![
                    PromptArgument::new("arg1")
                        .with_description("First test argument")
                        .with_required(true),
                    PromptArgument::new("arg2")
                        .with_description("Second test argument")
                        .with_required(false),
                ]),
            ),
            Prompt::new(
                "test_prompt_with_embedded_resource",
                Some("A test prompt that includes an embedded resource"),
                None,
            ),
            Prompt::new(
                "test_prompt_with_image",
                Some("A test prompt that includes an image"),
                None,
            ),
            Prompt::new(
                "test_input_required_result_prompt",
                Some("A prompt that requires elicitation input (SEP-2322)"),
                None,
            ),
        ]
    }

    /// A fixture prompt, or `None` for a name that is not one.
    pub fn prompt(request: &GetPromptRequestParams) -> Option<Result<GetPromptResponse, McpError>> {
        let result = match request.name.as_str() {
            "test_input_required_result_prompt" => {
                return Some(Ok(
                    match response(request.input_responses.as_ref(), "user_context") {
                        Some(answer) => {
                            let context = answer
                                .get("content")
                                .and_then(|c| c.get("context"))
                                .and_then(Value::as_str)
                                .unwrap_or("(no context)");
                            GetPromptResult::new(vec![PromptMessage::new_text(
                                Role::User,
                                format!("Prompt with elicited context: {context}"),
                            )])
                            .with_description("A prompt built from elicited context")
                            .into()
                        }
                        None => InputRequiredResult::from_input_requests(
                            [(
                                "user_context".into(),
                                elicitation(
                                    "What context should the prompt use?",
                                    json!({ "context": { "type": "string" } }),
                                    &["context"],
                                ),
                            )]
                            .into(),
                        )
                        .into(),
                    },
                ));
            }
            "test_simple_prompt" => GetPromptResult::new(vec![PromptMessage::new_text(
                Role::User,
                "This is a simple test prompt.",
            )])
            .with_description("A simple test prompt"),
            "test_prompt_with_arguments" => {
                let args = request.arguments.clone().unwrap_or_default();
                let arg = |name: &str| {
                    args.get(name)
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string()
                };
                GetPromptResult::new(vec![PromptMessage::new_text(
                    Role::User,
                    format!(
                        "Prompt with arguments: arg1='{}', arg2='{}'",
                        arg("arg1"),
                        arg("arg2")
                    ),
                )])
                .with_description("A prompt with arguments")
            }
            "test_prompt_with_embedded_resource" => GetPromptResult::new(vec![
                PromptMessage::new_text(Role::User, "Here is a resource:"),
                PromptMessage::new_resource(
                    Role::User,
                    "test://static-text".into(),
                    Some("text/plain".into()),
                    Some("Resource content for prompt".into()),
                    None,
                    None,
                    None,
                ),
            ])
            .with_description("A prompt with an embedded resource"),
            "test_prompt_with_image" => GetPromptResult::new(vec![
                PromptMessage::new_text(Role::User, "Here is an image:"),
                PromptMessage::new(
                    Role::User,
                    ContentBlock::Image(ImageContent::new(IMAGE, "image/png")),
                ),
            ])
            .with_description("A prompt with an image"),
            _ => return None,
        };
        Some(Ok(result.into()))
    }

    /// Completions for the fixtures' arguments.
    pub fn complete(request: &CompleteRequestParams) -> Result<CompleteResult, McpError> {
        let values: Vec<String> = match &request.r#ref {
            Reference::Resource(_) if request.argument.name == "id" => {
                vec!["1".into(), "2".into(), "3".into()]
            }
            Reference::Prompt(prompt) => match request.argument.name.as_str() {
                "name" => vec!["Alice".into(), "Bob".into(), "Charlie".into()],
                "style" => vec!["friendly".into(), "formal".into(), "casual".into()],
                _ => vec![prompt.name.clone()],
            },
            _ => vec![],
        };
        Ok(CompleteResult::new(
            CompletionInfo::new(values).map_err(|e| McpError::internal_error(e, None))?,
        ))
    }
}

fn name_request() -> InputRequest {
    elicitation(
        "What is your name?",
        json!({ "name": { "type": "string" } }),
        &["name"],
    )
}
