"""Containment probes, run from inside the kernel: what code here can do and reach.

``hailer doctor --probe`` has the daemon run this file, as its own source, in a fresh process
started like the kernel (a new container from the kernel's image and settings, or a fresh
``python -I -S`` of the managed environment): nothing that ran in the kernel before can change
it. Each probe tries the thing it guards against (or reads the limit the kernel enforces) and
says what it observed; ``facts`` holds the raw observations the daemon grades, and ``passed`` is
this module's own reading of them (for people running it by hand). Nothing here prints or
returns a secret's value: names and paths only. Only the standard library is used: the daemon
runs it with ``site`` disabled.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import signal
import socket
import struct
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypedDict

# The same suffixes the daemon's log masking treats as secret-looking variable names.
SECRET_NAME_SUFFIXES = ("_KEY", "_TOKEN", "_SECRET", "_PASSWORD")
# Key shapes, and credentials in a URL (`scheme://user:password@host`, as in a proxy or an
# index address), which are secrets whatever the variable's name.
SECRET_VALUE = re.compile(
    r"\bsk-[A-Za-z0-9_-]{6,}|(?i:\bbearer\s+\S{8,})"
    r"|(?i:\b[a-z][a-z0-9+.-]*://[^\s/?#@:]*:[^\s/?#@]+@)"
)
DOCKER_SOCKETS = ("/var/run/docker.sock", "/run/docker.sock")
# A public address and port that answers on any connected network.
PUBLIC_TARGETS = (("1.1.1.1", 443), ("8.8.8.8", 53))
PUBLIC_NAME = "example.com"
# The usual Docker bridge gateway, tried when the kernel has no default route.
DOCKER_GATEWAY = "172.17.0.1"
# Any port: a refused connection proves the host answered as well as an accepted one.
GATEWAY_PORT = 9
# Fork at most this many children beyond the limit before calling it unenforced.
PIDS_MARGIN = 16
# A process limit above this does not contain a fork bomb, and is not tried.
PIDS_TEST_CEILING = 4096
# The largest memory limit counted as one (beyond it, the kernel could take the machine's memory).
MEMORY_TEST_CEILING = 16 * 1024**3


class Probe(TypedDict):
    probe: str
    passed: bool
    observed: str
    facts: dict[str, Any]


def _result(probe: str, passed: bool, observed: str, **facts: Any) -> Probe:
    return {"probe": probe, "passed": passed, "observed": observed, "facts": facts}


def uid() -> Probe:
    current = os.getuid()
    return _result(
        "uid not 0",
        current != 0,
        f"uid {current}" + (" (root)" if current == 0 else ""),
        uid=current,
    )


def capabilities(status: str | None = None) -> Probe:
    """No effective capabilities, and none left in the bounding set to gain."""
    text = status if status is not None else Path("/proc/self/status").read_text()
    found = dict(re.findall(r"^(Cap\w+):\s*([0-9a-f]+)$", text, re.MULTILINE))
    effective = int(found.get("CapEff", "0"), 16)
    bounding = int(found.get("CapBnd", "0"), 16)
    return _result(
        "no capabilities",
        effective == 0 and bounding == 0,
        f"effective {effective:#x}, bounding set {bounding:#x}",
        effective=effective,
        bounding=bounding,
    )


def _writable(folder: Path) -> str | None:
    """What writing a file in ``folder`` did: None when it was refused."""
    try:
        handle, name = tempfile.mkstemp(dir=folder, prefix=".hailer-probe-")
    except OSError:
        return None
    os.close(handle)
    with contextlib.suppress(OSError):
        os.unlink(name)
    return f"wrote a file in {folder}"


def read_only_root() -> Probe:
    flags = os.statvfs("/").f_flag
    if flags & os.ST_RDONLY:
        return _result("read-only root", True, "/ is mounted read-only", readOnly=True)
    wrote = _writable(Path("/"))
    return _result(
        "read-only root",
        False,
        "/ is mounted read-write" + (f" and this user {wrote}" if wrote else ""),
        readOnly=False,
        wrote=bool(wrote),
    )


def data_read_only(data_dir: Path) -> Probe:
    if not data_dir.is_dir():
        return _result("data not writable", False, f"{data_dir} is not a folder here", folder=False)
    wrote = _writable(data_dir)
    if wrote:
        return _result("data not writable", False, wrote, folder=True, wrote=True)
    return _result(
        "data not writable",
        True,
        f"writing in {data_dir} was refused",
        folder=True,
        wrote=False,
    )


def _tcp(host: str, port: int, timeout: float) -> str | None:
    """What a TCP connection to ``host:port`` met: None when nothing answered."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        try:
            sock.connect((host, port))
        except ConnectionRefusedError:
            return f"{host}:{port} refused the connection (packets get through)"
        except OSError:
            return None
        return f"connected to {host}:{port}"


def default_gateway(route_table: str | None = None) -> str | None:
    """The IPv4 default route's gateway, from ``/proc/net/route``."""
    try:
        text = route_table if route_table is not None else Path("/proc/net/route").read_text()
    except OSError:
        return None
    for line in text.splitlines()[1:]:
        fields = line.split()
        if len(fields) > 2 and fields[1] == "00000000":
            return socket.inet_ntoa(struct.pack("<L", int(fields[2], 16)))
    return None


def host_gateway(timeout: float) -> Probe:
    gateway = default_gateway()
    target = gateway or DOCKER_GATEWAY
    met = _tcp(target, GATEWAY_PORT, timeout)
    route = f"default route via {gateway}" if gateway else "no default route"
    if met:
        return _result("no TCP to the host gateway", False, f"{route}; {met}", answered=True)
    return _result(
        "no TCP to the host gateway",
        True,
        f"{route}; nothing answered at {target}",
        answered=False,
    )


def public_address(timeout: float, targets: Iterable[tuple[str, int]] | None = None) -> Probe:
    tried = []
    for host, port in PUBLIC_TARGETS if targets is None else targets:
        met = _tcp(host, port, timeout)
        if met:
            return _result("no TCP to a public address", False, met, answered=True)
        tried.append(f"{host}:{port}")
    return _result(
        "no TCP to a public address",
        True,
        f"nothing answered at {', '.join(tried)}",
        answered=False,
    )


def dns(name: str = PUBLIC_NAME) -> Probe:
    try:
        found = socket.getaddrinfo(name, 443, proto=socket.IPPROTO_TCP)
    except OSError as error:
        return _result(
            "no DNS", True, f"{name} did not resolve ({error.strerror or error})", resolved=False
        )
    addresses = sorted({str(entry[4][0]) for entry in found})
    return _result("no DNS", False, f"{name} resolved to {', '.join(addresses[:3])}", resolved=True)


# Where each limit lives: the cgroup v2 file, and the v1 controller and file.
_CGROUP_FILES = {
    "pids.max": ("pids", "pids.max"),
    "memory.max": ("memory", "memory.limit_in_bytes"),
}
# cgroup v1 writes "no limit" as a huge number rather than "max".
_UNLIMITED = 1 << 60


def _cgroup_paths() -> dict[str, str]:
    """This process's cgroup per controller (``""`` for the v2 hierarchy)."""
    paths: dict[str, str] = {}
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return paths
    for line in lines:
        number, controllers, path = [*line.split(":", 2), "", ""][:3]
        if number == "0" and not controllers:
            paths[""] = path
        for controller in controllers.split(","):
            if controller:
                paths[controller] = path
    return paths


def _cgroup_limit(name: str) -> int | None:
    """The limit ``name`` (``pids.max`` or ``memory.max``) of this process's cgroup, v2 or v1;
    None when there is none."""
    root = Path("/sys/fs/cgroup")
    paths = _cgroup_paths()
    controller, v1_file = _CGROUP_FILES[name]
    candidates = []
    if "" in paths:
        candidates += [root / paths[""].lstrip("/") / name, root / name]
    candidates += [
        root / controller / paths.get(controller, "").lstrip("/") / v1_file,
        root / controller / v1_file,
    ]
    for candidate in candidates:
        try:
            text = candidate.read_text().strip()
        except OSError:
            continue
        if text == "max" or int(text) >= _UNLIMITED:
            return None
        return int(text)
    return None


def _fork_children(count: int) -> tuple[list[int], int | None]:
    """Forks up to ``count`` children that wait to be killed; the pids and the refusal's errno."""
    children: list[int] = []
    for _ in range(count):
        try:
            pid = os.fork()
        except OSError as error:
            return children, error.errno
        if pid == 0:  # pragma: no cover - the child only waits
            try:
                signal.pause()
            finally:
                os._exit(0)
        children.append(pid)
    return children, None


def _reap(children: Iterable[int]) -> None:
    children = list(children)
    for pid in children:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    for pid in children:
        with contextlib.suppress(OSError):
            os.waitpid(pid, 0)


def pids_limit(limit: Callable[[str], int | None] = _cgroup_limit) -> Probe:
    maximum = limit("pids.max")
    if maximum is None:
        return _result(
            "pids limit holds", False, "no process limit is set (pids.max is max)", limit=None
        )
    if maximum > PIDS_TEST_CEILING:
        return _result(
            "pids limit holds",
            False,
            f"the process limit is {maximum}, above the {PIDS_TEST_CEILING} that stops a fork bomb",
            limit=maximum,
            refused=False,
        )
    children, refused = _fork_children(maximum + PIDS_MARGIN)
    _reap(children)
    if refused is None:
        return _result(
            "pids limit holds",
            False,
            f"forked {len(children)} processes under a limit of {maximum}",
            limit=maximum,
            refused=False,
        )
    return _result(
        "pids limit holds",
        True,
        f"fork refused ({errno.errorcode.get(refused, refused)}) after {len(children)} children; limit {maximum}",
        limit=maximum,
        refused=True,
    )


# What the memory probe's child allocates at a time, and past the limit, before it says the
# limit did not hold.
MEMORY_CHUNK = 64 * 1024 * 1024
MEMORY_MARGIN = 128 * 1024 * 1024


def _allocate_past(limit: int) -> int:
    """Forks a child that makes itself the first the kernel ends when memory runs out
    (``oom_score_adj`` 1000) and fills memory in chunks to ``limit`` plus a margin. Returns the
    child's wait status: killed by SIGKILL when the limit held, exit 0 when it did not."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child runs until the limit ends it
        try:
            with contextlib.suppress(OSError), open("/proc/self/oom_score_adj", "w") as adj:
                adj.write("1000")
            blocks = []
            filled = 0
            while filled < limit + MEMORY_MARGIN:
                blocks.append(b"\x01" * MEMORY_CHUNK)  # written, so the pages are really used
                filled += MEMORY_CHUNK
            os._exit(0)
        except MemoryError:
            os._exit(3)
        finally:
            os._exit(4)
    _, status = os.waitpid(pid, 0)
    return status


def memory_limit(
    limit: Callable[[str], int | None] = _cgroup_limit,
    allocate: Callable[[int], int] = _allocate_past,
) -> Probe:
    """The kernel's memory limit ends a process that allocates past it. The probe's child
    offers itself first to the out-of-memory killer, so the notebook's own process is spared."""
    maximum = limit("memory.max")
    if maximum is None:
        return _result(
            "memory limit holds", False, "no memory limit is set (memory.max is max)", limit=None
        )
    mib = maximum // (1024 * 1024)
    if maximum > MEMORY_TEST_CEILING:
        return _result(
            "memory limit holds",
            False,
            f"the limit is {mib} MiB, more than {MEMORY_TEST_CEILING >> 20} MiB",
            limit=maximum,
            held=False,
        )
    status = allocate(maximum)
    if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL:
        return _result(
            "memory limit holds",
            True,
            f"a process allocating past memory.max ({mib} MiB) was ended by the limit",
            limit=maximum,
            held=True,
        )
    if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 3:
        return _result(
            "memory limit holds",
            True,
            f"allocation past memory.max ({mib} MiB) was refused",
            limit=maximum,
            held=True,
        )
    if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0:
        return _result(
            "memory limit holds",
            False,
            f"a process allocated {mib + (MEMORY_MARGIN >> 20)} MiB under a limit of {mib} MiB",
            limit=maximum,
            held=False,
        )
    return _result(
        "memory limit holds",
        False,
        f"the allocating process ended otherwise (status {status})",
        limit=maximum,
        held=False,
    )


def environment_secrets(environ: dict[str, str] | None = None) -> Probe:
    environ = dict(os.environ) if environ is None else environ
    names = sorted(
        name
        for name, value in environ.items()
        if name.upper().endswith(SECRET_NAME_SUFFIXES) or SECRET_VALUE.search(value)
    )
    if names:
        return _result(
            "no secret in the environment", False, f"found {', '.join(names)}", names=names
        )
    return _result(
        "no secret in the environment",
        True,
        f"{len(environ)} variables, none secret-looking",
        names=names,
    )


def tokens_on_disk(paths: Iterable[str]) -> Probe:
    """None of ``paths`` (and nothing under ``/run/secrets``) is readable with content."""
    candidates = [Path(path) for path in paths]
    secrets = Path("/run/secrets")
    if secrets.is_dir():
        with contextlib.suppress(OSError):
            candidates.extend(path for path in secrets.iterdir() if path.is_file())
    readable = []
    for path in candidates:
        try:
            with open(path, "rb") as handle:
                if handle.read(1):
                    readable.append(str(path))
        except OSError:
            continue
    if readable:
        return _result(
            "no token on disk", False, f"readable: {', '.join(readable)}", readable=readable
        )
    return _result(
        "no token on disk",
        True,
        f"checked {len(candidates)} places; none readable with content",
        readable=readable,
    )


def docker_socket(sockets: Iterable[str] = DOCKER_SOCKETS) -> Probe:
    present = [path for path in sockets if os.path.exists(path)]
    if os.environ.get("DOCKER_HOST"):
        present.append("DOCKER_HOST is set")
    if present:
        return _result(
            "Docker socket absent", False, f"found {', '.join(present)}", present=present
        )
    return _result("Docker socket absent", True, f"none of {', '.join(sockets)}", present=present)


def shared_limit(probe: str, name: str) -> Probe:
    """A kernel that is not contained shares the limits of the session it runs in: they are
    read, not tried (trying them would press on everything else running there)."""
    limit = _cgroup_limit(name)
    found = "none" if limit is None else str(limit)
    return _result(
        probe,
        False,
        f"not tried: this kernel has no limit of its own ({name} of its session: {found})",
        limit=limit,
        tried=False,
    )


def run(
    data_dir: str | None = None,
    token_paths: Iterable[str] = (),
    timeout: float = 2.0,
    contained: bool = True,
) -> list[Probe]:
    """Every probe, in order. ``data_dir`` defaults to the workspace's data folder as the
    starter notebook finds it (``/work/data`` in a docker kernel). With ``contained`` false (an
    unsafe-local kernel) the process and memory limits are read and reported, never tried."""
    if data_dir is None:
        from hailer_kernel.workspace import data_folder, find_workspace

        data = data_folder(find_workspace())
    else:
        data = Path(data_dir)
    checks: list[Callable[[], Probe]] = [
        uid,
        capabilities,
        read_only_root,
        lambda: data_read_only(data),
        lambda: host_gateway(timeout),
        lambda: public_address(timeout),
        dns,
        pids_limit if contained else lambda: shared_limit("pids limit holds", "pids.max"),
        memory_limit if contained else lambda: shared_limit("memory limit holds", "memory.max"),
        environment_secrets,
        lambda: tokens_on_disk(token_paths),
        docker_socket,
    ]
    return [check() for check in checks]


def report(
    data_dir: str | None = None,
    token_paths: Iterable[str] = (),
    timeout: float = 2.0,
    contained: bool = True,
) -> str:
    """:func:`run` as one line of JSON, which ``hailer doctor --probe`` reads."""
    return json.dumps(
        run(data_dir=data_dir, token_paths=token_paths, timeout=timeout, contained=contained)
    )


def main(nonce: str, data_dir: str, token_paths: Iterable[str], contained: bool) -> None:
    """What the daemon's fresh process runs: every probe, printed as one line of JSON after
    ``nonce`` (fresh for every run), so no line printed by anything else is taken for it."""
    results = run(data_dir=data_dir, token_paths=token_paths, contained=contained)
    print(nonce + json.dumps(results), flush=True)
