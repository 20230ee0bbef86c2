#!/usr/bin/env bash
# Builds and installs hailer and hailerd (one package, `crates/hailer/`) into cargo's bin folder from
# this checkout, then shows the daemon running.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cargo install --locked --path "$root/crates/hailer"
hailer --version
hailer daemon status
