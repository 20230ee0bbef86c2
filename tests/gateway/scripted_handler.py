"""A scripted model behind the LiteLLM proxy, for Hailer's end-to-end tests.

LiteLLM routes every model of `config.yaml` to this handler (provider `hailer-script`). The part
of the model after the provider names the script:

- `tool-turn`: first a `marimo_execute` call that prints 6*7, then, once the conversation holds
  that call's result, an answer quoting the result;
- `empty`: an answer with no text and no tool call (finish reason `stop`);
- `cut-off`: the start of an answer, cut off by the output-token limit (finish reason `length`).

It answers without any network: the proxy is the real third-party part, the answers are ours.
"""

import json
import time
import uuid

import litellm
from litellm import CustomLLM
from litellm.types.utils import Choices, Message, ModelResponse, Usage

TOOL_CODE = "print(6*7)"


def _script(model):
    return model.split("/", 1)[-1]


def _tool_output(messages):
    """The content of the last tool result, if the conversation ends with one."""
    for message in reversed(messages):
        role = message.get("role")
        if role == "tool":
            content = message.get("content")
            if isinstance(content, list):
                content = "".join(part.get("text", "") for part in content if isinstance(part, dict))
            return str(content or "")
        if role in ("user", "assistant"):
            return None
    return None


def _plan(model, messages):
    """(text, tool_call or None, finish_reason) for this request."""
    script = _script(model)
    if script == "empty":
        return "", None, "stop"
    if script == "cut-off":
        return "The total is made of three parts: the first", None, "length"
    if script == "tool-turn":
        output = _tool_output(messages)
        if output is None:
            call = {
                "id": "call_" + uuid.uuid4().hex[:12],
                "name": "marimo_execute",
                "arguments": json.dumps({"code": TOOL_CODE}),
            }
            return "", call, "tool_calls"
        return "The kernel printed " + output.strip() + ", so the answer is 42.", None, "stop"
    raise litellm.exceptions.BadRequestError(
        message="no script named " + repr(script), model=model, llm_provider="hailer-script"
    )


USAGE = {"prompt_tokens": 120, "completion_tokens": 12, "total_tokens": 132}


def _response(model, messages):
    text, call, finish = _plan(model, messages)
    tool_calls = None
    if call is not None:
        tool_calls = [
            {
                "id": call["id"],
                "type": "function",
                "function": {"name": call["name"], "arguments": call["arguments"]},
            }
        ]
    message = Message(content=text or None, role="assistant", tool_calls=tool_calls)
    return ModelResponse(
        id="chatcmpl-" + uuid.uuid4().hex[:12],
        created=int(time.time()),
        model=model,
        object="chat.completion",
        choices=[Choices(index=0, finish_reason=finish, message=message)],
        usage=Usage(**USAGE),
    )


def _chunks(model, messages):
    text, call, finish = _plan(model, messages)
    pieces = [text[i : i + 12] for i in range(0, len(text), 12)]
    for piece in pieces:
        yield {
            "text": piece,
            "tool_use": None,
            "is_finished": False,
            "finish_reason": "",
            "usage": None,
            "index": 0,
        }
    if call is not None:
        yield {
            "text": "",
            "tool_use": {
                "id": call["id"],
                "type": "function",
                "function": {"name": call["name"], "arguments": call["arguments"]},
                "index": 0,
            },
            "is_finished": False,
            "finish_reason": "",
            "usage": None,
            "index": 0,
        }
    yield {
        "text": "",
        "tool_use": None,
        "is_finished": True,
        "finish_reason": finish,
        "usage": dict(USAGE),
        "index": 0,
    }


class ScriptedHandler(CustomLLM):
    def completion(self, model, messages, *args, **kwargs):
        return _response(model, messages)

    async def acompletion(self, model, messages, *args, **kwargs):
        return _response(model, messages)

    def streaming(self, model, messages, *args, **kwargs):
        yield from _chunks(model, messages)

    async def astreaming(self, model, messages, *args, **kwargs):
        for chunk in _chunks(model, messages):
            yield chunk


handler = ScriptedHandler()
