"""Ask Hailer a question over plain HTTP, with Python's standard library only.

    python ask_over_http.py [--stream] [--key-variable NAME] [--folder DIR] "question"

It finds the daemon the way any program can: `hailer daemon status --json` starts hailerd when
none runs and names its runtime file, which holds the port and the token (the file is readable
by you only). It then starts or attaches the session of the workspace that holds DIR (the
current folder by default) and asks the question:

* by default with `"wait": true`: one request, answered when the turn ends, printing the answer,
  the code each tool call ran and the notebook the turn left;
* with `--stream`, with `Accept: text/event-stream`: the answer is printed as it streams.

The model's key goes with the request, as `hailer` itself sends it: the value of the variable
`--key-variable` names (`OPENAI_API_KEY` by default), when it is set. A key kept with
`hailer login` needs nothing here.
"""

import argparse
import json
import os
import subprocess
import sys
import urllib.request


def daemon_address():
    """The daemon's base URL and token, starting it when none runs."""
    status = subprocess.run(
        ["hailer", "daemon", "status", "--json"],
        check=True,
        capture_output=True,
        text=True,
    )
    runtime_file = json.loads(status.stdout)["runtimeFile"]
    with open(runtime_file, encoding="utf-8") as file:
        runtime = json.load(file)
    return f"http://127.0.0.1:{runtime['port']}", runtime["token"]


def request(base, token, path, body, accept="application/json"):
    """A POST of `body` as JSON; the open reply (raises with the daemon's message on an error)."""
    data = json.dumps(body).encode()
    headers = {
        "Authorization": f"Bearer {token}",
        "Content-Type": "application/json",
        "Accept": accept,
    }
    try:
        return urllib.request.urlopen(
            urllib.request.Request(base + path, data=data, headers=headers), timeout=3600
        )
    except urllib.error.HTTPError as error:
        refusal = json.load(error)
        hint = f" ({refusal['hint']})" if refusal.get("hint") else ""
        sys.exit(f"hailerd refused {path}: {refusal['message']}{hint}")


def server_sent_events(reply):
    """The `data:` payloads of a text/event-stream reply, one JSON value each."""
    data = []
    for raw in reply:
        line = raw.decode("utf-8").rstrip("\r\n")
        if line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))
        elif not line and data:
            yield json.loads("\n".join(data))
            data = []


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("question")
    parser.add_argument("--folder", default=os.getcwd())
    parser.add_argument("--key-variable", default="OPENAI_API_KEY")
    parser.add_argument("--stream", action="store_true")
    args = parser.parse_args()

    base, token = daemon_address()
    env = {name: value for name, value in os.environ.items() if name.startswith("HAILER_")}
    if args.key_variable in os.environ:
        env[args.key_variable] = os.environ[args.key_variable]
    started = json.load(
        request(base, token, "/v1/sessions", {"cwd": os.path.abspath(args.folder), "client": "api", "env": env})
    )
    turns = f"/v1/sessions/{started['session']['id']}/turns"

    if args.stream:
        reply = request(base, token, turns, {"text": args.question}, accept="text/event-stream")
        for envelope in server_sent_events(reply):
            event = envelope["event"]
            if event["type"] == "textDelta":
                print(event["delta"], end="", flush=True)
            elif event["type"] == "toolCallStarted":
                print(f"[{event['name']}]", file=sys.stderr)
            elif event["type"] == "turnFailed":
                sys.exit(f"the turn failed: {event['message']}")
        print()
        return

    result = json.load(request(base, token, turns, {"text": args.question, "wait": True}))["result"]
    for call in result["toolCalls"]:
        verdict = "ok" if call.get("ok") else "failed"
        print(f"[{call['name']}: {verdict}]", file=sys.stderr)
        if call.get("code"):
            print(call["code"], file=sys.stderr)
    if result["outcome"] != "finished":
        error = result.get("error") or {}
        sys.exit(f"the turn {result['outcome']}: {error.get('message', '')}")
    print(result["answer"])
    if result.get("notebook"):
        print(f"Notebook: {result['notebook']}", file=sys.stderr)


if __name__ == "__main__":
    main()
