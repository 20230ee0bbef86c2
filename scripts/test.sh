#!/usr/bin/env bash
# Runs every test of the project after installing what the tests need.
# Safe to run again: every prerequisite step reuses what an earlier run left in .cache/.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

step() { printf '\n==> %s\n' "$*"; }

step "Prerequisites"
# The docker tests need a running engine; start one if the machine has it installed but stopped.
if ! docker info >/dev/null 2>&1; then
    if command -v service >/dev/null 2>&1; then
        service docker start >/dev/null 2>&1 || true
    fi
    for _ in $(seq 1 30); do
        docker info >/dev/null 2>&1 && break
        sleep 1
    done
    docker info >/dev/null 2>&1 || { echo "no Docker engine answers; install and start Docker" >&2; exit 1; }
fi
# test-prereqs.sh prints only `export NAME=value` lines on standard output.
eval "$(bash scripts/test-prereqs.sh --base-image)"
if ! cargo nextest --version >/dev/null 2>&1; then
    cargo install --locked cargo-nextest
fi
# cargo-shear finds declared dependencies the code does not use; 1.11 builds with our toolchain.
if ! cargo shear --version >/dev/null 2>&1; then
    cargo install --locked cargo-shear@1.11.0
fi

step "Formatting and lints"
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings
# Every library crate warns on a missing doc; this also fails on a doc link to nothing.
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --lib --no-deps --locked
cargo shear
"$HAILER_TEST_VENV/bin/actionlint" .github/workflows/*.yml
"$HAILER_TEST_BUILD_VENV/bin/dist" generate --check

step "The kernel image's packages on every platform it is published for"
bash scripts/check-kernel-wheels.sh

step "Build"
cargo build --workspace --bins --locked

step "Rust tests"
cargo nextest run --workspace --locked --no-fail-fast

step "The Python wheel: built, installed into a fresh venv, run, and hailer --version timed"
bash scripts/check-wheel.sh

step "Windows and macOS: clippy for both"
bash scripts/check-other-platforms.sh

step "Python tests of the in-kernel package"
"$HAILER_TEST_PYTHON" -m pytest -q kernel-image/tests
