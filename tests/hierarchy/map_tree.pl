#!/usr/bin/perl
# tests/hierarchy/map_tree.pl -- the known tree of map_ganesha.sh, and the
# checks of tbbt-prep's hierarchy map (NAME.hmap) against it.
#
#   map_tree.pl build EXPORT TRUTH
#       makes the tree below in EXPORT (before the server starts) and writes
#       what the local file system then says of every object to TRUTH, one
#       line each: path, type, size, mode, inode, symlink target (tabs).
#   map_tree.pl check AREA TRUTH SCRIPT MAP DUMP
#       replays SCRIPT (tbbt-nfsscript commands) on a model of the tree read
#       from TRUTH: the model gives every map entry to expect (its object,
#       parent, path at its creation, the script command that made and
#       removed it); the records (DUMP: tbbt-dump's text form) give each
#       command's call time, matched by procedure and name. Then checks one
#       AREA of MAP against that and exits 0 when it holds, 1 when not (the
#       reasons on stdout), 2 on bad input:
#         format     "# tbbt-hmap 1" first, "# end N" last with N the count,
#                    every parent ID on an earlier line
#         root       the export root: path ".", origin r, parent 0, create 0
#         ids        one ID per model object and one object per ID; every
#                    entry's parent is its directory's ID
#         initial    every pre-existing name the script touched: an entry with
#                    create 0, its path before the capture, type, size and
#                    mode (and symlink target) before the capture; names the
#                    script did not touch may be absent (listed), and when
#                    present must be right too
#         created    every name made by create/mkdir/symlink/link/rename: an
#                    entry with create = its record's call time
#         deleted    every name removed (remove, rmdir, renamed away or over):
#                    delete = its record's call time; the others "-"
#         links      the pre-existing hard link pair: two create-0 entries, one
#                    ID; a link made in the capture: the original's ID
#         renames    old path deleted and new path created at the rename's
#                    time, same ID; the renamed directory's children keep it
#                    as parent
#         victims    victim= and victim2= of remove/rmdir/rename records are
#                    the map's IDs of the names they removed or replaced
#         paths      every successful LOOKUP, resolved through the map at its
#                    call time (parent chain, entries alive then), names the
#                    path the script's tree had then, for the same object
#         explained  every map entry is one the tree and the script explain
# The checker is a second derivation of the map's meaning (hmap.h), written
# from the tree and the script, not from tbbt-prep's code or output.
use strict;
use warnings;

# ---- the tree -------------------------------------------------------------
# [kind, path, size or target or existing name, mode]: d dir, f file of
# SIZE pattern bytes, l symlink to TARGET, h hard link to EXISTING.
my @TREE = (
    [ 'd', 'docs',                     undef, 0755 ],
    [ 'f', 'docs/readme.txt',          1234,  0644 ],
    [ 'f', 'docs/my file.txt',         321,   0640 ],
    [ 'f', "docs/it's \"q\".txt",      42,    0644 ],
    [ 'd', 'docs/notes',               undef, 0750 ],
    [ 'f', 'docs/notes/todo.txt',      77,    0644 ],
    [ 'f', 'docs/notes/plan.txt',      88,    0600 ],
    [ 'f', 'docs/notes/memo.txt',      99,    0644 ],
    [ 'd', 'docs/notes/deep',          undef, 0755 ],
    [ 'f', 'docs/notes/deep/leaf.dat', 5000,  0644 ],
    [ 'd', 'data',                     undef, 0755 ],
    [ 'f', 'data/log.txt',             2048,  0644 ],
    [ 'f', 'data/big.bin',             70000, 0644 ],
    [ 'f', 'data/hard1',               999,   0644 ],
    [ 'f', 'data/over.txt',            555,   0644 ],
    [ 'd', 'data/sub',                 undef, 0755 ],
    [ 'h', 'data/sub/hard2',           'data/hard1' ],
    [ 'f', 'data/sub/victim.txt',      10,    0644 ],
    [ 'f', 'data/sub/blind.txt',       33,    0644 ],
    [ 'd', 'src',                      undef, 0755 ],
    [ 'f', 'src/main.c',               4321,  0644 ],
    [ 'd', 'src/inc',                  undef, 0755 ],
    [ 'f', 'src/inc/defs.h',           600,   0644 ],
    [ 'd', 'proj',                     undef, 0711 ],
    [ 'f', 'proj/f.txt',               12,    0644 ],
    [ 'f', 'linkme',                   111,   0644 ],
    [ 'l', 'sym',                      'docs/readme.txt' ],
    [ 'd', 'empty',                    undef, 0755 ],
    [ 'd', 'empty2',                   undef, 0755 ],
    [ 'f', 'mode600',                  50,    0600 ],
    [ 'd', 'listed',                   undef, 0755 ],
    [ 'f', 'listed/l1',                5,     0644 ],
    [ 'd', 'untouched',                undef, 0755 ],
    [ 'f', 'untouched/u1',             1,     0644 ],
);

# build EXPORT TRUTH: make the tree, then record it as lstat sees it.
sub build {
    my ($export, $truth) = @_;
    -d $export or mkdir $export or die "$export: $!\n";
    for my $t (@TREE) {
        my ($kind, $path, $arg, $mode) = @$t;
        my $p = "$export/$path";
        if ($kind eq 'd') {
            mkdir $p or die "$p: $!\n";
        } elsif ($kind eq 'f') {
            open my $fh, '>', $p or die "$p: $!\n";
            print $fh join('', map { chr(48 + ($_ * 7) % 43) } 0 .. $arg - 1);
            close $fh or die "$p: $!\n";
        } elsif ($kind eq 'l') {
            symlink $arg, $p or die "$p: $!\n";
        } else {
            link "$export/$arg", $p or die "$p: $!\n";
        }
        chmod $mode, $p or die "$p: $!\n" if defined $mode;
    }
    open my $out, '>', $truth or die "$truth: $!\n";
    for my $path ('.', map { $_->[1] } @TREE) {
        my @st = lstat "$export/$path" or die "$export/$path: $!\n";
        my $type = -l _ ? 'lnk' : -d _ ? 'dir' : -f _ ? 'reg' : 'other';
        my $target = $type eq 'lnk' ? readlink "$export/$path" : '';
        printf $out "%s\t%s\t%d\t%04o\t%d\t%s\t%d\t%d\n", $path, $type, $st[7], $st[2] & 07777, $st[1], $target,
            $st[4], $st[5];
    }
    close $out or die "$truth: $!\n";
}

# ---- inputs ---------------------------------------------------------------

# "S.N" (9 digits) to integer nanoseconds; "0" stays 0.
sub ns {
    my ($t) = @_;
    return 0 if $t eq '0';
    $t =~ /^(\d+)\.(\d{9})$/ or die "bad time '$t'\n";
    return $1 * 1000000000 + $2;
}

# The text forms' quoted string: "..." with \" \\ \xHH.
sub unq {
    my ($s) = @_;
    $s =~ /^"(.*)"$/s or die "not a quoted string: $s\n";
    $s = $1;
    $s =~ s/\\(x([0-9a-fA-F]{2})|.)/defined $2 ? chr(hex $2) : $1/ge;
    return $s;
}

# Reads TRUTH: {path => {type size mode ino target}}.
sub read_truth {
    my ($file) = @_;
    my %t;
    open my $fh, '<', $file or die "$file: $!\n";
    while (<$fh>) {
        chomp;
        my ($path, $type, $size, $mode, $ino, $target, $uid, $gid) = split /\t/, $_, -1;
        $t{$path} = { type => $type, size => $size, mode => $mode, ino => $ino, target => $target,
                      uid => $uid, gid => $gid };
    }
    return \%t;
}

# The tokens of a script line, as tbbt-nfsscript splits them.
sub script_tokens {
    my ($line) = @_;
    my @tok;
    while ($line =~ /\G\s*(?:"((?:[^"\\]|\\["\\])*)"|(\S+))/gc) {
        if (defined $1) { (my $t = $1) =~ s/\\(["\\])/$1/g; push @tok, $t } else { push @tok, $2 }
    }
    return @tok;
}

# Reads the records: [{t, proc, status, f => {key => value}}], strings unquoted.
sub read_dump {
    my ($file) = @_;
    my @r;
    open my $fh, '<', $file or die "$file: $!\n";
    while (<$fh>) {
        chomp;
        my @c = split ' ';
        my %f;
        for my $kv (@c[10 .. $#c]) {
            my ($k, $v) = split /=/, $kv, 2;
            $f{$k} = $v =~ /^"/ ? unq($v) : $v;
        }
        push @r, { t => ns($c[0]), ts => $c[0], proc => $c[6], status => $c[7], f => \%f };
    }
    return \@r;
}

# Reads the map: {lines => [...], entries => [{id parent create delete type
# size mode origin path target line}], end => N or undef, header => first line}.
sub read_map {
    my ($file) = @_;
    my %m = (entries => [], lines => 0);
    open my $fh, '<', $file or die "$file: $!\n";
    while (<$fh>) {
        chomp;
        $m{lines}++;
        $m{header} //= $_;
        if (/^#/) {
            $m{end} = $1 if /^# end (\d+)$/;
            $m{last} = $_;
            next;
        }
        $m{last} = $_;
        my @c = split ' ';
        @c == 12 or die "$file:$.: " . scalar(@c) . " columns\n";
        push @{ $m{entries} }, {
            id => $c[0], parent => $c[1], create => ns($c[2]), cs => $c[2],
            del => $c[3] eq '-' ? undef : ns($c[3]), ds => $c[3], type => $c[4], size => $c[5],
            mode => $c[6], uid => $c[7], gid => $c[8], origin => $c[9], path => unq($c[10]),
            target => $c[11] eq '-' ? undef : unq($c[11]), line => $.,
        };
    }
    return \%m;
}

# ---- the model ------------------------------------------------------------
# Objects: {type size mode target pre}. Entries: {obj pobj path cev dev
# required}: cev/dev = index of the event that made/removed the name, or
# undef (before the capture / never). Events: {proc name name2 pobj obj
# victim victim2 line}; snapshots[k] = {path => obj} after k events.

sub dirname { my ($p) = @_; return $p =~ m{^(.*)/[^/]*$} ? $1 : '.' }
sub basename { my ($p) = @_; return $p =~ m{([^/]*)$} ? $1 : $p }

# Replays the script on the tree; returns the model.
sub model {
    my ($truth, $script) = @_;
    my (%obj, %ns, %cur, @entries, @events, @snap);
    for my $path (sort keys %$truth) {
        my $t = $truth->{$path};
        my $o = "i$t->{ino}";
        $obj{$o} //= { type => $t->{type}, size => $t->{size}, mode => $t->{mode},
                       target => $t->{target}, uid => $t->{uid}, gid => $t->{gid}, pre => 1 };
        $ns{$path} = $o;
    }
    for my $path (sort keys %$truth) {
        next if $path eq '.';
        push @entries, { obj => $ns{$path}, pobj => $ns{ dirname($path) }, path => $path,
                         cev => undef, dev => undef, required => 0 };
        $cur{$path} = $#entries;
    }
    my $new = 0;
    # Every component of path must exist; its name is required in the map,
    # and seen (looked up, so its attributes are in the trace) unless blind
    # is set: the last component of a call that names it with no LOOKUP
    # (libnfs renames and removes by directory and name).
    my $touch = sub {
        my ($path, $line, $blind) = @_;
        return if $path eq '.';
        my @c = split m{/}, $path;
        for my $i (0 .. $#c) {
            my $p = join '/', @c[0 .. $i];
            exists $cur{$p} or die "script line $line: $p does not exist in the model\n";
            $entries[ $cur{$p} ]{required} = 1;
            $entries[ $cur{$p} ]{seen} = 1 unless $blind && $i == $#c;
        }
    };
    my $add = sub {    # a new name for object o at path, made by event ev
        my ($path, $o, $ev) = @_;
        push @entries, { obj => $o, pobj => $ns{ dirname($path) }, path => $path, cev => $ev,
                         dev => undef, required => 1 };
        $cur{$path} = $#entries;
        $ns{$path} = $o;
    };
    my $drop = sub {    # path goes away at event ev
        my ($path, $ev) = @_;
        $entries[ $cur{$path} ]{dev} = $ev;
        delete $cur{$path};
        delete $ns{$path};
    };
    push @snap, {%ns};
    open my $fh, '<', $script or die "$script: $!\n";
    while (my $l = <$fh>) {
        next if $l =~ /^\s*(#|$)/;
        die "$script:$.: the model does not replay lines allowed to fail\n" if $l =~ /^\s*-/;
        my ($cmd, @a) = script_tokens($l);
        my $line = $.;
        my $ev = scalar @events;
        if ($cmd =~ /^(create|mkdir|symlink)$/) {
            my $path = $cmd eq 'symlink' ? $a[1] : $a[0];
            $touch->(dirname($path), $line);
            my $o = 'n' . ++$new;
            $obj{$o} = { type => { create => 'reg', mkdir => 'dir', symlink => 'lnk' }->{$cmd},
                         target => $cmd eq 'symlink' ? $a[0] : '', pre => 0 };
            push @events, { proc => $cmd, name => basename($path), pobj => $ns{ dirname($path) },
                            obj => $o, line => $line, path => $path };
            $add->($path, $o, $ev);
        } elsif ($cmd eq 'link') {
            $touch->($a[0], $line);
            $touch->(dirname($a[1]), $line);
            my $o = $ns{ $a[0] };
            push @events, { proc => 'link', name => basename($a[1]), pobj => $ns{ dirname($a[1]) },
                            obj => $o, line => $line, path => $a[1] };
            $add->($a[1], $o, $ev);
        } elsif ($cmd eq 'remove' || $cmd eq 'rmdir') {
            $touch->($a[0], $line, 1);
            push @events, { proc => $cmd, name => basename($a[0]), pobj => $ns{ dirname($a[0]) },
                            victim => $ns{ $a[0] }, line => $line, path => $a[0] };
            $drop->($a[0], $ev);
        } elsif ($cmd eq 'rename') {
            my ($from, $to) = @a;
            $touch->($from, $line, 1);
            $touch->(dirname($to), $line);
            my $o = $ns{$from};
            my $e = { proc => 'rename', name => basename($from), name2 => basename($to),
                      pobj => $ns{ dirname($from) }, pobj2 => $ns{ dirname($to) }, victim => $o,
                      line => $line, path => $from, path2 => $to };
            if (exists $ns{$to}) {
                $entries[ $cur{$to} ]{required} = 1;
                $e->{victim2} = $ns{$to};
                $drop->($to, $ev);
            }
            push @events, $e;
            $drop->($from, $ev);
            $add->($to, $o, $ev);
            for my $p (grep { index($_, "$from/") == 0 } sort keys %ns) {    # the subtree moves
                my $q = $to . substr($p, length $from);
                $ns{$q} = delete $ns{$p};
                $cur{$q} = delete $cur{$p};
            }
        } elsif ($cmd =~ /^(stat|read|readlink|write|append|truncate|chmod|ls)$/) {
            $touch->($a[0], $line);
        } elsif ($cmd ne 'sleep') {
            die "$script:$line: unknown command $cmd\n";
        }
        push @snap, {%ns} if @events > @snap - 1;
    }
    return { obj => \%obj, entries => \@entries, events => \@events, snap => \@snap,
             root => $ns{'.'} };
}

# Finds each event's record (same procedure and names, status 0, in order);
# sets $ev->{rec} and {t}. Returns the list of events not found.
sub match_events {
    my ($m, $recs) = @_;
    my ($i, @missing) = (0);
    for my $e (@{ $m->{events} }) {
        my $j = $i;
        $j++ while $j < @$recs && !($recs->[$j]{proc} eq $e->{proc} && $recs->[$j]{status} eq '0'
            && ($recs->[$j]{f}{name} // '') eq $e->{name}
            && (!defined $e->{name2} || ($recs->[$j]{f}{name2} // '') eq $e->{name2}));
        if ($j == @$recs) { push @missing, $e; next }
        $e->{rec} = $recs->[$j];
        $e->{t} = $recs->[$j]{t};
        $i = $j + 1;
    }
    return @missing;
}

# The expected create/delete time of a model entry (0 / undef = never).
sub etime {
    my ($m, $ev) = @_;
    return undef unless defined $ev;
    return $m->{events}[$ev]{t} // -1;
}

# Pairs model entries with map entries by path and create time: sets
# $e->{map} on each model entry found and $me->{model} on each map entry.
# Builds obj => id and id => obj; returns the conflicts as messages.
sub bind_map {
    my ($m, $map) = @_;
    my %by;
    push @{ $by{ $_->{path} . "\0" . $_->{create} } }, $_ for @{ $map->{entries} };
    my (%id, %obj, @bad);
    my ($root) = grep { $_->{path} eq '.' && $_->{parent} eq '0' } @{ $map->{entries} };
    if ($root) {
        $id{ $m->{root} } = $root->{id};
        $obj{ $root->{id} } = $m->{root};
        $root->{model} = 'root';
    }
    for my $e (@{ $m->{entries} }) {
        my $c = defined $e->{cev} ? etime($m, $e->{cev}) : 0;
        my $hits = $by{ $e->{path} . "\0" . $c } or next;
        push @bad, "\"$e->{path}\" has " . @$hits . " entries created at the same time" if @$hits > 1;
        my $me = $hits->[0];
        $e->{map} = $me;
        $me->{model} = $e;
        if (defined $id{ $e->{obj} } && $id{ $e->{obj} } ne $me->{id}) {
            push @bad, "\"$e->{path}\" (line $me->{line}) has ID $me->{id}, another name of the same object ID $id{ $e->{obj} }";
        }
        if (defined $obj{ $me->{id} } && $obj{ $me->{id} } ne $e->{obj}) {
            push @bad, "ID $me->{id} (line $me->{line}, \"$e->{path}\") is also given to another object";
        }
        $id{ $e->{obj} } //= $me->{id};
        $obj{ $me->{id} } //= $e->{obj};
    }
    $m->{id} = \%id;
    $m->{idobj} = \%obj;
    return @bad;
}

# ---- the areas ------------------------------------------------------------
my (@fail, @note);
sub fail { push @fail, join '', @_ }
sub note { push @note, join '', @_ }
sub qs { my ($s) = @_; return "\"$s\"" }
sub tstr { my ($t) = @_; return defined $t ? sprintf('%d.%09d', int($t / 1e9), $t % 1000000000) : '-' }

my %AREA;

$AREA{format} = sub {
    my ($m, $map) = @_;
    fail "first line is '", $map->{header} // '', "', not '# tbbt-hmap 1'" unless ($map->{header} // '') eq '# tbbt-hmap 1';
    my $n = @{ $map->{entries} };
    fail "last line is '", $map->{last} // '', "', not '# end $n'" unless ($map->{last} // '') eq "# end $n";
    my %seen = (0 => 1);
    for my $e (@{ $map->{entries} }) {
        fail "line $e->{line} (", qs($e->{path}), "): parent $e->{parent} not on an earlier line" unless $seen{ $e->{parent} };
        $seen{ $e->{id} } = 1;
    }
    note "$n entries";
};

$AREA{root} = sub {
    my ($m, $map) = @_;
    my @r = grep { $_->{path} eq '.' } @{ $map->{entries} };
    return fail "no entry with path \".\"" unless @r;
    fail scalar(@r), " entries with path \".\"" if @r > 1;
    my $r = $r[0];
    fail "root entry (line $r->{line}): origin $r->{origin}, not r" unless $r->{origin} eq 'r';
    fail "root entry: parent $r->{parent}, not 0" unless $r->{parent} eq '0';
    fail "root entry: create $r->{cs}, not 0" unless $r->{create} == 0;
    fail "root entry: type $r->{type}, not dir" unless $r->{type} eq 'dir';
    fail "root entry: delete $r->{ds}, not -" if defined $r->{del};
    my @other = grep { $_->{parent} eq '0' && $_->{path} ne '.' } @{ $map->{entries} };
    fail "other entries with parent 0: ", join(', ', map { qs($_->{path}) } @other) if @other;
};

$AREA{ids} = sub {
    my ($m, $map, @bad) = @_;
    fail $_ for @bad;
    for my $e (grep { $_->{map} } @{ $m->{entries} }) {
        my $want = $m->{id}{ $e->{pobj} };
        fail qs($e->{path}), " (line $e->{map}{line}): parent $e->{map}{parent}, but its directory ",
            qs(dirname($e->{path})), " has ID ", $want // 'none'
            unless defined $want && $want eq $e->{map}{parent};
    }
};

# The fields of a create-0 map entry against the truth of its object.
sub check_initial {
    my ($m, $e) = @_;
    my ($me, $o) = ($e->{map}, $m->{obj}{ $e->{obj} });
    my $w = qs($e->{path}) . " (line $me->{line})";
    fail "$w: type $me->{type}, the tree has $o->{type}" unless $me->{type} eq $o->{type};
    # a name the trace never looked up shows no attributes: "-" is right then
    for my $k (qw(size mode uid gid)) {
        next if $me->{$k} eq $o->{$k} || ($me->{$k} eq '-' && !$e->{seen});
        fail "$w: $k $me->{$k}, the tree had $o->{$k}";
    }
    fail "$w: target ", $me->{target} // '-', ", the tree has $o->{target}"
        if $o->{type} eq 'lnk' && ($me->{target} // '') ne $o->{target};
    fail "$w: origin $me->{origin}, not t" unless $me->{origin} eq 't';
}

$AREA{initial} = sub {
    my ($m, $map) = @_;
    my ($req, $opt, @absent, @blind) = (0, 0);
    for my $e (grep { !defined $_->{cev} } @{ $m->{entries} }) {
        if (!$e->{map}) {
            fail "touched before-the-capture name ", qs($e->{path}), " has no entry with create 0" if $e->{required};
            push @absent, $e->{path} unless $e->{required};
            next;
        }
        $e->{required} ? $req++ : $opt++;
        push @blind, $e->{path} if $e->{required} && !$e->{seen};
        check_initial($m, $e);
    }
    note "$req touched names checked; names the script did not look up: present (checked too) $opt, absent ", scalar(@absent),
        (@absent ? ' (' . join(', ', map { qs($_) } @absent) . ')' : '');
    note "named by the script but never looked up (size and mode may be \"-\"): ", join(", ", map { qs($_) } @blind) if @blind;
};

$AREA{created} = sub {
    my ($m, $map) = @_;
    my $n = 0;
    for my $e (grep { defined $_->{cev} } @{ $m->{entries} }) {
        my $ev = $m->{events}[ $e->{cev} ];
        return fail "no record for script line $ev->{line} ($ev->{proc} ", qs($ev->{name}), ")" unless defined $ev->{t};
        if (!$e->{map}) {
            my @same = grep { $_->{path} eq $e->{path} } @{ $map->{entries} };
            fail qs($e->{path}), " made by $ev->{proc} at ", tstr($ev->{t}), " (script line $ev->{line}): no entry with that create time",
                (@same ? ' (entries at: ' . join(', ', map { $_->{cs} } @same) . ')' : '');
            next;
        }
        $n++;
        my $o = $m->{obj}{ $e->{obj} };
        fail qs($e->{path}), " (line $e->{map}{line}): type $e->{map}{type}, made as $o->{type}" unless $e->{map}{type} eq $o->{type};
        fail qs($e->{path}), " (line $e->{map}{line}): target ", $e->{map}{target} // '-', ", made with $o->{target}"
            if $o->{type} eq 'lnk' && ($e->{map}{target} // '') ne $o->{target};
    }
    note "$n entries made during the capture checked";
};

$AREA{deleted} = sub {
    my ($m, $map) = @_;
    my ($n, $k) = (0, 0);
    for my $e (grep { $_->{map} } @{ $m->{entries} }) {
        my $want = etime($m, $e->{dev});
        my $got = $e->{map}{del};
        $k++;
        next if !defined $want && !defined $got;
        $n++ if defined $want;
        next if defined $want && defined $got && $want == $got;
        my $how = defined $e->{dev} ? " ($m->{events}[$e->{dev}]{proc} on script line $m->{events}[$e->{dev}]{line})" : '';
        fail qs($e->{path}), " (line $e->{map}{line}): delete $e->{map}{ds}, expected ", tstr($want), $how;
    }
    note "$k entries, $n of them removed during the capture";
};

$AREA{links} = sub {
    my ($m, $map) = @_;
    my %names;
    push @{ $names{ $_->{obj} } }, $_ for grep { !defined $_->{cev} && $_->{required} } @{ $m->{entries} };
    my $pairs = 0;
    for my $o (sort keys %names) {
        my @n = @{ $names{$o} };
        next if @n < 2;
        $pairs++;
        my @ids = map { $_->{map} ? $_->{map}{id} : 'none' } @n;
        fail "hard link ", join(' and ', map { qs($_->{path}) } @n), ": IDs @ids, expected one ID"
            if grep { $_ ne $ids[0] || $_ eq 'none' } @ids;
        fail "hard link ", qs($_->{path}), ": create $_->{map}{cs}, not 0" for grep { $_->{map} && $_->{map}{create} != 0 } @n;
    }
    fail "the tree's hard link pair is not among the touched names" unless $pairs;
    my $made = 0;
    for my $ev (grep { $_->{proc} eq 'link' } @{ $m->{events} }) {
        $made++;
        my ($new) = grep { defined $_->{cev} && $m->{events}[ $_->{cev} ] == $ev } @{ $m->{entries} };
        my ($orig) = grep { !defined $_->{cev} && $_->{obj} eq $ev->{obj} } @{ $m->{entries} };
        my $ni = $new->{map} ? $new->{map}{id} : 'none';
        my $oi = $orig && $orig->{map} ? $orig->{map}{id} : 'none';
        fail "link ", qs($new->{path}), " to ", qs($orig->{path}), ": IDs $ni and $oi" if $ni ne $oi || $ni eq 'none';
        fail "link ", qs($new->{path}), ": create $new->{map}{cs}, not > 0" if $new->{map} && $new->{map}{create} <= 0;
    }
    fail "the script makes no link" unless $made;
    note "$pairs pre-existing hard-linked objects, $made links made";
};

$AREA{renames} = sub {
    my ($m, $map) = @_;
    my $n = 0;
    for my $ei (0 .. $#{ $m->{events} }) {
        my $ev = $m->{events}[$ei];
        next unless $ev->{proc} eq 'rename';
        $n++;
        my ($old) = grep { defined $_->{dev} && $_->{dev} == $ei && $_->{obj} eq $ev->{victim} } @{ $m->{entries} };
        my ($new) = grep { defined $_->{cev} && $_->{cev} == $ei } @{ $m->{entries} };
        my $w = "rename " . qs($ev->{path}) . " -> " . qs($ev->{path2});
        if (!$old->{map} || !$new->{map}) {
            fail "$w: ", (!$old->{map} ? 'no entry for the old path' : 'no entry for the new path');
            next;
        }
        fail "$w: old path deleted at $old->{map}{ds}, new path created at $new->{map}{cs}, rename at ", tstr($ev->{t})
            unless defined $old->{map}{del} && $old->{map}{del} == $ev->{t} && $new->{map}{create} == $ev->{t};
        fail "$w: ID $old->{map}{id} before, $new->{map}{id} after" unless $old->{map}{id} eq $new->{map}{id};
        next unless $m->{obj}{ $ev->{victim} }{type} eq 'dir';
        my @kids = grep { $_->{map} && $_->{pobj} eq $ev->{victim} } @{ $m->{entries} };
        fail "$w: no entry of the directory's children" unless @kids;
        for my $k (@kids) {
            fail "$w: child ", qs($k->{path}), " has parent $k->{map}{parent}, not $new->{map}{id}"
                unless $k->{map}{parent} eq $new->{map}{id};
        }
        note "$w: ", scalar(@kids), " children under ID $new->{map}{id}: ", join(', ', map { qs($_->{path}) . " at $_->{map}{cs}" } @kids);
    }
    note "$n renames";
};

$AREA{victims} = sub {
    my ($m, $map) = @_;
    my $n = 0;
    for my $ev (grep { $_->{proc} =~ /^(remove|rmdir|rename)$/ } @{ $m->{events} }) {
        next unless $ev->{rec};
        for my $k ('victim', 'victim2') {
            my $want = defined $ev->{$k} ? $m->{id}{ $ev->{$k} } // 'unknown' : '-';
            my $got = $ev->{rec}{f}{$k} // '-';
            $n++ if $want ne '-';
            fail "$ev->{proc} ", qs($ev->{path}), " (script line $ev->{line}): $k=$got, the map's ID is $want"
                unless $got eq $want;
        }
    }
    note "$n victim IDs checked";
};

# The path of ID id at time t through the map: the entry alive then, and
# its parent's path at t. undef when none.
sub path_at {
    my ($map, $id, $t, $depth) = @_;
    return undef if ($depth // 0) > 64;
    my @alive = grep { $_->{id} eq $id && $_->{create} <= $t && (!defined $_->{del} || $_->{del} > $t) } @{ $map->{entries} };
    return undef unless @alive;
    my $e = $alive[0];
    return '.' if $e->{path} eq '.';
    my $pp = path_at($map, $e->{parent}, $t, ($depth // 0) + 1);
    return undef unless defined $pp;
    my $name = basename($e->{path});
    return $pp eq '.' ? $name : "$pp/$name";
}

$AREA{paths} = sub {
    my ($m, $map, $recs) = @_;
    my ($n, $moved) = (0, 0);
    my @times = map { $_->{t} // 0 } @{ $m->{events} };
    for my $r (grep { $_->{proc} eq 'lookup' && $_->{status} eq '0' } @$recs) {
        my ($dir, $name, $got) = @{ $r->{f} }{qw(dir name newobj)};
        next if $name eq '.' || $name eq '..';
        my $k = grep { $_ <= $r->{t} } @times;    # events before this call
        my $snap = $m->{snap}[$k];
        my $dp = path_at($map, $dir, $r->{t});
        my $w = "lookup of " . qs($name) . " in ID $dir at $r->{ts}";
        if (!defined $dp) { fail "$w: the map has no path for ID $dir then"; next }
        my $p = $dp eq '.' ? $name : "$dp/$name";
        my $o = $snap->{$p};
        if (!defined $o) { fail "$w: the map says ", qs($p), ", which the tree did not have then"; next }
        my $want = $m->{id}{$o} // 'none';
        fail "$w: ", qs($p), " is ID $want in the map, the lookup found $got" unless $want eq $got;
        $n++;
        $moved++ if $k > 0 && !exists $m->{snap}[0]{$p};
    }
    note "$n lookups resolved, $moved of them to paths the tree did not have at the start";
    fail "no lookup resolved" unless $n;
};

$AREA{explained} = sub {
    my ($m, $map) = @_;
    for my $me (@{ $map->{entries} }) {
        fail "line $me->{line}: ", qs($me->{path}), " created $me->{cs} is not a name of the tree or of the script"
            unless $me->{model};
    }
};

sub check {
    my ($area, $truthf, $script, $mapf, $dumpf) = @_;
    my $code = $AREA{$area} or die "unknown area '$area' (" . join(' ', sort keys %AREA) . ")\n";
    my $m = model(read_truth($truthf), $script);
    my $recs = read_dump($dumpf);
    my @missing = match_events($m, $recs);
    my $map = read_map($mapf);
    my @bad = bind_map($m, $map);
    fail "no record for script line $_->{line} ($_->{proc} ", qs($_->{name}), ")" for @missing;
    $code->($m, $map, $area eq 'ids' ? @bad : $recs);
    print "  $area: $_\n" for @note;
    print "  $area: FAIL $_\n" for @fail;
    return @fail ? 1 : 0;
}

my $cmd = shift // '';
if ($cmd eq 'build' && @ARGV == 2) {
    build(@ARGV);
    exit 0;
}
if ($cmd eq 'check' && @ARGV == 5) {
    my $rc = eval { check(@ARGV) };
    if (!defined $rc) { print STDERR "map_tree.pl: $@"; exit 2 }
    exit $rc;
}
print STDERR "usage: map_tree.pl build EXPORT TRUTH | check AREA TRUTH SCRIPT MAP DUMP\n";
exit 2;
