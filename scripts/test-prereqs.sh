#!/usr/bin/env bash
# Prepares everything the tests need, and says where it is.
#
#   scripts/test-prereqs.sh [--base-image] [--bench]
#
# - installs the Debian packages the tests use (only those missing);
# - fills .cache/wheelhouse/ with the wheels of kernel-image/requirements*.txt for this machine's
#   Python 3.11 (downloaded again only when those files change), and .cache/wheelhouse-image/ with
#   those of requirements.txt for the test base image's CPython 3.13 on this architecture;
# - makes .cache/test-venv/ from that wheelhouse, offline, with kernel-image/ installed in it
#   (reinstalled when its files change);
# - adds the rustup targets the cross checks build for (Windows, macOS), makes
#   .cache/build-venv/ with scripts/requirements-build.txt (maturin, ziglang, cargo-zigbuild),
#   and builds .cache/wine/bcryptprimitives.dll (scripts/wine/), which Wine 8 lacks;
# - makes .cache/api-venv/ with scripts/requirements-api-tools.txt (schemathesis,
#   openapi-spec-validator, websockets: the API's testers);
# - with --base-image, also makes the Docker image hailer-base:trixie (Debian 13, Python 3.13;
#   scripts/make-base-image.sh) and starts an image registry on loopback
#   (scripts/start-test-registry.sh);
# - installs the LiteLLM proxy and the official Python MCP client, each in a venv of its own
#   (scripts/install-pinned-venv.sh).
#
# With --bench, only what the benchmarks (scripts/bench.sh) use: no Wine, no mingw, no cross
# targets or build tools, no API testers, no LiteLLM and no registry; its exports go to
# .cache/bench-env.sh instead, so the tests' file keeps all of theirs.
#
# Progress goes to standard error. Standard output gets only `export NAME=value` lines, which are
# also written to .cache/test-env.sh, so either of these sets up a shell for the tests:
#
#   eval "$(scripts/test-prereqs.sh)"
#   scripts/test-prereqs.sh && . .cache/test-env.sh
#
# Safe to run again and again, and from two terminals at once (the second waits for the first).
# Environment: HAILER_PYTHON311 names the Python 3.11 to use when it is not on PATH;
# HAILER_TEST_CACHE moves the cache (default: .cache/ in the repository, or the user's cache
# folder when CI=true, so fresh clones on one machine share it).
set -Eeuo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ -n "${HAILER_TEST_CACHE:-}" ]; then
    CACHE="$HAILER_TEST_CACHE"
elif [ "${CI:-}" = "true" ]; then
    CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/hailer-tests"
else
    CACHE="$ROOT/.cache"
fi
KERNEL_IMAGE="$ROOT/kernel-image"
WHEELHOUSE="$CACHE/wheelhouse"
VENV="$CACHE/test-venv"
ENV_FILE="$CACHE/test-env.sh"
IMAGE_WHEELHOUSE="$CACHE/wheelhouse-image"
# the test base image's Python (hailer-base:trixie)
IMAGE_PYTHON_VERSION=3.13
BASE_IMAGE=hailer-base:trixie
REQUIREMENTS=("$KERNEL_IMAGE/requirements.txt" "$KERNEL_IMAGE/requirements-local.txt" "$KERNEL_IMAGE/requirements-dev.txt")
APT_PACKAGES=(python3-venv debootstrap chromium chromium-driver fonts-liberation tmux curl ca-certificates)
# What the tests use and the benchmarks do not: the registry, openssl (the private CA of the
# build-secrets test's package index) and the cross checks.
TEST_ONLY_APT_PACKAGES=(docker-registry openssl gcc-mingw-w64-x86-64 wine64)
RUST_TARGETS=(x86_64-pc-windows-gnu aarch64-apple-darwin)
BUILD_VENV="$CACHE/build-venv"
BUILD_REQUIREMENTS="$ROOT/scripts/requirements-build.txt"
API_VENV="$CACHE/api-venv"
WINE_DLL="$CACHE/wine/bcryptprimitives.dll"

say() { printf '==> %s\n' "$*" >&2; }
die() {
    printf 'test-prereqs: %s\n' "$*" >&2
    exit 1
}
trap 'status=$?; printf "test-prereqs: failed (exit %s) at line %s: %s\n" "$status" "$LINENO" "$BASH_COMMAND" >&2; exit "$status"' ERR

with_base_image=0
for_bench=0
for arg in "$@"; do
    case "$arg" in
        --base-image) with_base_image=1 ;;
        --bench) for_bench=1 ;;
        -h | --help)
            sed -n '2,35p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
            exit 0
            ;;
        *) die "unknown option $arg (see --help)" ;;
    esac
done
if [ "$for_bench" -eq 1 ]; then
    ENV_FILE="$CACHE/bench-env.sh"
else
    APT_PACKAGES+=("${TEST_ONLY_APT_PACKAGES[@]}")
fi

mkdir -p "$CACHE"
exec 9>"$CACHE/.test-prereqs.lock"
flock 9

as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo "$@"
    else
        die "installing Debian packages needs root (or sudo): run this script as root"
    fi
}

install_debian_packages() {
    local missing=() package status policy
    for package in "${APT_PACKAGES[@]}"; do
        status="$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)"
        [ "$status" = "install ok installed" ] || missing+=("$package")
    done
    if [ "${#missing[@]}" -eq 0 ]; then
        say "Debian packages: all present"
        return
    fi
    command -v apt-get >/dev/null 2>&1 || die "missing ${missing[*]}, and there is no apt-get to install them with: install them by hand"
    local need_update=0
    for package in "${missing[@]}"; do
        policy="$(apt-cache policy "$package" 2>/dev/null || true)"
        grep -q 'Candidate: [^(]' <<<"$policy" || need_update=1
    done
    if [ "$need_update" -eq 1 ]; then
        say "apt-get update (the package lists do not know ${missing[*]} yet)"
        as_root apt-get update -q >&2
    fi
    say "apt-get install ${missing[*]}"
    if ! as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >&2; then
        say "install failed; refreshing the package lists and trying once more"
        as_root apt-get update -q >&2
        as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
    fi
}

find_python311() {
    local candidate resolved
    local candidates=("${HAILER_PYTHON311:-}" python3.11)
    if command -v pyenv >/dev/null 2>&1; then
        local version
        for version in $(pyenv versions --bare 2>/dev/null | grep -E '^3\.11(\.[0-9]+)?$' | sort -V -r); do
            candidates+=("$(pyenv root)/versions/$version/bin/python3.11")
        done
    fi
    candidates+=(/usr/bin/python3.11 python3)
    for candidate in "${candidates[@]}"; do
        [ -n "$candidate" ] || continue
        command -v "$candidate" >/dev/null 2>&1 || continue
        # the real interpreter behind a shim, and only if it is 3.11 with venv and ensurepip
        if resolved="$("$candidate" -c 'import sys, venv, ensurepip; assert sys.version_info[:2] == (3, 11); print(sys.executable)' 2>/dev/null)" && [ -n "$resolved" ]; then
            printf '%s\n' "$resolved"
            return 0
        fi
    done
    return 1
}

hash_of() { sha256sum "$@" | sha256sum | cut -d' ' -f1; }

package_files() {
    (cd "$KERNEL_IMAGE" && find pyproject.toml README.md hailer_kernel -type f ! -path '*/__pycache__/*' ! -name '*.pyc' | LC_ALL=C sort)
}

install_debian_packages

PYTHON="$(find_python311)" || die "no Python 3.11 with venv found: install python3.11 and python3-venv (apt-get install python3.11-venv), or set HAILER_PYTHON311 to one"
say "Python: $PYTHON ($("$PYTHON" -c 'import platform; print(platform.python_version(), platform.machine())'))"

if [ -x "$VENV/bin/python" ] && ! "$VENV/bin/python" -c 'import sys; assert sys.version_info[:2] == (3, 11)' 2>/dev/null; then
    say "$VENV is broken or not Python 3.11: making it again"
    rm -rf "$VENV"
fi
if [ ! -x "$VENV/bin/python" ]; then
    say "creating $VENV"
    "$PYTHON" -m venv "$VENV"
fi
VENV_PY="$VENV/bin/python"
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1

platform_tag="$("$VENV_PY" -c 'import sys, sysconfig; print(sys.implementation.name, sys.version_info[0], sys.version_info[1], sysconfig.get_platform())')"
requirements_hash="$( (cat "${REQUIREMENTS[@]}"; printf '%s\n' "$platform_tag") | sha256sum | cut -d' ' -f1)"

# fill_wheelhouse DIR HASH LABEL PIP_DOWNLOAD_ARGS...: downloads the wheels into DIR (through a
# partial folder, reusing what DIR holds) unless DIR was filled for HASH already.
fill_wheelhouse() {
    local dir="$1" hash="$2" label="$3"
    shift 3
    if [ -f "$dir/.requirements.sha256" ] && [ "$(cat "$dir/.requirements.sha256")" = "$hash" ]; then
        say "$label: up to date ($(find "$dir" -name '*.whl' | wc -l) wheels)"
        return
    fi
    say "$label: downloading wheels"
    local partial="$dir.partial" reuse=()
    rm -rf "$partial"
    mkdir -p "$partial"
    [ -d "$dir" ] && reuse=(--find-links "$dir")
    (cd "$KERNEL_IMAGE" && "$VENV_PY" -m pip download -q --only-binary=:all: --dest "$partial" \
        "${reuse[@]}" "$@" >&2)
    printf '%s\n' "$hash" >"$partial/.requirements.sha256"
    rm -rf "$dir"
    mv "$partial" "$dir"
    say "$label: $(find "$dir" -name '*.whl' | wc -l) wheels, $(du -sh "$dir" | cut -f1)"
}

fill_wheelhouse "$WHEELHOUSE" "$requirements_hash" "wheelhouse (${platform_tag})" \
    -r requirements.txt -r requirements-dev.txt

# The kernel image's wheels: requirements.txt for the base image's CPython on this machine's
# architecture, binary wheels only, the way a build on a user's machine installs them.
arch="$(uname -m)"
image_tag="cp${IMAGE_PYTHON_VERSION/./} manylinux $arch"
image_hash="$( (cat "$KERNEL_IMAGE/requirements.txt"; printf '%s\n' "$image_tag") | sha256sum | cut -d' ' -f1)"
platforms=()
for platform in manylinux_2_41 manylinux_2_39 manylinux_2_36 manylinux_2_34 manylinux_2_31 \
    manylinux_2_28 manylinux_2_27 manylinux_2_26 manylinux_2_24 manylinux_2_17 manylinux2014 \
    manylinux_2_12 manylinux2010 manylinux_2_5 manylinux1; do
    platforms+=(--platform "${platform}_${arch}")
done
fill_wheelhouse "$IMAGE_WHEELHOUSE" "$image_hash" "image wheelhouse ($image_tag)" \
    "${platforms[@]}" --python-version "$IMAGE_PYTHON_VERSION" --implementation cp \
    --abi "cp${IMAGE_PYTHON_VERSION/./}" -r requirements.txt

offline=(--no-index --find-links "$WHEELHOUSE")
if [ "$(cat "$VENV/.requirements.sha256" 2>/dev/null)" != "$requirements_hash" ]; then
    say "test venv: installing the pinned packages from the wheelhouse"
    (cd "$KERNEL_IMAGE" && "$VENV_PY" -m pip install -q "${offline[@]}" -r requirements.txt -r requirements-dev.txt >&2)
    printf '%s\n' "$requirements_hash" >"$VENV/.requirements.sha256"
    rm -f "$VENV/.kernel-package.sha256"
else
    say "test venv: packages up to date"
fi

package_hash="$(cd "$KERNEL_IMAGE" && package_files | tr '\n' '\0' | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)"
if [ "$(cat "$VENV/.kernel-package.sha256" 2>/dev/null)" != "$package_hash" ]; then
    say "test venv: installing kernel-image/ (hailer-kernel)"
    build_dir="$(mktemp -d)"
    # build from a copy, so nothing is written into the source tree
    (cd "$KERNEL_IMAGE" && package_files | tar -cf - -T -) | tar -xf - -C "$build_dir"
    "$VENV_PY" -m pip install -q "${offline[@]}" --no-deps --force-reinstall "$build_dir" >&2
    rm -rf "$build_dir"
    printf '%s\n' "$package_hash" >"$VENV/.kernel-package.sha256"
else
    say "test venv: hailer-kernel up to date"
fi

"$VENV_PY" -m pip check >&2 || die "the test venv has broken requirements: delete $VENV and run this script again"
"$VENV_PY" -c 'import marimo, polars, duckdb, fastexcel, pyarrow, hailer_kernel, pytest' &&
    [ -x "$VENV/bin/uv" ] && [ -x "$VENV/bin/ty" ] ||
    die "the test venv cannot import the kernel packages: delete $VENV and run this script again"

if [ "$with_base_image" -eq 1 ]; then
    "$ROOT/scripts/make-base-image.sh" >&2
    if [ "$for_bench" -eq 0 ]; then
        # 9>&-: the registry outlives this script and must not hold its lock
        registry="$("$ROOT/scripts/start-test-registry.sh" "$CACHE" 9>&-)"
    fi
fi

# The official Python MCP client, in a venv of its own that keeps its packages out of the
# kernel's test venv; its requirements pin every package.
mcp_client="$("$ROOT/scripts/install-pinned-venv.sh" "test MCP client" "$CACHE/mcp-client-venv" "$PYTHON" \
    "$ROOT/tests/mcp-client/requirements.txt" "mcp.client.stdio, mcp.client.streamable_http" bin/python --no-deps 9>&-)"

# The test-only parts: the LiteLLM proxy, and the cross checks (rustup's targets, the build
# tools, the DLL Wine 8 lacks) and the API testers.
install_test_only() {
    # The LiteLLM proxy the tests start as a real model gateway (tests/src/gateway.rs).
    gateway="$("$ROOT/scripts/install-pinned-venv.sh" "test gateway (LiteLLM)" "$CACHE/gateway-venv" "$PYTHON" \
        "$ROOT/tests/gateway/requirements.txt" litellm.proxy.proxy_server bin/litellm 9>&-)"
    installed_targets="$(rustup target list --installed 2>/dev/null || true)"
    for target in "${RUST_TARGETS[@]}"; do
        grep -qx "$target" <<<"$installed_targets" || {
            say "rustup target add $target"
            rustup target add "$target" >&2
        }
    done
    # tool_venv DIR REQUIREMENTS: a virtual environment of binary wheels from PyPI with exactly the
    # pins of REQUIREMENTS, made again only when that file (or this machine's Python) changes.
    tool_venv() {
        local dir="$1" requirements="$2" hash
        hash="$( (cat "$requirements"; printf '%s\n' "$platform_tag") | sha256sum | cut -d' ' -f1)"
        if [ "$(cat "$dir/.requirements.sha256" 2>/dev/null)" != "$hash" ]; then
            say "$(basename "$dir"): installing $(basename "$requirements")"
            rm -rf "$dir"
            "$PYTHON" -m venv "$dir"
            "$dir/bin/python" -m pip install -q --only-binary=:all: -r "$requirements" >&2
            printf '%s\n' "$hash" >"$dir/.requirements.sha256"
        else
            say "$(basename "$dir"): up to date"
        fi
    }
    tool_venv "$BUILD_VENV" "$BUILD_REQUIREMENTS"
    tool_venv "$API_VENV" "$ROOT/scripts/requirements-api-tools.txt"
    wine_source="$ROOT/scripts/wine/bcryptprimitives.c"
    wine_hash="$(sha256sum "$wine_source" | cut -d' ' -f1)"
    if [ "$(cat "$WINE_DLL.sha256" 2>/dev/null)" != "$wine_hash" ]; then
        say "building $(basename "$WINE_DLL") for Wine"
        mkdir -p "$(dirname "$WINE_DLL")"
        x86_64-w64-mingw32-gcc -shared -O2 -o "$WINE_DLL" "$wine_source" -ladvapi32 >&2
        printf '%s\n' "$wine_hash" >"$WINE_DLL.sha256"
    fi
}
[ "$for_bench" -eq 1 ] || install_test_only

chromium_path="$(command -v chromium || true)"
chromedriver_path="$(command -v chromedriver || true)"
[ -n "$chromium_path" ] || die "chromium is not on PATH although its package is installed"
[ -n "$chromedriver_path" ] || die "chromedriver is not on PATH although chromium-driver is installed"
tmux_path="$(command -v tmux || true)"
[ -n "$tmux_path" ] || die "tmux is not on PATH although its package is installed"

exports=(
    "HAILER_TEST_PYTHON=$VENV_PY"
    "HAILER_TEST_VENV=$VENV"
    "HAILER_TEST_CACHE=$CACHE"
    "HAILER_TEST_WHEELHOUSE=$WHEELHOUSE"
    "HAILER_TEST_IMAGE_WHEELHOUSE=$IMAGE_WHEELHOUSE"
    "HAILER_TEST_UV=$VENV/bin/uv"
    "HAILER_TEST_RUFF=$VENV/bin/ruff"
    "HAILER_TEST_TY=$VENV/bin/ty"
    "HAILER_TEST_CHROMIUM=$chromium_path"
    "HAILER_TEST_CHROMEDRIVER=$chromedriver_path"
    "HAILER_TEST_TMUX=$tmux_path"
    "HAILER_TEST_MCP_PYTHON=$mcp_client"
)
if [ "$for_bench" -eq 0 ]; then
    exports+=(
        "HAILER_TEST_LITELLM=$gateway"
        "HAILER_TEST_BUILD_VENV=$BUILD_VENV"
        "HAILER_TEST_API_VENV=$API_VENV"
        "HAILER_TEST_WINE_DLL=$WINE_DLL"
    )
fi
if [ "$with_base_image" -eq 1 ]; then
    exports+=("HAILER_TEST_BASE_IMAGE=$BASE_IMAGE")
    [ "$for_bench" -eq 1 ] || exports+=("HAILER_TEST_REGISTRY=$registry")
fi
{
    printf '# Written by scripts/test-prereqs.sh; source it before running the tests.\n'
    for pair in "${exports[@]}"; do
        printf 'export %s=%q\n' "${pair%%=*}" "${pair#*=}"
    done
} >"$ENV_FILE.tmp"
mv "$ENV_FILE.tmp" "$ENV_FILE"
grep '^export' "$ENV_FILE"
say "ready; the exports above are also in $ENV_FILE"
