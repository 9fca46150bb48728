//! The MCP handler: lists the tools, prompts and resources, and runs each
//! tool call on a blocking thread (a tool reads files or waits on a peer).

use std::sync::Arc;

use rmcp::ErrorData as McpError;
use rmcp::handler::server::common::schema_for_type;
use rmcp::model::SubscriptionFilter;
use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CallToolResult, CompleteRequestParams,
    CompleteResult, ContentBlock, GetPromptRequestParams, GetPromptResponse, Implementation,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities,
    ServerConfig, SubscribeRequestParams, Tool, ToolAnnotations, UnsubscribeRequestParams,
};
use rmcp::service::{RequestContext, SubscriptionContext};
use rmcp::{RoleServer, ServerHandler};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::fixtures::Fixtures;
use super::outputs::Checks;
use super::resources;
use crate::operations::{self as tools, Context, OpError, OpResult, params};

/// What a tool needs the person's leave for, given when they start the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Needs {
    Nothing,
    /// Reaches the network or writes files: `--allow-network`.
    Network,
    /// Speaks as the person, with their key: `--allow-signing`.
    Signing,
}

/// One tool: its name, what it does (its effect included), whether it
/// changes anything, what it needs leave for, and how it runs.
struct Spec {
    name: &'static str,
    description: &'static str,
    read_only: bool,
    needs: Needs,
    schema: fn() -> Arc<serde_json::Map<String, Value>>,
    run: fn(&Context, Value) -> OpResult,
}

fn call<P: DeserializeOwned>(
    ctx: &Context,
    args: Value,
    tool: fn(&Context, P) -> OpResult,
) -> OpResult {
    let p: P = serde_json::from_value(args)
        .map_err(|e| OpError::new(format!("invalid arguments: {e}")))?;
    tool(ctx, p)
}

fn schema<P: JsonSchema + 'static>() -> Arc<serde_json::Map<String, Value>> {
    schema_for_type::<P>()
}

const TOOLS: &[Spec] = &[
    Spec {
        name: "validate",
        description: "Checks every message in a text or a file (Crosstalk envelopes inside any chat \
            reply, HSP/CSDL/MSP JSON): a verdict per message with findings (code, line, column, and \
            the code point of an invisible character). Reads only.",
        read_only: true,
        needs: Needs::Nothing,
        schema: schema::<params::Validate>,
        run: |c, a| call(c, a, tools::validate),
    },
    Spec {
        name: "inspect",
        description: "Shows each message in the shared model (sender, receiver, intent, ids, meta, \
            body); CSDL in full names and MSP signals as themselves. Reads only.",
        read_only: true,
        needs: Needs::Nothing,
        schema: schema::<params::Messages>,
        run: |c, a| call(c, a, tools::inspect),
    },
    Spec {
        name: "compose",
        description: "Writes a new Crosstalk envelope or HSP message, or a reply to the one given in \
            reply_to (same thread, parent set, route reversed), with fresh ids; returns it only when \
            it validates. Writes nothing anywhere.",
        read_only: true,
        needs: Needs::Nothing,
        schema: schema::<params::Compose>,
        run: |c, a| call(c, a, tools::compose),
    },
    Spec {
        name: "convert",
        description: "Converts messages to another protocol or version (hsp, hsp@0.1, crosstalk, \
            crosstalk@1.0, csdl, msp, a2a) and reports every field the target could not hold. Returns \
            the text; writes nothing.",
        read_only: true,
        needs: Needs::Nothing,
        schema: schema::<params::Convert>,
        run: |c, a| call(c, a, tools::convert),
    },
    Spec {
        name: "sign",
        description: "Speaks as the person: signs every message with their key from the keystore \
            (AIPROTO_HOME), so that others trust it as theirs, and returns the signed text with \
            whether this keystore would verify it (the key must be bound to each message's \
            sender). Offered only when the person started the server with --allow-signing; sign \
            only what they asked for. The private key never leaves the keystore; nothing is \
            written.",
        read_only: false,
        needs: Needs::Signing,
        schema: schema::<params::Sign>,
        run: |c, a| call(c, a, tools::sign),
    },
    Spec {
        name: "verify",
        description: "Checks each message's signature against the keystore's own and pinned keys: \
            the signer, the sender, whether the key is bound to that sender, and the verdict. Never \
            pins a key. Reads only.",
        read_only: true,
        needs: Needs::Nothing,
        schema: schema::<params::Messages>,
        run: |c, a| call(c, a, tools::verify),
    },
    Spec {
        name: "thread",
        description: "Builds the conversation tree of messages given as texts or files (default: \
            the archive the server was started with), with orphans, cycles and duplicate ids. Reads \
            only.",
        read_only: true,
        needs: Needs::Nothing,
        schema: schema::<params::Conversation>,
        run: |c, a| call(c, a, tools::thread),
    },
    Spec {
        name: "poll_collate",
        description: "Counts the answers to each POLL envelope among the texts or files (default: the \
            archive): answers per option, who has not answered, replies not counted and why. Reads \
            only.",
        read_only: true,
        needs: Needs::Nothing,
        schema: schema::<params::Conversation>,
        run: |c, a| call(c, a, tools::poll_collate),
    },
    Spec {
        name: "send",
        description: "Delivers every message of the text, all or nothing (each must be whole and \
            valid): appends to the server's --archive or to a message file inside the roots \
            (file:PATH ending in .crosstalk, .aict, .json, .jsonl or .ndjson; a message already \
            there is not added twice), POSTs to an http(s) URL, or publishes to an MQTT broker. \
            Reaches the network.",
        read_only: false,
        needs: Needs::Network,
        schema: schema::<params::Send>,
        run: |c, a| call(c, a, tools::send),
    },
    Spec {
        name: "recv",
        description: "Waits for messages on an MQTT topic filter (or reads a file inside the roots) \
            until `count` arrive or the timeout passes; returns each with its verdict. Reaches the \
            network.",
        read_only: true,
        needs: Needs::Network,
        schema: schema::<params::Recv>,
        run: |c, a| call(c, a, tools::recv),
    },
];

/// The server: its context, shared with the blocking threads, and the
/// conformance suite's fixtures when it runs in that test mode.
#[derive(Clone)]
pub struct Server {
    ctx: Arc<Context>,
    checks: Arc<Checks>,
    fixtures: Option<Arc<Fixtures>>,
}

/// How long a host may keep a list (tools, prompts, resources) or a fixed
/// resource: they change only when the server restarts with other flags.
const LIST_TTL_MS: u64 = 60_000;

impl Server {
    /// The server for `ctx`; with `fixtures`, the conformance suite's test
    /// tools, resources and prompts besides aiproto's own.
    pub fn new(ctx: Context, fixtures: bool) -> anyhow::Result<Server> {
        Ok(Server {
            ctx: Arc::new(ctx),
            checks: Arc::new(Checks::new(TOOLS.iter().map(|t| t.name))?),
            fixtures: if fixtures {
                Some(Arc::new(Fixtures::new()?))
            } else {
                None
            },
        })
    }

    fn offered(&self) -> impl Iterator<Item = &'static Spec> + '_ {
        TOOLS.iter().filter(|t| match t.needs {
            Needs::Nothing => true,
            Needs::Network => self.ctx.allow_network,
            Needs::Signing => self.ctx.allow_signing,
        })
    }

    fn tool(&self, spec: &Spec) -> Tool {
        let tool = Tool::new(spec.name, spec.description, (spec.schema)()).with_annotations(
            ToolAnnotations::new()
                .read_only(spec.read_only)
                .destructive(false)
                .idempotent(spec.name != "send")
                .open_world(spec.needs == Needs::Network),
        );
        match self.checks.schema(spec.name) {
            Some(output) => tool.with_raw_output_schema(output),
            None => tool,
        }
    }

    /// A successful answer must be what the tool declares: checked here,
    /// the one place every face's call passes, before it is sent.
    fn held_to_schema(&self, name: &str, result: OpResult) -> OpResult {
        let value = result?;
        self.checks.check(name, &value).map_err(|why| {
            eprintln!("aiproto: bug: the {name} tool answered outside its output schema {why}");
            OpError::new(format!(
                "aiproto's {name} tool answered outside its own output schema ({why}); this is a \
                 bug in aiproto, please report it with the call that caused it"
            ))
        })?;
        Ok(value)
    }
}

/// A tool's answer: the record as structured content (and as text, for
/// hosts that show only text); a failure as a tool error the assistant reads.
fn answer(result: OpResult) -> CallToolResult {
    match result {
        Ok(value) => CallToolResult::structured(value),
        Err(OpError { message, details }) => match details {
            Some(mut details) => {
                details["error"] = json!(message);
                CallToolResult::structured_error(details)
            }
            None => CallToolResult::error(vec![ContentBlock::text(message)]),
        },
    }
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        // The fixtures' test mode also offers what the suite's scenarios
        // exercise: subscriptions, list changes, logging, completions.
        #[allow(deprecated)]
        let capabilities = if self.fixtures.is_some() {
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .enable_prompts()
                .enable_prompts_list_changed()
                .enable_resources()
                .enable_resources_subscribe()
                .enable_resources_list_changed()
                .enable_logging()
                .enable_completions()
                .build()
        } else {
            ServerCapabilities::builder()
                .enable_tools()
                .enable_prompts()
                .enable_resources()
                .build()
        };
        ServerConfig::new(capabilities)
        .with_server_info(Implementation::new("aiproto", env!("CARGO_PKG_VERSION")))
        .with_instructions(
            "aiproto checks, composes, signs and converts AI-agent protocol messages (AI Crosstalk \
             envelopes, HSP, CSDL, MSP). Validate an envelope before you send or paste it; compose \
             replies with reply_to so the thread and parent ids are right; verify signatures on \
             what you were given. The crosstalk_primer prompt teaches the envelope format.",
        )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let mut tools: Vec<Tool> = self.offered().map(|t| self.tool(t)).collect();
        if self.fixtures.is_some() {
            tools.extend(Fixtures::tools());
        }
        Ok(ListToolsResult::with_all_items(tools)
            .with_ttl_ms(LIST_TTL_MS)
            .with_cache_scope(CacheScope::Private))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.offered()
            .find(|t| t.name == name)
            .map(|t| self.tool(t))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        if let Some(fixtures) = &self.fixtures
            && Fixtures::is_tool(&request.name)
        {
            return fixtures.call(request, &context).await;
        }
        let Some(spec) = self.offered().find(|t| t.name == request.name) else {
            return Err(McpError::invalid_params(
                format!("no tool {}", request.name),
                None,
            ));
        };
        let ctx = Arc::clone(&self.ctx);
        let args = Value::Object(request.arguments.unwrap_or_default());
        let run = spec.run;
        let result = tokio::task::spawn_blocking(move || run(&ctx, args))
            .await
            .unwrap_or_else(|e| Err(OpError::new(format!("the tool failed: {e}"))));
        Ok(answer(self.held_to_schema(spec.name, result)).into())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        let mut prompts = resources::prompts();
        if self.fixtures.is_some() {
            prompts.extend(Fixtures::prompts());
        }
        Ok(ListPromptsResult::with_all_items(prompts)
            .with_ttl_ms(LIST_TTL_MS)
            .with_cache_scope(CacheScope::Private))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        if self.fixtures.is_some()
            && let Some(answer) = Fixtures::prompt(&request)
        {
            return answer;
        }
        resources::get_prompt(&self.ctx, &request.name, request.arguments.as_ref())
            .map(Into::into)
            .map_err(|e| McpError::invalid_params(e.message, None))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let mut listed = resources::list(&self.ctx);
        if self.fixtures.is_some() {
            listed.extend(Fixtures::resources());
        }
        Ok(ListResourcesResult::with_all_items(listed)
            .with_ttl_ms(LIST_TTL_MS)
            .with_cache_scope(CacheScope::Private))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        if self.fixtures.is_some()
            && let Some(answer) = Fixtures::read(&request.uri)
        {
            return answer;
        }
        let ctx = Arc::clone(&self.ctx);
        let uri = request.uri;
        // The archive grows while the server runs: read it anew each time.
        let ttl = if uri == resources::ARCHIVE_URI {
            0
        } else {
            LIST_TTL_MS
        };
        let result = tokio::task::spawn_blocking(move || resources::read(&ctx, &uri))
            .await
            .unwrap_or_else(|e| Err(OpError::new(format!("reading failed: {e}"))));
        result
            .map(|read| {
                read.with_ttl_ms(ttl)
                    .with_cache_scope(CacheScope::Private)
                    .into()
            })
            .map_err(|e| McpError::resource_not_found(e.message, None))
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        self.fixtures
            .as_ref()
            .map(|_| requested.supported_by(&self.get_info().capabilities))
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), McpError> {
        match &self.fixtures {
            Some(fixtures) => fixtures.listen(context).await,
            None => {
                context.cancelled().await;
                Ok(())
            }
        }
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        let templates = if self.fixtures.is_some() {
            Fixtures::templates()
        } else {
            Vec::new()
        };
        Ok(ListResourceTemplatesResult::with_all_items(templates)
            .with_ttl_ms(LIST_TTL_MS)
            .with_cache_scope(CacheScope::Private))
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, McpError> {
        if self.fixtures.is_some() {
            return Fixtures::complete(&request);
        }
        Ok(CompleteResult::default())
    }

    // Logging is deprecated from 2026-07-28 (SEP-2577); 2025-11-25 fixtures use it.
    #[allow(deprecated)]
    async fn set_level(
        &self,
        _request: rmcp::model::SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        if self.fixtures.is_some() {
            return Ok(());
        }
        Err(McpError::method_not_found::<
            rmcp::model::SetLevelRequestMethod,
        >())
    }

    async fn subscribe(
        &self,
        _request: SubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        if self.fixtures.is_some() {
            return Ok(());
        }
        Err(McpError::method_not_found::<
            rmcp::model::SubscribeRequestMethod,
        >())
    }

    async fn unsubscribe(
        &self,
        _request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        if self.fixtures.is_some() {
            return Ok(());
        }
        Err(McpError::method_not_found::<
            rmcp::model::UnsubscribeRequestMethod,
        >())
    }
}
