// Agent Card signatures checked and made by the official A2A JavaScript
// SDK (@a2a-js/sdk 1.3.0: verifyAgentCardSignature and
// generateAgentCardSignature, jose underneath), for the Rust tests to hold
// aiproto's signatures against.
//
// Usage: node a2a_js_card_signing.mjs verify PUBLIC.pem ALG < card.json
//        node a2a_js_card_signing.mjs sign PRIVATE.pem ALG KID < card.json
// `verify` prints `verified` (exit 0) or the SDK's error (exit 1); `sign`
// prints the card with the SDK's signature added. ALG: EdDSA or ES256.
// (NODE_PATH holds @a2a-js/sdk 1.3.0 and its jose.)

import { readFileSync } from "node:fs";
import { generateAgentCardSignature, verifyAgentCardSignature } from "@a2a-js/sdk";
import { importPKCS8, importSPKI } from "jose";

const [command, keyPath, alg, kid] = process.argv.slice(2);
const card = JSON.parse(readFileSync(0, "utf8"));
const pem = readFileSync(keyPath, "utf8");

if (command === "verify") {
  const key = await importSPKI(pem, alg);
  try {
    await verifyAgentCardSignature(async () => key)(card);
    console.log("verified");
  } catch (e) {
    console.log(String(e.message || e));
    process.exit(1);
  }
} else if (command === "sign") {
  const key = await importPKCS8(pem, alg);
  const signed = await generateAgentCardSignature(key, { alg, typ: "JOSE", kid })(card);
  console.log(JSON.stringify(signed, null, 2));
} else {
  console.error(`unknown command ${command}`);
  process.exit(2);
}
