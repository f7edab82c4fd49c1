#!/usr/bin/env bash
# dev/fresh-debian.sh -- the README's install on a truly fresh Debian 12.
#
# A developer's check, not part of CI (it downloads a Debian system and
# every package tbbt needs, builds twice and runs the whole suite: an hour
# on two cores). It
#   1. debootstraps Debian 12 (bookworm) into BUILD/fresh-debian/root (the
#      default variant: what a minimal installed machine has, with apt's
#      sources for bookworm, bookworm-updates and bookworm-security as the
#      Debian installer writes them); debootstrap itself is installed on
#      this machine first when missing (it is a developer's tool: nothing
#      a user of tbbt installs needs it);
#   2. copies the source tree in (the files git knows, committed or not,
#      and the untracked ones it does not ignore: no build tree, no .git),
#      to /root/tbbt;
#   3. binds the chroot onto itself (a mount point, as a machine's root
#      is), mounts /proc, /sys and /dev (and /dev/pts) into it, and this
#      machine's rpcbind socket when it runs one (see step 3) (loop devices for
#      the demo's two filers; the network, loopback included, is this
#      machine's, as a chroot shares it), and /etc/resolv.conf for apt;
#   4. runs, as root in the chroot, in /root/tbbt, the README's first two
#      commands exactly as the README writes them (read from README.md: the
#      first two ```sh blocks), one after the other, each timed, its output
#      in BUILD/fresh-debian/NAME.log;
#   5. prints PASS or FAIL per command, the times, and unmounts.
# With --deb, the user's path instead of the developer's (issue 22's "done
# when": from the package to a comparison of two servers, typing the
# README's commands only); steps 2 and 4 become:
#   2. copies in BUILD/tbbt_*.deb (made by `cpack -G DEB` in BUILD when
#      missing) and, to stand in for the two filers (not part of tbbt),
#      tests/lib/ganesha.sh and its config template, to /root/filers;
#   4. in the chroot, in an empty /root/ws: `apt-get install ./tbbt_*.deb`
#      as the README writes it (apt resolves what the package depends on),
#      then nfs-ganesha as the two filers (two servers on loopback, names
#      filer1 and filer2 in /etc/hosts, private ports), then the README's
#      quick start, read from README.md (its third and fourth ```sh blocks
#      after the install's and the bundled capture's zstd line), each line
#      as written except the filer's export path and, for tbbt-init, the
#      private ports (--nfs-port/--mount-port); it checks that tbbt-report
#      and tbbt-compare wrote their pages and that `man tbbt-play` renders.
# The chroot is made anew every run (rm -rf of the old one first), so no
# package of an earlier run is left in it.
# Usage: dev/fresh-debian.sh [--deb] [BUILD_DIR]   (as root; BUILD_DIR: build)
# Environment: TBBT_MIRROR (default http://deb.debian.org/debian),
#              TBBT_FRESH_KEEP=1 keeps the chroot after the run.
# Exit: 0 both commands (--deb: the user's path) passed, 1 one failed, 2 the
# chroot could not be made.
set -euo pipefail
deb_mode=0
[ "${1:-}" = --deb ] && { deb_mode=1; shift; }
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
mkdir -p "$build"
build=$(cd "$build" && pwd)
out=$build/fresh-debian
root=$out/root
mirror=${TBBT_MIRROR:-http://deb.debian.org/debian}

[ "$(id -u)" = 0 ] || { echo "fresh-debian: run as root (debootstrap, chroot, mounts)" >&2; exit 2; }

# umount_all: undo step 3 (and whatever the commands left mounted under
# the chroot), deepest first; quiet when nothing is mounted.
umount_all() {
    awk -v r="$root" '$2 == r || index($2, r "/") == 1 { print $2 }' /proc/mounts | sort -r |
        while read -r m; do umount "$m" 2>/dev/null || umount -l "$m"; done
    return 0
}
# remove_root: rm -rf the chroot, only once nothing is mounted under it
# (a /dev still bound there would be emptied).
remove_root() {
    if awk -v r="$root" '$2 == r || index($2, r "/") == 1 { f = 1 } END { exit !f }' /proc/mounts; then
        echo "fresh-debian: still mounted under $root: not removed" >&2
        return 0
    fi
    rm -rf "$root"
}
trap 'umount_all; [ -n "${TBBT_FRESH_KEEP:-}" ] || remove_root' EXIT
trap 'exit 130' INT TERM

# 1. debootstrap
if ! command -v debootstrap >/dev/null; then
    echo "fresh-debian: installing debootstrap on this machine (a developer's tool)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends debootstrap >/dev/null ||
        { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap >/dev/null; } ||
        { echo "fresh-debian: cannot install debootstrap" >&2; exit 2; }
fi
# --deb: the package of this build, made when missing
deb=
if [ "$deb_mode" = 1 ]; then
    debs=("$build"/tbbt_*.deb)
    if [ ! -f "${debs[0]}" ]; then
        echo "fresh-debian: no $build/tbbt_*.deb: cpack -G DEB in $build"
        (cd "$build" && cpack -G DEB >"$out.cpack.log" 2>&1) ||
            { tail -20 "$out.cpack.log"; echo "fresh-debian: cpack failed" >&2; exit 2; }
        debs=("$build"/tbbt_*.deb)
    fi
    deb=${debs[0]}
    [ "${#debs[@]}" = 1 ] || { echo "fresh-debian: several packages in $build: ${debs[*]}" >&2; exit 2; }
fi
umount_all
remove_root
[ -e "$root" ] && exit 2
mkdir -p "$out"
t0=$(date +%s)
echo "fresh-debian: debootstrap bookworm into $root (log $out/debootstrap.log)"
debootstrap bookworm "$root" "$mirror" >"$out/debootstrap.log" 2>&1 ||
    { tail -20 "$out/debootstrap.log"; echo "fresh-debian: debootstrap failed" >&2; exit 2; }
security=${mirror%/debian}/debian-security
[ "$security" = "$mirror/debian-security" ] && security=http://security.debian.org/debian-security
cat >"$root/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb $security bookworm-security main
EOF
t_boot=$(($(date +%s) - t0))

# 2. the sources (--deb: the package and the filers' stand-in only)
if [ "$deb_mode" = 1 ]; then
    mkdir -p "$root/root/build" "$root/root/filers"
    cp "$deb" "$root/root/build/"
    cp "$top/tests/lib/ganesha.sh" "$top/tests/lib/ganesha.conf.in" "$root/root/filers/"
else
    mkdir -p "$root/root/tbbt"
    (cd "$top" && git ls-files -z --cached --others --exclude-standard | xargs -0 -r ls -d 2>/dev/null |
        tar -cf - -T - ) | tar -xf - -C "$root/root/tbbt"
fi

# 3. mounts and name resolution; the root bound onto itself first, so that
# it is a mount point seen from inside: nfs-ganesha's VFS finds the file
# system of an export in /proc/self/mounts, where a chroot that is a plain
# directory has no "/" ("resolve_posix_filesystem ... No such file or
# directory"); a machine's own root always is one.
mount --bind "$root" "$root"
mount -t proc proc "$root/proc"
mount --bind /sys "$root/sys"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"
# The chroot shares this machine's network, so port 111 is this machine's
# rpcbind when one runs: the chroot's nfs-ganesha must register with that
# one, through its socket as a local root process does (over the network
# rpcbind takes the registration as an unprivileged one, and refuses it
# while another server holds the program: "Cannot register NFS V3").
if [ -S /run/rpcbind.sock ]; then
    touch "$root/run/rpcbind.sock"
    mount --bind /run/rpcbind.sock "$root/run/rpcbind.sock"
fi
cp -L /etc/resolv.conf "$root/etc/resolv.conf"

# 4 (--deb). The user's path, as a script run in the chroot: the install
# line of the README's package block, the bundled capture's zstd line,
# then the quick start's two blocks, each line as written but for the
# filers' export paths and tbbt-init's private ports.
if [ "$deb_mode" = 1 ]; then
    readme=$top/README.md
    install=$(awk '/^```sh$/ { n++; on = 1; next } /^```/ { on = 0 } on && n == 3 && /apt-get install \.\// { print; exit }' "$readme")
    unzst=$(grep -o 'zstd -d /usr/share/doc/tbbt/examples/[^`]*' "$readme" | head -1)
    quick=$(awk '/^```sh$/ { n++; on = 1; next } /^```/ { on = 0 } on && (n == 4 || n == 5)' "$readme")
    [ -n "$install" ] && [ -n "$unzst" ] && [ -n "$quick" ] ||
        { echo "fresh-debian: README.md: the install line, the zstd line or the quick start not found" >&2; exit 2; }
    {
        echo 'set -u'
        echo 'cd /root'
        echo 'fail() { echo "fresh-debian: FAIL: $*"; exit 1; }'
        echo 'step() { echo; echo "### $*"; s0=$(date +%s); bash -c "$*" || fail "$*"; echo "### $(( $(date +%s) - s0 ))s"; }'
        echo 'step "apt-get update -q"'
        # as root, no sudo; -y for the "Do you want to continue?" a user answers
        inst=${install#sudo }
        printf 'step %q\n' "DEBIAN_FRONTEND=noninteractive ${inst/apt-get install /apt-get install -y }"
        echo 'step "test -x /usr/bin/tbbt-play && ! test -e /root/tbbt"'
        echo '# the filers: two nfs-ganesha servers on loopback (not tbbt: a stand-in for the filers)'
        echo 'step "DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends nfs-ganesha nfs-ganesha-vfs rpcbind iproute2 procps man-db"'
        echo '. /root/filers/ganesha.sh'
        echo 'trap "tbbt_ganesha_stop /srv/filer1; tbbt_ganesha_stop /srv/filer2" EXIT'
        echo 'for f in 1 2; do tbbt_ganesha_start /srv/filer$f || fail "filer$f: nfs-ganesha did not start"; eval "EXP$f=\$TBBT_EXPORT NFS$f=\$TBBT_NFS_PORT MNT$f=\$TBBT_MNT_PORT"; echo "127.0.0.1 filer$f" >>/etc/hosts; done'
        echo 'mkdir -p /root/ws && cd /root/ws'
        printf 'step %q\n' "$unzst"
        while IFS= read -r line; do
            [ -n "$line" ] || continue
            for f in 1 2; do
                line=${line//filer$f:\/export/filer$f:\$EXP$f}
                case $line in tbbt-init*filer$f:*)
                    line="tbbt-init --nfs-port \$NFS$f --mount-port \$MNT$f ${line#tbbt-init }" ;;
                esac
            done
            echo "step \"$line\""
        done <<<"$quick"
        echo 'step "test -s tbbt-report/report.html && test -s tbbt-compare/report.html && ls tbbt-results/"'
        echo 'step "head -40 tbbt-compare/report.txt"'
        echo 'step "MANWIDTH=80 man tbbt-play | head -5"'
        echo 'echo "fresh-debian: the user path PASSED"'
    } >"$root/root/user-path.sh"
    echo "fresh-debian: in the chroot: the package, two filers, the README's quick start (log $out/user-path.log)"
    sed 's/^/  | /' "$root/root/user-path.sh"
    t0=$(date +%s)
    r=0
    chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        /bin/bash /root/user-path.sh >"$out/user-path.log" 2>&1 </dev/null || r=$?
    t=$(($(date +%s) - t0))
    grep -E '^### |FAIL|PASSED' "$out/user-path.log" | sed 's/^/  /'
    echo
    echo "fresh-debian: $(date -u '+%Y-%m-%d %H:%M UTC'), Debian $(cat "$root/etc/debian_version") debootstrapped in ${t_boot}s"
    if [ "$r" = 0 ]; then echo "  PASS  ${t}s  the package and the README's quick start"; else
        echo "  FAIL (exit $r)  ${t}s  the package and the README's quick start"; tail -30 "$out/user-path.log"; fi
    [ "$r" = 0 ] && exit 0 || exit 1
fi

# 4. the README's first two commands: the first line of each of its first
# two ```sh blocks, as written (the comment after them is shell's too)
mapfile -t cmds < <(awk '/^```sh$/ { n++; getline; print; if (n == 2) exit }' "$top/README.md")
[ "${#cmds[@]}" = 2 ] || { echo "fresh-debian: README.md: first two \`\`\`sh blocks not found" >&2; exit 2; }
rc=0
results=()
for i in 0 1; do
    cmd=${cmds[$i]}
    log=$out/cmd$((i + 1)).log
    echo "fresh-debian: in the chroot, /root/tbbt: $cmd   (log $log)"
    t0=$(date +%s)
    r=0
    chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        /bin/bash -c "cd /root/tbbt && $cmd" >"$log" 2>&1 </dev/null || r=$?
    t=$(($(date +%s) - t0))
    if [ "$r" = 0 ]; then verdict=PASS; else verdict="FAIL (exit $r)"; rc=1; fi
    results+=("$verdict  ${t}s  $cmd")
    echo "fresh-debian: $verdict in ${t}s"
    [ "$r" = 0 ] || tail -30 "$log"
done

# 5. the summary
echo
echo "fresh-debian: $(date -u '+%Y-%m-%d %H:%M UTC'), Debian $(cat "$root/etc/debian_version") debootstrapped in ${t_boot}s"
printf '  %s\n' "${results[@]}"
exit $rc
