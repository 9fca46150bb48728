"""A TCP proxy that cuts server-sent event streams, as a flaky network or
a proxy with a short idle timeout does: for the first CUTS responses of
type text/event-stream, it forwards the headers and the first event, then
closes both sides. Everything else passes whole.

Usage: python3 cutting_proxy.py LISTEN_PORT TARGET_PORT CUTS
(prints "ready" once listening on 127.0.0.1)
"""

import asyncio
import sys

LISTEN, TARGET, CUTS = (int(a) for a in sys.argv[1:4])
cut = 0


async def pipe(reader, writer):
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except ConnectionError:
        pass
    finally:
        writer.close()


async def answer(server_reader, client_writer, server_writer):
    """Server to client: cuts an event stream after its first event."""
    global cut
    seen = b""
    try:
        while data := await server_reader.read(65536):
            seen += data
            head_end = seen.find(b"\r\n\r\n")
            if head_end >= 0 and b"text/event-stream" in seen[:head_end].lower() and cut < CUTS:
                first_event = seen.find(b"\n\n", head_end + 4)
                if first_event >= 0:
                    cut += 1
                    client_writer.write(seen[: first_event + 2])
                    await client_writer.drain()
                    break
                continue
            client_writer.write(seen)
            await client_writer.drain()
            seen = b""
    except ConnectionError:
        pass
    finally:
        client_writer.close()
        server_writer.close()


async def handle(client_reader, client_writer):
    server_reader, server_writer = await asyncio.open_connection("127.0.0.1", TARGET)
    await asyncio.gather(
        pipe(client_reader, server_writer),
        answer(server_reader, client_writer, server_writer),
    )


async def main():
    server = await asyncio.start_server(handle, "127.0.0.1", LISTEN)
    print("ready", flush=True)
    async with server:
        await server.serve_forever()


asyncio.run(main())
