#!/usr/bin/env bash
# Checks that the kernel image's pinned packages install from binary wheels alone on every
# platform the published image is built for: CPython 3.12 and 3.13 on Linux x86_64 and aarch64
# (manylinux_2_28, the glibc of the official slim images and older). For each, uv resolves
# kernel-image/requirements.txt with --only-binary :all:; the resolution must succeed and must
# be exactly the pinned set (a dependency a platform needs beyond the pins fails too).
#
#   scripts/check-kernel-wheels.sh
#
# Needs uv (HAILER_TEST_UV, or uv on PATH; scripts/test-prereqs.sh installs the pinned one) and
# the package index. A passing check is remembered per requirements.txt content in the test cache,
# so a run with unchanged pins asks nothing.
set -Eeuo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
REQUIREMENTS="$ROOT/kernel-image/requirements.txt"
PLATFORMS=(x86_64-manylinux_2_28 aarch64-manylinux_2_28)
PYTHONS=(3.12 3.13)

say() { printf '==> %s\n' "$*" >&2; }
die() {
    printf 'check-kernel-wheels: %s\n' "$*" >&2
    exit 1
}

if [ -z "${HAILER_TEST_CACHE:-}" ] && [ -f "$ROOT/.cache/test-env.sh" ]; then
    # shellcheck source=/dev/null
    . "$ROOT/.cache/test-env.sh"
fi
UV="${HAILER_TEST_UV:-$(command -v uv || true)}"
[ -x "$UV" ] || die "no uv: run scripts/test-prereqs.sh first (it installs the pinned uv)"

# the test cache test-prereqs.sh made (it exports HAILER_TEST_CACHE)
CACHE="${HAILER_TEST_CACHE:-}"
[ -d "$CACHE" ] || die "no test cache: run scripts/test-prereqs.sh first"
mkdir -p "$CACHE"
key="$( (cat "$REQUIREMENTS" "${BASH_SOURCE[0]}"; "$UV" --version) | sha256sum | cut -d' ' -f1)"
passed="$CACHE/kernel-wheels.passed"
if [ "$(cat "$passed" 2>/dev/null)" = "$key" ]; then
    say "kernel wheels: checked already for these pins (${#PLATFORMS[@]} platforms x ${#PYTHONS[@]} Pythons)"
    exit 0
fi

normalise() { grep -v '^[[:space:]]*#' | grep -v '^[[:space:]]*$' | sed 's/[[:space:]].*//' | tr 'A-Z_.' 'a-z--' | sed 's/--*/-/g; s/==/@/' | sort; }
pinned="$(normalise <"$REQUIREMENTS")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failed=0
for platform in "${PLATFORMS[@]}"; do
    for python in "${PYTHONS[@]}"; do
        out="$work/$platform-$python.txt"
        if ! "$UV" pip compile --quiet --no-header --no-annotate --only-binary :all: \
            --python-version "$python" --python-platform "$platform" --system-certs \
            "$REQUIREMENTS" -o "$out" 2>"$work/err"; then
            printf 'check-kernel-wheels: CPython %s on %s: the pins do not install from wheels:\n' "$python" "$platform" >&2
            sed 's/^/  /' "$work/err" >&2
            failed=1
            continue
        fi
        resolved="$(normalise <"$out")"
        if [ "$resolved" != "$pinned" ]; then
            printf 'check-kernel-wheels: CPython %s on %s resolves to other packages than the pins:\n' "$python" "$platform" >&2
            diff <(printf '%s\n' "$pinned") <(printf '%s\n' "$resolved") | sed 's/^/  /' >&2 || true
            failed=1
            continue
        fi
        say "kernel wheels: CPython $python on $platform: all $(printf '%s\n' "$pinned" | wc -l) pins have wheels"
    done
done
[ "$failed" -eq 0 ] || die "some pins lack binary wheels for a platform the image is published for"
printf '%s\n' "$key" >"$passed"
