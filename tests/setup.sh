#!/usr/bin/env bash
# Installs the build dependencies that a fresh Debian/Ubuntu machine lacks (needs root or sudo).
# CUDA and cuDNN are expected under /usr/local/cuda or the system's multiarch directories; without
# them the build makes the CPU parts only (see CMakeLists.txt).
#   UCUDNN_SETUP_EXTRA    more packages to install (CI adds clang for the sanitizer and fuzz builds)
#   UCUDNN_APT_LOCK_WAIT  seconds to wait for another apt or dpkg to let go of its lock (default 900:
#                         a fresh VM's unattended upgrades hold it for minutes)
set -euo pipefail
packages=(cmake g++ make libgtest-dev libglpk-dev libsqlite3-dev nlohmann-json3-dev libcli11-dev)
read -r -a extra <<<"${UCUDNN_SETUP_EXTRA:-}"
packages+=("${extra[@]}")
lock_wait=${UCUDNN_APT_LOCK_WAIT:-900}
[[ "$lock_wait" =~ ^[0-9]+$ ]] || { echo "setup: UCUDNN_APT_LOCK_WAIT must be a number of seconds, not '$lock_wait'" >&2; exit 2; }

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)

# apt-get, retried while another package manager holds apt's or dpkg's lock; any other failure
# shows apt's own messages and stops the set-up.
apt_get() {
  local waited=0 pause=$((lock_wait / 10)) output
  ((pause >= 1)) || pause=1
  ((pause <= 10)) || pause=10
  while true; do
    if output=$("${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout="$pause" "$@" 2>&1); then
      return 0
    fi
    if grep -qiE "could not (get|open) lock|unable to acquire|is another process using it" <<<"$output" &&
       ((waited < lock_wait)); then
      echo "setup: another apt or dpkg holds the package lock; waiting (${waited}s of ${lock_wait}s)"
      sleep "$pause"
      waited=$((waited + pause))
      continue
    fi
    printf '%s\n' "$output" >&2
    echo "setup: 'apt-get $*' failed (see above)" >&2
    return 1
  done
}

echo "setup: installing ${missing[*]}"
apt_get update -qq
apt_get install -y -qq "${missing[@]}"
