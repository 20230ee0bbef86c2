"""Drives Hailer's MCP server with the official Python MCP client, the way another agent would.

    client.py stdio HAILER_BIN CODE...       start `HAILER_BIN mcp` here (standard input/output)
    client.py http URL TOKEN CODE...         the daemon's route; TOKEN `-` sends none

Lists the tools, then calls `marimo_execute` once with each CODE, then once without arguments.
Prints one JSON object: the tool names, and for each call its text, images and whether it is an
error; or, when the server refuses, the refusal. With `--time N` it instead times N calls of the
first CODE and prints the seconds of each (the benchmark).
"""

import asyncio
import json
import os
import sys
import time

import httpx2
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client


def describe(result):
    return {
        "isError": bool(result.is_error),
        "text": "\n".join(block.text for block in result.content if block.type == "text"),
        "images": [block.mime_type for block in result.content if block.type == "image"],
    }


async def drive(read, write, codes, repeat):
    async with ClientSession(read, write) as session:
        init = await session.initialize()
        tools = await session.list_tools()
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


async def over_stdio(hailer, codes, repeat):
    server = StdioServerParameters(command=hailer, args=["mcp"], env=dict(os.environ), cwd=os.getcwd())
    async with stdio_client(server) as (read, write):
        return await drive(read, write, codes, repeat)


async def over_http(url, token, codes, repeat):
    headers = {} if token == "-" else {"Authorization": f"Bearer {token}"}
    async with httpx2.AsyncClient(headers=headers, timeout=600) as http:
        try:
            async with streamable_http_client(url, http_client=http) as (read, write):
                return await drive(read, write, codes, repeat)
        except BaseException as error:  # the client reports a refusal as an exception group
            return {"refused": describe_refusal(error)}


def describe_refusal(error):
    if isinstance(error, BaseExceptionGroup):
        return "; ".join(describe_refusal(inner) for inner in error.exceptions)
    return f"{type(error).__name__}: {error}"


def main():
    args = sys.argv[1:]
    repeat = 0
    if args[0] == "--time":
        repeat = int(args[1])
        args = args[2:]
    if args[0] == "stdio":
        outcome = asyncio.run(over_stdio(args[1], args[2:], repeat))
    else:
        outcome = asyncio.run(over_http(args[1], args[2], args[3:], repeat))
    print(json.dumps(outcome))


if __name__ == "__main__":
    main()
