#!/usr/bin/perl
# anonymize.t -- what users of scripts/tbbt-anonymize rely on: every name,
# uid, gid and client address replaced, the same way in the records and
# in the hierarchy map and never two into one; lengths and extensions kept
# when asked; the key decides (another key, other names; the same key, the
# same output); no original name left; the anonymised trace preps (passes
# 2 and 3) to the same procedures and to exactly the anonymised map; bad
# input fails with one line naming FILE:LINE and leaves no output.
#
# Fixtures: tests/data/xform2-*.txt and .hmap (tests/data/README.md).
use strict;
use warnings;
use Test::More;
use File::Basename qw(dirname);
use File::Temp qw(tempdir);
use Cwd qw(abs_path);

my $src   = $ENV{TBBT_SRC} // abs_path(dirname(__FILE__) . '/../..');
my $build = $ENV{TBBT_BUILD} // "$src/build";
my $tool  = "$src/scripts/tbbt-anonymize";
my $prep  = "$build/transform/tbbt-prep";
my $dump  = "$build/tools/tbbt-dump";
my $tmp   = tempdir(CLEANUP => 1);
my %fix   = map { $_ => "$src/tests/data/xform2-$_" } qw(2sessions suricata);

# run(SHELL-ARGS): runs the tool (60 s limit); returns (exit code, stdout,
# stderr).
sub run {
    my ($args) = @_;
    my $out = `TBBT_BUILD='$build' timeout 60 perl '$tool' $args 2>'$tmp/err'`;
    my $rc  = $? & 127 ? 128 + ($? & 127) : $? >> 8;
    return ($rc, $out, slurp("$tmp/err"));
}

# slurp(PATH): the file's content ('' when missing).
sub slurp {
    open(my $fh, '<:raw', $_[0]) or return '';
    local $/;
    return <$fh> // '';
}

# lines(PATH): the file's lines without comments, chomped.
sub lines { return grep { !/^#/ } split /\n/, slurp($_[0]) }

# unq(QUOTED): the bytes of a quoted string of the text form (\" \\ \xHH).
sub unq {
    my ($q) = @_;
    $q =~ s/^"(.*)"\z/$1/s or die "not quoted: $q";
    $q =~ s/\\(x([0-9a-fA-F]{2})|.)/defined $2 ? chr hex $2 : $1/ge;
    return $q;
}

# rec_names(LINE): the name components a record line holds, in order:
# name, name2, each entry's name, each target component.
sub rec_names {
    my @n;
    for my $tok (split ' ', $_[0]) {
        if ($tok =~ /^(?:name|name2)=(".*")$/) { push @n, unq($1) }
        elsif ($tok =~ /^target=(".*")$/) { push @n, split m{/}, unq($1), -1 }
        elsif ($tok =~ /^entries=\[(.*)\]$/) {
            push @n, unq($1) while $tok =~ /\d+:\d+:\d+:\d+:\d+:("(?:[^"\\]|\\.)*")/g;
        }
    }
    return @n;
}

# map_names(LINE): the components of a map entry's path and target.
sub map_names {
    my @t = split ' ', $_[0];
    my @n = split m{/}, unq($t[10]);
    push @n, split m{/}, unq($t[11]), -1 if $t[11] ne '-';
    return @n;
}

# rec_ids(LINE): [kind, value] of every uid and gid a record holds.
sub rec_ids {
    my @t = split ' ', $_[0];
    my @ids;
    my (undef, $u, $g, $gs) = $t[9] =~ /^cred=(\d+):(\d+):(\d+)(?::(.*))?$/ or die "cred: $t[9]";
    push @ids, [uid => $u], [gid => $g], map { [gid => $_] } split /,/, $gs // '';
    for (@t[10 .. $#t]) { push @ids, [$2 // 'x', $3] if /^(set_)?(uid|gid)=(\d+)$/ }
    return map { [$_->[0], $_->[1]] } @ids;
}

# pairs(ORIG-LINES, ANON-LINES, EXTRACT): the (original, anonymised)
# pairs of the values EXTRACT finds in line i of each, checking that each
# line gives as many.
sub pairs {
    my ($orig, $anon, $ex) = @_;
    is(scalar @$anon, scalar @$orig, 'one line out per line in');
    my @p;
    for my $i (0 .. $#$orig) {
        my @a = $ex->($orig->[$i]);
        my @b = $ex->($anon->[$i] // '');
        if (@a != @b) { fail("line " . ($i + 1) . ": " . @a . " values in, " . @b . " out"); next }
        push @p, map { [$a[$_], $b[$_]] } 0 .. $#a;
    }
    return @p;
}

# bijective(NAME, PAIRS): checks that equal inputs gave equal outputs and
# different inputs different outputs; returns the mapping.
sub bijective {
    my ($what, @p) = @_;
    my (%f, %g, @bad);
    for (@p) {
        my ($a, $b) = @$_;
        push @bad, "$a -> $f{$a} and $b" if exists $f{$a} && $f{$a} ne $b;
        push @bad, "$g{$b} and $a -> $b" if exists $g{$b} && $g{$b} ne $a;
        $f{$a} = $b;
        $g{$b} = $a;
    }
    ok(!@bad, "$what: one output per input, one input per output") or diag join "\n", @bad[0 .. ($#bad > 9 ? 9 : $#bad)];
    return \%f;
}

# anonymize(FIXTURE, TAG, OPTIONS): runs on the fixture's trace and map;
# returns (trace lines, map lines) of the result.
sub anonymize {
    my ($f, $tag, $opts) = @_;
    my ($rc, $out, $err) = run("$opts --map '$fix{$f}.hmap' --map-out '$tmp/$tag.hmap' -o '$tmp/$tag.txt' '$fix{$f}.txt'");
    is($rc, 0, "$f $opts: exit 0") or diag $err;
    return ([lines("$tmp/$tag.txt")], [lines("$tmp/$tag.hmap")]);
}

# proc_counts(TBBT): "proc status" => count of a record file.
sub proc_counts {
    my %c;
    $c{"$_->[6] $_->[7]"}++ for map { [split ' '] } split /\n/, `'$dump' '$_[0]'`;
    return \%c;
}

plan skip_all => "build first: $prep" unless -x $prep && -x $dump;

subtest 'usage' => sub {
    my ($rc, $out) = run('--help');
    is($rc, 0, '--help: exit 0');
    like($out, qr/--keep-length/, '--help shows the options');
    ($rc, $out) = run("'$fix{suricata}.txt'");
    is($rc, 2, 'no key: exit 2');
    is($out, '', 'no key: nothing written');
    ($rc) = run("--key-string k --no-such '$fix{suricata}.txt'");
    is($rc, 2, 'unknown option: exit 2');
    ($rc) = run("--key '$tmp/missing-key' '$fix{suricata}.txt'");
    is($rc, 1, 'unreadable key file: exit 1');
    ($rc, $out) = run("--key-string k --map '$fix{suricata}.hmap' --map-out - '$fix{suricata}.txt'");
    is($rc, 2, 'the map and the records both on stdout: exit 2');
    is($out, '', 'both on stdout: nothing written');
};

for my $f (sort keys %fix) {
    my @otr = lines("$fix{$f}.txt");
    my @omap = lines("$fix{$f}.hmap");
    for my $mode ('', '--keep-length', '--keep-ext', '--keep-length --keep-ext') {
        subtest "$f, key A $mode: names" => sub {
            my ($tr, $map) = anonymize($f, 'a', "--key-string A $mode");
            my @p = (pairs(\@otr, $tr, \&rec_names), pairs(\@omap, $map, \&map_names));
            ok(@p > 20, scalar(@p) . ' names compared');
            my $m = bijective('names in the trace and the map together', @p);
            my @changed = grep { $_ ne '.' && $_ ne '..' && $_ ne '' && !/^tbbt-subtree-\d+$/ } keys %$m;
            is_deeply([grep { $m->{$_} eq $_ } @changed], [], 'every name is changed');
            is_deeply([grep { $m->{$_} ne $_ } '.', '..'], [], '. and .. kept');
            if ($mode =~ /keep-length/) {
                is_deeply([grep { length $m->{$_} != length $_ } keys %$m], [], 'lengths kept');
            }
            if ($mode =~ /keep-ext/) {
                my @ext = grep { /^[^.]+.*(\.[A-Za-z0-9]{1,8})\z/ } keys %$m;
                ok(@ext >= ($f eq '2sessions' ? 3 : 0), scalar(@ext) . ' names with an extension');
                is_deeply([grep { my ($e) = /(\.[A-Za-z0-9]{1,8})\z/; substr($m->{$_}, -length $e) ne $e } @ext],
                    [], 'extensions kept');
            }
            # No original name (3 bytes or more) survives in any quoted string
            # of the output; with --keep-ext, as a whole component.
            my @orig = grep { length >= 3 && !/^tbbt-subtree-\d+$/ } keys %$m;
            my @strs = map { /"((?:[^"\\]|\\.)*)"/g } @$tr, @$map;
            my @left;
            for my $n (@orig) {
                if ($mode =~ /keep-ext/) { push @left, $n if grep { m{(?:^|/)\Q$n\E(?:/|$)} } @strs }
                else                     { push @left, $n if grep { index($_, $n) >= 0 } @strs }
            }
            is_deeply(\@left, [], scalar(@orig) . ' original names of 3 bytes or more: none left in the output');
        };
    }

    subtest "$f: the key decides" => sub {
        my ($ta, $ma) = anonymize($f, 'a', '--key-string A');
        my ($ta2, $ma2) = anonymize($f, 'a2', '--key-string A');
        is_deeply([$ta2, $ma2], [$ta, $ma], 'the same key twice: the same output');
        open(my $kf, '>', "$tmp/key") or die;
        print $kf "A\n";
        close $kf;
        my ($tk, $mk) = anonymize($f, 'ak', "--key '$tmp/key'");
        is_deeply([$tk, $mk], [$ta, $ma], '--key FILE (trailing newline dropped) = --key-string');
        my ($tb, $mb) = anonymize($f, 'b', '--key-string B');
        my $na = bijective('key A', pairs(\@otr, $ta, \&rec_names), pairs(\@omap, $ma, \&map_names));
        my $nb = bijective('key B', pairs(\@otr, $tb, \&rec_names), pairs(\@omap, $mb, \&map_names));
        my @long = grep { length >= 3 && $na->{$_} ne $_ } keys %$na;
        ok(@long, scalar(@long) . ' hashed names of 3 bytes or more');
        is_deeply([grep { $na->{$_} eq $nb->{$_} } @long], [], 'key B: every one of them different');
    };

    subtest "$f: uids, gids, clients" => sub {
        my ($tr, $map) = anonymize($f, 'a', '--key-string A');
        my @ids = pairs(\@otr, $tr, sub { map { "$_->[0] $_->[1]" } rec_ids($_[0]) });
        push @ids, pairs(\@omap, $map, sub { my @t = split ' ', $_[0]; map { $t[$_] eq '-' ? () : ($_ == 7 ? 'uid' : 'gid') . " $t[$_]" } 7, 8 });
        my $m = bijective('uids and gids in the trace and the map', @ids);
        is($m->{'uid 0'} // 'uid 0', 'uid 0', 'uid 0 stays 0');
        my @moved = grep { !/ 0$/ } keys %$m;
        ok(@moved, scalar(@moved) . ' non-root ids');
        is_deeply([grep { $m->{$_} eq $_ } @moved], [], 'every non-root id changed');
        my $c = bijective('client hosts', pairs(\@otr, $tr, sub { (split ' ', $_[0])[2] =~ /^(.*):\d+$/ ? $1 : () }));
        is_deeply([grep { $c->{$_} !~ /^10\.\d+\.\d+\.\d+$/ || $c->{$_} eq $_ } keys %$c], [], 'clients in 10.0.0.0/8, changed');
        my @ports = pairs(\@otr, $tr, sub { (split ' ', $_[0])[2] =~ /:(\d+)$/ ? $1 : () });
        is_deeply([grep { $_->[0] ne $_->[1] } @ports], [], 'client ports kept');
        my @srv = pairs(\@otr, $tr, sub { (split ' ', $_[0])[3] });
        is_deeply([grep { $_->[0] ne $_->[1] } @srv], [], 'server addresses kept');
        my ($tr0) = anonymize($f, 'r', '--key-string A --hash-root');
        my $m0 = bijective('--hash-root ids', pairs(\@otr, $tr0, sub { map { "$_->[0] $_->[1]" } rec_ids($_[0]) }));
        ok(!grep({ / 0$/ && $m0->{$_} eq $_ } keys %$m0), '--hash-root: 0 changed too');
    };

    subtest "$f: the anonymised trace preps the same, to the anonymised map" => sub {
        anonymize($f, 'p', '--key-string A --keep-length --keep-ext');
        is(system("'$prep' -q --format text '$fix{$f}.txt' -o '$tmp/orig.tbbt' >/dev/null"), 0, 'original: tbbt-prep exit 0');
        is(system("'$prep' -q --format text '$tmp/p.txt' -o '$tmp/anon.tbbt' >/dev/null"), 0, 'anonymised: tbbt-prep exit 0');
        is_deeply(proc_counts("$tmp/anon.tbbt"), proc_counts("$tmp/orig.tbbt"), 'the same records per procedure and status');
        is_deeply([sort(lines("$tmp/anon.hmap"))], [sort(lines("$tmp/p.hmap"))],
            'pass 3 on the anonymised trace makes exactly the anonymised map');
    };
}

subtest 'bad input: exit 1, FILE:LINE, no output left' => sub {
    my @l = split /\n/, slurp("$fix{suricata}.txt");
    for my $case (['name="a\q"', 'bad quoted'], ['cred=1:x:0', 'cred'], ['entries=[1:2:3', 'entries']) {
        my @b = @l;
        my ($k) = $case->[0] =~ /^(\w+)=/;
        my ($i) = grep { $b[$_] =~ /\s\Q$k\E=/ } 0 .. $#b;
        $b[$i] =~ s/\s\Q$k\E=\S+/ $case->[0]/;
        open(my $fh, '>', "$tmp/bad.txt") or die;
        print $fh join("\n", @b), "\n";
        close $fh;
        my ($rc, $out, $err) = run("--key-string A -o '$tmp/badout.txt' '$tmp/bad.txt'");
        is($rc, 1, "$case->[1]: exit 1");
        like($err, qr/^tbbt-anonymize: \Q$tmp\E\/bad\.txt:${\($i + 1)}: [^\n]+\n\z/, "$case->[1]: one line naming FILE:" . ($i + 1));
        ok(!-e "$tmp/badout.txt", "$case->[1]: no output file");
    }
    open(my $fh, '>', "$tmp/bad.hmap") or die;
    print $fh "# tbbt-hmap 1\n1 0 0 - dir 4096 0755 0 0 r \".\" -\n2 1 0 - reg 1 0644 0 0 t notquoted -\n# end 2\n";
    close $fh;
    my ($rc, $out, $err) = run("--key-string A --map '$tmp/bad.hmap' --map-out '$tmp/bo.hmap'");
    is($rc, 1, 'bad map entry: exit 1');
    like($err, qr/^tbbt-anonymize: \Q$tmp\E\/bad\.hmap:3: /, 'names the map line');
    ok(!-e "$tmp/bo.hmap", 'no map written');
};

subtest 'a directory of one-byte names: all different, or a failure' => sub {
    # A real lookup record, repeated with names made of every letter and
    # digit (62), then one more one-byte name: --keep-length has 62
    # one-byte names to give.
    my ($lk) = grep { / lookup / && /name="/ } split /\n/, slurp("$fix{suricata}.txt");
    my @names = ('a' .. 'z', 'A' .. 'Z', '0' .. '9');
    my $write = sub {
        open(my $fh, '>', "$tmp/one.txt") or die;
        for my $n (@_) { (my $l = $lk) =~ s/name="[^"]*"/name="$n"/; print $fh "$l\n" }
        close $fh;
    };
    $write->(@names);
    my ($rc, $out, $err) = run("--key-string A --keep-length -o '$tmp/one-out.txt' '$tmp/one.txt'");
    is($rc, 0, '62 one-byte names: exit 0') or diag $err;
    my @got = map { /name="([^"]*)"/ ? $1 : '?' } lines("$tmp/one-out.txt");
    my %seen = map { $_ => 1 } @got;
    is(scalar keys %seen, 62, '62 different names out');
    is_deeply([grep { length != 1 } @got], [], 'each one byte');
    $write->(@names, '_');
    ($rc, $out, $err) = run("--key-string A --keep-length -o '$tmp/one-out.txt' '$tmp/one.txt'");
    is($rc, 1, '63 one-byte names: exit 1');
    like($err, qr/^tbbt-anonymize: [^\n]*\n\z/, 'one line');
};

subtest 'a name the snaplen cut: what the capture kept of it is emptied, its length stays' => sub {
    open(my $fh, '>', "$tmp/cut.txt") or die;
    print $fh "1.000000000 1.000100000 10.0.0.5:801 10.0.0.1:2049 0x00000003 v3 remove 0 TCK cred=1:0:0 dir=2 "
        . "cutname=\"1764174001.M880768P302\" cutlen=98\n";
    close $fh;
    my ($rc, $out, $err) = run("--key-string A -o '$tmp/cut-out.txt' '$tmp/cut.txt'");
    is($rc, 0, 'exit 0') or diag $err;
    my ($l) = lines("$tmp/cut-out.txt");
    like($l, qr/ cutname="" cutlen=98$/, 'cutname emptied, cutlen kept');
    unlike($l, qr/1764174001/, 'nothing of the name left');
};

done_testing();
