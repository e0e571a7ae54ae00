#!/usr/bin/env bash
# CPython 3.14 and 3.15 from Debian sid's *binary* packages, in a private Debian sid root.
#
# The Debian mirror serves no source files for python3.14, but it serves sid's binary
# packages: this script makes (once) a sid root with python3.14, python3.15 (each with -dev
# and -venv), gcc and libc6-dev, and runs commands inside it. Needs root (mmdebstrap, mount
# namespaces, pivot_root).
#
# Usage:
#   scripts/sid_pythons.sh ensure          make the root if missing, check it; prints its path
#   scripts/sid_pythons.sh run CMD [ARG]...  run CMD inside the root (makes it first if missing)
#   scripts/sid_pythons.sh shell           an interactive shell inside the root
#   scripts/sid_pythons.sh versions        the interpreters' versions
#   scripts/sid_pythons.sh clean           remove the root (waits for running commands)
#
# Examples, from the repository root (the project is visible inside at the same path, and the
# command starts in the same directory, so relative paths work as outside):
#   scripts/sid_pythons.sh run python3.14 -m venv .ci-venv/sid-3.14
#   scripts/sid_pythons.sh run .ci-venv/sid-3.14/bin/pip install -e '.[test]'
#   scripts/sid_pythons.sh run .ci-venv/sid-3.14/bin/python -m pytest -q tests/
# .ci/run uses it for 3.14 (and 3.15 when asked): it runs itself inside the root for that
# version (CI_IN_SID=1), where python3.X is on PATH, with its host work directory bound in
# (SID_BIND) to hand the summary row back.
# A venv made inside the root works only inside it (its python links to the root's
# /usr/bin/python3.X): every command that uses it goes through `run`.
#
# Environment:
#   SID_ROOT      the root (default ${SMOLAGENTS_NATIVE_CACHE:-~/.cache/smolagents-native}/sid)
#   SID_MIRROR    Debian mirror (default: the first URIs line of /etc/apt/sources.list.d/*
#                 that names a Debian archive, else http://deb.debian.org/debian)
#   SID_PROJECT   directory bound into the root at its own path (default: this repository)
#   SID_BIND      more directories bound at their own paths, space-separated (e.g. /tmp/x)
# The local package directories ~/.config/pip/pip.conf names (find-links, file:// indexes) are
# bound read-only at their own paths.
#
# How a command runs: `unshare --mount --pid --fork --kill-child`, then in that new mount
# namespace: the root bind-mounted on itself, a fresh /proc (of the new pid namespace), the
# host's /dev (rbind), the project and SID_BIND at their own paths (the git directory of a
# worktree read-only), then pivot_root into the root and the old root detached. Everything is
# mounted in the private namespace only: nothing is left mounted on the host when the command
# ends, however it ends (killed included: the namespace dies with its last process), so there
# is nothing to unmount or clean up and two runs never share or race on mounts. pivot_root, not
# chroot: the kernel refuses user namespaces to a chrooted process, and the package's process
# sandbox (tests/isolation) creates one. The command runs as a child of the namespace's init
# (a shell), not as init itself (init ignores signals it has no handler for). The machine's
# /etc/resolv.conf, CA bundle and ~/.config/pip/pip.conf are copied in before every run.
#
# Concurrency: making the root holds an exclusive lock ($SID_ROOT.lock) and builds into a
# temporary directory renamed into place when complete (with a marker file), so a run never
# sees a half-made root and two concurrent first runs make it once; `run` holds a shared lock
# for its duration, so `clean` waits for running commands.
#
# Exit status: the command's; 3 when the root cannot be made here (no root privileges, no
# mmdebstrap and no apt-get, the mirror refuses), so callers (CI) can report SKIPPED with the
# reason; 1 on any other failure of this script.
set -euo pipefail

SCRIPT="$(readlink -f "${BASH_SOURCE[0]}")"
CACHE_ROOT="${SMOLAGENTS_NATIVE_CACHE:-$HOME/.cache/smolagents-native}"
SID_ROOT="${SID_ROOT:-$CACHE_ROOT/sid}"
SID_ROOT="$(readlink -m "$SID_ROOT")"
LOCK="$SID_ROOT.lock"
MARKER=".sid_pythons-complete"
PACKAGES="python3.14,python3.14-dev,python3.14-venv,python3.15,python3.15-dev,python3.15-venv,gcc,libc6-dev"
# mount: umount inside the root after pivot_root; git: the packaging tests compare the sdist
# with `git ls-files`; ca-certificates: the directory the copied bundle goes in.
PACKAGES+=",mount,git,ca-certificates"
PROJECT="${SID_PROJECT:-$(cd "$(dirname "$SCRIPT")/.." && pwd)}"

log() { printf '[sid_pythons] %s\n' "$*" >&2; }
unavailable() { log "error: $*"; exit 3; }

mirror() {
    if [ -n "${SID_MIRROR:-}" ]; then echo "$SID_MIRROR"; return; fi
    local uri
    uri="$(grep -h -E '^[[:space:]]*URIs:' /etc/apt/sources.list.d/* 2>/dev/null \
        | awk '{print $2}' | grep -E '/debian/?$' | head -n 1 || true)"
    echo "${uri:-http://deb.debian.org/debian}"
}

pip_conf_dirs() {
    # Existing absolute directories in ~/.config/pip/pip.conf (paths or file:// URLs), the
    # top two levels (e.g. /opt/pypi for file:///opt/pypi/simple).
    local conf="$HOME/.config/pip/pip.conf" w
    [ -f "$conf" ] || return 0
    for w in $(sed -E 's/^[^=]*=//' "$conf" | tr ' \t' '\n\n'); do
        w="${w#file://}"
        case "$w" in /*) ;; *) continue ;; esac
        w="$(echo "$w" | cut -d/ -f1-3)"
        [ -d "$w" ] && echo "$w"
    done | sort -u
}

complete() { [ -f "$SID_ROOT/$MARKER" ]; }

copy_host_files() {
    # Refreshed before every run; written to a temporary name and renamed, so a concurrent
    # run never reads half a file.
    local dir="$1" src dst
    for pair in "/etc/resolv.conf:etc/resolv.conf" \
                "/etc/ssl/certs/ca-certificates.crt:etc/ssl/certs/ca-certificates.crt" \
                "$HOME/.config/pip/pip.conf:root/.config/pip/pip.conf"; do
        src="${pair%%:*}" dst="$dir/${pair#*:}"
        [ -f "$src" ] || continue
        mkdir -p "$(dirname "$dst")"
        # resolv.conf may be a symlink in the root (systemd-resolved): replace it
        cp -L "$src" "$dst.tmp.$$" && mv -f "$dst.tmp.$$" "$dst"
    done
}

make_root() {
    [ "$(id -u)" = 0 ] || unavailable "making the sid root needs root (mmdebstrap, mounts)"
    mkdir -p "$(dirname "$LOCK")"   # a fresh machine has no cache directory yet
    exec 9>"$LOCK"
    flock 9
    if complete; then exec 9>&-; return 0; fi   # made by a concurrent run meanwhile
    if ! command -v mmdebstrap >/dev/null; then
        command -v apt-get >/dev/null || unavailable "no mmdebstrap and no apt-get to install it"
        log "installing mmdebstrap"
        apt-get install -y -q mmdebstrap >&2 \
            || { apt-get update -q >&2 && apt-get install -y -q mmdebstrap >&2; } \
            || unavailable "could not install mmdebstrap"
    fi
    local tmp="$SID_ROOT.tmp" url
    url="$(mirror)"
    rm -rf "$tmp"
    mkdir -p "$(dirname "$SID_ROOT")"
    log "making the sid root in $SID_ROOT from $url (about a minute)"
    # Check-Valid-Until: sid's Release file on the mirror may be past its validity date.
    if ! mmdebstrap --variant=apt --aptopt='Acquire::Check-Valid-Until "false"' \
            --include="$PACKAGES" sid "$tmp" "$url" >&2; then
        rm -rf "$tmp"
        unavailable "mmdebstrap could not make a sid root from $url"
    fi
    copy_host_files "$tmp"
    local v
    for v in 3.14 3.15; do
        chroot "$tmp" "python$v" -c 'import venv, ensurepip, sysconfig' \
            || { rm -rf "$tmp"; log "error: python$v in the new root does not work"; exit 1; }
    done
    {
        echo "made $(date -u +%FT%TZ) from $url"
        for v in 3.14 3.15; do chroot "$tmp" "python$v" -VV; done
    } >"$tmp/$MARKER"
    rm -rf "$SID_ROOT"
    mv "$tmp" "$SID_ROOT"
    log "$(tr '\n' ' ' <"$SID_ROOT/$MARKER")"
    exec 9>&-
}

inner() {
    # Runs as init of the new pid namespace, in the new mount namespace (see the header).
    local r="$SID_ROOT" cwd="$1" d common
    shift
    mount --make-rprivate /
    mount --bind "$r" "$r"
    mount -t proc proc "$r/proc"
    mount --rbind /dev "$r/dev"
    mount --rbind /sys "$r/sys" 2>/dev/null || true
    for d in "$PROJECT" ${SID_BIND:-}; do
        [ -d "$d" ] || { log "error: $d is not a directory"; exit 1; }
        d="$(readlink -f "$d")"
        mkdir -p "$r$d"
        mount --rbind "$d" "$r$d"
    done
    # Local package directories the machine's pip.conf names (find-links, file:// indexes):
    # bound read-only at their own paths, so the copied pip.conf means the same inside.
    for d in $(pip_conf_dirs); do
        mkdir -p "$r$d"
        mount --rbind "$d" "$r$d"
        mount -o remount,bind,ro "$r$d"
    done
    # A git worktree's .git file names a directory elsewhere: bound read-only, so git works
    # (the packaging tests run `git ls-files`) and nothing in the other checkout can change.
    if [ -f "$PROJECT/.git" ]; then
        common="$(git -C "$PROJECT" rev-parse --git-common-dir 2>/dev/null || true)"
        if [ -n "$common" ]; then
            common="$(cd "$PROJECT" && readlink -f "$common")"
            case "$common" in "$PROJECT"/*) ;; *)
                mkdir -p "$r$common"
                mount --rbind "$common" "$r$common"
                mount -o remount,bind,ro "$r$common"
            esac
        fi
    fi
    # One directory per run (a concurrent run's rmdir would detach ours otherwise).
    local old
    old="$(mktemp -d "$r/.old-root.XXXXXX")"
    old="${old#"$r"}"
    cd "$r"
    pivot_root . ".$old"
    cd /
    umount -l "$old"
    rmdir "$old"
    [ -d "$cwd" ] && cd "$cwd"
    # The host environment minus what names host paths or interpreters.
    unset VIRTUAL_ENV PYTHONPATH PYTHONHOME PYTHONSTARTUP LD_PRELOAD LD_LIBRARY_PATH \
        PYENV_ROOT PYENV_VERSION PYENV_DIR TMPDIR CONDA_PREFIX OLDPWD
    export HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
    export LANG="${LANG:-C.UTF-8}"
    # A child, not exec: init ignores signals it has no handler for.
    local rc=0
    "$@" || rc=$?
    exit "$rc"
}

run() {
    [ "$#" -gt 0 ] || { log "error: run needs a command"; exit 1; }
    [ "$(id -u)" = 0 ] || unavailable "running in the sid root needs root (mount namespaces)"
    complete || make_root
    copy_host_files "$SID_ROOT"
    # Shared lock for the run's duration (fd 8, inherited and closed only when it ends).
    exec 8>"$LOCK"
    flock -s 8
    local rc=0
    SID_ROOT="$SID_ROOT" PROJECT="$PROJECT" \
        unshare --mount --pid --fork --kill-child --propagation private \
        "$SCRIPT" __inner "$PWD" "$@" 8>&- || rc=$?
    exec 8>&-
    return "$rc"
}

# All in one function, called with `exit` on the same line: bash has read the whole script
# before anything runs, so editing this file while a command runs (for minutes) cannot make
# bash read a changed file at the old offset when the command ends.
main() {
case "${1:-}" in
    ensure)
        complete || make_root
        run python3.14 -c 'import sys; assert sys.version_info[:2] == (3, 14)'
        run python3.15 -c 'import sys; assert sys.version_info[:2] == (3, 15)'
        echo "$SID_ROOT"
        ;;
    run) shift; run "$@" ;;
    shell) run bash -l ;;
    versions) run sh -c 'python3.14 -VV; python3.15 -VV; gcc --version | head -n 1' ;;
    clean)
        mkdir -p "$(dirname "$LOCK")"
        exec 9>"$LOCK"
        flock 9   # waits for running commands (they hold the lock shared)
        rm -rf "$SID_ROOT" "$SID_ROOT.tmp"
        ;;
    __inner) shift; PROJECT="${PROJECT:?}"; inner "$@" ;;
    *)
        sed -n '2,/^set -euo/p' "$SCRIPT" | sed -e '$d' -e 's/^# \{0,1\}//' >&2
        exit 1
        ;;
esac
}
main "$@"; exit $?
