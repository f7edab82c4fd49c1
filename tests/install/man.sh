#!/bin/bash
# tests/install/man.sh -- the man pages, as installed: `cmake --install` of
# the build into a fresh prefix P, then for every command in P/bin:
#   - P/share/man/man1/NAME.1 exists, and `man --warnings -l` renders it
#     with no warning from groff;
#   - its OPTIONS section lists exactly the options the command accepts,
#     as its option table lists them (`NAME --list-options`: lib/opttab.h
#     for a C command, TBBT::Opts for a Perl one); nothing missing,
#     nothing else;
#   - a default its page gives in figures ("(default 4096") is the one in
#     the table (--list-options), so that a changed default is seen;
# and no page is installed for a command that is not in P/bin.
# Usage (ctest): bash man.sh BUILD_DIR SRC_DIR
BUILD=${1:?usage: man.sh BUILD_DIR SRC_DIR}
SRC=${2:?usage: man.sh BUILD_DIR SRC_DIR}
BUILD=$(cd "$BUILD" && pwd)
SRC=$(cd "$SRC" && pwd)
. "$SRC/tests/lib/e2e.sh"

command -v man >/dev/null || { echo "SKIP: man not installed (apt-get install man-db)"; exit 77; }
TMP=$(mktemp -d /tmp/tbbt-man.XXXXXX)
FAILS=0
trap '[ "$FAILS" = 0 ] && [ -z "${TBBT_KEEP:-}" ] && rm -rf "$TMP" || echo "kept $TMP"' EXIT
P=$TMP/prefix
cmake --install "$BUILD" --prefix "$P" >"$TMP/install.log" 2>&1 ||
    { cat "$TMP/install.log"; echo "FAIL cmake --install"; exit 1; }

# opts_list: the options a command accepts, one a line, sorted: the long
# and short names its hidden --list-options prints (one tab-separated line
# per option, from the command's option table: lib/opttab.h for the C
# commands, TBBT::Opts for the Perl ones).
opts_list() {
    "$1" --list-options 2>/dev/null | cut -f1,2 | tr '\t' '\n' | grep -v '^$' | sort -u
}

# opts_page: the options the rendered page's OPTIONS section lists: on
# each line that starts with "-" (an item, or a line of a verbatim option
# table), the options before the first gap of two or more spaces.
opts_page() {
    MANWIDTH=200 man -l "$1" 2>/dev/null | perl -ne '
        if (/^(\S.*)$/) { $in = $1 eq "OPTIONS"; next }
        next unless $in && /^\s+(-.*?)(?:\s{2,}|\s*$)/;
        print "$_\n" for $1 =~ /(?<![\w-])(--[a-z0-9][a-z0-9-]*|-[A-Za-z0-9])(?![A-Za-z0-9-])/g' | sort -u
}

# defaults_differ CMD PAGE: the options whose page item gives a numeric
# default (the first "(default N", with KiB, MiB or GiB applied) other
# than the table's numeric default (--list-options' fourth field), one a
# line; items naming two options, and defaults in words, are not compared.
defaults_differ() {
    "$1" --list-options 2>/dev/null | MANWIDTH=200 perl -e '
        my $page = shift;
        my @L = `man -l "$page" 2>/dev/null`;
        my %mul = (KiB => 1024, MiB => 1024**2, GiB => 1024**3);
        while (<STDIN>) {
            chomp;
            my ($long, $short, undef, $def) = split /\t/, $_, -1;
            next unless defined $def && $def =~ /^-?[0-9]+(\.[0-9]+)?$/;
            my ($in, $para, $head) = (0, "", "");
            for (@L) {
                if (/^\s{4,8}(-\S.*)$/) { $in = ($1 =~ /(^|[ ,])\Q$long\E([ =,\[]|$)/); $head = $1 if $in; next }
                $para .= $_ if $in;
            }
            my @named = grep { $_ ne $long && $_ ne $short } $head =~ /(?<![\w-])(--[a-z0-9][a-z0-9-]*|-[A-Za-z0-9])(?![A-Za-z0-9-])/g;
            next if @named;
            $para =~ s/\s+/ /g;
            next unless $para =~ /\(default:? (?:is )?(-?[0-9]+(?:\.[0-9]+)?)(?: ?(KiB|MiB|GiB))?(?=[ ,;:)])/i;
            my $v = $1 * ($2 ? $mul{$2} : 1);
            print "$long: the page says $1", ($2 ? " $2" : ""), ", the table $def\n" if $v != $def;
        }' "$2"
}

# same_opts ACCEPTED PAGE: 0 when both list the same options, and some.
same_opts() {
    [ -s "$1" ] && cmp -s "$1" "$2"
}

n=0
for cmd in "$P"/bin/*; do
    name=$(basename "$cmd")
    page=$P/share/man/man1/$name.1
    n=$((n + 1))
    check "$name: man page installed" [ -f "$page" ]
    [ -f "$page" ] || continue
    MANWIDTH=80 man --warnings -l "$page" >"$TMP/$name.txt" 2>"$TMP/$name.warn"
    check "$name: man -l renders it without warnings" [ -s "$TMP/$name.txt" -a ! -s "$TMP/$name.warn" ]
    [ -s "$TMP/$name.warn" ] && sed 's/^/    /' "$TMP/$name.warn"
    opts_list "$cmd" >"$TMP/$name.accepted"
    from="its --list-options"
    opts_page "$page" >"$TMP/$name.page"
    check "$name: the page lists exactly the options of $from ($(wc -l <"$TMP/$name.accepted"))" \
        same_opts "$TMP/$name.accepted" "$TMP/$name.page"
    cmp -s "$TMP/$name.accepted" "$TMP/$name.page" ||
        diff "$TMP/$name.accepted" "$TMP/$name.page" | sed -n 's/^< /    accepted, not in the page: /p; s/^> /    in the page, not accepted: /p'
    defaults_differ "$cmd" "$page" >"$TMP/$name.defaults"
    check "$name: every default the page gives in figures is the table's" [ ! -s "$TMP/$name.defaults" ]
    sed 's/^/    /' "$TMP/$name.defaults"
done
check "commands installed in bin: $n" [ "$n" -ge 17 ]
for page in "$P"/share/man/man1/*.1; do
    check "$(basename "$page"): its command is installed" [ -x "$P/bin/$(basename "$page" .1)" ]
done
e2e_end
