#!/usr/bin/env bash
# Builds Caffe 1.0 (or a fork of it) for CUDA 12 or 13 and cuDNN 8 or 9, plain or with ucudnn.
# `build.sh --help` lists the options. The patches are worked out on a scratch copy of the files
# they touch first, so a patch that does not apply stops the script before the checkout changes.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
tested_commit=eeebdab16155d34ff8f5f42137da7df4d1c7eab0  # BVLC/caffe tag 1.0
supported_cuda="12 13"

help() {
  cat << 'EOF'
usage: build.sh CAFFE_DIR [--with-ucudnn | --ucudnn-prefix DIR] [--arch SM] [--jobs N] [--check | --patch-only]

Builds CAFFE_DIR/build/tools/caffe with CMake for CUDA 12 or 13 and cuDNN 8 or 9 (9 with ucudnn).
CAFFE_DIR is BVLC Caffe 1.0 (git clone -b 1.0 https://github.com/BVLC/caffe) or a fork of it.
Patches: cuda13.patch always, cuda12.patch on top with CUDA 12, ucudnn.patch with ucudnn; those
no longer wanted are taken back out, so one checkout switches between builds.

  --with-ucudnn         apply ucudnn.patch; build ucudnn from this repository and install it
                        under build/install here (default: plain Caffe, ucudnn.patch taken out)
  --ucudnn-prefix DIR   with ucudnn, but the one installed in DIR (cmake --install BUILD --prefix DIR),
                        found by find_package(ucudnn) through CMAKE_PREFIX_PATH; implies --with-ucudnn
  --arch SM             the GPU architecture, compute capability without the dot (default 90, the H100)
  --jobs N              parallel compile jobs (default: the number of cores)
  --check               check the checkout, the toolkit and that the patches apply; change nothing
  --patch-only          apply or take out the patches as above, then stop (no packages, no build)
  -h, --help            this text

Environment: CUDA_HOME, the CUDA toolkit (default /usr/local/cuda, else the nvcc on PATH).
Also installs Caffe's missing Debian packages (with sudo when not root). CAFFE_DIR/build/variant
says which variant was built last ("plain" or "ucudnn").
EOF
}

fail() { echo "build.sh: $*" >&2; exit 1; }
usage_error() { echo "build.sh: $* (see build.sh --help)" >&2; exit 2; }

# --- arguments ----------------------------------------------------------------------------------
caffe=""
with_ucudnn=0
ucudnn_prefix=""
arch=90
jobs=$(nproc)
mode=build  # or check, patch-only
while [ $# -gt 0 ]; do
  option=$1
  case "$option" in  # --arch=90 is --arch 90
    --arch=* | --jobs=* | --ucudnn-prefix=*) set -- "${option%%=*}" "${option#*=}" "${@:2}"; option=$1 ;;
  esac
  case "$option" in
    --arch | --jobs | --ucudnn-prefix) [ $# -ge 2 ] || usage_error "$option needs a value" ;;
  esac
  case "$option" in
    --with-ucudnn) with_ucudnn=1 ;;
    --ucudnn-prefix) ucudnn_prefix=$2; with_ucudnn=1; shift ;;
    --arch) arch=$2; shift ;;
    --jobs) jobs=$2; shift ;;
    --check | --patch-only)
      [ "$mode" = build ] || usage_error "--check and --patch-only exclude each other"
      mode=${option#--} ;;
    -h | --help) help; exit 0 ;;
    -*) usage_error "unknown option '$option'" ;;
    *) [ -z "$caffe" ] || usage_error "one CAFFE_DIR only, not '$caffe' and '$option'"; caffe=$option ;;
  esac
  shift
done
[ -n "$caffe" ] || usage_error "CAFFE_DIR is missing"
[[ "$arch" =~ ^[0-9]+$ ]] || usage_error "--arch takes a compute capability without the dot (90 for the H100), not '$arch'"
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || usage_error "--jobs takes a positive number, not '$jobs'"
[ -d "$caffe" ] || fail "'$caffe' is not a directory"
caffe=$(cd "$caffe" && pwd -P)

# --- Caffe 1.0, or a fork of it? ----------------------------------------------------------------
grep -q '^project(Caffe' "$caffe/CMakeLists.txt" 2> /dev/null \
  || fail "'$caffe' is not a Caffe source tree (no project(Caffe) in CMakeLists.txt); get Caffe 1.0 with: git clone -b 1.0 https://github.com/BVLC/caffe"
if command -v git > /dev/null && [ "$(git -C "$caffe" rev-parse --show-toplevel 2> /dev/null)" = "$caffe" ]; then
  commit=$(git -C "$caffe" rev-parse -q --verify 'HEAD^{commit}' || true)
  found=${commit:0:12}
  [ "$commit" = $tested_commit ] \
    || echo "build.sh: warning: '$caffe' is at commit ${found:-none}, not Caffe 1.0 (${tested_commit:0:12}), the one the patches were tested on; going on" >&2
else
  version=$(sed -n 's/^set(CAFFE_TARGET_VERSION "\([^"]*\)".*/\1/p' "$caffe/CMakeLists.txt")
  [ "$version" = 1.0.0 ] \
    || echo "build.sh: warning: '$caffe' is Caffe version ${version:-unknown}, not 1.0.0 (commit ${tested_commit:0:12}), the one the patches were tested on; going on" >&2
fi

# --- CUDA 12 or 13, cuDNN 8 or 9 ----------------------------------------------------------------
if [ -n "${CUDA_HOME:-}" ]; then
  cuda=$CUDA_HOME
elif [ -x /usr/local/cuda/bin/nvcc ]; then
  cuda=/usr/local/cuda
elif command -v nvcc > /dev/null; then
  cuda=$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")
else
  fail "no CUDA toolkit: no /usr/local/cuda/bin/nvcc and no nvcc on PATH (set CUDA_HOME)"
fi
[ -x "$cuda/bin/nvcc" ] || fail "no nvcc at $cuda/bin/nvcc (set CUDA_HOME to the CUDA 12 or 13 toolkit)"
cuda_version=$("$cuda/bin/nvcc" --version 2> /dev/null | sed -n 's/.*release \([0-9][0-9.]*\).*/\1/p' | head -1)
[ -n "$cuda_version" ] || fail "$cuda/bin/nvcc --version names no release"
cuda_major=${cuda_version%%.*}
[[ " $supported_cuda " == *" $cuda_major "* ]] \
  || fail "$cuda is CUDA $cuda_version; supported: CUDA ${supported_cuda// / and }"
cudnn_h=
for candidate in "$cuda/include/cudnn_version.h" /usr/include/*-linux-gnu/cudnn_version.h /usr/include/cudnn_version.h; do
  [ -f "$candidate" ] && { cudnn_h=$candidate; break; }  # the toolkit's own first, in this order
done
[ -n "$cudnn_h" ] || fail "no cuDNN 8 or 9 found (cudnn_version.h under $cuda/include or /usr/include)"
cudnn_major=$(sed -n 's/^#define CUDNN_MAJOR *\([0-9][0-9]*\).*/\1/p' "$cudnn_h" | head -1)
if [ $with_ucudnn = 1 ]; then
  [ "$cudnn_major" = 9 ] || fail "$cudnn_h is cuDNN ${cudnn_major:-unknown}; ucudnn needs cuDNN 9"
else
  [[ "$cudnn_major" = 8 || "$cudnn_major" = 9 ]] || fail "$cudnn_h is cuDNN ${cudnn_major:-unknown}; Caffe here needs cuDNN 8 or 9"
fi
if [ -n "$ucudnn_prefix" ]; then
  [ -d "$ucudnn_prefix" ] || fail "--ucudnn-prefix '$ucudnn_prefix' is not a directory"
  ucudnn_prefix=$(cd "$ucudnn_prefix" && pwd)
  compgen -G "$ucudnn_prefix/lib*/cmake/ucudnn/ucudnnConfig.cmake" > /dev/null \
    || compgen -G "$ucudnn_prefix/lib/*/cmake/ucudnn/ucudnnConfig.cmake" > /dev/null \
    || fail "no ucudnn installed in '$ucudnn_prefix' (no lib*/cmake/ucudnn/ucudnnConfig.cmake); install it with: cmake --install BUILD --prefix '$ucudnn_prefix'"
fi

# --- Debian packages ----------------------------------------------------------------------------
packages=(cmake g++ make patch ccache protobuf-compiler libprotobuf-dev libgoogle-glog-dev libgflags-dev
          libboost-system-dev libboost-thread-dev libboost-filesystem-dev libhdf5-dev liblmdb-dev
          libleveldb-dev libsnappy-dev libopenblas-dev)
install_packages() {
  # tests/setup.sh installs what is missing (with sudo when not root; it waits for a held apt
  # lock), together with ucudnn's own build dependencies.
  UCUDNN_SETUP_EXTRA="${packages[*]}" bash "$repo/tests/setup.sh" \
    || fail "could not install Caffe's dependencies with apt-get (see above): ${packages[*]}"
}
packages_installed=0
if ! command -v patch > /dev/null; then
  [ "$mode" = build ] || fail "--$mode needs the patch command (apt-get install patch)"
  install_packages
  packages_installed=1
fi

# --- the patches, on a scratch copy first -------------------------------------------------------
# In order; each later one applies on top of the earlier ones.
patch_names=(cuda13.patch cuda12.patch ucudnn.patch)
wanted() {
  case $1 in
    cuda13.patch) true ;;
    cuda12.patch) [ "$cuda_major" = 12 ] ;;
    ucudnn.patch) [ $with_ucudnn = 1 ] ;;
  esac
}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
touched=$(cd "$here" && sed -n 's|^+++ b/||p' "${patch_names[@]}" | sort -u)
for file in $touched; do
  if [ -f "$caffe/$file" ]; then mkdir -p "$scratch/$(dirname "$file")" && cp "$caffe/$file" "$scratch/$file"; fi
done
run_patch() { patch -d "$scratch" -p1 -f --no-backup-if-mismatch "$@"; }
is_applied() { run_patch -R --dry-run -s < "$here/$1" > /dev/null 2>&1; }
# The files a patch's dry run rejects: "Hunk #n FAILED" under "checking file F", or F missing.
rejected_files() {
  run_patch --dry-run < "$here/$1" 2>&1 | awk '
    /^checking file / { file = substr($0, 15) }
    /^\|\+\+\+ / { file = $2; sub(/^b\//, "", file) }
    /^Hunk #[0-9]+ FAILED/ && !(file in seen) { seen[file]; list = list sep file; sep = ", " }
    /^No file to patch/ && !(file in seen) { seen[file]; list = list sep file " (missing)"; sep = ", " }
    END { print list }'
}
# Take every applied patch out, last first (cuda12.patch changes a line cuda13.patch added), then
# apply the wanted ones in order: the files end as the wanted patches make them, whatever was
# applied before.
declare -A was_applied=()
for ((i = ${#patch_names[@]} - 1; i >= 0; i--)); do
  name=${patch_names[i]}
  if is_applied "$name"; then
    was_applied[$name]=1
    run_patch -R -s < "$here/$name" > /dev/null || fail "could not take $name out of '$caffe'; the checkout is unchanged"
  fi
done
for name in "${patch_names[@]}"; do
  wanted "$name" || continue
  if ! run_patch --dry-run -s < "$here/$name" > /dev/null 2>&1; then
    fail "$name does not apply to '$caffe' (rejected: $(rejected_files "$name")); the checkout is unchanged"
  fi
  run_patch -s < "$here/$name" > /dev/null || fail "$name does not apply to '$caffe'; the checkout is unchanged"
done
to_apply=() to_take_out=()
for name in "${patch_names[@]}"; do
  if wanted "$name" && [ -z "${was_applied[$name]:-}" ]; then to_apply+=("$name"); fi
  if ! wanted "$name" && [ -n "${was_applied[$name]:-}" ]; then to_take_out+=("$name"); fi
done
if [ "$mode" = check ]; then
  todo=""
  [ ${#to_apply[@]} = 0 ] || todo="would apply ${to_apply[*]}"
  [ ${#to_take_out[@]} = 0 ] || todo="${todo:+$todo; }would take out ${to_take_out[*]}"
  echo "build.sh: the patches apply to '$caffe' (CUDA $cuda_version, cuDNN $cudnn_major): ${todo:-nothing to change}"
  exit 0
fi
# Only files whose text changed are written, so make and ccache see no others as new.
for file in $touched; do
  if [ -f "$scratch/$file" ] && ! cmp -s "$scratch/$file" "$caffe/$file"; then cp "$scratch/$file" "$caffe/$file"; fi
done
for name in "${to_take_out[@]}"; do echo "build.sh: took $name back out"; done
for name in "${to_apply[@]}"; do echo "build.sh: applied $name"; done
[ $((${#to_apply[@]} + ${#to_take_out[@]})) -gt 0 ] || echo "build.sh: the patches were applied already"
[ "$mode" = build ] || exit 0

[ $packages_installed = 1 ] || install_packages

# --- ucudnn -------------------------------------------------------------------------------------
export PATH="$cuda/bin:$PATH"  # ucudnn's find_package(CUDAToolkit) and Caffe's FindCUDA: this toolkit
build="$caffe/build"
mkdir -p "$build"
prefix_args=()
if [ -n "$ucudnn_prefix" ]; then
  # -U: a ucudnn_DIR left in Caffe's cache by an earlier build would win over CMAKE_PREFIX_PATH.
  prefix_args=(-Uucudnn_DIR -DCMAKE_PREFIX_PATH="$ucudnn_prefix")
elif [ $with_ucudnn = 1 ]; then
  bash "$repo/scripts/build.sh" > "$build/ucudnn-build.log" 2>&1 \
    || fail "building ucudnn failed; see $build/ucudnn-build.log"
  # Installed outside Caffe's trees: CMake refuses include paths of a target inside them.
  cmake --install "$repo/build" --prefix "$repo/build/install" > /dev/null
  prefix_args=(-Ducudnn_DIR="$repo/build/install/lib/cmake/ucudnn")
fi

# --- Caffe --------------------------------------------------------------------------------------
# nvcc through ccache: FindCUDA takes one executable, so a two-line wrapper.
printf '#!/bin/sh\nexec ccache %s "$@"\n' "$cuda/bin/nvcc" > "$build/nvcc-ccache"
chmod +x "$build/nvcc-ccache"
cmake -S "$caffe" -B "$build" -DCMAKE_BUILD_TYPE=Release \
  -DCUDA_TOOLKIT_ROOT_DIR="$cuda" -DCUDA_NVCC_EXECUTABLE="$build/nvcc-ccache" -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
  -DCUDA_ARCH_NAME=Manual -DCUDA_ARCH_BIN="$arch" -DCUDA_ARCH_PTX= -DBLAS=Open \
  -DUSE_OPENCV=OFF -DBUILD_python=OFF -DBUILD_python_layer=OFF -DBUILD_docs=OFF "${prefix_args[@]}" \
  > "$build/configure.log" 2>&1 || fail "configuring Caffe failed; see $build/configure.log"
rm -f "$build/variant"
make -C "$build" -j "$jobs" caffe.bin > "$build/make.log" 2>&1 \
  || fail "building Caffe failed; see $build/make.log ($(grep -m1 -E 'error' "$build/make.log" || true))"
if [ $with_ucudnn = 1 ]; then echo ucudnn > "$build/variant"; else echo plain > "$build/variant"; fi
echo "build.sh: built $(cat "$build/variant") Caffe for sm_$arch with CUDA $cuda_version: $build/tools/caffe"
