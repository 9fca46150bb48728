// The official A2A JavaScript SDK (@a2a-js/sdk) as a client of aiproto's
// A2A bridge: it resolves the card, then over one binding (JSONRPC or
// HTTP+JSON) sends, streams, gets and cancels tasks, and prints one JSON
// line per step for the Rust test to check: what the SDK made of each
// answer, or the error it raised.
//
// Usage: node a2a_js_client.mjs BASE_URL TOKEN BINDING
// (NODE_PATH, or a node_modules beside, holds @a2a-js/sdk 1.3.0)

import {
  ClientFactory,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from "@a2a-js/sdk/client";
import { Role } from "@a2a-js/sdk";

const [base, token, binding] = process.argv.slice(2);
const fetchImpl = (url, init = {}) => {
  const headers = new Headers(init.headers || {});
  headers.set("Authorization", `Bearer ${token}`);
  return fetch(url, { ...init, headers });
};

function say(step, fields) {
  console.log(JSON.stringify({ step, ...fields }, (_, v) => (typeof v === "bigint" ? v.toString() : v)));
}

function message(text, messageId) {
  return {
    messageId,
    contextId: "",
    taskId: "",
    role: Role.ROLE_USER,
    parts: [{ content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "" }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

function request(text, id, returnImmediately = false) {
  return {
    tenant: "",
    message: message(text, id),
    configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, historyLength: undefined, returnImmediately },
    metadata: undefined,
  };
}

const factory = new ClientFactory({
  transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
  preferredTransports: [binding],
  cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
});
const client = await factory.createFromUrl(base);

const sent = await client.sendMessage(request("hello", "js-send-1"));
say("send", { result: sent });

const events = [];
for await (const event of client.sendMessageStream(request("streamed", "js-stream-1"))) {
  events.push(event);
}
say("stream", { events });

const taskId = sent.payload?.value?.id ?? sent.id;
const got = await client.getTask({ tenant: "", id: taskId, historyLength: 0 });
say("get", { task: got });

const slow = await client.sendMessage(request("slow", "js-slow-1", true));
const slowId = slow.payload?.value?.id ?? slow.id;
const canceled = await client.cancelTask({ tenant: "", id: slowId, metadata: undefined });
say("cancel", { task: canceled });

try {
  await client.cancelTask({ tenant: "", id: taskId, metadata: undefined });
  say("cancel-done", { unexpected: true });
} catch (e) {
  say("cancel-done", { error: e.constructor.name, message: String(e.message) });
}
