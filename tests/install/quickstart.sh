#!/bin/bash
# tests/install/quickstart.sh -- the package, installed, runs the README's
# quick start with nothing from the sources or the build tree.
#
#   1. `cpack -G DEB` makes tbbt_VERSION_ARCH.deb from this build; its
#      control file names the libraries dpkg-shlibdeps found and the tools
#      the commands run.
#   2. It is installed: as root, when tbbt is not installed already (or
#      only by a killed run of this test, which is removed first), for
#      real with `apt-get install ./tbbt_*.deb` (removed again at the end;
#      one run at a time, under a lock), so that apt resolves its
#      dependencies; otherwise (or TBBT_INSTALL_MODE=extract) unpacked with
#      dpkg-deb -x into a fresh root whose usr/ is the prefix, the
#      dependencies checked with `apt-get install -s`.
#   3. Every installed command has its man page, and the docs are there.
#   4. The quick start, each command as the README types it, in an empty
#      directory, on two private nfs-ganesha servers A and B: tbbt-prep
#      trace.pcap; tbbt-init --scope 8192 SERVER; tbbt-play --order fsdep
#      --speedup 6; tbbt-report; then init and play on B and a report that
#      compares the two. Each command runs with PATH = the prefix's bin and
#      the system's directories only, no TBBT_* variable, and, where a
#      mount namespace can be made (unshare -m), with the source and build
#      trees hidden under empty tmpfs mounts, so a command that reached
#      into them would fail.
#      The servers listen on private ports, so tbbt-init also gets
#      --nfs-port/--mount-port (the workspace remembers them for
#      tbbt-play); otherwise the steps are the README's as typed.
# Knobs: TBBT_INSTALL_MODE=apt|extract (default: apt where it can).
# Usage (ctest): bash quickstart.sh BUILD_DIR SRC_DIR; exit 77 = skipped.
BUILD=${1:?usage: quickstart.sh BUILD_DIR SRC_DIR}
SRC=${2:?usage: quickstart.sh BUILD_DIR SRC_DIR}
BUILD=$(cd "$BUILD" && pwd -P)
SRC=$(cd "$SRC" && pwd -P)

. "$SRC/tests/lib/ganesha.sh"
. "$SRC/tests/lib/capture.sh"
. "$SRC/tests/lib/e2e.sh"

sanitize=$(sed -n 's/^TBBT_SANITIZE:[A-Z]*=//p' "$BUILD/CMakeCache.txt" 2>/dev/null)
if [ -n "$sanitize" ] && ! grep -qixE 'off|0|no|false' <<<"$sanitize"; then
    echo "SKIP: a sanitizer build (its package would need the sanitizers' runtime)"
    exit 77
fi
e2e_require cpack dpkg-deb zstd perl
e2e_begin install

# ---- 1. the package
cpack -G DEB -B "$TMP/pkg" --config "$BUILD/CPackConfig.cmake" >"$TMP/cpack.log" 2>&1
debs=("$TMP"/pkg/tbbt_*.deb)
check "cpack -G DEB made ${debs[0]##*/}" [ -f "${debs[0]}" ]
[ -f "${debs[0]}" ] || { tail -20 "$TMP/cpack.log"; e2e_end; exit 1; }
deb=${debs[0]}
depends=$(dpkg-deb -f "$deb" Depends)
echo "  Depends: $depends"
for d in libnfs libpcap libglib2.0 libzstd libtirpc perl tcpdump gnuplot; do
    check "Depends names $d" grep -q "$d" <<<"$depends"
done

# ---- 2. installed
mode=${TBBT_INSTALL_MODE:-}
if [ -z "$mode" ]; then
    mode=extract
    # MARK: present while a run of this test has the package installed; a
    # run killed before its removal (SIGKILL, a timeout) leaves it, and the
    # next run, under the lock, removes that package instead of falling
    # back to unpacking for ever after.
    MARK=/var/tmp/tbbt-install-test.installed
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        if ! dpkg-query -W tbbt >/dev/null 2>&1 || [ -f "$MARK" ]; then mode=apt; else
            echo "note: a tbbt package this test did not install is on this machine: unpacking instead"
        fi
    fi
fi
installed_by_us=0
remove_pkg() {
    if [ "$installed_by_us" = 1 ]; then
        DEBIAN_FRONTEND=noninteractive apt-get remove -y -q --purge tbbt >"$TMP/remove.log" 2>&1 &&
            rm -f "$MARK" || echo "warning: apt-get remove tbbt failed (see $TMP/remove.log)"
        installed_by_us=0
    fi
}
trap 'remove_pkg; _e2e_cleanup' EXIT
if [ "$mode" = apt ]; then
    exec 9>/run/lock/tbbt-install-test.lock && flock -w 600 9
    if dpkg-query -W tbbt >/dev/null 2>&1 && [ -f "$MARK" ]; then
        echo "note: removing the tbbt package a killed run of this test left installed ($MARK)"
        installed_by_us=1
        remove_pkg
    fi
    if dpkg-query -W tbbt >/dev/null 2>&1; then
        echo "SKIP: tbbt got installed meanwhile; not touching it"
        exit 77
    fi
    touch "$MARK"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o DPkg::Lock::Timeout=120 "$deb" >"$TMP/apt.log" 2>&1
    rc=$?
    [ $rc = 0 ] && installed_by_us=1
    [ $rc = 0 ] || rm -f "$MARK"
    check "apt-get install ./${deb##*/} (exit $rc)" [ $rc = 0 ]
    [ $rc = 0 ] || { tail -20 "$TMP/apt.log"; e2e_end; exit 1; }
    P=/usr
else
    if command -v apt-get >/dev/null; then
        apt-get install -s -q "$deb" >"$TMP/apt-s.log" 2>&1
        rc=$?
        check "apt-get install -s ./${deb##*/}: its dependencies resolve (exit $rc)" [ $rc = 0 ]
    fi
    dpkg-deb -x "$deb" "$TMP/root"
    check "dpkg-deb -x into a fresh root" [ -x "$TMP/root/usr/bin/tbbt-prep" ]
    P=$TMP/root/usr
fi
echo "  installed ($mode) under $P"

# ---- 3. what was installed
for c in tbbt-prep tbbt-init tbbt-play tbbt-report tbbt-compare tbbt-dump tbbt-check tbbt-capture; do
    check "$c in $P/bin, its man page in $P/share/man/man1" [ -x "$P/bin/$c" -a -f "$P/share/man/man1/$c.1" ]
done
for h in tbbt-xanon tbbt-xmerge tbbt-xsummary; do
    check "$h private, in $P/libexec/tbbt" [ -x "$P/libexec/tbbt/$h" -a ! -e "$P/bin/$h" ]
done
for t in tbbt-workload tbbt-pcapdrop tbbt-asyncpeer tbbt-nullserver; do
    check "$t (a test or benchmark program) not installed" [ ! -e "$P/bin/$t" -a ! -e "$P/libexec/tbbt/$t" ]
done
check "docs and the sample capture in $P/share/doc/tbbt" \
    [ -f "$P/share/doc/tbbt/README.md" -a -f "$P/share/doc/tbbt/examples/ganesha-libnfs-mixed.pcap.zst" ]

# ---- 4. the quick start
# The commands below are the README's: its quick-start blocks (the fourth
# and fifth ```sh blocks), comments dropped, spaces squeezed, must be these
# lines, so that a change to either is seen here.
readme_quick=$(awk '/^```sh$/ { n++; on = 1; next } /^```/ { on = 0 } on && (n == 4 || n == 5)' "$SRC/README.md" |
    sed 's/#.*//; s/  */ /g; s/ *$//' | grep .)
typed="tbbt-prep trace.pcap
tbbt-init --scope 8192 filer1:/export
tbbt-play --order fsdep --speedup 6
tbbt-report
tbbt-init --scope 8192 filer2:/export
tbbt-play --order fsdep --speedup 6 filer2:/export
tbbt-compare"
check "the README's quick start is the one run here" [ "$readme_quick" = "$typed" ]
[ "$readme_quick" = "$typed" ] || diff <(echo "$typed") <(echo "$readme_quick") | sed 's/^/    /'
check "the README's capture to try is the one the package installs (docs, above)" \
    grep -qF 'zstd -d /usr/share/doc/tbbt/examples/ganesha-libnfs-mixed.pcap.zst -o trace.pcap' "$SRC/README.md"
# as_user CMD...: CMD in $WS as a user of the installed package: PATH the
# prefix's bin and the system's, no other environment, the sources and the
# build tree hidden when a mount namespace can be made. Output in
# $TMP/step.out.
if unshare -m true 2>/dev/null; then HIDE=1; else
    HIDE=0
    echo "note: no mount namespace here (unshare -m): the source and build trees stay visible"
fi
as_user() {
    local path="$P/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
    if [ "$HIDE" = 1 ]; then
        env -i HOME="$WS" LANG=C.UTF-8 PATH="$path" unshare -m sh -c '
            ws=$1 src=$2 build=$3
            shift 3
            for d in "$src" "$build"; do
                [ ! -d "$d" ] || mount -t tmpfs -o size=1m,mode=0755 tbbt-hidden "$d" || exit 125
            done
            cd "$ws" && exec "$@"' as_user "$WS" "$SRC" "$BUILD" "$@" >"$TMP/step.out" 2>&1
    else
        (cd "$WS" && env -i HOME="$WS" LANG=C.UTF-8 PATH="$path" "$@") >"$TMP/step.out" 2>&1
    fi
}
WS=$TMP/ws
mkdir -p "$WS"
zstd -qd "$P/share/doc/tbbt/examples/ganesha-libnfs-mixed.pcap.zst" -o "$WS/trace.pcap"

# step WHAT CMD...: runs CMD as_user, checks exit 0, shows the output's
# tail when it failed.
step() {
    local what=$1 rc
    shift
    as_user "$@"
    rc=$?
    check "$what: $* (exit $rc)" [ $rc = 0 ]
    [ $rc = 0 ] || sed 's/^/    /' "$TMP/step.out" | tail -15
    return $rc
}

if [ "$HIDE" = 1 ]; then
    check "the sources are hidden from the commands" as_user sh -c "! test -e '$SRC/CMakeLists.txt'"
fi
check "tbbt-prep is the installed one" as_user sh -c "test \"\$(command -v tbbt-prep)\" = '$P/bin/tbbt-prep'"

step "prep" tbbt-prep trace.pcap
check "trace.tbbt and trace.hmap beside the capture" [ -s "$WS/trace.tbbt" -a -s "$WS/trace.hmap" ]

# The README's quick start, as typed, in the workspace (docs/workspace.md):
# tbbt-init takes the map, tbbt-play the trace, the server and the result
# file (tbbt-results/), tbbt-report and tbbt-compare the runs.
# server S: start nfs-ganesha S, build the image, replay, stop it.
server() {
    local s=$1 name=$2
    tbbt_ganesha_start "$TMP/srv$s" || { check "ganesha $s started" false; return 1; }
    local srv="127.0.0.1:$TBBT_EXPORT"
    local ports=(--nfs-port "$TBBT_NFS_PORT" --mount-port "$TBBT_MNT_PORT")
    local init=(tbbt-init --scope 8192 "${ports[@]}" "$srv")
    # a just-started server may hang up the first MOUNT: one retry
    as_user "${init[@]}" || { sleep 1 && as_user "${init[@]}" --replace; }
    local rc=$?
    check "init $s: ${init[*]} (exit $rc)" [ $rc = 0 ]
    [ $rc = 0 ] || sed 's/^/    /' "$TMP/step.out" | tail -15
    # the second server must be named: the workspace holds two
    step "play $s" tbbt-play --order fsdep --speedup 6 ${name:+"$srv"}
    rc=$?
    [ $rc = 0 ] && sed -n 's/^/    /; /[Rr]eplayed\|matched/p' "$TMP/step.out" | head -3
    tbbt_ganesha_stop "$TMP/srv$s"
    return $rc
}

# matched FILE: records and matched of a tbbt-play result, "N M".
matched() {
    perl -MJSON::PP -e 'local $/; my $t = decode_json(<STDIN>)->{totals}; print "$t->{records} $t->{matched}"' <"$1"
}

if server A; then
    res=$(ls "$WS"/tbbt-results/*.json 2>/dev/null)
    check "play A: one result in tbbt-results/ ($res)" [ "$(echo "$res" | grep -c .)" = 1 ]
    read -r n m <<<"$(matched "$res")"
    check "play A: every one of the $n records matched ($m)" [ "${n:-0}" -gt 1000 -a "$m" = "$n" ]
    step "report A" tbbt-report
    check "report A: text and HTML written" [ -s "$WS/tbbt-report/report.txt" -a -s "$WS/tbbt-report/report.html" ]
fi
if server B named; then
    check "play B: two results in tbbt-results/" [ "$(ls "$WS"/tbbt-results/*.json | wc -l)" = 2 ]
    step "compare" tbbt-compare
    check "comparison: written" [ -s "$WS/tbbt-compare/report.txt" -a -s "$WS/tbbt-compare/report.html" ]
fi

# Beside the quick start, the installed commands that run others: the Perl
# transforms run tbbt-dump (bin) and their C loops (libexec/tbbt),
# tbbt-prep reads an Ellard text trace in C (in a directory
# of its own: a second trace in the workspace would need naming).
step "summary" tbbt-summary trace.tbbt
check "summary: the trace's 1582 records counted" grep -q '^records 1582 ' "$TMP/step.out"
mkdir -p "$WS/ellard"
cp "$SRC/tests/data/ellard-quirks.txt" "$WS/ellard/ellard.txt"
step "Ellard text" tbbt-prep -q -o ellard/ellard.tbbt ellard/ellard.txt
check "Ellard text: records written" [ -s "$WS/ellard/ellard.tbbt" ]
remove_pkg
if [ "$mode" = apt ]; then
    check "apt-get remove tbbt: nothing of it left in /usr/bin" [ ! -e /usr/bin/tbbt-prep ]
fi
e2e_end
