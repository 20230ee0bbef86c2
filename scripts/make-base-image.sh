#!/usr/bin/env bash
# Makes the Docker image hailer-base:trixie, a base for the kernel image made without any registry:
# debootstrap builds a minimal Debian 13 (trixie, whose python3 is 3.13) with python3, python3-venv
# and ca-certificates in a temporary folder, and `docker import` turns that folder into an image.
# Users build from the official Python image instead; this is the route for a machine that reaches
# no image registry (the tests, an air-gapped network), with `hailer kernel build --base-image
# hailer-base:trixie --wheelhouse DIR`.
#
#   scripts/make-base-image.sh [--force]
#
# Does nothing when the image exists already (--force makes it again). Needs root, debootstrap and
# a running Docker engine. The Debian mirror is the one apt on this machine uses for its own
# release (from /etc/apt/sources.list and /etc/apt/sources.list.d/), else
# http://deb.debian.org/debian.
#
# Environment:
#   HAILER_BASE_IMAGE     the image to make (default hailer-base:trixie)
#   HAILER_DEBIAN_MIRROR  the Debian mirror to use instead of apt's
set -Eeuo pipefail

IMAGE="${HAILER_BASE_IMAGE:-hailer-base:trixie}"
SUITE=trixie
# apt's own release, whose mirror serves trixie too
HOST_SUITE="$( (. /etc/os-release 2>/dev/null && printf '%s' "${VERSION_CODENAME:-}") || true)"
DEFAULT_MIRROR=http://deb.debian.org/debian
PACKAGES=python3,python3-venv,ca-certificates

say() { printf '==> %s\n' "$*" >&2; }
die() {
    printf 'make-base-image: %s\n' "$*" >&2
    exit 1
}
trap 'status=$?; printf "make-base-image: failed (exit %s) at line %s: %s\n" "$status" "$LINENO" "$BASH_COMMAND" >&2; exit "$status"' ERR

force=0
for arg in "$@"; do
    case "$arg" in
        --force) force=1 ;;
        -h | --help)
            sed -n '2,20p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
            exit 0
            ;;
        *) die "unknown option $arg (see --help)" ;;
    esac
done

command -v docker >/dev/null 2>&1 || die "docker is not installed: install Docker Engine first"
docker_error="$(docker info --format '{{.ServerVersion}}' 2>&1 >/dev/null)" ||
    die "Docker is not running (docker said: ${docker_error:-nothing}); start the Docker engine and run this again"

if [ "$force" -eq 0 ] && docker image inspect "$IMAGE" >/dev/null 2>&1; then
    say "$IMAGE exists already ($(docker image inspect --format '{{.Size}}' "$IMAGE" | numfmt --to=si)B); nothing to do"
    exit 0
fi

[ "$(id -u)" -eq 0 ] || die "debootstrap needs root: run this script as root"
command -v debootstrap >/dev/null 2>&1 || die "debootstrap is not installed: run scripts/test-prereqs.sh, or apt-get install debootstrap"

# The first http(s) mirror apt uses for the suite itself (not -security, -updates or -backports).
apt_mirror() {
    local file
    for file in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -f "$file" ] || continue
        # deb [options] URI SUITE COMPONENTS...
        sed -e 's/#.*//' -e 's/\[[^]]*\]//' "$file" | awk -v suite="${HOST_SUITE:-$SUITE}" \
            '$1 == "deb" && $3 == suite && $2 ~ /^https?:\/\// { print $2; exit }'
    done
    for file in /etc/apt/sources.list.d/*.sources; do
        [ -f "$file" ] || continue
        # deb822 stanzas: Types, URIs, Suites, ... separated by blank lines
        awk -v suite="${HOST_SUITE:-$SUITE}" '
            function flush() {
                if (is_deb && has_suite && uri != "") { print uri; found = 1 }
                is_deb = 0; has_suite = 0; uri = ""
            }
            /^[ \t]*#/ { next }
            /^[ \t]*$/ { flush(); if (found) exit; next }
            tolower($1) == "types:" { for (i = 2; i <= NF; i++) if ($i == "deb") is_deb = 1 }
            tolower($1) == "suites:" { for (i = 2; i <= NF; i++) if ($i == suite) has_suite = 1 }
            tolower($1) == "uris:" { for (i = 2; i <= NF; i++) if ($i ~ /^https?:\/\// && uri == "") uri = $i }
            END { if (!found) flush() }
        ' "$file"
    done
}

mirror="${HAILER_DEBIAN_MIRROR:-}"
if [ -z "$mirror" ]; then
    mirror="$(apt_mirror | head -n 1)"
fi
mirror="${mirror:-$DEFAULT_MIRROR}"

work="$(mktemp -d "${TMPDIR:-/var/tmp}/hailer-base.XXXXXX")"
rootfs="$work/rootfs"
cleanup() {
    local mount
    for mount in "$rootfs/proc" "$rootfs/sys" "$rootfs/dev/pts" "$rootfs/dev"; do
        if mountpoint -q "$mount" 2>/dev/null; then umount -l "$mount" || true; fi
    done
    rm -rf --one-file-system "$work"
}
trap cleanup EXIT

started=$(date +%s)
say "debootstrap $SUITE ($PACKAGES) from $mirror"
debootstrap --variant=minbase --include="$PACKAGES" "$SUITE" "$rootfs" "$mirror" >&2
bootstrapped=$(date +%s)

# Package caches and lists are of no use in an image that never runs apt.
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/lib/apt/lists/*
rm -rf "$rootfs"/var/log/* "$rootfs"/tmp/* "$rootfs"/root/.cache
chroot "$rootfs" /usr/bin/python3 -c 'import venv, ensurepip' ||
    die "the new root file system has no working python3 with venv and ensurepip"

say "docker import as $IMAGE"
tar --numeric-owner -C "$rootfs" -c . | docker import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV LANG=C.UTF-8' \
    --change "LABEL org.hailer.base=debian-$SUITE-minbase" \
    --message "debootstrap --variant=minbase --include=$PACKAGES $SUITE" \
    - "$IMAGE" >/dev/null
finished=$(date +%s)

size="$(docker image inspect --format '{{.Size}}' "$IMAGE" | numfmt --to=si)B"
say "$IMAGE is ready: $size; debootstrap $((bootstrapped - started)) s, import $((finished - bootstrapped)) s, total $((finished - started)) s"
