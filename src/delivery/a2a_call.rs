//! A message on its way to an A2A agent: the JSON-RPC call that carries it.
//! An A2A JSON-RPC request goes as written (SendMessage, GetTask,
//! CancelTask…); an A2A message or SendMessage body is wrapped in a
//! `SendMessage` call; a message of any other protocol (or an A2A task or
//! card) goes as the A2A Message the shared model gives
//! ([`a2a::model_map::as_message`]).

use serde_json::{Value, json};

use crate::protocols::a2a::{self, Kind};
use crate::protocols::{Found, Value as Typed};
use crate::transport::{Outgoing, Routing};

/// The JSON-RPC call that carries `found` (`source`: the text it was read
/// from); `None` for a message that cannot be read.
pub fn send_message(found: &Found, source: &str) -> Option<Outgoing> {
    let text = match &found.value {
        Typed::A2a(Some(doc)) => match doc.kind {
            Kind::Request(_) => found.written(source)?,
            Kind::SendMessageRequest => call(doc.json.clone()),
            // A message, alone or in a wrapper (`{"message": …}` reads as
            // a response, or a request without configuration): as it is.
            _ => match doc.object() {
                (Kind::Message, message) => call(json!({ "message": message })),
                _ => call(json!({ "message": a2a::model_map::as_message(&found.to_message()?) })),
            },
        },
        _ => call(json!({ "message": a2a::model_map::as_message(&found.to_message()?) })),
    };
    Some(Outgoing {
        text: text.trim_end().to_string(),
        routing: Routing {
            content_type: Some("application/json"),
            kind: "a2a",
            ..Routing::default()
        },
    })
}

/// A `SendMessage` call with these parameters, its id the message's own.
fn call(params: Value) -> String {
    let id = params
        .pointer("/message/messageId")
        .and_then(Value::as_str)
        .map_or_else(crate::ids::new_uuid7, str::to_string);
    json!({"jsonrpc": "2.0", "id": id, "method": "SendMessage", "params": params}).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocols::{Protocol, ReadOptions};

    /// `{"message": …}` (a response wrapper, or a request without its
    /// configuration) goes as that message, not wrapped twice.
    #[test]
    fn a_wrapped_message_is_sent_once_wrapped() {
        let text =
            r#"{"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "hi"}]}}"#;
        let found = Protocol::A2a.read(text, &ReadOptions::default());
        let call: Value =
            serde_json::from_str(&send_message(&found[0], text).unwrap().text).unwrap();
        assert_eq!(call["method"], "SendMessage");
        assert_eq!(call["params"]["message"]["messageId"], "m");
        assert_eq!(call["params"]["message"]["parts"][0]["text"], "hi");
    }
}
