"""An HSP agent made of aiproto commands, for the interop scripts: `recv`
answers the ACKs and NACKs of `did:hsp:worker`, and each TaskRequest it
prints goes through `compose hsp task-result` and `send` back to the
broker. Runs in its own session, so `stop` ends the whole pipeline."""
import os
import subprocess
import time

AGENT = "did:hsp:worker"


def start(binary, broker, env, lifetime=600):
    """The agent on `broker` (mqtt://…, no topic), once it had a moment to
    subscribe; `recv` also ends by itself after `lifetime` seconds."""
    script = (f"'{binary}' recv --via {broker}/hsp/agents/{AGENT} --as {AGENT} --timeout {lifetime} "
              f"2>/dev/null | while IFS= read -r m; do case \"$m\" in *'\"HSP::TaskRequest_v'*) "
              f"printf '%s\\n' \"$m\" | '{binary}' compose hsp task-result --reply-to - --from {AGENT} "
              f"--status success | '{binary}' send --via {broker} >/dev/null 2>&1 ;; esac; done")
    agent = subprocess.Popen(["sh", "-c", script], env=env, start_new_session=True)
    time.sleep(2)
    return agent


def stop(agent):
    os.killpg(agent.pid, 9)
    agent.wait()
