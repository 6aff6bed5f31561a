#!/usr/bin/env bash
# What the test suite needs from the machine and not from PyPI: Debian's
# PostgreSQL server binaries (the store tests start a real server) and
# Debian's Chromium (the inspector's browser tests drive it). Installs
# what is missing with apt-get when it can; otherwise says what to install and
# fails. A missing piece is never a silent skip.
set -euo pipefail

missing=()
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || missing+=(postgresql)
command -v chromium >/dev/null || missing+=(chromium)

if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi
if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
    echo "installing Debian packages the tests need: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    exit 0
fi
echo "the tests need these Debian packages: ${missing[*]}" >&2
echo "install them (as root: apt-get install -y ${missing[*]}) and run make test again" >&2
exit 1
