#!/usr/bin/env bash
# Runs every benchmark of the project on release builds and prints one table at the end.
#
#   bash scripts/bench.sh            # every benchmark
#   bash scripts/bench.sh --quick    # fewer samples, for a first look
#
# Each benchmark measures its own floor in the same run (plain marimo from the same managed
# environment, the same docker image started by hand, a bare HTTP call, a trivial process), on
# the path a user's machine takes: workspaces as `hailer init` makes them (the starter notebook),
# the managed environment hailerd finds itself, the default kernel image of this contract. Every
# benchmark prints its own lines as it goes, and one `BENCH` line per row of the table; the full
# output is kept in .cache/bench/. Nothing printed is a figure from elsewhere.
#
# Needs part of what the test command needs; it installs only that first (`test-prereqs.sh
# --bench`: no Wine, mingw, cross targets, build tools or LiteLLM; reused when present), then
# builds the kernel image with the documented `hailer kernel build` options for a machine that
# reaches no registry.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

quick=0
[ "${1:-}" = "--quick" ] && quick=1
samples() { if [ "$quick" -eq 1 ]; then echo "$1"; else echo "$2"; fi; }

step() { printf '\n==> %s\n' "$*" >&2; }

step "Prerequisites"
eval "$(bash scripts/test-prereqs.sh --base-image --bench)"

step "Release build of the binaries, the benchmarks and the examples"
cargo build --release --locked --workspace --bins
cargo build --release --locked -p hailer-agent -p hailer-cli -p hailer-docker -p hailer-marimo \
    -p hailer-model --examples
bin="$root/target/release"

out="$root/.cache/bench"
mkdir -p "$out"
rows="$out/rows.tsv"
: >"$rows"

# A Hailer home for the image build, outside every benchmark's own.
image_home="$(mktemp -d)"
trap 'HAILER_HOME="$image_home" "$bin/hailer" daemon stop >/dev/null 2>&1 || true; rm -rf "$image_home"' EXIT

step "The default kernel image of this contract (built from the local base image, offline)"
image="$("$bin/hailer" kernel contract --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["image"])')"
if docker image inspect "$image" >/dev/null 2>&1; then
    echo "$image is here already; not built again" >&2
else
    HAILER_HOME="$image_home" "$bin/hailer" kernel build \
        --base-image "$HAILER_TEST_BASE_IMAGE" --wheelhouse "$HAILER_TEST_IMAGE_WHEELHOUSE" >&2
fi

# Benchmarks that failed or missed their target; the table is printed first, then the run fails.
failed=()

# run NAME PROGRAM ARGS...: runs one benchmark, keeps its output and its table rows.
run() {
    local name="$1"
    shift
    step "$name"
    local log="$out/$name.log"
    local started=$SECONDS
    if ! "$@" 2>&1 | tee "$log"; then
        echo "$name failed or missed its target; its output is in $log" >&2
        failed+=("$name")
    fi
    grep -P '^BENCH\t' "$log" | sed "s/^BENCH\t/$name\t/" >>"$rows" ||
        { echo "$name printed no table row" >&2; failed+=("$name"); }
    printf '(%s took %d s)\n' "$name" $((SECONDS - started)) >&2
}

run foundation "$bin/bench-foundation" --samples "$(samples 7 21)"
run session "$bin/bench-session" --samples "$(samples 3 7)"
# Each sample starts three cold kernels (plain marimo, unsafe-local, sandbox): five keep the
# whole run under 10 minutes with a margin.
run first-answer "$bin/bench-first-answer" --samples "$(samples 3 5)"
run chat "$bin/bench-chat" --samples "$(samples 3 9)"
run tools "$bin/bench-tools" --samples "$(samples 3 9)"
run fanout "$bin/bench-fanout"
run audit "$bin/bench-audit"
run mcp "$bin/bench-mcp" --samples "$(samples 5 15)"
run page "$bin/bench-page" --samples "$(samples 3 5)"
# Each sample installs the managed environment twice (pip, then uv) and starts a session after
# each: two samples (the slower one is reported) keep the whole run under 10 minutes.
run install-local "$bin/bench-install-local" --samples "$(samples 1 2)"
run docker "$bin/examples/docker_bench" "$(samples 1 3)"
run docker-first-answer "$bin/bench-docker-first-answer" --samples "$(samples 3 5)"
# The managed environment the session benchmark's daemons used (the tests' shared one).
contract="$("$bin/hailer" kernel contract --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["contract"])')"
run marimo-ready env HAILER_TEST_PYTHON="$HAILER_TEST_CACHE/kernel-envs/$contract/venv/bin/python" \
    "$bin/examples/bench_ready" "$(samples 3 7)"
run turn-loop "$bin/examples/loop_overhead"
run model-client "$bin/examples/round_trip"
run render "$bin/examples/bench-render"

step "Every figure, next to the floor measured in the same run"
python3 - "$rows" <<'EOF'
import re
import sys

def value(text):
    match = re.fullmatch(r"(-?[0-9.]+) (ms|s|MB)", text.strip())
    if not match:
        return None
    number, unit = float(match.group(1)), match.group(2)
    return number * 1000 if unit == "s" else number, "ms" if unit in ("ms", "s") else unit

rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1]) if line.strip()]
print("| Benchmark | Figure | Ours | Floor (same run) | Ratio | Target |")
print("|---|---|---:|---:|---:|---|")
for bench, figure, ours, floor, target in rows:
    ours_value, floor_value = value(ours), value(floor)
    ratio = "-"
    if ours_value and floor_value and ours_value[1] == floor_value[1] and floor_value[0] > 0:
        ratio = f"{ours_value[0] / floor_value[0]:.2f}"
    print(f"| {bench} | {figure} | {ours} | {floor} | {ratio} | {target} |")
EOF

if [ "${#failed[@]}" -gt 0 ]; then
    echo "Failed or over target: ${failed[*]} (their output is in $out)" >&2
    exit 1
fi
