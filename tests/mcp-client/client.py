"""Drives Hailer's MCP server with the official Python MCP client, the way another agent would.

    client.py stdio HAILER_BIN CODE...       start `HAILER_BIN mcp` here (standard input/output)
    client.py http URL TOKEN CODE...         the daemon's route; TOKEN `-` sends none
    client.py --time N exec URL TOKEN CODE   no MCP: N POSTs of CODE to the session's exec
                                             route (URL), as `hailer exec` sends it, timed
                                             the same way as the calls

Lists the tools, then calls `marimo_execute` once with each CODE, then once without arguments.
Prints one JSON object: the tool names, and for each call its text, images and whether it is an
error; or, when the server refuses, the refusal. With `--time N` it instead times N calls of the
first CODE and prints the seconds of each (the benchmark). With `--cancel-after S` it instead
starts a call of the first CODE, cancels it after S seconds (the client sends
`notifications/cancelled`), then calls the second CODE, and prints how long each took and what
the second returned.
"""

import base64

import asyncio
import json
import os
import sys
import time

import anyio
import httpx2
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client


def picture(block):
    """An image content as the client took it: its type, size and whether it is a PNG file."""
    data = base64.b64decode(block.data, validate=True)
    return {"mimeType": block.mime_type, "bytes": len(data), "png": data.startswith(PNG_SIGNATURE)}


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def describe(result):
    return {
        "isError": bool(result.is_error),
        "text": "\n".join(block.text for block in result.content if block.type == "text"),
        "images": [picture(block) for block in result.content if block.type == "image"],
    }


async def cancel_then_run(session, codes, after):
    """Cancels a call of codes[0] after `after` seconds, then calls codes[1]."""
    started = time.perf_counter()
    with anyio.move_on_after(after) as scope:
        await session.call_tool("marimo_execute", {"code": codes[0]})
    cancelled = time.perf_counter() - started
    started = time.perf_counter()
    following = await session.call_tool("marimo_execute", {"code": codes[1]})
    return {
        "cancelled": scope.cancelled_caught,
        "cancelSeconds": cancelled,
        "next": describe(following),
        "nextSeconds": time.perf_counter() - started,
    }


async def drive(read, write, codes, repeat, cancel_after=None):
    async with ClientSession(read, write) as session:
        init = await session.initialize()
        tools = await session.list_tools()
        if cancel_after is not None:
            return await cancel_then_run(session, codes, cancel_after)
        if repeat:
            times = []
            for _ in range(repeat):
                started = time.perf_counter()
                result = await session.call_tool("marimo_execute", {"code": codes[0]})
                times.append(time.perf_counter() - started)
                assert not result.is_error, result
            return {"seconds": times}
        calls = []
        for code in codes:
            calls.append(describe(await session.call_tool("marimo_execute", {"code": code})))
        calls.append(describe(await session.call_tool("marimo_execute", {})))
        return {
            "server": init.server_info.name,
            "instructions": init.instructions,
            "tools": [tool.name for tool in tools.tools],
            "schemas": {tool.name: tool.input_schema for tool in tools.tools},
            "descriptions": {tool.name: tool.description for tool in tools.tools},
            "calls": calls,
        }


async def over_stdio(hailer, codes, repeat, cancel_after=None):
    server = StdioServerParameters(command=hailer, args=["mcp"], env=dict(os.environ), cwd=os.getcwd())
    async with stdio_client(server) as (read, write):
        return await drive(read, write, codes, repeat, cancel_after)


async def over_http(url, token, codes, repeat, cancel_after=None):
    headers = {} if token == "-" else {"Authorization": f"Bearer {token}"}
    async with httpx2.AsyncClient(headers=headers, timeout=600) as http:
        try:
            async with streamable_http_client(url, http_client=http) as (read, write):
                return await drive(read, write, codes, repeat, cancel_after)
        except BaseException as error:  # the client reports a refusal as an exception group
            return {"refused": describe_refusal(error)}


async def time_exec(url, token, code, repeat):
    """The seconds of each of `repeat` runs of `code` through the exec route, request to result."""
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=600) as http:
        times = []
        for _ in range(repeat):
            started = time.perf_counter()
            reply = await http.post(url, json={"code": code, "client": "terminal"})
            ran = reply.json()
            times.append(time.perf_counter() - started)
            assert reply.status_code == 200 and ran["success"], ran
        return {"seconds": times}


def describe_refusal(error):
    if isinstance(error, BaseExceptionGroup):
        return "; ".join(describe_refusal(inner) for inner in error.exceptions)
    return f"{type(error).__name__}: {error}"


def main():
    args = sys.argv[1:]
    repeat = 0
    cancel_after = None
    if args[0] == "--time":
        repeat = int(args[1])
        args = args[2:]
    if args[0] == "--cancel-after":
        cancel_after = float(args[1])
        args = args[2:]
    if args[0] == "exec":
        outcome = asyncio.run(time_exec(args[1], args[2], args[3], repeat))
    elif args[0] == "stdio":
        outcome = asyncio.run(over_stdio(args[1], args[2:], repeat, cancel_after))
    else:
        outcome = asyncio.run(over_http(args[1], args[2], args[3:], repeat, cancel_after))
    print(json.dumps(outcome))


if __name__ == "__main__":
    main()
