#!/usr/bin/env bash
# Installs the wheel (dist/ucudnn-*.whl, or the one named) with pip into a fresh virtual
# environment and checks it there as in a framework's environment, with LD_LIBRARY_PATH empty and
# neither CUDA's folders nor the build's on PATH:
#   1. the packaged binaries need no GLPK, SQLite or what Debian's GLPK needs (ldd), only the C
#      and C++ runtimes and, for the preload and bench libraries, CUDA's runtime and cuDNN;
#      `ucudnn --version`, `ucudnn plan` on the recorded table and `ucudnn run --dry-run -- python3
#      -c pass` work (this machine's cuDNN found by the dynamic linker);
#   2. in a mount namespace where this machine's CUDA runtime, cuDNN, GLPK, SQLite, GMP, ltdl and
#      SuiteSparse libraries are hidden (an empty file in place of each): `--version` and `plan`
#      work, `run` says in one line that it found no cuDNN; then, with CUDA's runtime from its PyPI
#      wheel (nvidia-cuda-runtime) and cuDNN's two libraries that the version check loads copied
#      where the nvidia-cudnn wheel puts them (the whole wheel is 700 MB), the preload and bench
#      libraries find both there through their RUNPATH, and `run --dry-run --cudnn` takes that cuDNN.
# Needs root or unprivileged user namespaces (unshare) for step 2; CI runs it after scripts/wheel.sh.
#   scripts/wheel_check.sh [WHEEL]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
fail() { echo "wheel_check: $*" >&2; exit 1; }
# What Debian's GLPK and SQLite are (and need): linked in, never reached.
linked_in='libglpk|libsqlite3|libgmp|libltdl|libamd|libcolamd|libsuitesparseconfig|libz'
# Hidden in step 2 (zlib stays: cuDNN needs it).
hidden_names='libcudart|libcudnn|libglpk|libsqlite3|libgmp|libltdl|libamd|libcolamd|libsuitesparseconfig'

# Runs `ucudnn ARGS...` as the environment's entry point, with a bare environment.
bare() { env -i HOME="$HOME" LANG=C.UTF-8 PATH="$venv/bin:/usr/bin:/bin" "$@"; }
expect_ok() {
  local out
  out=$(bare "$@" 2>&1) || { printf '%s\n' "$out" >&2; fail "'$*' failed"; }
  printf '%s\n' "$out"
}

# The packaged binaries' libraries, as the dynamic linker finds them here.
check_links() {
  local file needed allowed='^(libc|libm|libstdc\+\+|libgcc_s|ld-linux-x86-64|libdl|libpthread|librt)\.so'
  for file in "$package/bin/ucudnn" "$package"/lib/*.so; do
    needed=$(readelf -d "$file" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
    case "$file" in
      *.so) allowed_here="$allowed|^(libcudart\.so\.[0-9]+|libcudnn\.so\.[0-9]+)$" ;;
      *) allowed_here=$allowed ;;  # the command links neither CUDA nor cuDNN
    esac
    if grep -Evq "$allowed_here" <<<"$needed"; then
      fail "$(basename "$file") links $(grep -Ev "$allowed_here" <<<"$needed" | tr '\n' ' ')"
    fi
    echo "ldd $(basename "$file"):"
    bare ldd "$file" | sed 's/^/  /'
    if bare ldd "$file" | grep -Eq "($linked_in)[^ ]*\.so"; then
      fail "$(basename "$file") reaches GLPK, SQLite or their libraries: $(bare ldd "$file" | grep -E "($linked_in)")"
    fi
  done
}

inside() {  # step 2, in the mount namespace
  local file lib found
  for file in $( { ldconfig -p | awk '{print $NF}'; ls -d /usr/local/cuda*/lib*/* 2> /dev/null || true; } |
                 grep -E "/($hidden_names)[^/]*\.so" | xargs -r realpath -e 2> /dev/null | sort -u); do
    mount --bind /dev/null "$file"
  done
  if bare python3 -c "import ctypes; ctypes.CDLL('libcudnn.so.9')" 2> /dev/null ||
     bare python3 -c "import ctypes; ctypes.CDLL('libcudart.so.13')" 2> /dev/null; then
    fail "this machine's cuDNN or CUDA runtime is still there after hiding"
  fi
  echo "--- CUDA's runtime, cuDNN, GLPK, SQLite, GMP, ltdl and SuiteSparse hidden"
  expect_ok ucudnn --version
  expect_ok ucudnn plan --measurements tests/data/h100-alexnet-b256-fp32.csv --network alexnet --workspace-limit 64MiB | tail -3
  local out status=0
  out=$(bare ucudnn run --dry-run -- python3 -c pass 2>&1) || status=$?
  [ "$status" = 1 ] && grep -q "no libcudnn.so.9 found" <<<"$out" ||
    { printf '%s\n' "$out" >&2; fail "run without any cuDNN: expected exit 1 and 'no libcudnn.so.9 found', got $status"; }
  echo "ucudnn run without any cuDNN: $out"

  echo "--- with the framework's nvidia wheels: $runtime_wheel, cuDNN's copied into $site/nvidia/cudnn/lib"
  for file in "$package"/lib/*.so; do
    echo "ldd $(basename "$file"):"
    bare ldd "$file" | sed 's/^/  /'
    for lib in "libcudart.so.$cuda_major" libcudnn.so.9; do
      found=$(bare ldd "$file" | awk -v lib="$lib" '$1 == lib {print $3}')
      case "$(realpath -m "$found")" in
        "$site"/nvidia/*) ;;
        *) fail "$(basename "$file") finds $lib at '$found', not in $site/nvidia" ;;
      esac
    done
  done
  out=$(expect_ok ucudnn run --dry-run --cudnn "$site/nvidia/cudnn/lib" -- python3 -c pass)
  printf '%s\n' "$out"
  grep -qx "export LD_LIBRARY_PATH=$site/nvidia/cudnn/lib" <<<"$out" || fail "run did not put the wheel's cuDNN first"
  # Run for real (no GPU here: the layer loads, and nothing calls cuDNN): the program's libraries.
  out=$(expect_ok ucudnn run --no-stats --cudnn "$site/nvidia/cudnn/lib" -- python3 -c "$maps")
  printf '%s\n' "$out"
  for lib in libucudnn_preload.so "libcudart.so.$cuda_major" libcudnn.so.9; do
    grep -q "^loaded: $site/.*/$lib$" <<<"$out" || fail "the program under ucudnn run did not load $lib from the wheels"
  done
}

# What a Python program has loaded of ucudnn, CUDA's runtime and cuDNN (symbolic links resolved).
maps="import os
for path in sorted({line.split()[-1] for line in open('/proc/self/maps') if '/lib' in line}):
    if any(name in os.path.basename(path) for name in ('ucudnn', 'cudart', 'cudnn')):
        print('loaded:', os.path.realpath(path))"

if [ "${1:-}" = --inside ]; then
  venv=$2 site=$3 package=$4 cuda_major=$5 runtime_wheel=$6
  inside
  exit 0
fi

wheel=${1:-$(ls dist/ucudnn-*.whl 2> /dev/null | tail -1)}
[ -f "$wheel" ] || fail "no wheel: run bash scripts/wheel.sh first, or name one"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
venv="$work/venv"
python3 -m venv "$venv"
"$venv/bin/python" -m pip install -q --no-deps --no-index "$wheel"
site=$("$venv/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['platlib'])")
package="$site/ucudnn"
echo "wheel_check: $(basename "$wheel") installed into $venv"

echo "--- LD_LIBRARY_PATH empty, PATH=$venv/bin:/usr/bin:/bin"
check_links
expect_ok ucudnn --version
expect_ok ucudnn plan --measurements tests/data/h100-alexnet-b256-fp32.csv --network alexnet --workspace-limit 64MiB | tail -3
expect_ok ucudnn run --dry-run -- python3 -c pass
[ "$(bare python3 -m ucudnn --version)" = "$(bare ucudnn --version)" ] || fail "python3 -m ucudnn differs from ucudnn"
# The entry point is Python, which ignores SIGPIPE and SIGXFSZ: the program must not inherit that.
ignored=$(bare ucudnn run --no-stats -- sh -c 'sed -n "s/^SigIgn:[[:space:]]*//p" /proc/self/status' 2> /dev/null)
[ -n "$ignored" ] && (( (16#$ignored >> 12 & 1) == 0 && (16#$ignored >> 24 & 1) == 0 )) ||
  fail "a program under ucudnn run ignores SIGPIPE or SIGXFSZ (SigIgn: ${ignored:-none read})"
echo "a program under ucudnn run ignores neither SIGPIPE nor SIGXFSZ (SigIgn: $ignored)"

# The framework's nvidia wheels: CUDA's runtime from PyPI, cuDNN's version check from this machine.
cuda_major=$(readelf -d "$package/lib/libucudnn_preload.so" | sed -n 's/.*\[libcudart\.so\.\([0-9]*\)\].*/\1/p')
runtime_wheel="nvidia-cuda-runtime==$cuda_major.*"
"$venv/bin/python" -m pip install -q --no-deps "$runtime_wheel"
[ -f "$site/nvidia/cu$cuda_major/lib/libcudart.so.$cuda_major" ] || fail "$runtime_wheel has no nvidia/cu$cuda_major/lib/libcudart.so.$cuda_major"
mkdir -p "$site/nvidia/cudnn/lib"
for lib in libcudnn.so.9 libcudnn_graph.so.9; do
  cp -L "$(ldconfig -p | awk -v lib="$lib" '$1 == lib {print $NF; exit}')" "$site/nvidia/cudnn/lib/"
done

unshare=(unshare -m)
[ "$(id -u)" -eq 0 ] || unshare=(unshare -r -m)
"${unshare[@]}" true 2> /dev/null || fail "cannot make a mount namespace (${unshare[*]}) to hide this machine's libraries"
"${unshare[@]}" bash "$0" --inside "$venv" "$site" "$package" "$cuda_major" "$runtime_wheel"
echo "wheel_check: $(basename "$wheel") passed"
