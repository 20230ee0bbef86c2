#!/usr/bin/env bash
# Builds the kernel image from kernel-image/ offline and checks it the way Hailer uses it:
#
#   scripts/check-kernel-image.sh [--no-build] [--tag NAME]
#
# 1. builds NAME (default hailer-kernel:check) with BuildKit (the Dockerfile needs it: `docker
#    build` of Docker 23 or newer, or buildx) from a temporary context whose wheels/ come from the
#    test wheelhouse (no index is contacted, so no build secret is needed);
# 2. imports the kernel's packages with no network, a read-only root and user 1000;
# 3. starts the kernel on an internal network and the forwarder in front of it, published on
#    127.0.0.1 only, then through the forwarder: /health, token checks, marimo.toml's
#    auto_instantiate in effect, a headless session on the starter notebook with its cells run, and
#    code run in that session that reads the data folder (read-only) through the starter's
#    DATA_DIR, data_files and period_files.
#
# Needs Docker, the base image (scripts/make-base-image.sh) and the test wheelhouse and Python
# (scripts/test-prereqs.sh; .cache/test-env.sh is read when HAILER_TEST_* are not set).
# Prints the build time, the image size and how long marimo took to answer.
set -Eeuo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
KERNEL_IMAGE="$ROOT/kernel-image"
TAG=hailer-kernel:check
BASE_IMAGE="${HAILER_BASE_IMAGE:-hailer-base:trixie}"
build=1

say() { printf '==> %s\n' "$*" >&2; }
die() {
    printf 'check-kernel-image: %s\n' "$*" >&2
    exit 1
}
trap 'status=$?; printf "check-kernel-image: failed (exit %s) at line %s: %s\n" "$status" "$LINENO" "$BASH_COMMAND" >&2; exit "$status"' ERR

while [ $# -gt 0 ]; do
    case "$1" in
        --no-build) build=0 ;;
        --tag)
            [ $# -ge 2 ] || die "--tag needs a name"
            TAG="$2"
            shift
            ;;
        -h | --help)
            sed -n '2,18p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
            exit 0
            ;;
        *) die "unknown option $1 (see --help)" ;;
    esac
    shift
done

if [ -z "${HAILER_TEST_PYTHON:-}" ] && [ -f "$ROOT/.cache/test-env.sh" ]; then
    # shellcheck source=/dev/null
    . "$ROOT/.cache/test-env.sh"
fi
[ -x "${HAILER_TEST_PYTHON:-}" ] || die "no test Python: run scripts/test-prereqs.sh first"
[ -d "${HAILER_TEST_IMAGE_WHEELHOUSE:-}" ] || die "no image wheelhouse: run scripts/test-prereqs.sh first"
docker image inspect "$BASE_IMAGE" >/dev/null 2>&1 || die "no base image $BASE_IMAGE: run scripts/make-base-image.sh first"

suffix="$(od -An -N3 -tx1 /dev/urandom | tr -d ' \n')"
work="$(mktemp -d "${TMPDIR:-/var/tmp}/hailer-check.XXXXXX")"
network="hailer-check-net-$suffix"
kernel="hailer-check-kernel-$suffix"
forwarder="hailer-check-fwd-$suffix"
sse_pid=""
cleanup() {
    [ -n "$sse_pid" ] && kill "$sse_pid" 2>/dev/null || true
    docker rm -f "$forwarder" "$kernel" >/dev/null 2>&1 || true
    docker network rm "$network" >/dev/null 2>&1 || true
    [ -n "${KEEP_WORK:-}" ] || rm -rf "$work"
}
trap cleanup EXIT

if [ "$build" -eq 1 ]; then
    context="$work/context"
    mkdir -p "$context/wheels"
    cp -r "$KERNEL_IMAGE/Dockerfile" "$KERNEL_IMAGE/requirements.txt" "$KERNEL_IMAGE/pyproject.toml" \
        "$KERNEL_IMAGE/README.md" "$KERNEL_IMAGE/hailer_kernel" "$context/"
    find "$context/hailer_kernel" -name __pycache__ -prune -exec rm -rf {} +
    say "filling the build context's wheels/ from $HAILER_TEST_IMAGE_WHEELHOUSE (the base image's Python)"
    cp "$HAILER_TEST_IMAGE_WHEELHOUSE"/*.whl "$context/wheels/"
    say "docker build $TAG (BuildKit, offline)"
    started=$(date +%s)
    DOCKER_BUILDKIT=1 docker build -q --build-arg "BASE_IMAGE=$BASE_IMAGE" \
        --build-arg KERNEL_CONTRACT=check -t "$TAG" "$context" >/dev/null
    say "built in $(($(date +%s) - started)) s"
fi
size="$(docker image inspect --format '{{.Size}}' "$TAG")"
say "image $TAG: $(numfmt --to=si "$size")B"
label="$(docker image inspect --format '{{index .Config.Labels "org.hailer.kernel-contract"}}' "$TAG")"
[ -n "$label" ] || die "the image has no org.hailer.kernel-contract label"
[ "$(docker image inspect --format '{{json .Config.Entrypoint}} {{.Config.User}} {{.Config.WorkingDir}}' "$TAG")" = "null 1000:1000 /work" ] ||
    die "the image must have no entrypoint, user 1000:1000 and workdir /work"

say "imports with no network, a read-only root and user 1000"
docker run --rm --network none --read-only --tmpfs /tmp --user 1000:1000 "$TAG" \
    /opt/hailer/venv/bin/python -c "import marimo, polars, duckdb, fastexcel, hailer_kernel" ||
    die "the kernel's packages do not import in the image"
if docker run --rm --network none "$TAG" sh -c 'test -e /build || test -e /opt/hailer/venv/pip.conf'; then
    die "build-stage files reached the final image"
fi

say "sample workspace: two monthly files and a CSV"
mkdir -p "$work/data" "$work/notebooks" "$work/secret"
"$HAILER_TEST_PYTHON" - "$work/data" <<'PY'
import sys
from pathlib import Path
import polars as pl
data = Path(sys.argv[1])
pl.DataFrame({"region": ["n", "s"], "amount": [1, 2]}).write_parquet(data / "25-01 sales.parquet")
pl.DataFrame({"region": ["n"], "amount": [3], "discount": [0.1]}).write_parquet(data / "25-02 sales.parquet")
(data / "targets.csv").write_text("target\n10\n")
PY
cp "$KERNEL_IMAGE/templates/starter.py" "$work/notebooks/analysis.py"
chown -R 1000:1000 "$work/notebooks"
token="check-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
printf '%s' "$token" >"$work/secret/token"
chmod 0755 "$work/secret"
chmod 0644 "$work/secret/token"

docker network create --internal "$network" >/dev/null
docker run -d --name "$kernel" --network "$network" --init --read-only --tmpfs /tmp \
    --cap-drop ALL --security-opt no-new-privileges --pids-limit 256 --memory 2g --memory-swap 2g \
    --user 1000:1000 -w /work \
    --mount "type=bind,source=$work/data,target=/work/data,readonly" \
    --mount "type=bind,source=$work/notebooks,target=/work/notebooks" \
    --mount "type=bind,source=$work/secret/token,target=/run/secrets/hailer-token,readonly" \
    "$TAG" marimo edit notebooks --host 0.0.0.0 --port 2718 --headless --skip-update-check \
    --token-password-file /run/secrets/hailer-token >/dev/null
port="$("$HAILER_TEST_PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
docker create --name "$forwarder" -p "127.0.0.1:$port:2718" --init --read-only --cap-drop ALL \
    --security-opt no-new-privileges --pids-limit 64 --memory 64m "$TAG" \
    python -m hailer_kernel.forward 2718 "$kernel:2718" >/dev/null
docker network connect "$network" "$forwarder"
started=$(date +%s%N)
docker start "$forwarder" >/dev/null
base="http://127.0.0.1:$port"

for _ in $(seq 1 120); do
    if curl -fsS --max-time 1 "$base/health" 2>/dev/null | grep -q healthy; then break; fi
    sleep 0.5
done
curl -fsS --max-time 1 "$base/health" | grep -q healthy ||
    die "marimo did not answer through the forwarder; kernel log: $(docker logs --tail 15 "$kernel" 2>&1 | sed "s/$token/<token>/g")"
say "marimo healthy through the forwarder after $((($(date +%s%N) - started) / 1000000)) ms"
[ "$(curl -s -o /dev/null -w '%{http_code}' "$base/api/sessions")" = 401 ] || die "marimo answered without the token"
[ "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $token" "$base/api/sessions")" = 200 ] ||
    die "marimo refused the right token"

say "headless session on the starter notebook"
curl -sS -N --max-time 120 -H "Authorization: Bearer $token" -H 'Accept: text/event-stream' \
    "$base/sse?session_id=s_check&file=/work/notebooks/analysis.py" >"$work/sse.log" 2>&1 &
sse_pid=$!
for _ in $(seq 1 120); do
    grep -q '"kernel-ready"' "$work/sse.log" 2>/dev/null && break
    sleep 0.5
done
grep -q '"kernel-ready"' "$work/sse.log" || die "no kernel-ready on the session stream"
kill "$sse_pid" 2>/dev/null || true
sse_pid=""
# A browser runs the cells on open because of marimo.toml's auto_instantiate, which marimo hands to
# its page; a headless client asks for the same run itself.
page="$(curl -sS --max-time 10 -H "Authorization: Bearer $token" "$base/")"
grep -Eq 'auto_instantiate(&quot;|")?: true' <<<"$page" ||
    die "marimo does not see auto_instantiate = true from the image's marimo.toml"
server_token="$(grep -o '<marimo-server-token[^>]*data-token="[^"]*"' <<<"$page" | sed 's/.*data-token="//; s/"$//')"
[ -n "$server_token" ] || die "no server token on marimo's page"
curl -fsS --max-time 10 -X POST -H "Authorization: Bearer $token" -H "Marimo-Server-Token: $server_token" \
    -H 'Marimo-Session-Id: s_check' -H 'Content-Type: application/json' \
    -d '{"objectIds":[],"values":[],"autoRun":true}' "$base/api/kernel/instantiate" | grep -q '"success":true' ||
    die "marimo did not run the notebook's cells"

probe='print("probe", DATA_DIR, WORKSPACE, len(data_files), len(period_files), load_periods(DATA_DIR).height)'
probe+=$'\ntry:\n    (DATA_DIR / "x.txt").write_text("x")\n    print("data writable")\nexcept OSError:\n    print("data read-only")'
body="$("$HAILER_TEST_PYTHON" -c 'import json, sys; print(json.dumps({"code": sys.argv[1]}))' "$probe")"
answer=""
for _ in $(seq 1 60); do
    answer="$(curl -sS --max-time 60 -X POST -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
        -H 'Marimo-Session-Id: s_check' -H 'Accept: text/event-stream' -d "$body" "$base/api/kernel/execute" || true)"
    grep -q 'probe ' <<<"$answer" && break
    sleep 0.5 # the cells may still be running; a name they define is then not there yet
done
grep -q 'probe /work/data /work 3 2 3' <<<"$answer" || die "the starter's names were not as expected: $answer"
grep -q 'data read-only' <<<"$answer" || die "the data folder was writable: $answer"
say "starter notebook in the kernel: DATA_DIR=/work/data, 3 data files, 2 period files, data read-only"
say "all checks passed"
