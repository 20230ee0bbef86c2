#!/usr/bin/env bash
# Installs a tool the tests need into a venv of its own, from the exact pins of a requirements
# file, and prints the path of one of its programs on standard output. The venv is made again
# only when the pins or the Python change, so a second run takes a moment.
#
#   scripts/install-pinned-venv.sh LABEL VENV PYTHON REQUIREMENTS IMPORT PROGRAM [--no-deps]
#
# LABEL names the tool in messages; IMPORT is a Python import that proves the install works;
# PROGRAM is the file below VENV to print (bin/litellm). With --no-deps the file pins every
# package itself, and pip checks that they fit together.
set -euo pipefail
usage="usage: install-pinned-venv.sh LABEL VENV PYTHON REQUIREMENTS IMPORT PROGRAM [--no-deps]"
LABEL="${1:?$usage}"
VENV="${2:?$usage}"
PYTHON="${3:?$usage}"
REQUIREMENTS="${4:?$usage}"
IMPORT="${5:?$usage}"
PROGRAM="${6:?$usage}"
NO_DEPS="${7:-}"

say() { printf '==> %s\n' "$*" >&2; }
die() {
    printf 'install-pinned-venv (%s): %s\n' "$LABEL" "$*" >&2
    exit 1
}

wanted="$( (cat "$REQUIREMENTS"; "$PYTHON" -c 'import sys, sysconfig; print(sys.version_info[:2], sysconfig.get_platform())') | sha256sum | cut -d' ' -f1)"
if [ -x "$VENV/$PROGRAM" ] && [ "$(cat "$VENV/.requirements.sha256" 2>/dev/null)" = "$wanted" ]; then
    say "$LABEL: up to date"
else
    say "$LABEL: installing into $VENV"
    rm -rf "$VENV"
    "$PYTHON" -m venv "$VENV"
    flags=(-q)
    [ "$NO_DEPS" = "--no-deps" ] && flags+=(--no-deps)
    PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 "$VENV/bin/python" -m pip install "${flags[@]}" -r "$REQUIREMENTS" >&2 ||
        die "pip could not install $REQUIREMENTS (is the package index reachable?)"
    if [ "$NO_DEPS" = "--no-deps" ]; then
        "$VENV/bin/python" -m pip check >&2 || die "the pins of $REQUIREMENTS do not fit together"
    fi
    printf '%s\n' "$wanted" >"$VENV/.requirements.sha256"
fi
"$VENV/bin/python" -c "import $IMPORT" 2>/dev/null ||
    die "$IMPORT does not import from $VENV: delete $VENV and run this again"
printf '%s\n' "$VENV/$PROGRAM"
