#!/usr/bin/env bash
# Starts a private image registry on loopback for the tests of `hailer kernel pull`, unless one
# answers there already, and prints its address (HOST:PORT) on standard output.
#
#   scripts/start-test-registry.sh CACHE_DIR
#
# The registry is Debian's docker-registry (the reference "distribution" server), storing its
# images under CACHE_DIR/registry/ and logging to CACHE_DIR/registry.log. It listens on
# 127.0.0.1 only; the Docker engine treats 127.0.0.0/8 as a registry it may use without TLS.
# It keeps running after this script ends, so later runs reuse it.
#
# Environment: HAILER_TEST_REGISTRY_PORT (default 5795).
set -Eeuo pipefail

CACHE="${1:?usage: start-test-registry.sh CACHE_DIR}"
PORT="${HAILER_TEST_REGISTRY_PORT:-5795}"
ADDRESS="127.0.0.1:$PORT"

say() { printf '==> %s\n' "$*" >&2; }
die() {
    printf 'start-test-registry: %s\n' "$*" >&2
    exit 1
}

answers() { curl -fsS --noproxy "*" -o /dev/null --max-time 2 "http://$ADDRESS/v2/" 2>/dev/null; }

if answers; then
    say "image registry: answering at $ADDRESS"
    printf '%s\n' "$ADDRESS"
    exit 0
fi
command -v docker-registry >/dev/null 2>&1 || die "docker-registry is not installed (apt-get install docker-registry)"

mkdir -p "$CACHE/registry"
config="$CACHE/registry.yml"
cat >"$config" <<EOF
version: 0.1
log:
  level: warn
storage:
  filesystem:
    rootdirectory: $CACHE/registry
  delete:
    enabled: true
http:
  addr: $ADDRESS
EOF
say "image registry: starting at $ADDRESS"
setsid nohup docker-registry serve "$config" >>"$CACHE/registry.log" 2>&1 </dev/null &
for _ in $(seq 1 50); do
    if answers; then
        printf '%s\n' "$ADDRESS"
        exit 0
    fi
    sleep 0.2
done
tail -n 20 "$CACHE/registry.log" >&2 || true
die "the registry did not answer at $ADDRESS within 10 s (its log is above)"
