//! The A2A operations the bridge serves, the same for both bindings:
//! each takes the request's params (checked against the A2A schema) and
//! answers with the A2A object or an [`A2aError`]. A message becomes a
//! task whose HSP exchange runs on a blocking thread; its changes reach
//! the task store, which tells the streams.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::broadcast;

use super::errors::A2aError;
use super::tasks::{self, Query, Tasks};
use crate::operations::bridging::{self, Provider, SharedDirectory};
use crate::operations::delegate::{self, Delegation, Heard, Outcome};
use crate::transport::Settings;
use crate::transport::mqtt::MqttUri;

/// How the bridge reaches the HSP network and names itself there.
#[derive(Clone)]
pub struct Config {
    pub broker: MqttUri,
    pub settings: Settings,
    /// The bridge's own AI id: the sender of its TaskRequests.
    pub id: String,
    /// The card's name.
    pub name: String,
    /// The capability asked when a message names none and several are live.
    pub capability: Option<String>,
    /// How long an HSP agent has to answer.
    pub task_timeout: Duration,
    /// Tasks held at most.
    pub max_tasks: usize,
    /// Serve without a bearer token (loopback only: for graders that
    /// cannot send one, the A2A TCK).
    pub tokenless: bool,
    /// Advertisements and results must verify with keys trusted for
    /// their senders.
    pub trust: Option<Arc<crate::operations::sending::Trust>>,
    /// Signs the card, when asked (`--sign-card`).
    pub card_signer: Option<Arc<crate::operations::bridging::CardSigner>>,
}

/// The bridge: its configuration, the directory it watches, its tasks.
pub struct Bridge {
    pub config: Config,
    pub directory: SharedDirectory,
    pub tasks: Tasks,
}

/// A task started: the first snapshot and its events.
pub struct Started {
    pub id: String,
    pub snapshot: Value,
    pub events: broadcast::Receiver<Value>,
}

/// The params, checked as the A2A request `definition`.
pub fn checked<'p>(params: Option<&'p Value>, definition: &str) -> Result<&'p Value, A2aError> {
    let Some(params) = params.filter(|p| p.is_object()) else {
        return Err(A2aError::invalid_params(format!(
            "params must be a {definition} object"
        )));
    };
    let errors = bridging::a2a_errors(params, definition);
    if errors.is_empty() {
        Ok(params)
    } else {
        Err(A2aError::invalid_params(format!(
            "the params are not a valid {definition}: {}",
            errors.join("; ")
        )))
    }
}

fn history_length(params: &Value) -> Result<Option<usize>, A2aError> {
    match params.get("historyLength") {
        None | Some(Value::Null) => Ok(None),
        Some(n) => n
            .as_u64()
            .map(|n| Some(n as usize))
            .ok_or_else(|| A2aError::invalid_params("historyLength must be 0 or more")),
    }
}

impl Bridge {
    /// The capability a message goes to: the one it names in
    /// `metadata.skill`, the bridge's `--capability`, or the only one live.
    /// A follow-up to a task goes to the task's skill.
    fn provider_for(&self, message: &Value) -> Result<Provider, A2aError> {
        let live = bridging::providers(&self.directory);
        let task_skill = message
            .get("taskId")
            .and_then(Value::as_str)
            .and_then(|task| self.tasks.skill(task));
        let named = task_skill
            .as_deref()
            .or(message.pointer("/metadata/skill").and_then(Value::as_str))
            .or(self.config.capability.as_deref());
        let skills = || {
            live.iter()
                .map(|p| format!("`{}`", p.capability))
                .collect::<Vec<_>>()
                .join(", ")
        };
        match (named, live.as_slice()) {
            (_, []) => Err(A2aError::unsupported(
                "no HSP agent advertises a capability on the broker now; nothing can take the task",
            )),
            (Some(name), _) => live
                .iter()
                .find(|p| p.capability == name)
                .cloned()
                .ok_or_else(|| {
                    A2aError::invalid_params(format!(
                        "no live HSP capability `{name}`; the skills are {}",
                        skills()
                    ))
                }),
            (None, [one]) => Ok(one.clone()),
            (None, _) => Err(A2aError::invalid_params(format!(
                "several HSP capabilities are live: name one in message.metadata.skill ({})",
                skills()
            ))),
        }
    }

    /// SendMessage and SendStreamingMessage: a new task for the message,
    /// its HSP exchange started.
    pub fn start(self: &Arc<Self>, params: &Value) -> Result<Started, A2aError> {
        let message = &params["message"];
        if message["role"] != "ROLE_USER" {
            return Err(A2aError::invalid_params(
                "message.role must be ROLE_USER: the client speaks, the agent answers",
            ));
        }
        if let Some(media) = bridging::unsupported_media(message) {
            return Err(A2aError::content_type(&media));
        }
        let accepted: Vec<&str> = params
            .pointer("/configuration/acceptedOutputModes")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if !accepted.is_empty()
            && !accepted
                .iter()
                .any(|m| bridging::MEDIA_TYPES.contains(m) || *m == "*/*")
        {
            return Err(A2aError::content_type(&format!(
                "acceptedOutputModes {accepted:?}"
            )));
        }
        if params
            .pointer("/configuration/taskPushNotificationConfig")
            .is_some()
        {
            return Err(A2aError::push_not_supported());
        }
        let provider = self.provider_for(message)?;
        if let Some(task) = message.get("taskId").and_then(Value::as_str) {
            // A task waiting for input takes the answer: a new TaskRequest
            // for it, to the same kind of agent.
            let (kept, events, stop) = self.tasks.resume(task, message)?;
            let snapshot = self
                .tasks
                .get(task, None)
                .ok_or_else(|| A2aError::task_not_found(task))?;
            let bridge = Arc::clone(self);
            let id = task.to_string();
            tokio::task::spawn_blocking(move || bridge.run(&id, &kept, &provider, stop));
            return Ok(Started {
                id: task.to_string(),
                snapshot,
                events,
            });
        }
        let created = self.tasks.create(message, &provider.capability)?;
        let bridge = Arc::clone(self);
        let (id, stop) = (created.id.clone(), Arc::clone(&created.stop));
        let task_message = created.snapshot["history"][0].clone();
        tokio::task::spawn_blocking(move || bridge.run(&id, &task_message, &provider, stop));
        Ok(Started {
            id: created.id,
            snapshot: created.snapshot,
            events: created.events,
        })
    }

    /// A task's HSP exchange: the TaskRequest out, progress and the
    /// answer into the task.
    fn run(
        &self,
        id: &str,
        message: &Value,
        provider: &Provider,
        stop: Arc<std::sync::atomic::AtomicBool>,
    ) {
        let timeout = self.config.task_timeout;
        let deadline = chrono::Utc::now()
            + chrono::Duration::from_std(timeout).unwrap_or(chrono::Duration::MAX);
        let deadline = deadline.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        let callback = format!("hsp/results/{}", self.config.id);
        let (text, found) = match bridging::task_request(
            message,
            &self.config.id,
            provider,
            &callback,
            &deadline,
        ) {
            Ok(made) => made,
            Err(why) => {
                self.tasks.set_state(id, "TASK_STATE_FAILED", Some(&why));
                return;
            }
        };
        self.tasks.set_state(id, "TASK_STATE_WORKING", None);
        let delegation = Delegation {
            broker: self.config.broker.clone(),
            settings: self.config.settings.clone(),
            timeout,
            stop,
            trust: self.config.trust.as_deref(),
        };
        let outcome = delegate::delegate(&found, &text, delegation, |heard| {
            if let Heard::Interim { status, .. } = heard
                && status == "in_progress"
            {
                self.tasks.set_state(id, "TASK_STATE_WORKING", None);
            }
        });
        let capability = &provider.capability;
        let finished = match outcome {
            Ok(Outcome::Answered(answer)) => bridging::outcome(&answer.text, capability),
            Ok(Outcome::Plain(text)) => bridging::plain_outcome(&text, capability),
            // Canceled: the task says so already.
            Ok(Outcome::Unanswered {
                ended: crate::transport::Ended::Interrupted,
                ..
            }) => return,
            Ok(Outcome::Unanswered { refused, .. }) => bridging::TaskOutcome {
                state: "TASK_STATE_FAILED",
                said: Some(format!(
                    "no TaskResult from {} within {} s{}",
                    provider.agent,
                    timeout.as_secs(),
                    if refused > 0 {
                        format!(" ({refused} claiming to answer were not accepted)")
                    } else {
                        String::new()
                    }
                )),
                ..bridging::TaskOutcome::default()
            },
            Err(e) => bridging::TaskOutcome {
                state: "TASK_STATE_FAILED",
                said: Some(format!("the HSP network could not be reached: {e}")),
                ..bridging::TaskOutcome::default()
            },
        };
        self.finish(id, finished);
    }

    /// A task's outcome into the task: its artifacts (each chunk told
    /// whether it is the last of its artifact), a direct reply, the state.
    fn finish(&self, id: &str, finished: bridging::TaskOutcome) {
        for (i, artifact) in finished.artifacts.iter().enumerate() {
            let last = !finished.artifacts[i + 1..]
                .iter()
                .any(|later| later["artifactId"] == artifact["artifactId"]);
            self.tasks.add_artifact(id, artifact.clone(), last);
        }
        if let Some(reply) = finished.reply {
            self.tasks.set_reply(id, reply);
        }
        match finished.status_message {
            Some(message) => self.tasks.set_status(id, finished.state, Some(message)),
            None => self
                .tasks
                .set_state(id, finished.state, finished.said.as_deref()),
        };
    }

    /// SendMessage: the task once it has ended or waits for the client
    /// (or at once, with `returnImmediately`).
    pub async fn send(self: &Arc<Self>, params: &Value) -> Result<Value, A2aError> {
        let params = checked(Some(params), "SendMessageRequest")?;
        let history = history_length(params.get("configuration").unwrap_or(&Value::Null))?;
        let at_once = params
            .pointer("/configuration/returnImmediately")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let Started {
            id,
            snapshot,
            mut events,
        } = self.start(params)?;
        if at_once {
            return Ok(json!({ "task": tasks::with_history(snapshot, history) }));
        }
        loop {
            match events.recv().await {
                Ok(event) => {
                    let state = event
                        .pointer("/statusUpdate/status/state")
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    if tasks::ends_wait(state) {
                        break;
                    }
                }
                Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(broadcast::error::RecvError::Closed) => break,
            }
        }
        if let Some(reply) = self.tasks.reply(&id) {
            return Ok(json!({ "message": reply }));
        }
        let task = self
            .tasks
            .get(&id, history)
            .ok_or_else(|| A2aError::task_not_found(&id))?;
        Ok(json!({ "task": task }))
    }

    pub fn get(&self, params: &Value) -> Result<Value, A2aError> {
        let params = checked(Some(params), "GetTaskRequest")?;
        let id = params["id"].as_str().unwrap_or_default();
        self.tasks
            .get(id, history_length(params)?)
            .ok_or_else(|| A2aError::task_not_found(id))
    }

    pub fn cancel(&self, params: &Value) -> Result<Value, A2aError> {
        let params = checked(Some(params), "CancelTaskRequest")?;
        self.tasks.cancel(params["id"].as_str().unwrap_or_default())
    }

    /// SubscribeToTask: the task now and its events, unless it has ended.
    pub fn subscribe(
        &self,
        params: &Value,
    ) -> Result<(Value, broadcast::Receiver<Value>), A2aError> {
        let params = checked(Some(params), "SubscribeToTaskRequest")?;
        let id = params["id"].as_str().unwrap_or_default();
        let (task, events) = self
            .tasks
            .subscribe(id)
            .ok_or_else(|| A2aError::task_not_found(id))?;
        let state = task["status"]["state"].as_str().unwrap_or_default();
        if bridging::is_terminal(state) {
            return Err(A2aError::unsupported(format!(
                "task `{id}` has ended ({state}): there is nothing to subscribe to; GetTask reads it"
            )));
        }
        Ok((task, events))
    }

    pub fn list(&self, params: &Value) -> Result<Value, A2aError> {
        let params = checked(Some(params), "ListTasksRequest")?;
        let text = |k: &str| {
            params
                .get(k)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
        };
        let page_size = match params.get("pageSize") {
            None | Some(Value::Null) => 50,
            Some(n) => match n.as_u64() {
                Some(n @ 1..=100) => n as usize,
                _ => {
                    return Err(A2aError::invalid_params(format!(
                        "pageSize {n}: from 1 to 100"
                    )));
                }
            },
        };
        let before = match text("pageToken") {
            None => None,
            Some(token) => Some(token.parse::<u64>().map_err(|_| {
                A2aError::invalid_params(format!(
                    "pageToken `{token}` is not one this agent gave (a nextPageToken of ListTasks)"
                ))
            })?),
        };
        let after = match text("statusTimestampAfter") {
            None => None,
            Some(t) => Some(
                chrono::DateTime::parse_from_rfc3339(t)
                    .map_err(|e| {
                        A2aError::invalid_params(format!("statusTimestampAfter `{t}`: {e}"))
                    })?
                    .with_timezone(&chrono::Utc),
            ),
        };
        let query = Query {
            context: text("contextId").map(str::to_string),
            state: text("status")
                .filter(|s| *s != "TASK_STATE_UNSPECIFIED")
                .map(str::to_string),
            after,
            page_size,
            before,
            history: history_length(params)?,
            artifacts: params
                .get("includeArtifacts")
                .and_then(Value::as_bool)
                .unwrap_or(false),
        };
        let (tasks, total, next) = self.tasks.list(&query);
        Ok(json!({
            "tasks": tasks,
            "nextPageToken": next,
            "pageSize": page_size,
            "totalSize": total,
        }))
    }
}
