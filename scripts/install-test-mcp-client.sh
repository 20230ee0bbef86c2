#!/usr/bin/env bash
# Installs the official Python MCP client the end-to-end tests drive `hailer mcp` and the
# daemon's MCP route with, and prints the path of the Python that has it on standard output.
#
#   scripts/install-test-mcp-client.sh CACHE_DIR PYTHON
#
# The client goes into CACHE_DIR/mcp-client-venv/, made with PYTHON (3.11), from the exact pins
# of tests/mcp-client/requirements.txt; it is installed again only when that file changes. A
# venv of its own keeps its packages out of the kernel's test venv.
set -Eeuo pipefail

CACHE="${1:?usage: install-test-mcp-client.sh CACHE_DIR PYTHON}"
PYTHON="${2:?usage: install-test-mcp-client.sh CACHE_DIR PYTHON}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
REQUIREMENTS="$ROOT/tests/mcp-client/requirements.txt"
VENV="$CACHE/mcp-client-venv"

say() { printf '==> %s\n' "$*" >&2; }
die() {
    printf 'install-test-mcp-client: %s\n' "$*" >&2
    exit 1
}

wanted="$( (cat "$REQUIREMENTS"; "$PYTHON" -c 'import sys, sysconfig; print(sys.version_info[:2], sysconfig.get_platform())') | sha256sum | cut -d' ' -f1)"
if [ -x "$VENV/bin/python" ] && [ "$(cat "$VENV/.requirements.sha256" 2>/dev/null)" = "$wanted" ]; then
    say "test MCP client: up to date"
else
    say "test MCP client: installing the mcp package into $VENV"
    rm -rf "$VENV"
    "$PYTHON" -m venv "$VENV"
    PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 "$VENV/bin/python" -m pip install -q --no-deps -r "$REQUIREMENTS" >&2 ||
        die "pip could not install $REQUIREMENTS (is the package index reachable?)"
    "$VENV/bin/python" -m pip check >&2 || die "the pins of $REQUIREMENTS do not fit together"
    printf '%s\n' "$wanted" >"$VENV/.requirements.sha256"
fi
"$VENV/bin/python" -c 'import mcp.client.stdio, mcp.client.streamable_http' 2>/dev/null ||
    die "the MCP client in $VENV does not import: delete $VENV and run this again"
printf '%s\n' "$VENV/bin/python"
