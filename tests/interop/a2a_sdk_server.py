"""A real A2A 1.0 agent built with the official Python SDK (a2a-sdk),
for aiproto's A2A client to talk to: it serves its Agent Card at
/.well-known/agent-card.json and JSON-RPC at /rpc.

Each SendMessage becomes a task whose one artifact echoes the message: its
text parts joined, or its data part as data. A text of "fail" fails the
task; a message whose text is "slow" waits two seconds first.

With "rest" after the port it serves HTTP+JSON at /rest instead, and
streams (SendStreamingMessage, SubscribeToTask).

Usage: python3 a2a_sdk_server.py PORT [rest]  (prints "ready" when listening)
"""

import asyncio
import sys

import uvicorn
from starlette.applications import Starlette

from a2a.helpers.proto_helpers import (
    get_data_parts,
    get_text_parts,
    new_data_part,
    new_task_from_user_message,
    new_text_message,
    new_text_part,
)
from a2a.server.agent_execution import AgentExecutor
from a2a.server.request_handlers import DefaultRequestHandlerV2 as DefaultRequestHandler
from a2a.server.routes.agent_card_routes import create_agent_card_routes
from a2a.server.routes.jsonrpc_routes import create_jsonrpc_routes
from a2a.server.routes.rest_routes import create_rest_routes
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import AgentCapabilities, AgentCard, AgentInterface, AgentSkill, Role


class Echo(AgentExecutor):
    async def execute(self, context, event_queue):
        message = context.message
        task = context.current_task or new_task_from_user_message(message)
        await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        await updater.start_work()
        texts = get_text_parts(message.parts)
        if texts == ["slow"]:
            await asyncio.sleep(2)
        if texts == ["fail"]:
            await updater.failed(new_text_message("asked to fail", role=Role.ROLE_AGENT))
            return
        data = get_data_parts(message.parts)
        parts = [new_data_part(d) for d in data] or [new_text_part("echo: " + "\n".join(texts))]
        await updater.add_artifact(parts, name="echo")
        await updater.complete()

    async def cancel(self, context, event_queue):
        raise NotImplementedError


def main():
    port = int(sys.argv[1])
    rest = sys.argv[2:] == ["rest"]
    interface = (
        AgentInterface(url=f"http://127.0.0.1:{port}/rest", protocol_binding="HTTP+JSON", protocol_version="1.0")
        if rest
        else AgentInterface(url=f"http://127.0.0.1:{port}/rpc", protocol_binding="JSONRPC", protocol_version="1.0")
    )
    card = AgentCard(
        name="SDK Echo",
        description="Echoes each message back as a task artifact.",
        supported_interfaces=[interface],
        version="1.0.0",
        capabilities=AgentCapabilities(streaming=rest, push_notifications=False),
        default_input_modes=["text/plain", "application/json"],
        default_output_modes=["text/plain", "application/json"],
        skills=[AgentSkill(id="echo", name="Echo", description="Echoes the message.", tags=["echo"])],
    )
    handler = DefaultRequestHandler(agent_executor=Echo(), task_store=InMemoryTaskStore(), agent_card=card)
    routes = create_agent_card_routes(card) + (
        create_rest_routes(handler, path_prefix="/rest") if rest else create_jsonrpc_routes(handler, rpc_url="/rpc")
    )
    app = Starlette(routes=routes)
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(config)

    async def serve():
        task = asyncio.create_task(server.serve())
        while not server.started:
            await asyncio.sleep(0.05)
        print("ready", flush=True)
        await task

    asyncio.run(serve())


if __name__ == "__main__":
    main()
