"""The containment probes, each shown failing where the protection is absent on this machine and
passing where it holds (a user without privileges, a process limit, closed or silent addresses)."""

from __future__ import annotations

import json
import os
import resource
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

from hailer_kernel import probes

KERNEL_IMAGE = Path(__file__).resolve().parent.parent
NOBODY = 65534


def run_as_nobody(probe: Callable[[], probes.Probe], *, rlimit_nproc: int | None = None) -> dict:
    """Runs ``probe`` in a forked child as an unprivileged user (nobody, when the tests run as
    root), optionally under a process limit, and returns its result."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            os.close(read)
            if os.getuid() == 0:
                os.setgid(NOBODY)
                os.setuid(NOBODY)
            if rlimit_nproc is not None:
                resource.setrlimit(resource.RLIMIT_NPROC, (rlimit_nproc, rlimit_nproc))
            os.write(write, json.dumps(probe()).encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        text = pipe.read()
    os.waitpid(pid, 0)
    return json.loads(text)


def run_without_network(function: str) -> dict:
    """Runs ``probes.<function>`` in a new network namespace (no interface up), where nothing
    answers and no name resolves."""
    done = subprocess.run(
        [
            "unshare",
            "-rn",
            sys.executable,
            "-c",
            f"import json; from hailer_kernel import probes; print(json.dumps(probes.{function}))",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(KERNEL_IMAGE)},
        check=False,
    )
    assert done.returncode == 0, f"unshare (util-linux) is needed: {done.stderr}"
    return json.loads(done.stdout)


def test_uid_reports_the_user() -> None:
    result = probes.uid()
    assert result["passed"] == (os.getuid() != 0)
    assert result["observed"].startswith(f"uid {os.getuid()}")


def test_capabilities_pass_only_with_empty_effective_and_bounding_sets() -> None:
    none = "CapInh:\t0000000000000000\nCapEff:\t0000000000000000\nCapBnd:\t0000000000000000\n"
    some = "CapEff:\t0000000000000000\nCapBnd:\t000001ffffffffff\n"
    assert probes.capabilities(none)["passed"] is True
    failed = probes.capabilities(some)
    assert failed["passed"] is False
    assert failed["observed"] == "effective 0x0, bounding set 0x1ffffffffff"


def test_a_writable_data_folder_fails_and_a_refused_one_passes(tmp_path: Path) -> None:
    failed = probes.data_read_only(tmp_path)
    assert failed == {
        "probe": "data not writable",
        "passed": False,
        "observed": f"wrote a file in {tmp_path}",
        "facts": {"folder": True, "wrote": True},
    }
    assert list(tmp_path.iterdir()) == [], "the probe left its file behind"
    # pytest's own folders are private to this user; the unprivileged child needs a way in.
    with tempfile.TemporaryDirectory(dir="/tmp") as outer:
        Path(outer).chmod(0o755)
        locked = Path(outer) / "locked"
        locked.mkdir(mode=0o555)
        passed = run_as_nobody(lambda: probes.data_read_only(locked))
    assert passed["passed"] is True, passed
    assert passed["observed"] == f"writing in {locked} was refused"


def test_a_missing_data_folder_fails(tmp_path: Path) -> None:
    result = probes.data_read_only(tmp_path / "absent")
    assert result["passed"] is False
    assert "is not a folder here" in result["observed"]


def test_the_root_file_system_of_this_machine_is_writable() -> None:
    result = probes.read_only_root()
    assert result["passed"] is bool(os.statvfs("/").f_flag & os.ST_RDONLY)


def test_the_default_gateway_is_read_from_the_route_table() -> None:
    table = (
        "Iface\tDestination\tGateway\tFlags\tRefCnt\tUse\tMetric\tMask\n"
        "eth0\t0011A8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\n"
        "eth0\t00000000\t010011AC\t0003\t0\t0\t0\t00000000\n"
    )
    assert probes.default_gateway(table) == "172.17.0.1"
    assert probes.default_gateway(table.splitlines()[0] + "\n") is None


def test_an_answering_address_fails_whether_it_accepts_or_refuses() -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        open_port = listener.getsockname()[1]
        accepted = probes.public_address(1.0, [("127.0.0.1", open_port)])
    assert accepted["passed"] is False
    assert accepted["observed"] == f"connected to 127.0.0.1:{open_port}"
    refused = probes.public_address(1.0, [("127.0.0.1", open_port)])
    assert refused["passed"] is False
    assert "refused the connection (packets get through)" in refused["observed"]


def test_without_a_network_no_address_answers_and_no_name_resolves() -> None:
    public = run_without_network("public_address(0.5)")
    assert public == {
        "probe": "no TCP to a public address",
        "passed": True,
        "observed": "nothing answered at 1.1.1.1:443, 8.8.8.8:53",
        "facts": {"answered": False},
    }
    gateway = run_without_network("host_gateway(0.5)")
    assert gateway == {
        "probe": "no TCP to the host gateway",
        "passed": True,
        "observed": "no default route; nothing answered at 172.17.0.1",
        "facts": {"answered": False},
    }
    resolved = run_without_network("dns()")
    assert resolved["passed"] is True, resolved
    assert resolved["observed"].startswith("example.com did not resolve")


def test_dns_fails_when_a_name_resolves_and_passes_when_none_does() -> None:
    resolved = probes.dns("localhost")
    assert resolved["passed"] is False
    assert resolved["observed"].startswith("localhost resolved to ")
    assert probes.dns("no-such-host.invalid")["passed"] is True


def test_no_process_limit_fails_without_forking() -> None:
    result = probes.pids_limit(lambda _name: None)
    assert result == {
        "probe": "pids limit holds",
        "passed": False,
        "observed": "no process limit is set (pids.max is max)",
        "facts": {"limit": None},
    }


def test_a_limit_that_does_not_stop_forks_fails() -> None:
    result = probes.pids_limit(lambda _name: 4)
    assert result["passed"] is False
    assert result["observed"] == f"forked {4 + probes.PIDS_MARGIN} processes under a limit of 4"


def test_a_limit_that_refuses_forks_passes() -> None:
    result = run_as_nobody(lambda: probes.pids_limit(lambda _name: 8), rlimit_nproc=8)
    assert result["passed"] is True, result
    assert result["observed"].startswith("fork refused (EAGAIN) after ")


def test_a_limit_too_high_to_stop_a_fork_bomb_fails_without_forking() -> None:
    result = probes.pids_limit(lambda _name: 100_000)
    assert result["passed"] is False
    assert (
        result["observed"] == "the process limit is 100000, above the 4096 that stops a fork bomb"
    )


def test_the_limits_of_this_process_are_read_from_its_cgroup() -> None:
    # Whatever this machine sets, the reading is a number or "none", never an error.
    for name in ("pids.max", "memory.max"):
        limit = probes._cgroup_limit(name)
        assert limit is None or limit > 0


def _status_of_child(action) -> int:
    """The real wait status of a child that runs ``action``."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        action()
        os._exit(0)
    return os.waitpid(pid, 0)[1]


def test_a_memory_limit_holds_when_the_allocating_child_is_killed_or_refused() -> None:
    half_gib = 512 * 1024 * 1024
    killed = _status_of_child(lambda: os.kill(os.getpid(), signal.SIGKILL))
    assert probes.memory_limit(lambda _name: half_gib, lambda _limit: killed) == {
        "probe": "memory limit holds",
        "passed": True,
        "observed": "a process allocating past memory.max (512 MiB) was ended by the limit",
        "facts": {"limit": half_gib, "held": True},
    }
    refused = _status_of_child(lambda: os._exit(3))
    assert probes.memory_limit(lambda _name: half_gib, lambda _limit: refused)["passed"] is True
    crashed = _status_of_child(lambda: os._exit(4))
    assert probes.memory_limit(lambda _name: half_gib, lambda _limit: crashed)["passed"] is False


def test_a_memory_limit_fails_when_absent_huge_or_not_enforced() -> None:
    assert probes.memory_limit(lambda _name: None)["passed"] is False
    assert probes.memory_limit(lambda _name: 64 * 1024**3)["passed"] is False
    # No cgroup limits this test's process: the real child fills 64 MiB plus the margin and
    # exits, so the probe says the limit did not hold.
    result = probes.memory_limit(lambda _name: 64 * 1024 * 1024)
    assert result == {
        "probe": "memory limit holds",
        "passed": False,
        "observed": "a process allocated 192 MiB under a limit of 64 MiB",
        "facts": {"limit": 64 * 1024 * 1024, "held": False},
    }


def test_secret_looking_variables_are_named_never_shown() -> None:
    failed = probes.environment_secrets(
        {"HOME": "/home/a", "OPENAI_API_KEY": "value-1", "NOTE": "sk-abcdefgh1234"}
    )
    assert failed["passed"] is False
    assert failed["observed"] == "found NOTE, OPENAI_API_KEY"
    assert "value-1" not in json.dumps(failed) and "sk-abc" not in json.dumps(failed)
    assert probes.environment_secrets({"HOME": "/home/a"})["passed"] is True


def test_a_url_with_credentials_is_a_secret_whatever_its_name() -> None:
    failed = probes.environment_secrets(
        {
            "HTTPS_PROXY": "http://user:s3cretpass@proxy.example:3128",
            "PIP_INDEX_URL": "https://ana:pw@m.example/simple",
            "HTTP_PROXY": "http://proxy.example:3128",
        }
    )
    assert failed["observed"] == "found HTTPS_PROXY, PIP_INDEX_URL"
    assert "s3cretpass" not in json.dumps(failed)


def test_a_readable_token_file_fails_and_an_emptied_one_passes(tmp_path: Path) -> None:
    token = tmp_path / "token"
    token.write_text("secret-token-value")
    failed = probes.tokens_on_disk([str(token), str(tmp_path / "absent")])
    assert failed["passed"] is False
    assert failed["observed"] == f"readable: {token}"
    token.write_text("")
    assert probes.tokens_on_disk([str(token)])["passed"] is True


def test_a_docker_socket_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DOCKER_HOST", raising=False)
    path = tmp_path / "docker.sock"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        failed = probes.docker_socket([str(path)])
    assert failed == {
        "probe": "Docker socket absent",
        "passed": False,
        "observed": f"found {path}",
        "facts": {"present": [str(path)]},
    }
    assert probes.docker_socket([str(tmp_path / "none.sock")])["passed"] is True


def test_the_report_holds_every_probe_in_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        probes, "pids_limit", lambda: probes._result("pids limit holds", False, "stub")
    )
    monkeypatch.setattr(
        probes, "memory_limit", lambda: probes._result("memory limit holds", False, "stub")
    )
    monkeypatch.setattr(probes, "PUBLIC_TARGETS", ())
    names = [
        entry["probe"] for entry in json.loads(probes.report(data_dir=str(tmp_path), timeout=0.3))
    ]
    assert names == [
        "uid not 0",
        "no capabilities",
        "read-only root",
        "data not writable",
        "no TCP to the host gateway",
        "no TCP to a public address",
        "no DNS",
        "pids limit holds",
        "memory limit holds",
        "no secret in the environment",
        "no token on disk",
        "Docker socket absent",
    ]


def test_an_uncontained_kernel_reads_its_limits_and_never_tries_them(tmp_path: Path) -> None:
    results = probes.run(data_dir=str(tmp_path), timeout=0.3, contained=False)
    limits = {entry["probe"]: entry for entry in results if "limit" in entry["probe"]}
    assert set(limits) == {"pids limit holds", "memory limit holds"}
    for entry in limits.values():
        assert entry["passed"] is False
        assert entry["observed"].startswith("not tried: this kernel has no limit of its own ")


def test_main_prints_every_probe_after_the_nonce(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    probes.main("nonce-1234:", str(tmp_path), [], contained=False)
    line = capsys.readouterr().out.strip()
    assert line.startswith("nonce-1234:")
    results = json.loads(line[len("nonce-1234:") :])
    assert [result["probe"] for result in results][:2] == ["uid not 0", "no capabilities"]
    assert all(isinstance(result["facts"], dict) for result in results)
