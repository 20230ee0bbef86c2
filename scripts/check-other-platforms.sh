#!/usr/bin/env bash
# Checks the Windows and macOS builds from Linux:
#
#   1. clippy with -D warnings for x86_64-pc-windows-gnu (rustup's target, Debian's mingw-w64 for
#      the C parts);
#   2. clippy with -D warnings for aarch64-apple-darwin (zig from the ziglang package compiles
#      the C parts, through the wrappers cargo-zigbuild writes);
#   3. the Windows build's tests under Wine (Debian's wine64, WINEDEBUG=-all, a throw-away
#      prefix under $HAILER_TEST_CACHE/wine): the lib tests of hailer-platform, hailer-config,
#      hailer-audit, hailer-protocol, hailer-redact, hailer-sse, hailer-model, hailer-demo and
#      hailer-kernel-bundle (the cfg-free table tests among them: the access-list rule, the
#      drive rule, the data-folder rules), and hailer-model's integration suite (tests/all.rs:
#      the client against the scripted model server, both in the test process, on loopback;
#      hailer-sse, hailer-demo, hailer-kernel-bundle and hailer-redact have no integration
#      tests). The Job Object test runs the test binary again as a child that starts a
#      grandchild, ends the job, and requires both to have ended with the job's exit code. Left
#      out: hailer-config's integration suite (tests/all.rs; its expected messages and snapshots
#      are written with `/` paths), and the crates whose tests start Docker, Python kernels,
#      tmux or Chromium (hailerd, hailer-cli, hailer-docker, hailer-agent, hailer-tools,
#      hailer-marimo, hailer-tests);
#   4. a daemon life-cycle under Wine: the Windows hailer.exe and hailerd.exe, with a private
#      HAILER_HOME in a temp folder whose path has a space and non-ASCII (`Hailer hömé.XXXXXX`):
#      `hailer daemon start`, `hailer daemon status --json`, a request with a wrong token
#      refused (401) and the right one answered, the runtime file's Unix mode, `hailer daemon
#      stop`, and the runtime file gone.
#
# Wine 8.0 has no bcryptprimitives.dll, which Rust's standard library imports ProcessPrng from:
# the small DLL from scripts/test-prereqs.sh ($HAILER_TEST_WINE_DLL) is copied beside each .exe.
#
# What Wine cannot check: the owner-only access list on a real file. Wine 8 accepts
# SetNamedSecurityInfoW and then reads back its default list (SYSTEM, Administrators, the user),
# so the access-list test and hailerd's start-up check find Wine (ntdll's wine_get_version) and
# say so instead of asserting (the test prints what the rule made of the list read back); on
# real Windows both still assert owner-only. The rule itself is a pure function over a described
# list, table-tested here as on Linux. Nor can Wine show a mapped network drive: the drive rule
# and the preflight warning are tested through their pure seams. Step 4 shows what Wine does
# keep, the Unix mode of the runtime folder and file, and requires that others (the last octal
# digit) have no access. Ctrl+Break is not sent under Wine: `hailer daemon stop` uses the shutdown route.
#
# Nothing for macOS can run here: clippy and the table tests (which run on Linux) are its check.
# The builds go to $HAILER_TEST_CACHE/cross-target and are reused by the next run. Needs
# scripts/test-prereqs.sh's exports (HAILER_TEST_CACHE, HAILER_TEST_BUILD_VENV).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
for name in HAILER_TEST_CACHE HAILER_TEST_BUILD_VENV; do
    [ -n "${!name:-}" ] || { echo "check-other-platforms: $name is not set: run scripts/test-prereqs.sh and source .cache/test-env.sh first" >&2; exit 1; }
done
export CARGO_TARGET_DIR="$HAILER_TEST_CACHE/cross-target"
step() { printf -- '--> %s\n' "$*"; }
timed() {
    local start=$SECONDS
    "$@"
    printf -- '    %ss\n' "$((SECONDS - start))"
}

# hailer-tests, the end-to-end suite, drives tmux, Chromium and the Docker engine: Linux only.
packages=(--workspace --exclude hailer-tests)
windows=x86_64-pc-windows-gnu
mac=aarch64-apple-darwin

step "clippy for Windows ($windows)"
timed cargo clippy "${packages[@]}" --all-targets --locked --target "$windows" -- -D warnings

step "clippy for macOS ($mac)"
export PATH="$HAILER_TEST_BUILD_VENV/bin:$PATH"
# cargo-zigbuild writes its zig wrappers for a target on its first build; a small crate will do.
cargo zigbuild --quiet --locked --target "$mac" -p hailer-platform --lib
wrappers="$(grep -l -F "$HAILER_TEST_BUILD_VENV/bin/" \
    "${XDG_CACHE_HOME:-$HOME/.cache}"/cargo-zigbuild/*/wrappers/*/zigcc-"$mac"-*.sh | head -1)"
[ -n "$wrappers" ] || { echo "check-other-platforms: cargo-zigbuild left no zig wrapper for $mac" >&2; exit 1; }
timed env "CC_${mac//-/_}=$wrappers" "AR_${mac//-/_}=$(dirname "$wrappers")/ar" \
    cargo clippy "${packages[@]}" --all-targets --locked --target "$mac" -- -D warnings

step "Windows unit tests under Wine ($windows)"
export WINEDEBUG=-all WINEPREFIX="$HAILER_TEST_CACHE/wine/prefix"
wine=/usr/lib/wine/wine64
[ -x "$wine" ] || { echo "check-other-platforms: $wine is missing (Debian's wine64)" >&2; exit 1; }
[ -f "${HAILER_TEST_WINE_DLL:-}" ] || { echo "check-other-platforms: HAILER_TEST_WINE_DLL is not set or missing: run scripts/test-prereqs.sh" >&2; exit 1; }
# The lib tests, then the integration suites that run under Wine (one by one: `--test all` would
# also pick hailer-config's).
wine_lib_tests=(-p hailer-platform -p hailer-config -p hailer-audit -p hailer-protocol
    -p hailer-redact -p hailer-sse -p hailer-model -p hailer-demo -p hailer-kernel-bundle --lib)
wine_suites=(-p hailer-model --test all)
windows_debug="$CARGO_TARGET_DIR/$windows/debug"
under_wine() {
    # HAILER_EXPECT_WINE makes the Wine detection's own test fail if it does not find Wine.
    CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER="$wine" HAILER_EXPECT_WINE=1 \
        timeout 600 cargo test --quiet --locked --target "$windows" "$@"
}
wine_unit_tests() {
    cargo test --quiet --locked --target "$windows" "${wine_lib_tests[@]}" --no-run
    cargo test --quiet --locked --target "$windows" "${wine_suites[@]}" --no-run
    cp "$HAILER_TEST_WINE_DLL" "$windows_debug/deps/"
    local filter='^(test result|under Wine|wine_get_version)|FAILED|panicked'
    under_wine "${wine_lib_tests[@]}" -- --show-output | grep -E "$filter" || true
    under_wine "${wine_suites[@]}" | grep -E "$filter" || true
    # The pipes above hide cargo's status (and on a new prefix the first start may fail while
    # Wine sets it up: it failed so here once, with `wine: chdir to /tmp/wine-…/server-…: No
    # such file or directory`): run each once more, quietly, for the exit code (the binaries
    # are built, so this only reruns the tests).
    under_wine "${wine_lib_tests[@]}" >/dev/null
    under_wine "${wine_suites[@]}" >/dev/null
}
timed wine_unit_tests

step "daemon life-cycle under Wine ($windows)"
wine_daemon() {
    cargo build --quiet --locked --target "$windows" -p hailer --bins
    cp "$HAILER_TEST_WINE_DLL" "$windows_debug/"
    local home runtime port token code mode status
    # A space and non-ASCII in the path, as in the Linux life-cycle test (crates/hailer/tests). Wine
    # reads the environment and Unix file names in the locale's character set, so it is UTF-8
    # whatever the calling shell has: under the POSIX locale Wine read `hömé` as `hC6mC)` and
    # the runtime file went to another folder.
    export LC_ALL=C.UTF-8
    home="$(mktemp -d "${TMPDIR:-/tmp}/Hailer hömé.XXXXXX")"
    # Wine sees the Unix file system as drive Z:.
    export HAILER_HOME="Z:${home//\//\\}"
    hailer() { timeout 60 "$wine" "$windows_debug/hailer.exe" "$@"; }
    fail() {
        echo "check-other-platforms: daemon under Wine: $*" >&2
        tail -n 20 "$home"/state/logs/* >&2 2>/dev/null || true
        hailer daemon stop >/dev/null 2>&1 || true
        exit 1
    }
    hailer daemon start || fail "hailer daemon start failed"
    # Read all of it before matching: `grep -q` would close the pipe while hailer still writes.
    status="$(hailer daemon status --json)" || fail "hailer daemon status --json failed"
    grep -q '"pid"' <<<"$status" || fail "hailer daemon status --json printed no pid: $status"
    runtime="$home/run/hailerd.json"
    [ -f "$runtime" ] || fail "no runtime file at $runtime"
    port="$(sed -n 's/.*"port":\([0-9]*\).*/\1/p' "$runtime")"
    token="$(sed -n 's/.*"token":"\([0-9a-f]*\)".*/\1/p' "$runtime")"
    [ -n "$port" ] && [ -n "$token" ] || fail "the runtime file has no port or token"
    code="$(curl -s --max-time 10 -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer wrong' "http://127.0.0.1:$port/v1/daemon")"
    [ "$code" = 401 ] || fail "a wrong token got $code, not 401"
    code="$(curl -s --max-time 10 -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $token" "http://127.0.0.1:$port/v1/daemon")"
    [ "$code" = 200 ] || fail "the right token got $code, not 200"
    # What Wine keeps of privacy: the Unix mode (Wine forgets the access list, see above).
    for path in "$home/run" "$runtime"; do
        mode="$(stat -c %a "$path")"
        echo "    Unix mode under Wine: $mode ${path#"$home"/}"
        [ "${mode: -1}" = 0 ] || fail "$path is open to others (mode $mode)"
    done
    hailer daemon stop || fail "hailer daemon stop failed"
    [ ! -e "$runtime" ] || fail "the runtime file is still there after stop"
    rm -rf "$home"
    unset HAILER_HOME LC_ALL
}
timed wine_daemon
