#!/usr/bin/env bash
# Builds the Python wheel of Hailer (maturin, `bindings = "bin"`: pyproject.toml), installs it
# into a fresh virtual environment and runs the programs from there as a user would
# (scripts/check-installed-wheel.sh: `hailer --version`, `hailer daemon start`, `hailer daemon
# status --json`, `hailer daemon stop`); then `uvx` runs it from the wheel, and the median time
# of `hailer --version` from the virtual environment is measured and printed, beside that of
# /bin/true on the same machine (the floor of starting any program from Python here). The target
# is 10 ms: `bench-version.py --limit-ms 10` fails this script when the median is over it.
#
# The wheel is built from the dev profile, which the test command's build step has compiled
# already. Release wheels come from the wheels workflow (.github/workflows/wheels.yml), which
# builds them with maturin for every platform, runs check-installed-wheel.sh on each and
# publishes them to PyPI. A dev build starts no faster than a release one, so the measured median
# is an upper bound for the released wheel.
#
# Needs scripts/test-prereqs.sh's exports (HAILER_TEST_BUILD_VENV, HAILER_TEST_PYTHON,
# HAILER_TEST_UV).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
: "${HAILER_TEST_BUILD_VENV:?run scripts/test-prereqs.sh and source .cache/test-env.sh first}"
: "${HAILER_TEST_PYTHON:?run scripts/test-prereqs.sh and source .cache/test-env.sh first}"
: "${HAILER_TEST_UV:?run scripts/test-prereqs.sh and source .cache/test-env.sh first}"

work="$(mktemp -d "${TMPDIR:-/tmp}/hailer wheel ü.XXXXXX")"
trap 'rm -rf "$work"' EXIT
fail() {
    printf 'check-wheel: %s\n' "$*" >&2
    exit 1
}

"$HAILER_TEST_BUILD_VENV/bin/maturin" build --locked --profile dev --out "$work/dist" >"$work/maturin.log" 2>&1 ||
    { cat "$work/maturin.log" >&2; fail "maturin could not build the wheel"; }
wheel="$(find "$work/dist" -name 'hailer_cli-*.whl' | head -1)"
[ -n "$wheel" ] || fail "maturin made no hailer_cli wheel (see above)"
printf 'wheel: %s (%s)\n' "$(basename "$wheel")" "$(du -h "$wheel" | cut -f1)"

bash "$root/scripts/check-installed-wheel.sh" "$wheel" "$HAILER_TEST_PYTHON" "$work/venv"
expected="$("$work/venv/bin/hailer" --version)"

# uvx runs the programs straight from the wheel, offline, with a cache of its own.
uvx_version="$(UV_CACHE_DIR="$work/uv-cache" UV_TOOL_DIR="$work/uv-tools" \
    "$HAILER_TEST_UV" tool run --offline --no-index --python "$HAILER_TEST_PYTHON" \
    --from "$wheel" hailer --version 2>"$work/uvx.log")" ||
    { cat "$work/uvx.log" >&2; fail "uvx could not run hailer from the wheel"; }
[ "$uvx_version" = "$expected" ] || fail "uvx hailer --version said '$uvx_version'"
echo "uvx --from <wheel> hailer --version: $uvx_version"

"$HAILER_TEST_PYTHON" "$root/scripts/bench-version.py" /bin/true
"$HAILER_TEST_PYTHON" "$root/scripts/bench-version.py" "$work/venv/bin/hailer" --limit-ms 10
