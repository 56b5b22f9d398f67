#!/bin/sh
# Installs the Debian packages the tests use when they are missing: a PostgreSQL server (the run store's
# database tests), Chromium (the dashboard's browser tests), OpenSSH's server and sudo (the fleet tests
# start sshd on loopback, one login with become), python3 with PyYAML (the differential tests of the
# Python value library, Salt's #!py renderer and Inmanta's Python plugins) and git (Salt's git.latest).
# Safe to run again. Without root or apt it does nothing, and those tests skip with one line each.
set -e
PACKAGES="postgresql chromium openssh-server sudo python3 python3-yaml git"
[ "$(id -u)" = 0 ] || exit 0
command -v apt-get >/dev/null 2>&1 || exit 0
missing=""
for p in $PACKAGES; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
[ -n "$missing" ] || exit 0
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
