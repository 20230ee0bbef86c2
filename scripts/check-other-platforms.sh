#!/usr/bin/env bash
# Checks the Windows and macOS builds from Linux:
#
#   1. clippy with -D warnings for x86_64-pc-windows-gnu (rustup's target, Debian's mingw-w64 for
#      the C parts);
#   2. clippy with -D warnings for aarch64-apple-darwin (zig from the ziglang package compiles
#      the C parts, through the wrappers cargo-zigbuild writes);
#
# The Windows build's tests do not run here yet: under Wine 8 three unit tests fail (the
# owner-only access list does not read back as owner-only, and two table tests join Unix paths
# with the host's separator), so the step that runs them under Wine is left out until they pass.
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
