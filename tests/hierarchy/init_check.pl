#!/usr/bin/perl
# tests/hierarchy/init_check.pl -- the known map of init_ganesha.sh and the
# checks of what tbbt-init built from it, read from the local file system
# (never through NFS).
#
#   init_check.pl map OUT.hmap
#       writes a hierarchy map (lib/hmap.h's format) of a known shape: the
#       root "." (origin r, parent 0, 0775 1000:100), 18 directories on two levels and an
#       empty one, ~230 regular files of 0 B..1 MiB (mostly 4 KiB..1 MiB,
#       sizes not all block multiples, ~48 MiB in all), symbolic links, a
#       hard link pair (two entries, one ID), a name with a space and a
#       quote, modes 0600/0640/0644/0700/0750/0755 and owners 0:0,
#       1000:100, 1001:1001; plus entries the trace makes later (create not
#       0: tbbt-init must not make them) and one it removes later (create 0,
#       delete set: it must be made). Prints "files N bytes B".
#   init_check.pl tree MAP ROOT
#       every entry of MAP with create 0 exists under ROOT (lstat) with its
#       type, size (regular files), permission bits (not for symbolic
#       links, whose mode Linux fixes), uid and gid, symlink target; the
#       entries of one ID are one inode, of different IDs different ones.
#       The root "." is checked for its type only ("root" checks the rest).
#   init_check.pl root MAP ROOT
#       ROOT (the clone's root) has the mode, uid and gid of the map's ".".
#   init_check.pl exact MAP ROOT
#       ROOT holds nothing but the map's initial paths (no entry made later
#       in the trace, nothing else).
#   init_check.pl manifest MAP MANIFEST CLONES
#       "# tbbt-manifest 1" first; per clone one line per initial ID, under
#       the ID's first path ("." for the root), with a non-empty lower-case
#       hex handle, distinct handles within a clone; a "# clones CLONES"
#       header; "# end N" last, N the entry lines.
#   init_check.pl snap ROOT [--times]
#       prints one line per object below ROOT, sorted: relative path, type,
#       size, permission bits, uid, gid, link count, symlink target or the
#       content's MD5 (regular files); with --times the mtime and ctime too.
#   init_check.pl json FILE EXPR
#       prints EXPR evaluated with $j the decoded JSON of FILE ("null" for
#       undef).
# tree/exact/manifest exit 0 when the check holds, 1 when not (the first
# reasons on stdout), 2 on bad input.
use strict;
use warnings;
use Digest::MD5;
use Fcntl ':mode';
use File::Find;

# ---- the map's text form -------------------------------------------------

# The quoted form of lib/rectext.c: \" \\ and \xHH for bytes outside
# 0x21..0x7e (so no token holds a space).
sub quo {
    my ($s) = @_;
    my $o = '';
    for my $c (split //, $s) {
        my $n = ord $c;
        if    ($c eq '"' || $c eq '\\') { $o .= "\\$c" }
        elsif ($n > 0x20 && $n < 0x7f)  { $o .= $c }
        else                            { $o .= sprintf '\\x%02x', $n }
    }
    return "\"$o\"";
}

# The reverse.
sub unq {
    my ($s) = @_;
    $s =~ /^"(.*)"$/s or die "not a quoted string: $s\n";
    $s = $1;
    $s =~ s/\\(x([0-9a-fA-F]{2})|.)/defined $2 ? chr(hex $2) : $1/ge;
    return $s;
}

# A small deterministic generator (the map must not depend on perl's rand).
my $rng = 12345;
sub rnd {
    $rng = ($rng * 1103515245 + 12345) % 2147483648;
    return $rng / 2147483648;
}

# ---- map ------------------------------------------------------------------

sub cmd_map {
    my ($out) = @_;
    my @lines;
    my $id = 1;
    my ($files, $bytes) = (0, 0);
    my @owners = ([ 1000, 100 ], [ 0, 0 ], [ 1001, 1001 ]);
    my @fmodes = (0644, 0600, 0640, 0755);
    my @dmodes = (0755, 0750, 0700);
    # line: id parent create delete type size mode uid gid origin path target
    my $add = sub {
        my ($i, $parent, $create, $del, $type, $size, $mode, $uid, $gid, $origin, $path, $target) = @_;
        push @lines, join ' ', $i, $parent, $create, $del, $type, $size,
            (defined $mode ? sprintf('%04o', $mode) : '-'), $uid, $gid, $origin, quo($path),
            (defined $target ? quo($target) : '-');
    };
    $add->($id++, 0, 0, '-', 'dir', 4096, 0775, 1000, 100, 'r', '.', undef);
    my $root = 1;
    my %dirid;
    my $fileno = 0;
    my $hard;    # [id, size, mode, uid, gid]
    for my $d (0 .. 5) {
        my $top = "d$d";
        my $o = $owners[ $d % 3 ];
        my $tid = $id++;
        $add->($tid, $root, 0, '-', 'dir', 4096, $dmodes[ $d % 3 ], @$o, 't', $top, undef);
        for my $s (-1 .. 1) {    # -1: the top directory's own files
            my ($dir, $did) = ($top, $tid);
            if ($s >= 0) {
                $dir = "$top/s$s";
                $did = $id++;
                my $so = $owners[ ($d + $s + 1) % 3 ];
                $add->($did, $tid, 0, '-', 'dir', 4096, $dmodes[ ($d + $s) % 3 ], @$so, 't', $dir, undef);
            }
            $dirid{$dir} = $did;
            for my $k (1 .. 13) {
                # log-uniform 4 KiB .. 1 MiB, one in four not a block multiple
                my $size = int(4096 * 2**(8 * rnd()));
                $size = int($size / 4096) * 4096 || 4096 if rnd() < 0.75;
                my $fo = $owners[ ($fileno + $d) % 3 ];
                my $mode = $fmodes[ $fileno % 4 ];
                $add->($id++, $did, 0, '-', 'reg', $size, $mode, @$fo, 't', sprintf('%s/f%03d', $dir, $fileno),
                    undef);
                $fileno++;
                $files++;
                $bytes += $size;
            }
            if ($d == 0 && $s == -1) {    # the first name of a hard link pair
                $hard = [ $id++, 123457, 0640, 1000, 100 ];
                $add->($hard->[0], $did, 0, '-', 'reg', @$hard[ 1 .. 4 ], 't', "$dir/hl", undef);
                $files++;
                $bytes += $hard->[1];
            }
            if ($d == 3 && $s == 1) {     # its second name
                $add->($hard->[0], $did, 0, '-', 'reg', @$hard[ 1 .. 4 ], 't', "$dir/hl2", undef);
            }
            if ($d == 2 && $s == 0) {     # odd names, an empty file, a one-byte one
                $add->($id++, $did, 0, '-', 'reg', 5000, 0644, 1000, 100, 't', "$dir/my \"odd\" file", undef);
                $add->($id++, $did, 0, '-', 'reg', 0,    0600, 1001, 1001, 't', "$dir/empty.dat", undef);
                $add->($id++, $did, 0, '-', 'reg', 1,    0644, 0, 0, 't', "$dir/one", undef);
                $files += 3;
                $bytes += 5001;
            }
            if ($d == 1 && $s == 0) {     # symbolic links: absolute, and to an odd name
                $add->($id++, $did, 0, '-', 'lnk', 11, 0777, 0, 0, 't', "$dir/abs", '/etc/passwd');
            }
            if ($d == 3 && $s == -1) {
                my $t = '../d2/s0/my "odd" file';
                $add->($id++, $did, 0, '-', 'lnk', length $t, 0777, 1001, 1001, 't', "$dir/up", $t);
            }
            if ($d == 4 && $s == -1) {    # removed by the trace later: made all the same
                $add->($id++, $did, 0, '1795266445.500000000', 'reg', 70000, 0644, 1000, 100, 't',
                    "$dir/doomed", undef);
                $files++;
                $bytes += 70000;
            }
        }
    }
    # a few very large ones, so the image is ~48 MiB
    for my $k (0 .. 9) {
        my $dir = "d5/s1";
        $add->($id++, $dirid{$dir}, 0, '-', 'reg', 1048576 + 4096 * $k, 0644, 1000, 100, 't',
            sprintf('%s/big%d', $dir, $k), undef);
        $files++;
        $bytes += 1048576 + 4096 * $k;
    }
    $add->($id++, $root, 0, '-', 'dir', 4096, 0755, 1000, 100, 't', 'emptydir', undef);
    $add->($id++, $root, 0, '-', 'lnk', 13, 0777, 1000, 100, 't', 'toplink', 'd0/s0/f014');
    # made by the trace later (must not exist after tbbt-init)
    $add->($id++, $dirid{'d1'}, '1795266445.100000000', '-', 'reg', 0, 0644, 0, 0, 't', 'd1/later.dat', undef);
    my $nd = $id++;
    $add->($nd, $root, '1795266445.200000000', '-', 'dir', 4096, 0755, 0, 0, 't', 'newdir', undef);
    $add->($id++, $nd, '1795266445.300000000', '-', 'reg', 0, 0644, 0, 0, 't', 'newdir/x', undef);
    open my $fh, '>', $out or die "$out: $!\n";
    print $fh "# tbbt-hmap 1\n# source init_check.pl (a known map for init_ganesha.sh)\n";
    print $fh "$_\n" for @lines;
    print $fh '# end ', scalar(@lines), "\n";
    close $fh or die "$out: $!\n";
    print "files $files bytes $bytes\n";
    return 0;
}

# Reads MAP: list of {id parent create del type size mode uid gid origin path target}.
sub read_map {
    my ($file) = @_;
    open my $fh, '<', $file or die "$file: $!\n";
    my (@e, $end);
    while (<$fh>) {
        chomp;
        if (/^# end (\d+)$/) { $end = $1; next }
        next if /^#/;
        my @c = split ' ';
        @c == 12 or die "$file:$.: expected 12 columns\n";
        my %x;
        @x{qw(id parent create del type size mode uid gid origin path target)} = @c;
        $x{path}   = unq($x{path});
        $x{target} = $x{target} eq '-' ? undef : unq($x{target});
        push @e, \%x;
    }
    defined $end && $end == @e or die "$file: no matching end line\n";
    return @e;
}

# The type of an lstat mode, in the map's names.
sub type_of {
    my ($m) = @_;
    return S_ISREG($m) ? 'reg' : S_ISDIR($m) ? 'dir' : S_ISLNK($m) ? 'lnk' : S_ISBLK($m) ? 'blk'
        : S_ISCHR($m) ? 'chr' : S_ISSOCK($m) ? 'sock' : S_ISFIFO($m) ? 'fifo' : '?';
}

# Collects reasons; prints the first 15 and returns the exit status.
my @why;
sub bad { push @why, join '', @_ }
sub verdict {
    print "  $_\n" for @why[ 0 .. ($#why < 14 ? $#why : 14) ];
    print "  ... and ", @why - 15, " more\n" if @why > 15;
    return @why ? 1 : 0;
}

# ---- tree -----------------------------------------------------------------

sub cmd_tree {
    my ($map, $root, $with_root) = @_;
    my %ino_of_id;
    my %id_of_ino;
    my $n = 0;
    for my $e (read_map($map)) {
        next if $e->{create} ne '0';
        $n++;
        my $p = $e->{path} eq '.' ? $root : "$root/$e->{path}";
        my @st = lstat $p;
        unless (@st) { bad("$e->{path}: missing ($!)"); next }
        my $t = type_of($st[2]);
        if ($t ne $e->{type}) { bad("$e->{path}: type $t, map $e->{type}"); next }
        bad("$e->{path}: size $st[7], map $e->{size}") if $t eq 'reg' && $st[7] != $e->{size};
        next if $e->{path} eq '.' && !$with_root;    # the clone's root: see 'root'
        bad(sprintf '%s: mode %04o, map %s', $e->{path}, $st[2] & 07777, $e->{mode})
            if $t ne 'lnk' && $e->{mode} ne '-' && ($st[2] & 07777) != oct $e->{mode};
        bad("$e->{path}: uid $st[4], map $e->{uid}") if $e->{uid} ne '-' && $st[4] != $e->{uid};
        bad("$e->{path}: gid $st[5], map $e->{gid}") if $e->{gid} ne '-' && $st[5] != $e->{gid};
        if ($t eq 'lnk') {
            my $l = readlink $p;
            bad("$e->{path}: target '", $l // "(none)", "', map '$e->{target}'")
                if !defined $l || $l ne ($e->{target} // '');
        }
        my $ino = "$st[0]:$st[1]";
        if (exists $ino_of_id{ $e->{id} }) {
            bad("$e->{path}: not the same inode as the other name of ID $e->{id}") if $ino_of_id{ $e->{id} } ne $ino;
        } elsif (exists $id_of_ino{$ino}) {
            bad("$e->{path}: the same inode as ID $id_of_ino{$ino}, map ID $e->{id}");
        }
        $ino_of_id{ $e->{id} } = $ino;
        $id_of_ino{$ino} //= $e->{id};
    }
    bad("the map has no initial entry") unless $n;
    return verdict();
}

# ---- root -----------------------------------------------------------------

# The clone's root against the map's "." entry: mode, uid, gid.
sub cmd_root {
    my ($map, $root) = @_;
    my ($e) = grep { $_->{path} eq '.' && $_->{create} eq '0' } read_map($map);
    bad("the map has no root entry") unless $e;
    my @st = lstat $root or do { bad("$root: $!"); return verdict() };
    if ($e) {
        bad(sprintf 'mode %04o, map %s', $st[2] & 07777, $e->{mode}) if ($st[2] & 07777) != oct $e->{mode};
        bad("uid $st[4], map $e->{uid}") if $st[4] != $e->{uid};
        bad("gid $st[5], map $e->{gid}") if $st[5] != $e->{gid};
    }
    return verdict();
}

# ---- exact ----------------------------------------------------------------

sub cmd_exact {
    my ($map, $root) = @_;
    my %want;
    $want{ $_->{path} } = 1 for grep { $_->{create} eq '0' } read_map($map);
    my %seen;
    find({ no_chdir => 1, wanted => sub {
        (my $rel = $File::Find::name) =~ s{^\Q$root\E/?}{};
        $rel = '.' if $rel eq '';
        $seen{$rel} = 1;
        bad("$rel: not an initial path of the map") unless $want{$rel};
    } }, $root);
    $seen{$_} or bad("$_: missing") for sort keys %want;
    return verdict();
}

# ---- manifest -------------------------------------------------------------

sub cmd_manifest {
    my ($map, $mf, $clones) = @_;
    my (%first, @ids);
    for my $e (grep { $_->{create} eq '0' } read_map($map)) {
        next if exists $first{ $e->{id} };
        $first{ $e->{id} } = $e->{path};
        push @ids, $e->{id};
    }
    open my $fh, '<', $mf or die "$mf: $!\n";
    my $head = <$fh>;
    bad("first line is not '# tbbt-manifest 1'") unless defined $head && $head eq "# tbbt-manifest 1\n";
    my ($lines, $end, $hclones, %got, %fhs) = (0);
    while (<$fh>) {
        chomp;
        if (defined $end) { bad("line $.: after the end line"); next }
        if (/^# end (\d+)$/) { $end = $1; next }
        if (/^# clones (\S+)$/) { bad("header says clones $1, expected $clones") if $1 ne $clones; $hclones = 1 }
        next if /^# /;
        $lines++;
        my ($c, $id, $h, $p) = /^(\d+) (\d+) (\S*) (".*")$/ or do { bad("line $.: not CLONE ID FH PATH"); next };
        $p = unq($p);
        bad("line $.: handle '$h' is not non-empty lower-case hex") unless $h =~ /^(?:[0-9a-f]{2})+$/;
        bad("line $.: clone $c out of 0..", $clones - 1) if $c >= $clones;
        unless (exists $first{$id}) { bad("line $.: ID $id is not an initial ID of the map"); next }
        bad("line $.: ID $id under '$p', map's first path '$first{$id}'") if $p ne $first{$id};
        bad("line $.: clone $c ID $id twice") if $got{"$c $id"}++;
        bad("line $.: clone $c: handle shared by IDs $fhs{\"$c $h\"} and $id") if exists $fhs{"$c $h"};
        $fhs{"$c $h"} = $id;
    }
    bad("no '# end N' line") unless defined $end;
    bad("no '# clones N' header") unless $hclones;
    bad("end line says $end, $lines entry lines") if defined $end && $end != $lines;
    for my $c (0 .. $clones - 1) {
        $got{"$c $_"} or bad("clone $c: ID $_ ($first{$_}) missing") for @ids;
    }
    return verdict();
}

# ---- snap -----------------------------------------------------------------

sub md5_of {
    my ($p) = @_;
    open my $fh, '<:raw', $p or return "unreadable($!)";
    return Digest::MD5->new->addfile($fh)->hexdigest;
}

sub cmd_snap {
    my ($root, $times) = @_;
    my @out;
    find({ no_chdir => 1, wanted => sub {
        my $p = $File::Find::name;
        (my $rel = $p) =~ s{^\Q$root\E/?}{};
        $rel = '.' if $rel eq '';
        my @st = lstat $p or return;
        my $t = type_of($st[2]);
        my $what = $t eq 'lnk' ? 'target=' . readlink($p) : $t eq 'reg' ? 'md5=' . md5_of($p) : '';
        my $line = sprintf '%s %s %d %04o %d %d %d %s', quo($rel), $t, $t eq 'dir' ? 0 : $st[7],
            $st[2] & 07777, $st[4], $st[5], $t eq 'dir' ? 0 : $st[3], $what;
        $line .= " mtime=$st[9] ctime=$st[10]" if $times;
        push @out, $line;
    } }, $root);
    print "$_\n" for sort @out;
    return 0;
}

# ---- json -----------------------------------------------------------------

sub cmd_json {
    my ($file, $expr) = @_;
    require JSON::PP;
    open my $fh, '<', $file or die "$file: $!\n";
    local $/;
    my $j = JSON::PP::decode_json(<$fh>);
    my $v = eval $expr;
    die $@ if $@;
    print defined $v ? $v : 'null', "\n";
    return 0;
}

my $cmd = shift // '';
my %cmds = (map => [ \&cmd_map, 1 ], tree => [ \&cmd_tree, 2 ], root => [ \&cmd_root, 2 ], exact => [ \&cmd_exact, 2 ],
    manifest => [ \&cmd_manifest, 3 ], snap => [ \&cmd_snap, 1 ], json => [ \&cmd_json, 2 ]);
unless ($cmds{$cmd} && @ARGV >= $cmds{$cmd}[1]) {
    print STDERR "usage: init_check.pl map|tree|root|exact|manifest|snap|json ARGS (see the top comment)\n";
    exit 2;
}
my $rc = eval { $cmds{$cmd}[0]->(@ARGV) };
if ($@) { print STDERR "init_check.pl: $@"; exit 2 }
exit $rc;
