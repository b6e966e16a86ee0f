#!/usr/bin/env bash
# The one list of the Debian packages bgtask needs; installs those missing.
# Usage: scripts/deps.sh [build|test|slurm|slurm-accounting] [EXTRA_PACKAGE...]
#   build  compile bgtask (what scripts/bgtask needs)
#   test   build, plus every tool the test suite drives (the default;
#          what scripts/test installs)
#   slurm  the daemons and clients of a local Slurm cluster (scripts/slurm-up)
#   slurm-accounting  slurmdbd and MariaDB (scripts/slurm-up --accounting); their
#          install starts no system daemon
# As root it runs apt-get; otherwise through sudo, or, without sudo, it names
# the missing packages and exits 1.
set -euo pipefail

build_packages=(cmake g++ make libboost-json1.81-dev libboost-filesystem1.81-dev
  libboost-program-options1.81-dev libhowardhinnant-date-dev libsodium-dev libre2-dev
  libncurses-dev # the screen of `bgtask top`
  scdoc) # scdoc: the man page, from docs/bgtask.1.scd
# What each test drives, by the package that has it on Debian 12.
test_packages=(
  libgtest-dev             # tests/unit, tests/e2e
  librapidcheck-dev        # the model-based test (tests/e2e/test_state_model.cpp)
  valgrind                 # bgtask run under Valgrind (test_under_valgrind)
  ninja-build ccache       # the presets build with Ninja; scripts/test adds ccache
  clang libclang-rt-14-dev # scripts/fuzz, scripts/test --sanitize
  clang-format             # scripts/check-format (lint.check_format)
  clang-tidy               # scripts/test --tidy (BGTASK_CLANG_TIDY)
  jq                       # reading records in the shell tests
  python3-jsonschema       # tests/tools/check_records.py: records against docs/record.schema.json
  procps                   # ps, pgrep, pkill
  util-linux mount bsdutils # unshare, setsid, flock, runuser; mount; script(1)
  passwd                   # useradd, for tests run as a second user
  e2fsprogs                # mkfs.ext4 for the loop-mounted disk tests
  xfsprogs                 # mkfs.xfs: power cuts on xfs (test_crash_power_cut_xfs)
  strace                   # fault injection, syscall counts
  faketime                 # a wall-clock jump under every bgtask process (test_clock_jump)
  bindfs                   # a FUSE file system without RENAME_NOREPLACE (test_dedupe_no_rename2)
  zsh fish                 # completion tests
  groff-base man-db        # man page test (groff warnings, man -l)
  dpkg-dev file            # cpack -G DEB: dpkg-shlibdeps, which runs file(1)
  tmux                     # tests that drive bgtask on a terminal
  cron                     # tests that start a real cron daemon
  dma                      # an MTA that delivers cron's mail to /var/mail (test_cron_mail)
  nodejs npm               # tests/mcp: the MCP TypeScript SDK client drives `bgtask mcp`
)
slurm_packages=(slurmctld slurmd slurm-client munge)
slurm_accounting_packages=(slurmdbd mariadb-server mariadb-client)

group=test
case "${1:-}" in
  build | test | slurm | slurm-accounting) group=$1; shift ;;
esac
case "$group" in
  build) packages=("${build_packages[@]}") ;;
  test) packages=("${build_packages[@]}" "${test_packages[@]}") ;;
  slurm) packages=("${slurm_packages[@]}") ;;
  slurm-accounting) packages=("${slurm_accounting_packages[@]}") ;;
esac
packages+=("$@")

# A package whose command is already there by other means counts as present:
# Node.js builds that bundle npm (NodeSource's nodejs) conflict with Debian's npm,
# and any MTA (/usr/sbin/sendmail) conflicts with dma.
provided_by_command() {
  case "$1" in
    npm) command -v npm >/dev/null ;;
    dma) [ -x /usr/sbin/sendmail ] ;;
    *) return 1 ;;
  esac
}

missing=()
for p in "${packages[@]}"; do
  [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)" = "install ok installed" ] ||
    provided_by_command "$p" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=()
if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null; then
    echo "bgtask: missing Debian packages: ${missing[*]}" >&2
    echo "bgtask: install them as root: apt-get install ${missing[*]}" >&2
    exit 1
  fi
  sudo=(sudo)
fi
echo "bgtask: installing ${missing[*]}" >&2
"${sudo[@]}" apt-get update -qq >&2
# mariadb-server's postinst would start a system database: a policy-rc.d
# that refuses (exit 101) keeps it from doing so, if none is there yet.
policy=/usr/sbin/policy-rc.d
own_policy=no
if [ "$group" = slurm-accounting ] && [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' | "${sudo[@]}" tee "$policy" >/dev/null
  "${sudo[@]}" chmod 755 "$policy"
  own_policy=yes
fi
rc=0
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2 || rc=$?
[ "$own_policy" = no ] || "${sudo[@]}" rm -f "$policy"
exit "$rc"
