"""Drawing Vega and Vega-Lite specs in a child process, so nothing drawing does can end the kernel.

``vl-convert`` aborts the whole process on some input (a control character in a label, made by
the spec's own expressions as easily as written in it) instead of raising. The kernel therefore
never loads it: a child process started from the kernel's Python draws, one request per line on
its standard input and one answer per line on its standard output. A child that dies or stops
answering is ended and started afresh for the next chart; the chart it was drawing gets no
picture.

Run as a script (``python -I chart_drawing.py``) it is that child.
"""

from __future__ import annotations

import base64
import json
import queue
import subprocess
import sys
import threading
from typing import IO, Any

# How long one drawing may take before the child is ended.
DRAW_TIMEOUT = 60.0


def _serve(requests: IO[str], answers: IO[str]) -> None:  # pragma: no cover - runs in the child
    import vl_convert as vlc

    drawers = {
        ("vega-lite", "svg"): vlc.vegalite_to_svg,
        ("vega", "svg"): vlc.vega_to_svg,
        ("vega-lite", "png"): vlc.vegalite_to_png,
        ("vega", "png"): vlc.vega_to_png,
    }
    for line in requests:
        try:
            request = json.loads(line)
            drawn = drawers[(request["kind"], request["format"])](request["spec"])
            if isinstance(drawn, bytes):
                answer = {"png": base64.b64encode(drawn).decode("ascii")}
            else:
                answer = {"svg": drawn}
        except Exception as error:  # noqa: BLE001 - any failure is this chart's, not the child's
            answer = {"error": type(error).__name__}
        answers.write(json.dumps(answer) + "\n")
        answers.flush()


class Drawer:
    """The drawing child, started on first use and again after it died."""

    def __init__(self, timeout: float = DRAW_TIMEOUT) -> None:
        self._timeout = timeout
        self._lock = threading.Lock()
        self._child: subprocess.Popen[str] | None = None
        self._answers: queue.Queue[str | None] = queue.Queue()

    def _start(self) -> subprocess.Popen[str]:
        if self._child is not None and self._child.poll() is None:
            return self._child
        child = subprocess.Popen(
            [sys.executable, "-I", __file__],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            encoding="utf-8",
        )
        answers: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=_read_lines, args=(child.stdout, answers), daemon=True).start()
        self._child, self._answers = child, answers
        return child

    def _end(self) -> None:
        if self._child is not None:
            self._child.kill()
            self._child.wait()
            self._child = None

    def draw(self, kind: str, spec: dict[str, Any], fmt: str) -> str | bytes | None:
        """The spec drawn as ``fmt`` (``svg``: text, ``png``: bytes); None when it cannot be."""
        request = json.dumps({"kind": kind, "spec": spec, "format": fmt}) + "\n"
        with self._lock:
            try:
                child = self._start()
                assert child.stdin is not None
                child.stdin.write(request)
                child.stdin.flush()
                line = self._answers.get(timeout=self._timeout)
            except (OSError, ValueError, queue.Empty):
                line = None
            if line is None:
                self._end()
                return None
        answer = json.loads(line)
        if "svg" in answer:
            return str(answer["svg"])
        if "png" in answer:
            return base64.b64decode(answer["png"])
        return None

    def close(self) -> None:
        with self._lock:
            self._end()


def _read_lines(stream: IO[str] | None, answers: queue.Queue[str | None]) -> None:
    if stream is not None:
        for line in stream:
            answers.put(line)
    answers.put(None)


if __name__ == "__main__":  # pragma: no cover - the child
    _serve(sys.stdin, sys.stdout)
