"""schemathesis hooks for the API test that starts sessions, runs code and asks turns
(tests/tests/suite/api_for_programs_sandbox.rs).

Every request is rewritten just before it is sent, in every phase, so that whatever
schemathesis made up:

- a session's folders (`cwd`, `workspace`) are the test's own throwaway workspace, never a
  made-up or real folder elsewhere, and a made-up `config` file is left out;
- the kernel is the sandbox (Landlock and namespaces): every start names `sandbox` in place of
  a runtime the schema allows or of none, and an invalid name close to a runtime's becomes a
  name the daemon refuses;
- the model's provider is the scripted one, and no made-up `HAILER_*` variable reaches the
  daemon (such a variable could name another runtime, folder or configuration); the variables
  the test's own client sends (its home, the shared kernel environment, the model's key) go
  with every start and turn;
- a run of code may take a few seconds at most.

A value of the wrong type, or a string that breaks the schema in a way the daemon refuses before
it looks at any folder (a `cwd` that is not absolute), is left as it is, so a request
schemathesis meant as invalid stays invalid.
"""

import json
import math
import os
import re

import schemathesis

WORKSPACE = os.environ["HAILER_TEST_WORKSPACE"]
KEY_VARIABLE = os.environ["HAILER_TEST_KEY_VARIABLE"]
KEY = os.environ["HAILER_TEST_KEY"]
# The variables the test's own client sends (its home and the shared kernel environment).
CLIENT_ENV = json.loads(os.environ["HAILER_TEST_CLIENT_ENV"])
# The most seconds one run of made-up code may take.
RUN_SECONDS = 5
RUNTIME_NAMES = re.compile(r"(docker|sandbox|unsafe-local)")
REFUSED_RUNTIME = "no-such-runtime"
MODEL_PROVIDER = "scripted"


def _is_whole(value, low, high):
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and math.isfinite(value)
        and value == int(value)
        and low <= value <= high
    )


def _confine_env(env):
    """Renames `HAILER_*` variables out of the daemon's sight, keeping their values (and so
    whether the request is valid), and sends what the test's client sends: its variables and
    the scripted model's key."""
    if not isinstance(env, dict):
        return env
    confined = {}
    for name, value in env.items():
        if name.upper().startswith("HAILER"):
            name = "FUZZED_" + name
        confined[name] = value
    confined.update(CLIENT_ENV)
    confined[KEY_VARIABLE] = KEY
    return confined


def _confine_start(body):
    cwd = body.get("cwd")
    if isinstance(cwd, str) and cwd.startswith("/"):
        body["cwd"] = WORKSPACE
    if isinstance(body.get("workspace"), str):
        body["workspace"] = WORKSPACE
    if isinstance(body.get("config"), str):
        # Another configuration file is another set of settings, which would replace the
        # test's session; the field is optional, so leaving it out keeps the request valid.
        del body["config"]
    kernel = body.get("kernel")
    if kernel is None or (isinstance(kernel, str) and RUNTIME_NAMES.fullmatch(kernel)):
        # Every start names the runtime, as the test's own start does: a runtime named by the
        # client is not one of the file's settings that trust covers, and a start whose trusted
        # settings differ from the live session's replaces it when it is idle.
        body["kernel"] = "sandbox"
    elif isinstance(kernel, str) and any(
        word in kernel.lower() for word in ("docker", "sandbox", "unsafe", "local")
    ):
        # Invalid, but close to a runtime's name: a name no runtime has, so it stays refused.
        body["kernel"] = REFUSED_RUNTIME
    model = body.get("model")
    if isinstance(model, str) and ":" in model:
        body["model"] = MODEL_PROVIDER + ":" + model.split(":", 1)[1]
    # A client always sends its variables; a start without them would be another set of
    # settings, which replaces the test's idle session.
    body["env"] = _confine_env(body.get("env", {}))


def _bound_run(body):
    timeout = body.get("timeoutSecs")
    if timeout is None or _is_whole(timeout, 1, 86400):
        body["timeoutSecs"] = RUN_SECONDS


def _confine_turn(body):
    if "env" in body:
        body["env"] = _confine_env(body["env"])


CONFINE = {
    ("POST", "/v1/sessions"): _confine_start,
    ("POST", "/v1/sessions/{id}/exec"): _bound_run,
    ("POST", "/v1/sessions/{id}/turns"): _confine_turn,
}


@schemathesis.hook
def before_call(ctx, case, kwargs):
    confine = CONFINE.get((case.operation.method.upper(), case.operation.path))
    if confine is not None and isinstance(case.body, dict):
        confine(case.body)
