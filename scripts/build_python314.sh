#!/usr/bin/env bash
# Build CPython 3.14 from Debian's source package `python3.14` (suite sid) into a cache
# directory and print the interpreter's path as the last line of stdout. Progress goes to
# stderr, so `PY314="$(scripts/build_python314.sh)"` works.
#
#   cache:  ${SMOLAGENTS_NATIVE_CACHE:-$HOME/.cache/smolagents-native}/cpython-3.14
#           reused when it is present, complete and working (nothing is downloaded then).
#   work:   ${SMOLAGENTS_NATIVE_CACHE:-...}/build-3.14 (source tree and build; removed after
#           a successful install unless KEEP_BUILD=1)
#
# What it does, when the cache is missing or broken:
#   1. adds a *deb-src only* entry for Debian sid (/etc/apt/sources.list.d/) plus an APT pin
#      of -1 for sid, so no binary package can ever come from sid: sid only serves sources;
#   2. apt-get update; build dependencies from the default suite (bookworm) are installed
#      once the sources are downloaded;
#   3. `apt-get source --download-only python3.14`, then extracts with dpkg-source
#      *without* Debian's patches (--skip-patches). Debian's patches adapt CPython to Debian's
#      own /usr layout (dist-packages, multiarch lib-dynload names, the deb_system install
#      scheme, Debian's pip/ensurepip policy); for a private-prefix interpreter that must behave
#      like upstream CPython (as pyenv's do) they are wrong, and some need Debian's build
#      machinery (debian/rules generates files the patches expect). The orig tarball is the
#      pristine upstream release, so this is upstream CPython from Debian's archive;
#      (bookworm has no libmpdec-dev: configure falls back to the bundled libmpdecimal)
#   4. ./configure --prefix=<cache> --with-ensurepip=install (no PGO/LTO: build time matters),
#      make -j"$(nproc)", make install, then checks the modules we need (ssl, ctypes, sqlite3,
#      lzma, zlib, bz2, venv + pip) before marking the cache complete.
#
# Exit status: 0 and the path on success; 3 when it cannot be provided here (the mirror lists
# python3.14 but serves none of its files, or lists none; no root for apt-get); 1 on any other
# failure (a build that breaks is a failure, not a skip).
# CPYTHON314_SOURCE=<dir or tarball> builds from upstream sources instead of apt-get source.
#
# Needs root (or passwordless sudo) for the apt steps only. Concurrent invocations are
# serialised with a lock file, so CI and a person can call it at the same time.
set -euo pipefail

CACHE_ROOT="${SMOLAGENTS_NATIVE_CACHE:-$HOME/.cache/smolagents-native}"
PREFIX="$CACHE_ROOT/cpython-3.14"
WORK="$CACHE_ROOT/build-3.14"
PY="$PREFIX/bin/python3.14"
MARKER="$PREFIX/.smolagents-native-complete"
SRC_PKG=python3.14
SOURCES_FILE=/etc/apt/sources.list.d/smolagents-native-sid-src.sources
PIN_FILE=/etc/apt/preferences.d/smolagents-native-sid-src-only
BUILD_DEPS=(
    build-essential pkg-config dpkg-dev xz-utils
    libssl-dev zlib1g-dev libffi-dev libbz2-dev libsqlite3-dev liblzma-dev libreadline-dev
    uuid-dev libgdbm-dev libgdbm-compat-dev libncurses-dev libzstd-dev libexpat1-dev
)

log() { printf '[build_python314] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

works() {
    # The interpreter runs, is 3.14, and has the modules the project and its tests need.
    [ -x "$PY" ] || return 1
    "$PY" - >/dev/null 2>&1 <<'EOF' || return 1
import sys
assert sys.version_info[:2] == (3, 14), sys.version
import ssl, ctypes, sqlite3, lzma, zlib, bz2, hashlib, venv, ensurepip, decimal, readline  # noqa
ctypes.CDLL(None)
hashlib.sha256(b"").hexdigest()
EOF
    "$PY" -m pip --version >/dev/null 2>&1 || return 1
}

if [ -f "$MARKER" ] && works; then
    log "reusing $PREFIX"
    echo "$PY"
    exit 0
fi

mkdir -p "$CACHE_ROOT"
exec 9>"$CACHE_ROOT/.build-3.14.lock"
log "waiting for the build lock $CACHE_ROOT/.build-3.14.lock"
flock 9
# Another invocation may have finished the build while we waited.
if [ -f "$MARKER" ] && works; then
    log "reusing $PREFIX (built by a concurrent invocation)"
    echo "$PY"
    exit 0
fi

START=$SECONDS
phase_start=$SECONDS
phase() {
    log "$1 done in $((SECONDS - phase_start))s"
    phase_start=$SECONDS
}

SUDO=()
if [ "$(id -u)" != 0 ]; then
    if ! command -v sudo >/dev/null 2>&1 || ! sudo -n true 2>/dev/null; then
        log "error: building CPython 3.14 needs root (or passwordless sudo) for apt-get"
        exit 3   # cannot be provided on this machine: reported as skipped, like no sources
    fi
    SUDO=(sudo -n)
fi

# --- 1. apt sources: sid for source packages only --------------------------------------------
if [ ! -f "$SOURCES_FILE" ]; then
    log "adding a deb-src entry for Debian sid: $SOURCES_FILE"
    "${SUDO[@]}" tee "$SOURCES_FILE" >/dev/null <<'EOF'
# Added by smolagents_native scripts/build_python314.sh: Debian sid, SOURCE packages only
# (Types: deb-src). No binary package is ever taken from sid (see also the -1 pin).
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: sid
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
fi
if [ ! -f "$PIN_FILE" ]; then
    # There are no sid binary indexes (deb-src only), so this never matches today; it keeps
    # sid binaries uninstallable even if someone later adds a `deb` line for sid.
    "${SUDO[@]}" tee "$PIN_FILE" >/dev/null <<'EOF'
# Added by smolagents_native scripts/build_python314.sh: never install binaries from sid.
Package: *
Pin: release n=sid
Pin-Priority: -1
EOF
fi

# --- 2. apt-get update (the build dependencies come once the sources are there) ---------------
log "apt-get update"
"${SUDO[@]}" apt-get update -q >&2
phase "apt (sources, update)"

# --- 3. Debian's source package, upstream sources extracted without Debian's patches ----------
rm -rf "$WORK"
mkdir -p "$WORK"
cd "$WORK"
if [ -n "${CPYTHON314_SOURCE:-}" ]; then
    # Escape hatch for machines whose Debian mirror does not serve the files: an unpacked
    # CPython 3.14 source tree or an upstream tarball (Python-3.14.x.tar.xz).
    log "using CPYTHON314_SOURCE=$CPYTHON314_SOURCE instead of Debian's source package"
    if [ -d "$CPYTHON314_SOURCE" ]; then
        cp -a "$CPYTHON314_SOURCE" src
    else
        mkdir src
        tar -xf "$CPYTHON314_SOURCE" -C src --strip-components=1
    fi
else
    # Every version of the source package the indexes list, newest first: a mirror may list
    # a version whose files it does not (yet, or any more) serve.
    mapfile -t VERSIONS < <(apt-cache showsrc "$SRC_PKG" 2>/dev/null \
        | sed -n 's/^Version: //p' | sort -u | sort -r -V)
    [ "${#VERSIONS[@]}" -gt 0 ] || {
        log "error: the apt indexes list no source package $SRC_PKG"
        exit 3
    }
    got=""
    for v in "${VERSIONS[@]}"; do
        log "apt-get source --download-only $SRC_PKG=$v (into $WORK)"
        # As root, apt downloads unsandboxed and says so; harmless.
        if apt-get source -q --download-only "$SRC_PKG=$v" >&2; then
            got="$v"
            break
        fi
        log "could not download $SRC_PKG $v; trying an older listed version"
        rm -f ./*.dsc ./*.tar.* ./*.diff.gz
    done
    if [ -z "$got" ]; then
        log "error: the mirror lists $SRC_PKG ${VERSIONS[*]} but serves none of them"
        log "(set CPYTHON314_SOURCE to a CPython 3.14 source tree or tarball to build from it)"
        # For whoever waits for the interpreter: why it is not there (removed on success).
        printf '%s: the mirror lists %s %s but serves none of their files\n' \
            "$(date -u +%FT%TZ)" "$SRC_PKG" "${VERSIONS[*]}" >"$CACHE_ROOT/cpython-3.14.unavailable"
        exit 3   # "sources unavailable": .ci/run reports 3.14 as skipped, not failed
    fi
    DSC="$(ls -1 ./*.dsc | head -n 1)"
    if ! command -v dpkg-source >/dev/null; then
        DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y -q \
            --no-install-recommends dpkg-dev xz-utils >&2
    fi
    log "extracting $DSC without Debian's patches (dpkg-source --skip-patches)"
    dpkg-source --skip-patches -x "$DSC" src >&2
fi
SRC="$WORK/src"
[ -f "$SRC/configure" ] || die "no configure script in $SRC"
# Build dependencies from the default suite, only now that there is something to build (a
# machine whose mirror serves no sources learns it without installing anything).
log "installing build dependencies: ${BUILD_DEPS[*]}"
DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y -q --no-install-recommends \
    "${BUILD_DEPS[@]}" >&2
# Sanity: nothing installed may come from sid.
if apt-cache policy "${BUILD_DEPS[@]}" 2>/dev/null | grep -E '^\s+\*\*\*.*' -A1 | grep -q ' sid/'; then
    die "a build dependency was installed from sid"
fi
grep -q '^#define PY_MINOR_VERSION[[:space:]]*14' "$SRC/Include/patchlevel.h" \
    || die "$SRC is not CPython 3.14"
log "source: $(grep '^#define PY_VERSION ' "$SRC/Include/patchlevel.h")"
phase "source download and extraction"

# --- 4. configure, make, make install --------------------------------------------------------
rm -rf "$PREFIX"
mkdir -p "$SRC/build"
cd "$SRC/build"
log "configure --prefix=$PREFIX --with-ensurepip=install"
../configure -q --prefix="$PREFIX" --with-ensurepip=install >&2
phase "configure"
log "make -j$(nproc)"
make -s -j"$(nproc)" >&2
phase "make"
log "make install"
make -s install >&2
phase "make install"

works || die "the installed interpreter $PY is missing a required module (see the make log)"
touch "$MARKER"
rm -f "$CACHE_ROOT/cpython-3.14.unavailable"
if [ "${KEEP_BUILD:-0}" != 1 ]; then
    rm -rf "$WORK"
fi
log "CPython $("$PY" -c 'import sys; print(sys.version.split()[0])') built in $((SECONDS - START))s"
echo "$PY"
