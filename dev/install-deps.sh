#!/bin/sh
# dev/install-deps.sh: install every Debian package tbbt needs to build,
# test (nfs-ganesha, tcpdump, tshark; e2fsprogs, xfsprogs and loop mounts for
# the layout of an aged image; Open MPI for tbbt-play under mpirun), run
# (ethtool: tbbt-capture's check of the interface's offloads),
# benchmark (nfstrace, gnuplot, GNU time, valgrind: bench/play.sh's
# instruction counts), fuzz (clang and libFuzzer's runtime,
# libclang-rt-N-dev for clang N, 14 on bookworm; editcap from
# wireshark-common: dev/fuzz.sh) and package (dpkg-dev's dpkg-shlibdeps and
# file for cpack -G DEB, whose shlibdeps step runs file(1): a fresh Debian
# 12 lacks it, dev/fresh-debian.sh; man-db to render the man pages:
# tests/install).
# Idempotent: installs only what is missing, runs apt-get update only when
# something is missing, never asks a question (tshark's "may non-root
# users capture?" is answered no). Runs as root, or through sudo.
# Usage: dev/install-deps.sh [--dry-run]   (exit 0 all present, 1 failed)
set -eu

PACKAGES="
build-essential cmake pkg-config clang-format clang
libpcap-dev libtirpc-dev rpcsvc-proto libnfs-dev libnfs-utils libglib2.0-dev
libzstd-dev zstd zlib1g-dev libcmocka-dev libopenmpi-dev openmpi-bin
perl libjson-pp-perl python3 time
tshark wireshark-common tcpdump nfstrace gnuplot-nox chromium valgrind
nfs-ganesha nfs-ganesha-vfs rpcbind iproute2 procps ethtool
e2fsprogs xfsprogs util-linux mount
dpkg-dev file man-db
"

DRY=0
[ "${1:-}" = "--dry-run" ] && DRY=1

# clang_rt: the package of clang's runtimes (libFuzzer, the sanitizers) for
# the clang installed, or else the one package "clang" would install (14 on
# bookworm, the fallback when apt's lists are not there yet). It must be
# named: Debian only recommends it (from libclang-common-N-dev) and this
# script installs without recommends; and its version must be clang's.
clang_rt() {
    v=$(clang -dumpversion 2>/dev/null | cut -d. -f1) || v=
    [ -n "$v" ] || v=$(apt-cache depends clang 2>/dev/null | sed -n 's/^ *Depends: clang-\([0-9][0-9]*\)$/\1/p' | head -n 1)
    echo "libclang-rt-${v:-14}-dev"
}

# missing: print the packages of $PACKAGES (and clang's runtimes) that are
# not installed
missing() {
    for p in $PACKAGES $(clang_rt); do
        if ! dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null | grep -q '^ii'; then
            echo "$p"
        fi
    done
}

MISSING=$(missing | tr '\n' ' ')
if [ -z "$(echo "$MISSING" | tr -d ' ')" ]; then
    echo "install-deps: all packages present"
    exit 0
fi
echo "install-deps: missing: $MISSING"
[ "$DRY" = 1 ] && exit 0

SUDO=
if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || { echo "install-deps: not root and no sudo" >&2; exit 1; }
    SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
# tshark asks whether non-root users may capture; answer before installing
echo "wireshark-common wireshark-common/install-setuid boolean false" | $SUDO debconf-set-selections

# Update the lists only if one of the missing packages is unknown to apt.
NEED_UPDATE=0
for p in $MISSING; do
    if ! apt-cache policy "$p" 2>/dev/null | grep -q 'Candidate: [0-9]'; then NEED_UPDATE=1; fi
done
if [ "$NEED_UPDATE" = 1 ]; then
    $SUDO env DEBIAN_FRONTEND=noninteractive timeout 600 apt-get update -q
    MISSING=$(missing | tr '\n' ' ') # clang's version is known now
fi
# shellcheck disable=SC2086
if ! $SUDO env DEBIAN_FRONTEND=noninteractive timeout 1800 apt-get install -y -q --no-install-recommends $MISSING; then
    # Lists that know the package but are stale give 404s: refresh and retry once.
    [ "$NEED_UPDATE" = 1 ] && exit 1
    $SUDO env DEBIAN_FRONTEND=noninteractive timeout 600 apt-get update -q
    # shellcheck disable=SC2086
    $SUDO env DEBIAN_FRONTEND=noninteractive timeout 1800 apt-get install -y -q --no-install-recommends $MISSING
fi

LEFT=$(missing | tr '\n' ' ')
if [ -n "$(echo "$LEFT" | tr -d ' ')" ]; then
    echo "install-deps: still missing: $LEFT" >&2
    exit 1
fi
echo "install-deps: done"
