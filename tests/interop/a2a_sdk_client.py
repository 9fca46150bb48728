"""The official A2A Python SDK (a2a-sdk) as a client of aiproto's A2A
bridge: it resolves the card, then over one binding (JSONRPC or
HTTP+JSON) sends, streams, gets, lists and cancels tasks, and prints
one JSON line per step for the Rust test to check: what the SDK made of
each answer, or the error class it raised.

Usage: python3 a2a_sdk_client.py BASE_URL TOKEN BINDING
"""

import asyncio
import json
import sys

import httpx
from google.protobuf.json_format import MessageToDict

from a2a.client import ClientConfig, ClientFactory
from a2a.helpers.proto_helpers import new_text_message
from a2a.types import (
    CancelTaskRequest,
    GetTaskRequest,
    ListTasksRequest,
    Role,
    SendMessageConfiguration,
    SendMessageRequest,
)


def say(step, **fields):
    print(json.dumps({"step": step, **fields}), flush=True)


def message(text, message_id):
    m = new_text_message(text, role=Role.ROLE_USER)
    m.message_id = message_id
    return m


async def events(client, request):
    out = []
    async for event in client.send_message(request):
        out.append(MessageToDict(event))
    return out


async def failing(step, call):
    try:
        result = await call
        say(step, unexpected=MessageToDict(result))
    except Exception as e:  # the SDK's error classes name the A2A error
        say(step, error=type(e).__name__, message=str(e))


async def main():
    base, token, binding = sys.argv[1], sys.argv[2], sys.argv[3]
    http = httpx.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30)
    blocking = await ClientFactory(
        ClientConfig(httpx_client=http, streaming=False, supported_protocol_bindings=[binding], use_client_preference=True)
    ).create_from_url(base)
    streaming = await ClientFactory(
        ClientConfig(httpx_client=http, streaming=True, supported_protocol_bindings=[binding], use_client_preference=True)
    ).create_from_url(base)

    done = await events(blocking, SendMessageRequest(message=message("hello", "tck-send-1")))
    say("send", events=done)

    failed = await events(blocking, SendMessageRequest(message=message("fail", "m-fail")))
    say("send-fail", events=failed)

    streamed = await events(streaming, SendMessageRequest(message=message("streamed", "m-stream")))
    say("stream", events=streamed)

    task_id = done[0]["task"]["id"]
    got = await blocking.get_task(GetTaskRequest(id=task_id, history_length=0))
    say("get", task=MessageToDict(got))

    listed = await blocking.list_tasks(ListTasksRequest(page_size=2, include_artifacts=True))
    second = await blocking.list_tasks(ListTasksRequest(page_size=2, page_token=listed.next_page_token))
    say("list", first=MessageToDict(listed), second=MessageToDict(second))

    slow = await events(
        blocking,
        SendMessageRequest(
            message=message("slow", "m-slow"),
            configuration=SendMessageConfiguration(return_immediately=True),
        ),
    )
    slow_id = slow[0]["task"]["id"]
    canceled = await blocking.cancel_task(CancelTaskRequest(id=slow_id))
    say("cancel", submitted=slow, task=MessageToDict(canceled))

    await failing("cancel-done", blocking.cancel_task(CancelTaskRequest(id=task_id)))
    await failing("get-missing", blocking.get_task(GetTaskRequest(id="no-such-task")))
    await http.aclose()


asyncio.run(main())
