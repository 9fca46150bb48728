//! An answer converted to HSP finds the TaskRequest it answers, whatever
//! form the request's id took on the way: the HSP `message_id` as sent, the
//! ULID Crosstalk carries for a UUID (the same 128 bits), or the ULID
//! derived from any other id ([`crate::ids::derived_ulid`]). The TaskResult
//! then takes the request's `request_id`, goes to its `callback_address`,
//! and correlates to the `message_id` the requester sent.

use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::ids;
use crate::protocols::hsp;

/// TaskRequests by every form of their message id, each cut to what an
/// answer takes from it ([`hsp::compose::reply_to`]): a long stream of
/// requests costs little.
#[derive(Debug, Clone, Default)]
pub struct Requests {
    by_id: HashMap<String, Value>,
}

/// What [`Requests::point_at`] made of an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pointed {
    /// It answers a known request and now points at it.
    Pointed,
    /// A TaskResult whose request is not known: its `request_id` is its
    /// parent's id and it goes to the parent's sender.
    Unknown,
    /// Not an answer, or one that needed no change.
    Unchanged,
}

impl Requests {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }

    /// Keeps an HSP TaskRequest (ignores other messages).
    pub fn remember(&mut self, request: &Value) {
        if !is_task_request(request) {
            return;
        }
        let Some(id) = request.get("message_id").and_then(Value::as_str) else {
            return;
        };
        let pick = |from: &Value, keys: &[&str]| -> Map<String, Value> {
            keys.iter()
                .filter_map(|k| from.get(*k).map(|v| ((*k).to_string(), v.clone())))
                .collect()
        };
        let mut slim = pick(
            request,
            &[
                "message_id",
                "message_type",
                "hsp_envelope_version",
                "sender_ai_id",
                "recipient_ai_id",
            ],
        );
        if let Some(payload) = request.get("payload") {
            let payload = pick(payload, &["request_id", "callback_address"]);
            slim.insert("payload".into(), payload.into());
        }
        let sent = request.get("timestamp_sent").and_then(Value::as_str);
        let slim = Value::from(slim);
        for form in id_forms(id, sent) {
            self.by_id.insert(form, slim.clone());
        }
    }

    /// Points an HSP answer written from another protocol at the request it
    /// answers: its `correlation_id` (any form of the request's id) becomes
    /// the request's `message_id`, its `request_id` and recipient the
    /// request's.
    pub fn point_at(&self, answer: &mut Value) -> Pointed {
        let request = answer
            .get("correlation_id")
            .and_then(Value::as_str)
            .and_then(|id| self.by_id.get(id));
        let is_result = answer
            .get("message_type")
            .and_then(Value::as_str)
            .is_some_and(|t| t.starts_with("HSP::TaskResult_"));
        let Some(request) = request else {
            return if is_result {
                Pointed::Unknown
            } else {
                Pointed::Unchanged
            };
        };
        let before = answer.clone();
        if let Some(id) = request.get("message_id") {
            answer["correlation_id"] = id.clone();
        }
        hsp::compose::point_at_request(answer, request);
        if *answer == before {
            Pointed::Unchanged
        } else {
            Pointed::Pointed
        }
    }
}

/// Whether an HSP message is a TaskRequest.
pub fn is_task_request(json: &Value) -> bool {
    json.get("message_type")
        .and_then(Value::as_str)
        .is_some_and(|t| t.starts_with("HSP::TaskRequest_"))
}

/// Every form an id takes through the conversions: as sent, as Crosstalk
/// carries it (the ULID of a UUID, or one derived from any other id and the
/// time it was sent), and as the UUID of a ULID.
fn id_forms(id: &str, sent: Option<&str>) -> Vec<String> {
    let mut forms = vec![id.to_string()];
    forms.extend(ids::as_crosstalk_id(id));
    forms.extend(ids::as_uuid(id));
    if ids::as_crosstalk_id(id).is_none() {
        forms.push(ids::derived_ulid(id, sent));
    }
    forms.sort();
    forms.dedup();
    forms
}
