#!/usr/bin/env bash
# Builds GLPK and SQLite into DEST as static libraries of position-independent code
# (DEST/include, DEST/lib), for binaries that carry both in them: the wheel's (scripts/wheel.sh).
# Debian's libglpk.a and libsqlite3.a cannot go into a shared library such as the preload layer:
# they are compiled for executables (local-exec TLS, direct references to global data), and
# Debian's GLPK needs GMP, zlib, ltdl, AMD and COLAMD as shared libraries. GLPK's own source carries
# zlib, AMD and COLAMD, and built without GMP and dynamic loading (its defaults) needs libm only.
# The sources are the Debian packages of this system's release (apt-get source: apt checks their
# signature and hashes), fetched with apt's lists kept in DEST, so that the machine's apt set-up is
# untouched; upstream's tarballs, with those of Debian's patches that change the code (SQLite's
# security fixes), not those of Debian's build. Making SQLite's one source file needs tclsh
# (Debian: tcl). Built once: a DEST that holds both libraries is left as it is.
#   scripts/static_dependencies.sh DEST
set -euo pipefail
dest=${1:?usage: static_dependencies.sh DEST}
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
[ -f "$dest/lib/libglpk.a" ] && [ -f "$dest/lib/libsqlite3.a" ] && exit 0
fail() { echo "static_dependencies.sh: $*" >&2; exit 1; }
command -v tclsh > /dev/null || fail "SQLite's build needs tclsh (Debian: apt-get install tcl)"

work="$dest/source"
rm -rf "$work" && mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/download" "$dest/include" "$dest/lib"
. /etc/os-release
[ "${ID:-}" = debian ] && [ -n "${VERSION_CODENAME:-}" ] || fail "fetches the sources as Debian packages; this is ${PRETTY_NAME:-not Debian}"
echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $VERSION_CODENAME main" \
  > "$work/sources.list"
apt=(apt-get -q -o Dir::Etc::SourceList="$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
     -o Dir::State::Lists="$work/lists" -o Dir::Cache="$work/cache")
[ "$(id -u)" -eq 0 ] && apt+=(-o APT::Sandbox::User=root)  # the folders are root's
log="$work/build.log"
quiet() { "$@" >> "$log" 2>&1 || { tail -20 "$log" >&2; fail "'$*' failed (the whole log: $log)"; }; }
quiet "${apt[@]}" update
(cd "$work/download" && quiet "${apt[@]}" source --download-only glpk sqlite3)
cc=gcc
command -v ccache > /dev/null && cc="ccache gcc"
configure=(--disable-shared --enable-static --with-pic CC="$cc" CFLAGS="-O2")

# GLPK: upstream's tarball as it is (Debian's patches only take out the embedded libraries).
tar -xzf "$work"/download/glpk_*.orig.tar.gz -C "$work"
cd "$work"/glpk-*/
quiet ./configure "${configure[@]}" --prefix="$dest"
quiet make -j "$(nproc)" -C src
quiet make -C src install

# SQLite: the patches whose every file is under src/, ext/ or test/.
tar -xJf "$work"/download/sqlite3_*.orig.tar.xz -C "$work"
cd "$work"/sqlite3-*/
tar -xJf "$work"/download/sqlite3_*.debian.tar.xz
while read -r patch; do
  [ -n "$patch" ] && [ "${patch:0:1}" != "#" ] || continue
  if ! grep -E '^\+\+\+ ' "debian/patches/$patch" | awk '{print $2}' | sed 's|^[^/]*/||' | grep -qvE '^(src|ext|test)/'; then
    quiet patch -p1 -i "debian/patches/$patch"
  fi
done < debian/patches/series
quiet ./configure "${configure[@]}" --disable-tcl --disable-readline --disable-editline --disable-load-extension
quiet make -j "$(nproc)" libsqlite3.la
cp .libs/libsqlite3.a "$dest/lib/"
cp sqlite3.h sqlite3ext.h "$dest/include/"

glpk=$(sed -n 's/^#define GLP_M[AI][JN]OR_VERSION *\([0-9]*\).*/\1/p' "$dest/include/glpk.h" | paste -sd.)
sqlite=$(sed -n 's/^#define SQLITE_VERSION *"\(.*\)"/\1/p' "$dest/include/sqlite3.h")
echo "static_dependencies.sh: GLPK $glpk and SQLite $sqlite (Debian's sources) built into $dest"
cd "$dest" && rm -rf "$work"
