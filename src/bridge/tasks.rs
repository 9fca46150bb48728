//! The bridge's tasks, in memory: each A2A task with its state, history
//! and artifacts, a channel of its events for streams, and the flag that
//! stops its HSP exchange. Bounded: beyond the limit the oldest finished
//! task goes; with none finished, a new task is refused.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use chrono::{SecondsFormat, Utc};
use serde_json::{Value, json};
use tokio::sync::broadcast;

use super::errors::A2aError;

/// Events a slow stream reader may lag behind before it is cut off.
const EVENTS_KEPT: usize = 64;

/// A task's A2A state names that end a blocking send: terminal, or
/// waiting for the client.
pub fn ends_wait(state: &str) -> bool {
    crate::operations::bridging::is_terminal(state)
        || matches!(
            state,
            "TASK_STATE_INPUT_REQUIRED" | "TASK_STATE_AUTH_REQUIRED"
        )
}

struct Entry {
    task: Value,
    /// When it last changed, on the store's clock (newest first in lists).
    touched: u64,
    events: broadcast::Sender<Value>,
    stop: Arc<AtomicBool>,
    /// The agent's direct reply, when it answered with a message.
    reply: Option<Value>,
    /// The skill (HSP capability) the task went to.
    skill: String,
}

#[derive(Default)]
struct Inner {
    by_id: HashMap<String, Entry>,
    clock: u64,
}

/// The tasks the bridge holds.
pub struct Tasks {
    inner: Mutex<Inner>,
    limit: usize,
}

/// A new task: its id, first snapshot, its events (subscribed before
/// anything can happen to it) and its stop flag.
pub struct Created {
    pub id: String,
    pub snapshot: Value,
    pub events: broadcast::Receiver<Value>,
    pub stop: Arc<AtomicBool>,
}

/// What a list asks for.
#[derive(Debug, Default)]
pub struct Query {
    pub context: Option<String>,
    pub state: Option<String>,
    pub after: Option<chrono::DateTime<Utc>>,
    pub page_size: usize,
    /// Only tasks touched before this (the previous page's last).
    pub before: Option<u64>,
    pub history: Option<usize>,
    pub artifacts: bool,
}

pub fn now() -> String {
    Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true)
}

impl Tasks {
    pub fn new(limit: usize) -> Tasks {
        Tasks {
            inner: Mutex::default(),
            limit: limit.max(1),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A task for `message`, submitted, in the message's context or a new one.
    pub fn create(&self, message: &Value, skill: &str) -> Result<Created, A2aError> {
        let mut inner = self.lock();
        if inner.by_id.len() >= self.limit && !evict_one(&mut inner) {
            return Err(A2aError::internal(format!(
                "the bridge holds {} unfinished tasks, its limit (--max-tasks); try again later",
                inner.by_id.len()
            )));
        }
        let id = crate::ids::new_uuid7();
        let context = message
            .get("contextId")
            .and_then(Value::as_str)
            .filter(|c| !c.is_empty())
            .map_or_else(crate::ids::new_uuid7, str::to_string);
        let mut kept = message.clone();
        kept["taskId"] = json!(id);
        kept["contextId"] = json!(context);
        let task = json!({
            "id": id,
            "contextId": context,
            "status": { "state": "TASK_STATE_SUBMITTED", "timestamp": now() },
            "history": [kept],
        });
        let (sender, events) = broadcast::channel(EVENTS_KEPT);
        let stop = Arc::new(AtomicBool::new(false));
        inner.clock += 1;
        let touched = inner.clock;
        inner.by_id.insert(
            id.clone(),
            Entry {
                task: task.clone(),
                touched,
                events: sender,
                stop: Arc::clone(&stop),
                reply: None,
                skill: skill.to_string(),
            },
        );
        Ok(Created {
            id,
            snapshot: task,
            events,
            stop,
        })
    }

    /// The task as it is now, with at most `history` messages of history.
    pub fn get(&self, id: &str, history: Option<usize>) -> Option<Value> {
        let inner = self.lock();
        inner
            .by_id
            .get(id)
            .map(|e| with_history(e.task.clone(), history))
    }

    /// The task as it is now and its events from now on: `None` when there
    /// is no such task.
    pub fn subscribe(&self, id: &str) -> Option<(Value, broadcast::Receiver<Value>)> {
        let inner = self.lock();
        inner
            .by_id
            .get(id)
            .map(|e| (e.task.clone(), e.events.subscribe()))
    }

    /// Moves the task to `state` (with a status message saying `said`),
    /// unless it has ended: then nothing changes (`false`).
    pub fn set_state(&self, id: &str, state: &str, said: Option<&str>) -> bool {
        let message = said.map(|said| {
            json!({
                "messageId": crate::ids::new_uuid7(),
                "role": "ROLE_AGENT",
                "parts": [{ "text": said }],
            })
        });
        self.set_status(id, state, message)
    }

    /// Moves the task to `state` with the agent's status `message` (its
    /// task and context set to the task's), unless it has ended.
    pub fn set_status(&self, id: &str, state: &str, message: Option<Value>) -> bool {
        let mut inner = self.lock();
        inner.clock += 1;
        let clock = inner.clock;
        let Some(entry) = inner.by_id.get_mut(id) else {
            return false;
        };
        let current = entry.task["status"]["state"].as_str().unwrap_or_default();
        if crate::operations::bridging::is_terminal(current)
            || current == state && message.is_none()
        {
            return false;
        }
        let mut status = json!({ "state": state, "timestamp": now() });
        if let Some(mut message) = message {
            message["taskId"] = json!(id);
            message["contextId"] = entry.task["contextId"].clone();
            status["message"] = message.clone();
            if let Some(history) = entry.task["history"].as_array_mut() {
                history.push(message);
            }
        }
        entry.task["status"] = status.clone();
        entry.touched = clock;
        let event = json!({ "statusUpdate": {
            "taskId": id,
            "contextId": entry.task["contextId"],
            "status": status,
        }});
        let _ = entry.events.send(event);
        true
    }

    /// Adds an artifact to a task that has not ended, and tells its
    /// streams; one of an id the task has already is a chunk: its parts
    /// are appended. `last`: no more chunks of it follow.
    pub fn add_artifact(&self, id: &str, artifact: Value, last: bool) {
        let mut inner = self.lock();
        let Some(entry) = inner.by_id.get_mut(id) else {
            return;
        };
        let state = entry.task["status"]["state"].as_str().unwrap_or_default();
        if crate::operations::bridging::is_terminal(state) {
            return;
        }
        if !entry.task["artifacts"].is_array() {
            entry.task["artifacts"] = json!([]);
        }
        let mut append = false;
        if let Some(artifacts) = entry.task["artifacts"].as_array_mut() {
            let same = artifacts
                .iter_mut()
                .find(|a| a["artifactId"] == artifact["artifactId"]);
            append = same.is_some();
            match (same, artifact["parts"].as_array()) {
                (Some(kept), Some(parts)) => {
                    if let Some(kept_parts) = kept["parts"].as_array_mut() {
                        kept_parts.extend(parts.iter().cloned());
                    }
                }
                _ => artifacts.push(artifact.clone()),
            }
        }
        let event = json!({ "artifactUpdate": {
            "taskId": id,
            "contextId": entry.task["contextId"],
            "artifact": artifact,
            "append": append,
            "lastChunk": last,
        }});
        let _ = entry.events.send(event);
    }

    /// Keeps the agent's direct reply (a message, not a task) for the send
    /// that waits on the task.
    pub fn set_reply(&self, id: &str, mut reply: Value) {
        let mut inner = self.lock();
        if let Some(entry) = inner.by_id.get_mut(id) {
            reply["contextId"] = entry.task["contextId"].clone();
            entry.reply = Some(reply);
        }
    }

    /// The skill a task went to.
    pub fn skill(&self, id: &str) -> Option<String> {
        self.lock().by_id.get(id).map(|e| e.skill.clone())
    }

    /// The agent's direct reply to the task's message, if it gave one.
    pub fn reply(&self, id: &str) -> Option<Value> {
        self.lock().by_id.get(id).and_then(|e| e.reply.clone())
    }

    /// A follow-up `message` to a task waiting for input: kept in its
    /// history; its events (from now) and a new stop flag.
    pub fn resume(
        &self,
        id: &str,
        message: &Value,
    ) -> Result<(Value, broadcast::Receiver<Value>, Arc<AtomicBool>), A2aError> {
        let mut inner = self.lock();
        let entry = inner
            .by_id
            .get_mut(id)
            .ok_or_else(|| A2aError::task_not_found(id))?;
        let state = entry.task["status"]["state"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        if !matches!(
            state.as_str(),
            "TASK_STATE_INPUT_REQUIRED" | "TASK_STATE_AUTH_REQUIRED"
        ) {
            return Err(A2aError::unsupported(format!(
                "task `{id}` is {state}: only a task waiting for input takes another message; send a new message (same contextId) for a follow-up"
            )));
        }
        let mut kept = message.clone();
        kept["taskId"] = json!(id);
        kept["contextId"] = entry.task["contextId"].clone();
        if let Some(history) = entry.task["history"].as_array_mut() {
            history.push(kept.clone());
        }
        entry.reply = None;
        let stop = Arc::new(AtomicBool::new(false));
        entry.stop = Arc::clone(&stop);
        let events = entry.events.subscribe();
        Ok((kept, events, stop))
    }

    /// Cancels a task that has not ended: its HSP exchange stops waiting.
    pub fn cancel(&self, id: &str) -> Result<Value, A2aError> {
        let state = {
            let inner = self.lock();
            let entry = inner
                .by_id
                .get(id)
                .ok_or_else(|| A2aError::task_not_found(id))?;
            entry.stop.store(true, Ordering::SeqCst);
            entry.task["status"]["state"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        };
        if crate::operations::bridging::is_terminal(&state) {
            return Err(A2aError::not_cancelable(id, &state));
        }
        let canceled = self.set_state(
            id,
            "TASK_STATE_CANCELED",
            Some("canceled by the client; the HSP agent is not told (HSP has no cancel), and its result, if it comes, is dropped"),
        );
        if !canceled {
            // It ended between the look and the change.
            let state = self.get(id, Some(0)).map(|t| t["status"]["state"].clone());
            return Err(A2aError::not_cancelable(
                id,
                state.as_ref().and_then(Value::as_str).unwrap_or_default(),
            ));
        }
        self.get(id, None)
            .ok_or_else(|| A2aError::task_not_found(id))
    }

    /// The tasks a query matches, newest change first: one page, the total
    /// and the cursor of the next page (empty on the last).
    pub fn list(&self, q: &Query) -> (Vec<Value>, usize, String) {
        let inner = self.lock();
        let mut matching: Vec<&Entry> = inner
            .by_id
            .values()
            .filter(|e| {
                q.context
                    .as_deref()
                    .is_none_or(|c| e.task["contextId"].as_str() == Some(c))
            })
            .filter(|e| {
                q.state
                    .as_deref()
                    .is_none_or(|s| e.task["status"]["state"].as_str() == Some(s))
            })
            .filter(|e| {
                q.after.is_none_or(|after| {
                    e.task["status"]["timestamp"]
                        .as_str()
                        .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
                        .is_some_and(|t| t >= after)
                })
            })
            .collect();
        let total = matching.len();
        matching.sort_by_key(|e| std::cmp::Reverse(e.touched));
        let page: Vec<&Entry> = matching
            .into_iter()
            .filter(|e| q.before.is_none_or(|before| e.touched < before))
            .take(q.page_size + 1)
            .collect();
        let more = page.len() > q.page_size;
        let page = &page[..page.len().min(q.page_size)];
        let next = match (more, page.last()) {
            (true, Some(last)) => last.touched.to_string(),
            _ => String::new(),
        };
        let tasks = page
            .iter()
            .map(|e| {
                let mut task = with_history(e.task.clone(), q.history);
                if !q.artifacts
                    && let Some(object) = task.as_object_mut()
                {
                    object.remove("artifacts");
                }
                task
            })
            .collect();
        (tasks, total, next)
    }
}

/// Drops the finished task changed longest ago: `false` when every task
/// is still running.
fn evict_one(inner: &mut Inner) -> bool {
    let oldest = inner
        .by_id
        .iter()
        .filter(|(_, e)| {
            crate::operations::bridging::is_terminal(
                e.task["status"]["state"].as_str().unwrap_or_default(),
            )
        })
        .min_by_key(|(_, e)| e.touched)
        .map(|(id, _)| id.clone());
    oldest.is_some_and(|id| inner.by_id.remove(&id).is_some())
}

/// A task with at most `history` of its latest messages (0: none, the
/// field left out; `None`: all).
pub fn with_history(mut task: Value, history: Option<usize>) -> Value {
    match (history, task.as_object_mut()) {
        (Some(0), Some(object)) => {
            object.remove("history");
        }
        (Some(n), Some(object)) => {
            if let Some(Value::Array(all)) = object.get_mut("history")
                && all.len() > n
            {
                all.drain(..all.len() - n);
            }
        }
        _ => {}
    }
    task
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(text: &str) -> Value {
        json!({"messageId": text, "role": "ROLE_USER", "parts": [{"text": text}]})
    }

    impl Tasks {
        fn create_for_test(&self, message: &Value) -> Result<Created, A2aError> {
            self.create(message, "echo")
        }
    }

    #[test]
    fn a_task_runs_ends_and_stays_ended() {
        let tasks = Tasks::new(10);
        let mut created = tasks.create_for_test(&message("a")).unwrap();
        assert!(tasks.set_state(&created.id, "TASK_STATE_WORKING", None));
        assert!(tasks.set_state(&created.id, "TASK_STATE_COMPLETED", None));
        // Ended: a late result changes nothing, a cancel is refused.
        assert!(!tasks.set_state(&created.id, "TASK_STATE_FAILED", Some("late")));
        assert_eq!(
            tasks.cancel(&created.id).unwrap_err().code,
            -32002,
            "TaskNotCancelable"
        );
        let first = created.events.try_recv().unwrap();
        assert_eq!(
            first["statusUpdate"]["status"]["state"],
            "TASK_STATE_WORKING"
        );
        assert_eq!(tasks.cancel("nope").unwrap_err().code, -32001);
    }

    #[test]
    fn pages_follow_the_cursor_newest_first_without_loss_or_repeat() {
        let tasks = Tasks::new(100);
        let ids: Vec<String> = (0..7)
            .map(|i| tasks.create_for_test(&message(&i.to_string())).unwrap().id)
            .collect();
        let mut seen = Vec::new();
        let mut query = Query {
            page_size: 3,
            ..Query::default()
        };
        loop {
            let (page, total, next) = tasks.list(&query);
            assert_eq!(total, 7);
            seen.extend(page.iter().map(|t| t["id"].as_str().unwrap().to_string()));
            if next.is_empty() {
                break;
            }
            query.before = Some(next.parse().unwrap());
        }
        let mut newest_first = ids.clone();
        newest_first.reverse();
        assert_eq!(seen, newest_first);
    }

    #[test]
    fn the_limit_drops_finished_tasks_and_refuses_beyond_running_ones() {
        let tasks = Tasks::new(2);
        let a = tasks.create_for_test(&message("a")).unwrap();
        tasks.set_state(&a.id, "TASK_STATE_COMPLETED", None);
        let _b = tasks.create_for_test(&message("b")).unwrap();
        let _c = tasks.create_for_test(&message("c")).unwrap();
        assert!(tasks.get(&a.id, None).is_none(), "the finished one went");
        assert!(
            tasks.create_for_test(&message("d")).is_err(),
            "both running: refused"
        );
    }

    #[test]
    fn history_length_keeps_the_latest() {
        let task = json!({"history": [1, 2, 3]});
        assert_eq!(
            with_history(task.clone(), Some(2))["history"],
            json!([2, 3])
        );
        assert!(with_history(task.clone(), Some(0)).get("history").is_none());
        assert_eq!(with_history(task, None)["history"], json!([1, 2, 3]));
    }
}
