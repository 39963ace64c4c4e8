#!/usr/bin/env bash
# Installs the build dependencies that a fresh Debian/Ubuntu machine lacks (needs root or sudo).
# CUDA and cuDNN are expected under /usr/local/cuda or the system's multiarch directories.
set -euo pipefail
packages=(cmake g++ make libgtest-dev libglpk-dev libsqlite3-dev nlohmann-json3-dev libcli11-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  echo "installing: ${missing[*]}"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi
