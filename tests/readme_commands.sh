#!/usr/bin/env bash
# The README's commands as a newcomer pastes them after the quick start: every command line of the
# fenced shell blocks after README.md's quick-start block, and of examples/darknet/README.md, in
# order, each in its own bash, from a scratch folder laid out as the source tree (build/,
# tests/data/, examples/). `export` lines run in this script's own shell, so that the quick start's
# `export PATH=...` puts the build's `ucudnn` on PATH for the lines after it, as for a user. Each must
# succeed. A line whose comment ends saying what it needs that a test cannot have ("# needs a
# GPU", "# ...; needs the network") is skipped, and counted. /opt/ucudnn, the README's install
# prefix, is a scratch folder here.
#   tests/readme_commands.sh BUILD_DIR SOURCE_DIR       (a ctest test: tests/CMakeLists.txt)
set -euo pipefail
build=$(cd "$1" && pwd)
source=$(cd "$2" && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
work=$scratch/work
mkdir -p "$work/tests"
ln -s "$source/tests/data" "$work/tests/data"
ln -s "$source/examples" "$work/examples"
ln -s "$build" "$work/build"

# command_lines FILE START: the command lines of FILE's ```sh / ```bash blocks after the first line
# matching START (empty: all of them) and the block that follows it; continuations joined, blank
# and comment-only lines dropped.
command_lines() {
  awk -v start="$2" '
    BEGIN { on = (start == "") }
    !on && index($0, start) == 1 { seen = 1; next }
    /^```/ {
      if (seen && !on && fence) { on = 1; fence = 0; next }  # the end of the block after START
      if (fence) { fence = 0; next }
      fence = 1; shell = ($0 ~ /^```(sh|bash|shell)$/); next
    }
    !fence || !on || !shell { next }
    /\\$/ { pending = pending substr($0, 1, length($0) - 1); next }
    { line = pending $0; pending = "" }
    line ~ /^[[:space:]]*(#|$)/ { next }
    { print line }' "$1"
}

ran=0 skipped=0 failed=0
run_lines() {  # FILE START
  local line needs output status
  while IFS= read -r line; do
    needs=$(sed -nE 's/.*#[^#]*(needs [^#;]*)$/\1/p' <<< "$line")
    if [ -n "$needs" ]; then
      skipped=$((skipped + 1))
      continue
    fi
    status=0
    if [[ "$line" == "export "* ]]; then
      cd "$work"
      eval "$line" || { echo "readme_commands: FAILED: $line"; failed=$((failed + 1)); }
      cd - > /dev/null
      ran=$((ran + 1))
      continue
    fi
    output=$(cd "$work" && bash -c "${line//\/opt\/ucudnn/$scratch/opt/ucudnn}" 2>&1 < /dev/null) || status=$?
    if [ "$status" -ne 0 ]; then
      echo "readme_commands: FAILED (exit $status) in ${1#"$source"/}: $line"
      tail -n 20 <<< "$output" | sed 's/^/    /'
      failed=$((failed + 1))
    fi
    ran=$((ran + 1))
  done < <(command_lines "$1" "$2")
}
run_lines "$source/README.md" "## Quick start"
run_lines "$source/examples/darknet/README.md" ""
echo "readme_commands: $ran lines ran, $failed failed; $skipped skipped (each says what it needs)"
[ "$ran" -ge 10 ] || { echo "readme_commands: too few lines found; have the README's blocks moved?"; exit 1; }
[ "$failed" -eq 0 ]
