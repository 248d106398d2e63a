"""Interop check with the official Python MCP SDK 2.x client (run by interop/clients.ts).

Usage: python-client.py <mcp url> <token file> <mode> <rounds>
mode is 'auto' (probes server/discover, so 2026-07-28 against agentteam) or
'legacy' (the initialize handshake; the server answers 2025-11-25).
One connection is kept for all rounds; between rounds the script waits for the
daemon to replace the token file, and the httpx auth hook reads the file for
every request, so each round runs on a new token generation. Prints one JSON
line per round and a final summary line.
"""
import asyncio
import importlib.metadata
import json
import sys
import time

import httpx2
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client


class TokenFileAuth(httpx2.Auth):
    def __init__(self, path: str) -> None:
        self.path = path

    def auth_flow(self, request):
        with open(self.path, encoding="utf-8") as f:
            request.headers["Authorization"] = "Bearer " + f.read().strip()
        yield request


def read_token(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read().strip()


async def wait_rotation(path: str, old: str, timeout: float) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        now = read_token(path)
        if now and now != old:
            return now
        await asyncio.sleep(0.1)
    raise TimeoutError("the token file was not replaced in time")


async def missing_meta(url: str, token_file: str) -> dict:
    """A 2026-07-28 request without _meta protocol information: the revision's error."""
    async with httpx2.AsyncClient(auth=TokenFileAuth(token_file), timeout=10) as http:
        r = await http.post(
            url,
            headers={
                "content-type": "application/json",
                "accept": "application/json, text/event-stream",
                "mcp-protocol-version": "2026-07-28",
                "mcp-method": "tools/list",
            },
            content=json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}),
        )
        return {"status": r.status_code, "error": r.json().get("error")}


async def main() -> None:
    url, token_file, mode, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    print(json.dumps({"sdk": importlib.metadata.version("mcp"), "python": sys.version.split()[0]}), flush=True)
    if mode == "auto":
        print(json.dumps({"missingMeta": await missing_meta(url, token_file)}), flush=True)
    seen = []
    async with httpx2.AsyncClient(auth=TokenFileAuth(token_file), timeout=15) as http:
        async with Client(streamable_http_client(url, http_client=http), mode=mode) as client:
            token = read_token(token_file)
            for n in range(rounds):
                listed = await client.list_tools()
                names = sorted(t.name for t in listed.tools)
                marker = f"interop-python{mode}-{n + 1}"
                res = await client.call_tool("message_send", {"target": "channel:interop", "content": marker})
                content = (res.structured_content or {}).get("message", {}).get("content")
                seen.append(token[-12:])
                print(json.dumps({
                    "round": n + 1,
                    "protocolVersion": client.protocol_version,
                    "tools": names,
                    "isError": bool(res.is_error),
                    "sent": content,
                }), flush=True)
                if n + 1 < rounds:
                    token = await wait_rotation(token_file, token, 30)
    print(json.dumps({"done": True, "distinctTokens": len(set(seen))}), flush=True)


asyncio.run(main())
