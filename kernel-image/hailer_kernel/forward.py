"""A byte-for-byte TCP forwarder: every connection to LISTEN is carried to UPSTREAM.

    python -m hailer_kernel.forward LISTEN UPSTREAM
    python -m hailer_kernel.forward 0.0.0.0:2718 hailer-kernel-0123456789-abcdef:2718

LISTEN is ``HOST:PORT`` or a bare ``PORT`` (all interfaces); UPSTREAM is ``HOST:PORT``; IPv6 hosts
go in brackets (``[::1]:2718``). Bytes pass unchanged in both directions, so HTTP, server-sent events
and WebSockets all work. When one side shuts its sending half, the other side's sending half is shut
too; a reset on either side closes both. Each direction holds at most a few hundred KiB in flight: a
slow reader slows the writer down instead of filling memory. Nothing that passes through is logged.
LISTEN may use port 0: the port the system picks is printed on the first line of standard error.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
from collections.abc import Sequence
from dataclasses import dataclass

#: Bytes read from one side before they are written to the other.
CHUNK_SIZE = 64 * 1024

#: Connections carried at once; more are closed at once until some end.
MAX_CONNECTIONS = 512

#: How long dialling the upstream may take.
CONNECT_TIMEOUT_SECONDS = 10.0


@dataclass(frozen=True)
class Address:
    """A host and a port."""

    host: str
    port: int

    def __str__(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"


def parse_address(
    text: str, *, default_host: str | None = None, allow_port_zero: bool = False
) -> Address:
    """``HOST:PORT`` (or ``[V6]:PORT``, or ``PORT`` when ``default_host`` is given) as an Address.

    Raises ``ValueError`` with a message for people when ``text`` is not one.
    """
    value = text.strip()
    if default_host is not None and _is_number(value):
        host, port_text = default_host, value
    elif value.startswith("["):
        host, sep, port_text = value[1:].partition("]:")
        if not sep:
            raise ValueError(f"{text!r} is not [IPv6]:PORT")
    else:
        host, sep, port_text = value.rpartition(":")
        if not sep:
            raise ValueError(f"{text!r} has no port: write HOST:PORT")
        if ":" in host:
            raise ValueError(f"{text!r}: put an IPv6 address in brackets, as [::1]:2718")
    if not host:
        raise ValueError(f"{text!r} has no host: write HOST:PORT")
    lowest = 0 if allow_port_zero else 1
    if not _is_number(port_text) or not lowest <= int(port_text) <= 65535:
        raise ValueError(f"{text!r}: the port must be a number from {lowest} to 65535")
    return Address(host, int(port_text))


def _is_number(text: str) -> bool:
    return text.isascii() and text.isdigit()


class Forwarder:
    """Accepts connections and carries each one to the upstream address."""

    def __init__(self, upstream: Address, *, max_connections: int = MAX_CONNECTIONS) -> None:
        self.upstream = upstream
        self.max_connections = max_connections
        # asyncio keeps only weak references to tasks: without these, a connection whose sockets
        # are both idle can be garbage-collected in the middle of its work
        self._tasks: set[asyncio.Task[None]] = set()

    async def serve(self, listen: Address) -> asyncio.Server:
        """Start listening on ``listen``; the returned server is already accepting."""
        return await asyncio.start_server(
            self._handle, listen.host, listen.port, limit=CHUNK_SIZE, reuse_address=True
        )

    async def _handle(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        if len(self._tasks) >= self.max_connections:
            client_w.transport.abort()
            return
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            try:
                # asyncio.timeout, not wait_for: wait_for can swallow a cancellation on 3.11
                async with asyncio.timeout(CONNECT_TIMEOUT_SECONDS):
                    upstream_r, upstream_w = await asyncio.open_connection(
                        self.upstream.host, self.upstream.port, limit=CHUNK_SIZE
                    )
            except (OSError, TimeoutError):
                client_w.transport.abort()
                return
            await _carry(client_r, client_w, upstream_r, upstream_w)
        finally:
            if task is not None:
                self._tasks.discard(task)

    @property
    def active(self) -> int:
        """How many connections are being carried."""
        return len(self._tasks)


async def _carry(
    a_r: asyncio.StreamReader,
    a_w: asyncio.StreamWriter,
    b_r: asyncio.StreamReader,
    b_w: asyncio.StreamWriter,
) -> None:
    """Copy a->b and b->a until both sides have finished sending, or either fails."""
    pumps = [asyncio.create_task(_pump(a_r, b_w)), asyncio.create_task(_pump(b_r, a_w))]
    try:
        done, _ = await asyncio.wait(pumps, return_when=asyncio.FIRST_EXCEPTION)
        if any(not pump.cancelled() and pump.exception() is not None for pump in done):
            for writer in (a_w, b_w):  # a side was reset: drop both connections at once
                writer.transport.abort()
    finally:
        for pump in pumps:
            pump.cancel()
        await asyncio.gather(*pumps, return_exceptions=True)
        for writer in (a_w, b_w):
            writer.close()
        for writer in (a_w, b_w):
            with contextlib.suppress(OSError):
                await writer.wait_closed()


async def _pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Copy ``reader`` into ``writer``; at end of stream, shut ``writer``'s sending half."""
    while True:
        chunk = await reader.read(CHUNK_SIZE)
        if not chunk:
            break
        writer.write(chunk)
        await writer.drain()
    if writer.can_write_eof() and not writer.transport.is_closing():
        writer.write_eof()


async def run(listen: Address, upstream: Address) -> None:
    """Forward from ``listen`` to ``upstream`` until SIGTERM or SIGINT (or cancellation)."""
    server = await Forwarder(upstream).serve(listen)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(signum, stop.set)
    bound = ", ".join(str(Address(*s.getsockname()[:2])) for s in server.sockets)
    print(f"Forwarding {bound} to {upstream}.", file=sys.stderr, flush=True)
    try:
        await stop.wait()
    finally:
        server.close()  # open connections are cancelled when the event loop ends


def main(argv: Sequence[str] | None = None) -> int:
    """Command line entry point; returns the exit code."""
    parser = argparse.ArgumentParser(
        prog="python -m hailer_kernel.forward",
        description="Carry every TCP connection to LISTEN on to UPSTREAM, byte for byte.",
    )
    parser.add_argument("listen", help="where to listen: HOST:PORT, or PORT for all interfaces")
    parser.add_argument("upstream", help="where to connect: HOST:PORT")
    args = parser.parse_args(argv)
    try:
        listen = parse_address(args.listen, default_host="0.0.0.0", allow_port_zero=True)
        upstream = parse_address(args.upstream)
    except ValueError as err:
        parser.error(str(err))
    try:
        asyncio.run(run(listen, upstream))
    except OSError as err:
        print(f"Cannot listen on {listen}: {err.strerror or err}.", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
