//! The bridge's Agent Card, built for each request from the directory:
//! one skill per live HSP capability, the two interfaces it serves at the
//! address the client used, streaming on, push notifications off, and the
//! bearer token as its security scheme; signed when a key is given.

use serde_json::{Value, json};

use super::calls::Bridge;
use crate::operations::bridging::{self, MEDIA_TYPES};

/// Where the JSON-RPC binding is served.
pub const JSONRPC: &str = "/jsonrpc";
/// The base of the HTTP+JSON binding.
pub const REST: &str = "/rest";
/// Where the card is served.
pub const WELL_KNOWN: &str = "/.well-known/agent-card.json";

/// How long a client may keep the card: briefly, since it follows the
/// advertisements; each client its own copy (it names the token's scheme).
pub const CACHE_CONTROL: &str = "private, max-age=30";

/// The card's entity tag: a digest of its bytes.
pub fn etag(body: &str) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(body.as_bytes());
    let hex: String = digest[..12].iter().map(|b| format!("{b:02x}")).collect();
    format!("\"{hex}\"")
}

/// The card, with interfaces under `base` (`http://host:port`); `None`
/// while no HSP agent advertises a capability (a card needs a skill).
pub fn card(bridge: &Bridge, base: &str) -> Option<Value> {
    let providers = bridging::providers(&bridge.directory);
    if providers.is_empty() {
        return None;
    }
    let agents: std::collections::BTreeSet<&str> =
        providers.iter().map(|p| p.agent.as_str()).collect();
    let skills: Vec<Value> = providers.iter().map(bridging::Provider::skill).collect();
    let mut card = json!({
        "name": bridge.config.name,
        "description": format!(
            "HSP agents on an MQTT network, reached over A2A through aiproto's bridge: {}. Each message becomes an HSP TaskRequest to the skill's agent; its TaskResult becomes the task's state and artifact.",
            agents.into_iter().collect::<Vec<_>>().join(", ")
        ),
        "version": env!("CARGO_PKG_VERSION"),
        "supportedInterfaces": [
            { "url": format!("{base}{JSONRPC}"), "protocolBinding": "JSONRPC", "protocolVersion": "1.0" },
            { "url": format!("{base}{REST}"), "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0" },
        ],
        "provider": { "organization": "aiproto", "url": "https://github.com/aiproto/aiproto" },
        "capabilities": { "streaming": true, "pushNotifications": false, "extendedAgentCard": false },
        "securitySchemes": {
            "bearer": { "httpAuthSecurityScheme": {
                "scheme": "Bearer",
                "description": "the token `aiproto a2a serve` printed, or was given"
            } }
        },
        "securityRequirements": [ { "schemes": { "bearer": { "list": [] } } } ],
        "defaultInputModes": MEDIA_TYPES,
        "defaultOutputModes": MEDIA_TYPES,
        "skills": skills,
    });
    if bridge.config.tokenless
        && let Some(object) = card.as_object_mut()
    {
        object.remove("securitySchemes");
        object.remove("securityRequirements");
    }
    Some(match &bridge.config.card_signer {
        Some(signer) => signer.sign(&card),
        None => card,
    })
}
