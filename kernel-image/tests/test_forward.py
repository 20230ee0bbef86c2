"""The TCP forwarder, run as a real process between real sockets on 127.0.0.1."""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Generator, Iterator
from contextlib import contextmanager

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hailer_kernel.forward import Address, parse_address

Handler = Callable[[socket.socket], None]
TIMEOUT = 20.0


class Upstream:
    """A TCP server on 127.0.0.1 that runs ``handler`` for each connection in its own thread."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port: int = self.sock.getsockname()[1]
        self.errors: list[BaseException] = []
        self.connections = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._run, args=(conn,), daemon=True).start()

    def _run(self, conn: socket.socket) -> None:
        conn.settimeout(TIMEOUT)
        try:
            self.handler(conn)
        except Exception as err:  # noqa: BLE001 - reported by the test through self.errors
            self.errors.append(err)
        finally:
            conn.close()

    def close(self) -> None:
        self.sock.close()


def echo(conn: socket.socket) -> None:
    """Send back everything, then shut the sending half once the client has shut its own."""
    while chunk := conn.recv(65536):
        conn.sendall(chunk)
    conn.shutdown(socket.SHUT_WR)


def recv_all(sock: socket.socket) -> bytes:
    parts = []
    while chunk := sock.recv(65536):
        parts.append(chunk)
    return b"".join(parts)


@contextmanager
def forwarder(upstream_port: int) -> Generator[tuple[int, subprocess.Popen[str]]]:
    """Start ``python -m hailer_kernel.forward 127.0.0.1:0 127.0.0.1:<upstream_port>``."""
    env = dict(os.environ, PYTHONPATH=str(_kernel_image()), PYTHONDONTWRITEBYTECODE="1")
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "hailer_kernel.forward",
            "127.0.0.1:0",
            f"127.0.0.1:{upstream_port}",
        ],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    try:
        assert process.stderr is not None
        first_line = process.stderr.readline()
        match = re.match(r"Forwarding 127\.0\.0\.1:(\d+) to 127\.0\.0\.1:\d+\.", first_line)
        assert match, f"unexpected first line from the forwarder: {first_line!r}"
        yield int(match[1]), process
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _kernel_image() -> str:
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def connect(port: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
    sock.settimeout(TIMEOUT)
    return sock


@pytest.fixture
def echo_upstream() -> Iterator[Upstream]:
    server = Upstream(echo)
    yield server
    server.close()
    assert not server.errors, server.errors


def test_bytes_come_back_unchanged(echo_upstream: Upstream) -> None:
    with forwarder(echo_upstream.port) as (port, _), connect(port) as sock:
        message = bytes(range(256)) * 4 + b"\r\n\r\n\x00GET / HTTP/1.1\r\n"
        sock.sendall(message)
        sock.shutdown(socket.SHUT_WR)
        assert recv_all(sock) == message


def test_large_payloads_in_both_directions_at_once(echo_upstream: Upstream) -> None:
    payload = os.urandom(1 << 20) * 24  # 24 MiB, sent while the echo streams back
    with forwarder(echo_upstream.port) as (port, _), connect(port) as sock:
        received: list[bytes] = []
        reader = threading.Thread(target=lambda: received.append(recv_all(sock)))
        reader.start()
        sock.sendall(payload)
        sock.shutdown(socket.SHUT_WR)
        reader.join(TIMEOUT * 3)
        assert not reader.is_alive(), "the echo did not finish"
    assert len(received[0]) == len(payload)
    assert hashlib.sha256(received[0]).digest() == hashlib.sha256(payload).digest()


def test_client_half_close_reaches_upstream_and_the_reply_still_arrives() -> None:
    def reply_after_eof(conn: socket.socket) -> None:
        request = recv_all(conn)  # returns only once the client's shutdown arrived
        conn.sendall(b"got " + str(len(request)).encode() + b" bytes")

    server = Upstream(reply_after_eof)
    with forwarder(server.port) as (port, _), connect(port) as sock:
        sock.sendall(b"x" * 100_000)
        sock.shutdown(socket.SHUT_WR)
        assert recv_all(sock) == b"got 100000 bytes"
    server.close()
    assert not server.errors, server.errors


def test_upstream_half_close_reaches_client_which_can_still_send() -> None:
    heard: list[bytes] = []

    def greet_then_listen(conn: socket.socket) -> None:
        conn.sendall(b"hello")
        conn.shutdown(socket.SHUT_WR)
        heard.append(recv_all(conn))

    server = Upstream(greet_then_listen)
    with forwarder(server.port) as (port, _), connect(port) as sock:
        assert recv_all(sock) == b"hello"  # end of stream seen by the client
        sock.sendall(b"still talking")
        sock.shutdown(socket.SHUT_WR)
        deadline = time.monotonic() + TIMEOUT
        while not heard and time.monotonic() < deadline:
            time.sleep(0.01)
    server.close()
    assert not server.errors, server.errors
    assert heard == [b"still talking"]


def test_many_connections_at_once(echo_upstream: Upstream) -> None:
    # several rounds: connections that lose their last reference mid-way fail now and then only
    rounds, per_round = 5, 40
    failures: list[int] = []

    def one(index: int, port: int) -> None:
        message = f"connection {index}".encode() * 1000
        try:
            with connect(port) as sock:
                sock.sendall(message)
                sock.shutdown(socket.SHUT_WR)
                if recv_all(sock) != message:
                    failures.append(index)
        except OSError:
            failures.append(index)

    with forwarder(echo_upstream.port) as (port, _):
        for _ in range(rounds):
            threads = [threading.Thread(target=one, args=(i, port)) for i in range(per_round)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(TIMEOUT)
    assert failures == []
    assert echo_upstream.connections == rounds * per_round


def test_a_slow_reader_does_not_fill_the_forwarders_memory() -> None:
    release = threading.Event()

    def stall(conn: socket.socket) -> None:
        release.wait(TIMEOUT * 2)  # reads nothing until released

    server = Upstream(stall)
    with forwarder(server.port) as (port, process):
        before = _rss_kib(process.pid)
        with connect(port) as sock:
            sock.settimeout(3)
            sent = 0
            chunk = b"z" * 65536
            try:
                while sent < 256 << 20:
                    sent += sock.send(chunk)
            except TimeoutError:
                pass  # the sender is blocked: back-pressure reached it
            grown_kib = _rss_kib(process.pid) - before
            release.set()
    server.close()
    assert sent < 64 << 20, f"{sent} bytes went in before the sender was held back"
    assert grown_kib < 16 * 1024, f"the forwarder grew by {grown_kib} KiB"


def test_an_unreachable_upstream_closes_the_client() -> None:
    with socket.create_server(("127.0.0.1", 0)) as placeholder:
        dead_port = placeholder.getsockname()[1]
    with forwarder(dead_port) as (port, process):
        # a reset is as clear a close as an end of stream
        with connect(port) as sock, contextlib.suppress(ConnectionResetError):
            assert sock.recv(1) == b""
        assert process.poll() is None, "the forwarder itself must keep running"


def test_terminate_stops_it_cleanly(echo_upstream: Upstream) -> None:
    with forwarder(echo_upstream.port) as (port, process), connect(port):
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=10) == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["2718"], "the following arguments are required: upstream"),
        (["2718", "kernel"], "has no port"),
        (["2718", "kernel:99999"], "the port must be a number from 1 to 65535"),
        (["::1:80", "kernel:2718"], "put an IPv6 address in brackets"),
    ],
)
def test_bad_arguments_are_explained(args: list[str], message: str) -> None:
    env = dict(os.environ, PYTHONPATH=_kernel_image())
    result = subprocess.run(
        [sys.executable, "-m", "hailer_kernel.forward", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=TIMEOUT,
    )
    assert result.returncode == 2
    assert message in result.stderr


def test_a_busy_listen_port_is_reported() -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        result = subprocess.run(
            [sys.executable, "-m", "hailer_kernel.forward", f"127.0.0.1:{port}", "127.0.0.1:1"],
            capture_output=True,
            text=True,
            env=dict(os.environ, PYTHONPATH=_kernel_image()),
            timeout=TIMEOUT,
        )
    assert result.returncode == 1
    assert f"Cannot listen on 127.0.0.1:{port}" in result.stderr


@pytest.mark.parametrize(
    ("text", "address"),
    [
        ("2718", Address("0.0.0.0", 2718)),
        ("127.0.0.1:80", Address("127.0.0.1", 80)),
        ("hailer-kernel-0a1b2c3d4e-abcdef:2718", Address("hailer-kernel-0a1b2c3d4e-abcdef", 2718)),
        ("[::1]:2718", Address("::1", 2718)),
    ],
)
def test_addresses(text: str, address: Address) -> None:
    assert parse_address(text, default_host="0.0.0.0") == address


@given(st.text(max_size=40))
def test_any_address_text_parses_or_is_explained(text: str) -> None:
    try:
        address = parse_address(text, default_host="0.0.0.0", allow_port_zero=True)
    except ValueError as err:
        assert str(err)
        return
    assert 0 <= address.port <= 65535
    assert parse_address(str(address), allow_port_zero=True) == address


def _rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS line")
