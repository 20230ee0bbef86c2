#!/usr/bin/env bash
# Installs a built hailer-cli wheel into a fresh virtual environment and runs the programs from
# there as a user would: `hailer --version` (it must name the version in Cargo.toml), `hailer
# daemon start`, `hailer daemon status --json` (pid, port, and the runtime file under
# HAILER_HOME), `hailer daemon stop`. HAILER_HOME is a folder whose path has a space and
# non-ASCII characters.
#
#     bash scripts/check-installed-wheel.sh WHEEL PYTHON [VENV]
#
# PYTHON makes the virtual environment; VENV (made fresh, left in place for the caller) is a
# temporary folder when not given. scripts/check-wheel.sh runs it on Linux, and the wheels
# workflow (.github/workflows/wheels.yml) on each platform it builds for: Linux, macOS, and
# Windows through Git Bash, where paths handed to Windows programs are converted with cygpath.
# Where /proc exists, it also checks that the daemon that runs is the wheel's hailerd.
set -euo pipefail
[ "$#" -ge 2 ] && [ "$#" -le 3 ] || {
    echo "usage: check-installed-wheel.sh WHEEL PYTHON [VENV]" >&2
    exit 2
}
wheel="$1"
python="$2"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

case "$(uname -s)" in
MINGW* | MSYS* | CYGWIN*) windows=1 ;;
*) windows=0 ;;
esac
# A path as the programs of this system read it.
native() {
    if [ "$windows" = 1 ]; then cygpath -w "$1"; else printf '%s\n' "$1"; fi
}

work="$(mktemp -d "${TMPDIR:-/tmp}/hailer wheel ü.XXXXXX")"
venv="${3:-$work/venv}"
home="$work/Hailer hömé"
if [ "$windows" = 1 ]; then
    bin="$venv/Scripts"
    exe=.exe
else
    bin="$venv/bin"
    exe=
fi
hailer="$bin/hailer$exe"
cleanup() {
    if [ -x "$hailer" ]; then
        HAILER_HOME="$(native "$home")" "$hailer" daemon stop >/dev/null 2>&1 || true
    fi
    rm -rf "$work" 2>/dev/null || true
}
trap cleanup EXIT
fail() {
    printf 'check-installed-wheel: %s\n' "$*" >&2
    tail -n 20 "$home"/state/logs/* >&2 2>/dev/null || true
    exit 1
}

# A fresh environment with nothing but the wheel (it has no dependencies).
rm -rf "$venv"
"$python" -m venv "$(native "$venv")"
"$bin/python$exe" -m pip install -q --no-index --disable-pip-version-check "$(native "$wheel")" ||
    fail "pip could not install $wheel"
for program in hailer hailerd; do
    [ -x "$bin/$program$exe" ] || fail "the wheel installed no $program"
done

expected="hailer $(sed -n 's/^version = "\(.*\)"/\1/p' "$root/Cargo.toml" | head -1)"
version="$("$hailer" --version)"
[ "$version" = "$expected" ] || fail "hailer --version said '$version', expected '$expected'"

HAILER_HOME="$(native "$home")"
export HAILER_HOME
# The installed hailer must start the hailerd installed beside it, not one named by
# HAILER_DAEMON_BIN or found on PATH (on Windows PATH stays: the system's folders are on it).
# Each answer goes to a file: a file handle the detached daemon might inherit blocks nobody,
# where a pipe would keep a command substitution waiting until the daemon ends.
if [ "$windows" = 1 ]; then
    env -u HAILER_DAEMON_BIN "$hailer" daemon start >"$work/start.txt" || fail "daemon start failed"
else
    env -u HAILER_DAEMON_BIN PATH=/usr/bin:/bin "$hailer" daemon start >"$work/start.txt" ||
        fail "daemon start failed"
fi
started="$(cat "$work/start.txt")"
case "$started" in "hailerd is running (pid "*) ;; *) fail "daemon start said: $started" ;; esac

"$hailer" daemon status --json >"$work/status.json" || fail "daemon status --json failed"
# Both sides resolved: a temporary folder may be reached through a link (macOS) or a short
# name (Windows).
check_status='
import json, os, sys
status = json.load(sys.stdin)
assert status["pid"] > 0 and status["port"] > 0, status
expected = os.path.join(os.path.realpath(sys.argv[1]), "run", "hailerd.json")
found = os.path.realpath(status["runtimeFile"])
assert os.path.normcase(found) == os.path.normcase(expected), (found, expected)
print(status["pid"])
'
pid="$("$python" -c "$check_status" "$HAILER_HOME" <"$work/status.json")" ||
    fail "daemon status --json: $(cat "$work/status.json")"
if [ -e "/proc/$pid/exe" ]; then
    daemon_exe="$(readlink -f "/proc/$pid/exe")"
    [ "$daemon_exe" = "$(readlink -f "$bin/hailerd")" ] ||
        fail "the daemon that runs is $daemon_exe, not the wheel's hailerd"
fi

"$hailer" daemon stop >"$work/stop.txt" || fail "daemon stop failed"
stopped="$(cat "$work/stop.txt")"
[ "$stopped" = "hailerd stopped (pid $pid)." ] || fail "daemon stop said: $stopped"
[ ! -e "$home/run/hailerd.json" ] || fail "the runtime file is still there after stop"
echo "installed wheel $(basename "$wheel"): $version; daemon start, status --json and stop work"
