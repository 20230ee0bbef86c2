#!/usr/bin/env bash
# Installs the LiteLLM proxy the end-to-end tests run as a real model gateway, and prints the path
# of its `litellm` program on standard output.
#
#   scripts/install-test-gateway.sh CACHE_DIR PYTHON
#
# The proxy goes into CACHE_DIR/gateway-venv/, made with PYTHON (3.11), from the exact pins of
# tests/gateway/requirements.txt; it is installed again only when that file changes. The tests
# start their own proxy from it (tests/src/gateway.rs), answering from tests/gateway/.
set -Eeuo pipefail

CACHE="${1:?usage: install-test-gateway.sh CACHE_DIR PYTHON}"
PYTHON="${2:?usage: install-test-gateway.sh CACHE_DIR PYTHON}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
REQUIREMENTS="$ROOT/tests/gateway/requirements.txt"
VENV="$CACHE/gateway-venv"

say() { printf '==> %s\n' "$*" >&2; }
die() {
    printf 'install-test-gateway: %s\n' "$*" >&2
    exit 1
}

wanted="$( (cat "$REQUIREMENTS"; "$PYTHON" -c 'import sys, sysconfig; print(sys.version_info[:2], sysconfig.get_platform())') | sha256sum | cut -d' ' -f1)"
if [ -x "$VENV/bin/litellm" ] && [ "$(cat "$VENV/.requirements.sha256" 2>/dev/null)" = "$wanted" ]; then
    say "test gateway: LiteLLM up to date"
else
    say "test gateway: installing LiteLLM into $VENV"
    rm -rf "$VENV"
    "$PYTHON" -m venv "$VENV"
    PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 "$VENV/bin/python" -m pip install -q -r "$REQUIREMENTS" >&2 ||
        die "pip could not install $REQUIREMENTS (is the package index reachable?)"
    printf '%s\n' "$wanted" >"$VENV/.requirements.sha256"
fi
"$VENV/bin/python" -c 'import litellm.proxy.proxy_server' 2>/dev/null ||
    die "the LiteLLM proxy in $VENV does not import: delete $VENV and run this again"
printf '%s\n' "$VENV/bin/litellm"
