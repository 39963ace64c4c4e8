#!/usr/bin/env bash
# Fetches cudnn-frontend's headers, one pinned version of the pip package nvidia-cudnn-frontend,
# into DEST/cudnn-frontend (pip install --target: nothing system-wide), and prints the folder to
# put on the include path. Fetched once: a later call with the same version prints the folder.
#   bash tests/graph_api/fetch_frontend.sh DEST
# 1.32.0: built here against cuDNN 9.19's headers (g++ 12, C++17); at run time it checks
# cudnnGetVersion() before using anything newer than the loaded cuDNN (9.14 on the H100 machine).
set -euo pipefail
version=1.32.0
dest=${1:?usage: fetch_frontend.sh DEST}/cudnn-frontend
if [ "$(cat "$dest/.fetched-version" 2>/dev/null || true)" != "$version" ] || [ ! -f "$dest/include/cudnn_frontend.h" ]; then
  rm -rf "$dest"
  # --no-deps: only the headers are wanted, not the Python package's runtime dependencies.
  python3 -m pip install --quiet --disable-pip-version-check --no-deps --target "$dest" \
    "nvidia-cudnn-frontend==$version" >&2
  [ -f "$dest/include/cudnn_frontend.h" ] || { echo "fetch_frontend.sh: no include/cudnn_frontend.h in the package" >&2; exit 1; }
  echo "$version" > "$dest/.fetched-version"
fi
echo "$dest/include"
