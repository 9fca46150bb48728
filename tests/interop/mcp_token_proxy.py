"""A loopback proxy that adds `Authorization: Bearer TOKEN` to every request
and streams the answer back unchanged (Server-Sent Events included).

The MCP conformance suite cannot send headers of its own; `aiproto mcp
--listen` refuses every request without its token. The proxy stands where
a host's HTTP client stands: Host and Origin pass through as the client
sent them, so the server's DNS-rebinding checks are still what is graded.

    python3 mcp_token_proxy.py LISTEN_PORT UPSTREAM_URL TOKEN_FILE
"""

import asyncio
import sys

import aiohttp
from aiohttp import web

HOP = {"connection", "keep-alive", "transfer-encoding", "te", "upgrade",
       "proxy-authorization", "proxy-connection", "content-length"}


async def main(port, upstream, token):
    session = aiohttp.ClientSession(auto_decompress=False,
                                    timeout=aiohttp.ClientTimeout(total=None))

    async def forward(request):
        headers = {k: v for k, v in request.headers.items() if k.lower() not in HOP}
        headers["Authorization"] = f"Bearer {token}"
        body = await request.read()
        async with session.request(request.method, upstream + request.rel_url.path_qs,
                                   headers=headers, data=body or None,
                                   allow_redirects=False, skip_auto_headers=["User-Agent"]) as up:
            response = web.StreamResponse(status=up.status, reason=up.reason)
            for k, v in up.headers.items():
                if k.lower() not in HOP:
                    response.headers.add(k, v)
            await response.prepare(request)
            async for chunk in up.content.iter_any():
                await response.write(chunk)
            await response.write_eof()
            return response

    app = web.Application(client_max_size=64 * 1024 * 1024)
    app.router.add_route("*", "/{tail:.*}", forward)
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    print(f"proxy on http://127.0.0.1:{port} -> {upstream}", flush=True)
    await asyncio.Event().wait()


if __name__ == "__main__":
    listen_port, upstream_url, token_file = sys.argv[1:4]
    with open(token_file) as f:
        secret = f.readline().strip()
    asyncio.run(main(int(listen_port), upstream_url.rstrip("/"), secret))
