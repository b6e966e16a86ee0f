#!/usr/bin/env bash
# Installs the Debian packages bgtask needs to build and test, if missing.
# Usage: scripts/deps.sh [EXTRA_PACKAGE...]
set -euo pipefail
packages=(cmake g++ make libboost-json1.81-dev libboost-filesystem1.81-dev
  libboost-program-options1.81-dev libhowardhinnant-date-dev libgtest-dev "$@")
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "bgtask: installing ${missing[*]}" >&2
$sudo apt-get update -qq >&2
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
