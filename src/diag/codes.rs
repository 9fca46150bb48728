//! The catalogue of diagnostic codes: what each one means, in a sentence.
//!
//! Reports that describe their rules (SARIF, GitLab code quality) and
//! per-code settings read it; a test keeps it in step with the codes the
//! source emits.

/// One code and what a finding with it says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Code {
    pub id: &'static str,
    pub summary: &'static str,
}

const fn code(id: &'static str, summary: &'static str) -> Code {
    Code { id, summary }
}

/// The entry for `id`, if aiproto has such a code.
pub fn lookup(id: &str) -> Option<&'static Code> {
    CODES.iter().find(|c| c.id == id)
}

/// Every code, grouped by protocol.
pub const CODES: &[Code] = &[
    // Any input.
    code(
        "NO-MESSAGE",
        "The input holds no message of any protocol aiproto reads.",
    ),
    code(
        "NO-INPUT",
        "The run read no message at all (an empty folder, a glob that matches nothing, every file skipped): nothing was checked.",
    ),
    code(
        "INPUT-NOT-UTF8",
        "The input is not UTF-8 text; the finding points at the first bad byte.",
    ),
    code(
        "ID-DUPLICATE",
        "Another message in the same input already carries this message id.",
    ),
    code(
        "ID-REPEATED",
        "The same message appears again in the same input.",
    ),
    code(
        "INPUT-UNREADABLE",
        "The input cannot be read (missing, a directory, no permission).",
    ),
    code(
        "INPUT-UTF16",
        "The file is UTF-16 (a Windows \"Unicode\" save), decoded by its byte-order mark.",
    ),
    code(
        "INPUT-BOM",
        "A byte order mark at the start of the input was skipped.",
    ),
    code(
        "JSON-DUPLICATE-KEY",
        "A JSON object names the same key twice; readers disagree on which one counts.",
    ),
    code(
        "JSON-INEXACT-NUMBER",
        "A JSON number a double cannot hold as written: JCS and most readers change it, so no signature covers it.",
    ),
    // AI Crosstalk.
    code(
        "CT-HEADER-MALFORMED",
        "The first line is not a header line of the form [[SENDER→RECEIVER v1]].",
    ),
    code(
        "CT-HEADER-VERSION",
        "The header line names a protocol version aiproto does not know.",
    ),
    code(
        "CT-HEADER-MISSING",
        "A required header (intent, context, …) is missing.",
    ),
    code(
        "CT-HEADER-RECOMMENDED",
        "A header the version recommends (thread, message, …) is missing.",
    ),
    code(
        "CT-HEADER-DUPLICATE",
        "A header appears more than once; the first is kept.",
    ),
    code("CT-HEADER-ORDER", "A header comes after the body."),
    code(
        "CT-HEADER-UNKNOWN",
        "A header the protocol does not define; it is kept as written.",
    ),
    code(
        "CT-END-MISSING",
        "The envelope is not closed by an [[END]] line: it may have been cut off.",
    ),
    code("CT-BODY-MISSING", "The envelope has no `body: |` block."),
    code(
        "CT-PRIMER-EXAMPLE",
        "The example envelope of aiproto's primer, not an answer: copy the assistant's reply.",
    ),
    code(
        "CT-BODY-INLINE",
        "The body is written on the `body:` line instead of an indented block.",
    ),
    code(
        "CT-BODY-INDENT",
        "Body lines are not indented by two spaces.",
    ),
    code(
        "CT-LEGACY-RESPONSE",
        "`response: |`, the upstream 1.0 reply shape, read as the body.",
    ),
    code(
        "CT-LINE-UNEXPECTED",
        "A line that is no header, meta block, body, sig: line or [[END]].",
    ),
    code(
        "CT-AFTER-SIG",
        "A line after the sig: line; only [[END]] may follow the signature.",
    ),
    code(
        "CT-CONTROL-CHAR",
        "A control character in the text; a terminal may obey it.",
    ),
    code(
        "CT-ADDR-INVALID",
        "The sender or receiver is not a valid address.",
    ),
    code(
        "CT-ADDR-LOOKALIKE",
        "An address mixes scripts or look-alike characters and could pass for another name.",
    ),
    code(
        "CT-SENDER-LIST",
        "The sender names several parties; only the receiver may list several.",
    ),
    code(
        "CT-ID-INVALID",
        "A thread, parent or message id is not a ULID or a UUIDv7.",
    ),
    code(
        "CT-ID-SELF-PARENT",
        "The parent id is the envelope's own message id.",
    ),
    code(
        "CT-PLACEHOLDER",
        "A header holds a template placeholder instead of a value.",
    ),
    code(
        "CT-INTENT-UNKNOWN",
        "The intent is not one the protocol defines.",
    ),
    code(
        "CT-INTENT-LEGACY",
        "A 1.0 intent that 1.1 deprecates; convert migrates it.",
    ),
    code(
        "CT-META-LINE",
        "A line in a meta block that is not `Key: value`.",
    ),
    code(
        "CT-META-MULTILINE",
        "A continuation line in a meta block; meta values are single lines.",
    ),
    code(
        "CT-META-NAMESPACE",
        "A meta namespace that is not lower case.",
    ),
    code(
        "CT-META-KEY",
        "A meta key that is neither PascalCase nor X-prefixed.",
    ),
    code(
        "CT-META-DUPLICATE",
        "A key appears twice in one meta block.",
    ),
    code(
        "CT-META-VALUE",
        "A meta value outside the values its key allows.",
    ),
    code(
        "CT-ATTACH-INVALID",
        "An attachment line is not `type;name=…;digest=sha256:…`.",
    ),
    code("CT-ATTACH-KEY", "An attachment key is not A1, A2, …"),
    code(
        "CT-ERROR-META",
        "An ERROR envelope without a `meta: error` block naming its Code.",
    ),
    code(
        "CT-ERROR-CODE",
        "An error code outside the protocol's taxonomy.",
    ),
    code("CT-ERROR-REASON", "A `meta: error` block without a Reason."),
    code(
        "CT-PRIVACY-CONSENT",
        "A Consent value that is not explicit_yes, explicit_no or implicit.",
    ),
    code(
        "CT-PRIVACY-EXPIRES",
        "An Expires value that is not an ISO 8601 timestamp.",
    ),
    code(
        "CT-PRIVACY-EXPIRED",
        "The consent given in `meta: privacy` has expired.",
    ),
    code(
        "CT-ROUTE-INVALID",
        "An address in `meta: route` is not valid.",
    ),
    code(
        "CT-SIG-MISSING",
        "No sig: line; an unsigned envelope says `sig: none`.",
    ),
    code(
        "CT-SIG-MALFORMED",
        "The sig: line is neither `none` nor an algorithm with a key id and a signature.",
    ),
    code(
        "CT-SIG-ALGORITHM",
        "The signature algorithm is not one aiproto verifies.",
    ),
    code(
        "CT-SIG-REQUIRED",
        "An envelope that should be signed (a REVOKE) is not.",
    ),
    code(
        "CT-TOO-LARGE",
        "The envelope is larger than --max-message-bytes.",
    ),
    code(
        "CT-REPAIR-MARKDOWN",
        "Markdown a chat UI put around the header or [[END]] line was taken off.",
    ),
    code(
        "CT-REPAIR-SPACE",
        "A non-breaking or other Unicode space in the structure was read as a space.",
    ),
    code(
        "CT-REPAIR-INVISIBLE",
        "An invisible character in the structure was removed.",
    ),
    code(
        "CT-REPAIR-ARROW",
        "A look-alike arrow in the header line was read as →.",
    ),
    code(
        "CT-REPAIR-INDENT",
        "Non-breaking spaces indenting a body line were read as spaces.",
    ),
    code(
        "CT-REPAIR-LINE-END",
        "Extra carriage returns before a line end (\\r\\r\\n) were read as part of it.",
    ),
    code(
        "CT-REPAIR-WRAP",
        "A sig: line or body line hard-wrapped by a mail client was joined back.",
    ),
    code(
        "CT-REPAIR-CASE",
        "A header name a chat capitalised (`Session:`, `Body: |`) was read in lower case.",
    ),
    code(
        "CT-REPAIR-END",
        "`[[END]]` joined onto the `sig:` line (`sig: none [[END]]`) was read as its own line.",
    ),
    code(
        "CT-REPAIR-NESTED",
        "An example envelope inside a body that lost its indentation was read as the body's text.",
    ),
    code(
        "CT-REPAIR-JOIN",
        "An envelope split into parts (`Part 2/2`, `(continued)`) in separate code blocks was joined.",
    ),
    code(
        "CT-HASH-MISMATCH",
        "The hash: line does not match the envelope: the paste was cut or edited.",
    ),
    code(
        "CT-DIGEST-MISMATCH",
        "A 1.1-rc1 DIGEST field does not match the body's SHA-256.",
    ),
    code(
        "CT-RC1-FIELD",
        "A field the 1.1-rc1 roadmap proposes (NONCE, TTL, DIGEST…), not in the 1.1 spec: kept.",
    ),
    code(
        "CT-LINES-JOINED",
        "The envelope's lines were joined into one line; it cannot be read.",
    ),
    // HSP.
    code("HSP-JSON", "The HSP message is not well-formed JSON."),
    code(
        "HSP-NOT-OBJECT",
        "An HSP message is a JSON object; this is not one.",
    ),
    code(
        "HSP-TOO-LARGE",
        "The message is larger than --max-message-bytes.",
    ),
    code(
        "HSP-SCHEMA",
        "The message breaks a rule of its JSON Schema.",
    ),
    code(
        "HSP-SCHEMA-REQUIRED",
        "A field the schema requires is missing.",
    ),
    code("HSP-SCHEMA-TYPE", "A field has the wrong JSON type."),
    code(
        "HSP-SCHEMA-ENUM",
        "A field holds a value outside the ones the schema lists.",
    ),
    code(
        "HSP-SCHEMA-CONST",
        "A field does not hold the one value the schema fixes.",
    ),
    code(
        "HSP-SCHEMA-PATTERN",
        "A string does not match the pattern the schema gives.",
    ),
    code(
        "HSP-SCHEMA-FORMAT",
        "A string is not in the format the schema names (date-time, uri, …).",
    ),
    code(
        "HSP-SCHEMA-RANGE",
        "A number is outside the schema's minimum and maximum.",
    ),
    code(
        "HSP-SCHEMA-EMPTY",
        "A string the schema wants non-empty is empty.",
    ),
    code(
        "HSP-SCHEMA-ALTERNATIVES",
        "The value matches none (or several) of the schema's alternatives.",
    ),
    code(
        "HSP-TYPE-FORMAT",
        "message_type is not of the form HSP::<Type>_v<version>.",
    ),
    code(
        "HSP-TYPE-UNKNOWN",
        "An unknown message_type: only the envelope was checked.",
    ),
    code(
        "HSP-VERSION-MISMATCH",
        "A version field disagrees with the envelope's version.",
    ),
    code(
        "HSP-ID-FORMAT",
        "A sender or recipient is neither a DID nor an hsp/… topic.",
    ),
    code("HSP-TIMESTAMP", "A timestamp is not an RFC 3339 date-time."),
    code(
        "HSP-CORRELATION-MISSING",
        "A reply without the correlation_id of the message it answers.",
    ),
    code(
        "HSP-ACK-SHAPE",
        "An acknowledgement's status does not match its type.",
    ),
    code(
        "HSP-ERROR-DETAILS-MISSING",
        "A failed TaskResult that does not say why in error_details.",
    ),
    code(
        "HSP-SCORE-RANGE",
        "A confidence or certainty score outside [0, 1].",
    ),
    code(
        "HSP-STATEMENT-MISMATCH",
        "statement_type does not match the statement fields present.",
    ),
    code(
        "HSP-TRIPLE-INCOMPLETE",
        "A semantic triple without its subject, predicate or object.",
    ),
    // CSDL.
    code("CSDL-JSON", "The CSDL document is not well-formed JSON."),
    code(
        "CSDL-NOT-OBJECT",
        "A CSDL document is a JSON object; this is not one.",
    ),
    code(
        "CSDL-TOO-LARGE",
        "The document is larger than --max-message-bytes.",
    ),
    code(
        "CSDL-DIALECT",
        "A JSON dialect called CSDL that is neither CSDL 1.0 nor one of E3's shapes.",
    ),
    code(
        "CSDL-UPSTREAM",
        "Read as one of E3's CSDL shapes (ANLT T/C/R, agent response, ANLT v2, embedding, CSDLMessage, CBP), not the 1.0 spec.",
    ),
    code(
        "CSDL-UNMAPPED",
        "A value of an E3 shape outside its own tables: its meaning, and its CSDL 1.0 form, are unknown.",
    ),
    code(
        "CSDL-EMBEDDING",
        "An ANLT embedding whose base64 does not decode, or holds another size than `dim` and `bits` say.",
    ),
    code(
        "CSDL-CBP-FRAME",
        "A CBP frame cut off, without its magic, of another version, or with flags CBP does not define.",
    ),
    code(
        "CSDL-CBP-CRC",
        "A CBP frame whose payload does not match the CRC-16 in its header.",
    ),
    code(
        "CSDL-CBP-PAYLOAD",
        "A CBP payload that is not LZ4 or MessagePack, or decompresses past --max-message-bytes (a stream: four times it in all).",
    ),
    code(
        "CSDL-CBP-UNRESOLVED",
        "A deduplicated CBP frame naming by hash a message no earlier frame of the input carried.",
    ),
    code(
        "CSDL-CBP-DELTA",
        "A CBP delta whose base no earlier frame of the input carried: read as the changed fields alone.",
    ),
    code(
        "CSDL-MIXED-SPELLING",
        "Short codes and full names are mixed in one document.",
    ),
    code(
        "CSDL-SCHEMA",
        "The document breaks a rule of its JSON Schema.",
    ),
    code(
        "CSDL-SCHEMA-REQUIRED",
        "A field the schema requires is missing.",
    ),
    code("CSDL-SCHEMA-TYPE", "A field has the wrong JSON type."),
    code(
        "CSDL-SCHEMA-ENUM",
        "A field holds a value outside the ones the schema lists.",
    ),
    code(
        "CSDL-SCHEMA-RANGE",
        "A number is outside the schema's minimum and maximum.",
    ),
    code(
        "CSDL-SCHEMA-EMPTY",
        "A string or list the schema wants non-empty is empty.",
    ),
    code(
        "CSDL-SCHEMA-ALTERNATIVES",
        "The value matches none (or several) of the schema's alternatives.",
    ),
    code("CSDL-MISSING", "An element lacks a field its type needs."),
    code("CSDL-EMPTY", "A field that must say something is empty."),
    code(
        "CSDL-FIELD-TYPE",
        "A field has the wrong JSON type for its element.",
    ),
    code("CSDL-ELEMENT-TYPE", "An element type CSDL does not define."),
    code(
        "CSDL-TYPE",
        "A data type that is neither a basic nor a complex CSDL type.",
    ),
    code("CSDL-INTENT", "An intent CSDL does not define."),
    code("CSDL-CONFIDENCE", "A confidence outside 0 to 1."),
    code(
        "CSDL-DEFAULT-NOT-IN-ENUM",
        "A default value that is not one of the field's enum values.",
    ),
    code(
        "CSDL-MEMORY-OP",
        "A memory operation other than store or retrieve.",
    ),
    code(
        "CSDL-MEMORY-CATEGORY",
        "A memory category CSDL does not define.",
    ),
    code("CSDL-DUPLICATE-STEP", "Two workflow steps share an id."),
    code(
        "CSDL-UNKNOWN-STEP",
        "A workflow step points at a step that does not exist.",
    ),
    code(
        "CSDL-UNREACHABLE",
        "A workflow step that is never reached from the first step.",
    ),
    code(
        "CSDL-CYCLE",
        "Workflow steps that form a cycle no loop step owns.",
    ),
    code(
        "CSDL-TEMPLATE",
        "A template names no step of the workflow (nor the input).",
    ),
    code(
        "CSDL-TEMPLATE-UNCHECKED",
        "The workflow was too large to check the order of every template.",
    ),
    // MSP.
    code("MSP-JSON", "The MSP signal is not well-formed JSON."),
    code(
        "MSP-NOT-OBJECT",
        "An MSP signal is a JSON object; this is not one.",
    ),
    code(
        "MSP-TOO-LARGE",
        "The signal is larger than --max-message-bytes.",
    ),
    code(
        "MSP-VERSION",
        "An MSP version aiproto does not know; checked as 1.0.",
    ),
    code("MSP-SCHEMA", "The signal breaks a rule of its JSON Schema."),
    code(
        "MSP-SCHEMA-REQUIRED",
        "A field the schema requires is missing.",
    ),
    code("MSP-SCHEMA-TYPE", "A field has the wrong JSON type."),
    code(
        "MSP-SCHEMA-ENUM",
        "A field holds a value outside the ones the schema lists.",
    ),
    code(
        "MSP-SCHEMA-PATTERN",
        "A string does not match the pattern the schema gives.",
    ),
    code(
        "MSP-SCHEMA-RANGE",
        "A number is below the schema's minimum.",
    ),
    code(
        "MSP-UNKNOWN-FIELD",
        "A field MSP does not define (signals are closed).",
    ),
    code("MSP-INTENT", "An intent MSP does not define."),
    code("MSP-PRIORITY", "A priority MSP does not define."),
    code(
        "MSP-EMPTY-TARGET",
        "The target is empty: the signal does not say what it is about.",
    ),
    code(
        "MSP-TRACE-ID",
        "The trace_id is empty: nothing can point at this signal.",
    ),
    code(
        "MSP-TIMESTAMP",
        "The timestamp is not an ISO 8601 date and time.",
    ),
    code(
        "MSP-SECTION-COUNT",
        "total_sections disagrees with the number of sections.",
    ),
    // Conformance grading (`conformance`): a vector the implementation under test got wrong.
    code(
        "CONF-ACCEPTED",
        "The implementation accepted a vector that a conforming reader refuses.",
    ),
    code(
        "CONF-REFUSED",
        "The implementation refused a vector that a conforming reader accepts.",
    ),
    code(
        "CONF-CODES",
        "The verdict was right, but the finding codes the vector names were not reported (--codes).",
    ),
    code(
        "CONF-ANSWER",
        "The verdict was right, but the answer was not the protocol's (an HTTP refusal without an ERROR envelope or NACK, an ACK that names another message).",
    ),
    code(
        "CONF-BROKEN",
        "The implementation gave no verdict: it crashed, timed out, exited with a status the adapter contract does not know, or printed no verdict.",
    ),
    // A2A 1.0.
    code("A2A-JSON", "The A2A document is not well-formed JSON."),
    code(
        "A2A-TOO-LARGE",
        "The document is larger than --max-message-bytes.",
    ),
    code(
        "A2A-NOT-OBJECT",
        "An A2A document is a JSON object; this is not one.",
    ),
    code(
        "A2A-KIND",
        "Not one of the A2A objects: message, task, event, Agent Card, JSON-RPC request or response.",
    ),
    code(
        "A2A-OLD-VERSION",
        "An A2A 0.3 document (kind fields, lowercase roles, message/send); 1.0 is not wire-compatible.",
    ),
    code("A2A-METHOD", "A JSON-RPC method A2A 1.0 does not define."),
    code(
        "A2A-JSONRPC",
        "The JSON-RPC envelope is malformed (version, id, params, result or error).",
    ),
    code(
        "A2A-ERROR-CODE",
        "A JSON-RPC error code in A2A's range that names no A2A error.",
    ),
    code(
        "A2A-REQUIRED",
        "A field the A2A proto marks REQUIRED is missing or empty.",
    ),
    code(
        "A2A-ONE-OF",
        "An object that holds exactly one of a group (a part: text, raw, url or data) holds none or several.",
    ),
    code(
        "A2A-ENUM",
        "A role or task state not written by its A2A 1.0 name (a number, UNSPECIFIED, or the 0.3 spelling).",
    ),
    code(
        "A2A-FIELD-CASE",
        "A field written in snake_case; A2A 1.0 JSON writes camelCase.",
    ),
    code(
        "A2A-UNKNOWN-FIELD",
        "A field the A2A 1.0 object does not define; readers ignore it.",
    ),
    code(
        "A2A-TIMESTAMP",
        "A time that is not ISO 8601 in UTC ending in Z.",
    ),
    code(
        "A2A-AFTER-TERMINAL",
        "A task reported in another state after a terminal one (completed, failed, canceled, rejected).",
    ),
    code(
        "A2A-SCHEMA",
        "The document breaks a rule of the A2A schema bundle.",
    ),
    code("A2A-SCHEMA-TYPE", "A field has the wrong JSON type."),
    code(
        "A2A-SCHEMA-ENUM",
        "A field holds a value outside the ones the schema lists.",
    ),
    code(
        "A2A-SCHEMA-PATTERN",
        "A string does not match the pattern the schema gives (raw bytes are base64).",
    ),
    code(
        "A2A-SCHEMA-RANGE",
        "A number is outside the schema's range.",
    ),
    // Signatures (`verify`).
    code("SIG-UNSIGNED", "The message carries no signature."),
    code(
        "SIG-MALFORMED",
        "The signature line or claim cannot be read.",
    ),
    code(
        "SIG-ALGORITHM",
        "The signature's algorithm is unknown or not the key's.",
    ),
    code(
        "SIG-UNSUPPORTED",
        "The message is signed in a way aiproto cannot verify.",
    ),
    code("SIG-UNTRUSTED", "The signing key is not trusted."),
    code(
        "SIG-KEY-CHANGED",
        "The sender signs with another key than the one pinned for it.",
    ),
    code(
        "SIG-SENDER",
        "The key that signed is not bound to the message's sender.",
    ),
    code(
        "SIG-LOOKALIKE",
        "The sender's name only looks like the name the key is bound to.",
    ),
    code(
        "SIG-NO-SENDER",
        "Trust on first use found no one sender to bind the key to (none, empty, or a pattern): nothing pinned.",
    ),
    code(
        "SIG-BAD",
        "The signature does not match the message: it was changed after signing.",
    ),
    code("SIG-REVOKED", "The signing key has been revoked."),
    code(
        "SIG-EXPIRED",
        "The key had expired, or been retired by a rotation, by the message's date.",
    ),
    code(
        "SIG-INEXACT",
        "A JSON number of the message is not one a double holds: the signature cannot cover it as shown.",
    ),
    code(
        "SIG-ALTERED",
        "A character of the envelope is one Unicode normalization replaces by a look-alike: the signature does not cover it as shown.",
    ),
    code(
        "SIG-STALE",
        "The message is dated longer ago than --max-age allows, or carries no date.",
    ),
    code(
        "SIG-FUTURE",
        "The message is dated in the future (an error with verify --strict).",
    ),
    code("SIG-KEYSTORE", "The key store cannot be read."),
    // The project's own schemas (`[[schema]]` in aiproto.toml).
    code(
        "PROJECT-SCHEMA",
        "The message breaks one of the project's own schemas (aiproto.toml [[schema]]).",
    ),
    code(
        "PROJECT-SCHEMA-MISSING",
        "The envelope lacks a meta block the project's schemas require.",
    ),
];

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// Every code literal in the source (outside tests) has an entry, and
    /// every entry is a code the source emits: the catalogue cannot drift.
    #[test]
    fn the_catalogue_names_every_code_the_source_emits() {
        let pattern = regex_lite();
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut emitted = BTreeSet::new();
        let mut stack = vec![root];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(dir).unwrap().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == "rs")
                    && !path.ends_with("diag/codes.rs")
                {
                    let text = std::fs::read_to_string(&path).unwrap();
                    // Test modules come last in a file; their codes are made up.
                    let text = text
                        .split("#[cfg(test)]\nmod tests")
                        .next()
                        .unwrap_or_default();
                    emitted.extend(pattern(text));
                }
            }
        }
        let listed: BTreeSet<String> = CODES.iter().map(|c| c.id.to_string()).collect();
        let missing: Vec<_> = emitted.difference(&listed).collect();
        let unused: Vec<_> = listed.difference(&emitted).collect();
        assert!(missing.is_empty(), "codes without an entry: {missing:?}");
        assert!(unused.is_empty(), "entries no source emits: {unused:?}");
        assert_eq!(listed.len(), CODES.len(), "an entry is listed twice");
    }

    /// The string literals of the form `"PREFIX-WORD…"` in `text`.
    fn regex_lite() -> impl Fn(&str) -> Vec<String> {
        const PREFIXES: [&str; 12] = [
            "CT-", "HSP-", "CSDL-", "MSP-", "SIG-", "INPUT-", "JSON-", "NO-", "PROJECT-", "CONF-",
            "ID-", "A2A-",
        ];
        |text: &str| {
            // Every stretch between two quotes: a `'"'` elsewhere in the file
            // cannot shift which stretches are literals.
            text.split('"')
                .skip(1)
                .filter(|s| {
                    PREFIXES.iter().any(|p| s.starts_with(p))
                        && s.len() > 4
                        && s.chars()
                            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '-')
                        && !s.ends_with('-')
                })
                .map(str::to_string)
                .collect()
        }
    }

    #[test]
    fn lookup_finds_an_entry() {
        assert!(
            lookup("CT-BODY-INDENT")
                .unwrap()
                .summary
                .contains("two spaces")
        );
        assert_eq!(lookup("CT-NOPE"), None);
    }
}
