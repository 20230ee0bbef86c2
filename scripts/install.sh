#!/usr/bin/env bash
# Builds and installs hailer and hailerd into cargo's bin folder, then shows the daemon running.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cargo install --locked --path "$root/hailerd"
cargo install --locked --path "$root/hailer-cli"
hailer --version
hailer daemon status
