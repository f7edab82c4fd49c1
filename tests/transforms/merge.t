#!/usr/bin/perl
# merge.t -- scripts/tbbt-merge: a real trace split in two by call time
# (awk) merges back byte for byte, in either argument order and to .tbbt;
# interleaved inputs come out as one sorted timeline holding every line; a
# call seen in two inputs within --dup-window is kept once and counted,
# in one input never dropped; unsorted and bad input fail with FILE:LINE
# and leave no output; --help and usage errors; a shared capture.
use strict;
use warnings;
use Test::More;
use File::Basename qw(dirname);
use File::Temp qw(tempdir);
use Cwd qw(abs_path);

my $src     = $ENV{TBBT_SRC} // abs_path(dirname(__FILE__) . '/../..');
my $build   = $ENV{TBBT_BUILD} // "$src/build";
my $tool    = "$src/scripts/tbbt-merge";
my $dump    = "$build/tools/tbbt-dump";
my $tmp     = tempdir(CLEANUP => 1);
my $ganesha = "$src/tests/data/xform-ganesha.txt";
my $nfstr   = "$src/tests/data/xform-nfstrace.txt";

# run(SHELL-ARGS): runs the tool (60 s limit); returns (exit code, stdout,
# stderr).
sub run {
    my ($args) = @_;
    my $out = `TBBT_BUILD='$build' timeout 60 perl '$tool' $args 2>'$tmp/err'`;
    my $rc  = $? & 127 ? 128 + ($? & 127) : $? >> 8;
    my $err = do { open my $fh, '<', "$tmp/err" or die; local $/; <$fh> // '' };
    return ($rc, $out, $err);
}

# slurp(PATH): the file's bytes.
sub slurp {
    open my $fh, '<', $_[0] or die "$_[0]: $!";
    local $/;
    return <$fh>;
}

# put(NAME, LINES...): writes $tmp/NAME; returns its path.
sub put {
    my ($name, @lines) = @_;
    open my $fh, '>', "$tmp/$name" or die;
    print $fh @lines;
    close $fh;
    return "$tmp/$name";
}

# split_by_time(IN, A, B): awk writes IN's records called before the middle
# record's call time to A, the others to B (seconds and nanoseconds
# compared as integers). Returns the two line counts.
sub split_by_time {
    my ($in, $a, $b) = @_;
    my @ls = split /^/, slurp($in);
    my ($s, $n) = (split ' ', $ls[@ls / 2])[0] =~ /(\d+)\.(\d+)/;
    system(qq{awk -v S=$s -v N=$n '{ split(\$1, t, "."); if (t[1] + 0 < S || (t[1] + 0 == S && t[2] + 0 < N)) print > "$a"; else print > "$b" }' '$in'}) == 0
      or die 'awk failed';
    return (scalar(() = slurp($a) =~ /\n/g), scalar(() = slurp($b) =~ /\n/g));
}

# ns(LINE): a line's call time in nanoseconds.
sub ns {
    my ($s, $n) = (split ' ', $_[0])[0] =~ /\A(\d+)\.(\d{9})\z/ or die;
    return $s * 1_000_000_000 + $n;
}

subtest 'split in two by time, merged back: byte for byte' => sub {
    my ($na, $nb) = split_by_time($ganesha, "$tmp/a.txt", "$tmp/b.txt");
    ok($na > 50 && $nb > 50, "two real halves ($na, $nb lines)");
    my ($rc, $out, $err) = run("'$tmp/a.txt' '$tmp/b.txt'");
    is($rc, 0, 'exit 0');
    ok($out eq slurp($ganesha), 'a b: the original');
    like($err, qr/\b255 records from 2 inputs, 0 duplicate/, 'count line on stderr');
    ($rc, $out) = run("-q '$tmp/b.txt' - <'$tmp/a.txt'");
    ok($out eq slurp($ganesha), 'b, a on stdin: the original');
    ($rc, $out) = run("-q -o '$tmp/m.txt' '$tmp/b.txt' '$tmp/a.txt'");
    is($out, '', '-o: nothing on stdout');
    ok(slurp("$tmp/m.txt") eq slurp($ganesha), '-o: the original');
  SKIP: {
        skip "no $dump", 3 unless -x $dump;
        ($rc) = run("-q -o '$tmp/m.tbbt' '$tmp/b.txt' '$tmp/a.txt'");
        is($rc, 0, '-o .tbbt: exit 0');
        ok(`'$dump' '$tmp/m.tbbt'` eq slurp($ganesha), '.tbbt dumps as the original');
        system($dump, '--text-in', '-o', "$tmp/b.tbbt", "$tmp/b.txt") == 0 or die;
        ($rc, $out) = run("-q '$tmp/b.tbbt' '$tmp/a.txt'");
        ok($out eq slurp($ganesha), 'a .tbbt input reads as its text');
    }
};

subtest 'interleaved inputs: one sorted timeline of every line' => sub {
    my @ls = split /^/, slurp($ganesha);
    my $odd  = put('odd.txt',  @ls[grep { $_ % 2 == 0 } 0 .. $#ls]);
    my $even = put('even.txt', @ls[grep { $_ % 2 == 1 } 0 .. $#ls]);
    my ($rc, $out) = run("-q '$even' '$odd'");
    is($rc, 0, 'exit 0');
    my @got = split /^/, $out;
    is_deeply([sort @got], [sort @ls], 'every line once');
    ok(!grep({ ns($got[$_]) < ns($got[$_ - 1]) } 1 .. $#got), 'ordered by call time');
    my $t0 = ns($ls[0]);
    # A second trace (another capture, other client) shifted into the
    # first's time span: call and reply times moved by the same amount.
    my @nl    = split /^/, slurp($nfstr);
    my $shift = $t0 + 1000 - ns($nl[0]);
    my @other = map {
        my @c = split / /, $_;
        for my $k (0, 1) {
            next if $c[$k] eq '-';
            my ($s, $n) = $c[$k] =~ /\A(\d+)\.(\d{9})\z/ or die;
            my $t = $s * 1_000_000_000 + $n + $shift;
            $c[$k] = sprintf '%d.%09d', int($t / 1_000_000_000), $t % 1_000_000_000;
        }
        join ' ', @c;
    } @nl;
    my $o = put('other.txt', @other);
    ($rc, $out) = run("-q '$ganesha' '$o'");
    @got = split /^/, $out;
    is_deeply([sort @got], [sort @ls, @other], 'all lines of both, once');
    ok($out ne join('', @ls, @other) && $out ne join('', @other, @ls), 'interleaved, not concatenated');
    ok(!grep({ ns($got[$_]) < ns($got[$_ - 1]) } 1 .. $#got), 'ordered by call time');
};

subtest 'a call seen on two interfaces: kept once, counted' => sub {
    my @ls  = split /^/, slurp($ganesha);
    my $i   = 100;
    my @c   = split / /, $ls[$i];
    my ($s, $n) = $c[0] =~ /(\d+)\.(\d+)/;
    $c[0] = sprintf '%d.%09d', $s, $n + 200;    # 200 ns later on the other interface
    my $copy = put('copy.txt', join ' ', @c);
    my ($rc, $out, $err) = run("'$ganesha' '$copy'");
    is($rc, 0, 'exit 0');
    ok($out eq slurp($ganesha), 'the first kept, the copy dropped');
    like($err, qr/, 1 duplicate call/, 'counted');
    ($rc, $out) = run("-q '$copy' '$ganesha'");
    ok($out eq slurp($ganesha), 'the copy given first: still the earlier record kept');
    ($rc, $out, $err) = run("--dup-window 0.0000001 '$ganesha' '$copy'");
    is(scalar(() = $out =~ /\n/g), @ls + 1, 'outside a 100 ns window: both kept');
    like($err, qr/, 0 duplicate/, 'none counted');
    (my $other = join ' ', @c) =~ s/^(\S+ \S+ )127\.0\.0\.1:/${1}10.0.0.9:/ or die;
    ($rc, $out) = run("-q '$ganesha' '" . put('client.txt', $other) . "'");
    is(scalar(() = $out =~ /\n/g), @ls + 1, 'another client: kept');
    my $twice = put('twice.txt', @ls[0 .. $i], $ls[$i], @ls[$i + 1 .. $#ls]);
    ($rc, $out, $err) = run("'$twice'");
    ok($out eq slurp($twice), 'a repeat inside one input: never dropped');
};

subtest 'unsorted or bad input: exit 1, FILE:LINE, no output' => sub {
    my @ls = split /^/, slurp($ganesha);
    @ls[10, 11] = @ls[11, 10];
    my $bad = put('unsorted.txt', @ls);
    my ($rc, $out, $err) = run("-o '$tmp/u.txt' '$ganesha' '$bad'");
    is($rc, 1, 'exit 1');
    like($err, qr/^tbbt-merge: \Q$bad\E:12: not sorted by call time[^\n]*\n\z/, 'one line naming FILE:12');
    ok(!-e "$tmp/u.txt", 'no output file');
    is_deeply([glob("$tmp/.u.txt*")], [], 'no temporary file left');
    ($rc, $out, $err) = run("- <'$bad'");
    like($err, qr/^tbbt-merge: stdin:12: not sorted/, 'stdin:12');
    @ls = split /^/, slurp($ganesha);
    $ls[6] = "1795266445.3 - x\n";
    ($rc, $out, $err) = run("'" . put('short.txt', @ls) . "'");
    is($rc, 1, 'a short line: exit 1');
    like($err, qr/short\.txt:7: column 4: missing/, 'FILE:7, the column');
    ($rc, $out, $err) = run("'$tmp/none.txt'");
    is($rc, 1, 'missing file: exit 1');
    like($err, qr/^tbbt-merge: \Q$tmp\E\/none\.txt: /, 'names it');
};

subtest 'help and usage' => sub {
    my ($rc, $out) = run('--help');
    is($rc, 0, '--help: exit 0');
    like($out, qr/Usage:.*--dup-window/s, 'usage with the options');
    like(`perldoc -T '$tool' 2>/dev/null` || slurp($tool), qr/renumbers nothing/, 'the POD says IDs are not renumbered');
    for my $bad ('', '--dup-window x', '--nope x', '- -') {
        ($rc, $out) = run($bad);
        is($rc,  2,  "'$bad': exit 2");
        is($out, '', "'$bad': nothing on stdout");
    }
};

subtest 'a shared capture through tbbt-prep, split and merged' => sub {
    my $cap  = abs_path("$src/..") . '/shared/captures/public/nfstrace-eth-ipv4-tcp-nfsv3.pcap.zst';
    my $prep = "$build/transform/tbbt-prep";
    plan skip_all => 'no ../shared/captures or no tbbt-prep' unless -r $cap && -x $prep && -x $dump;
    system("'$prep' -q --no-map '$cap' -o '$tmp/c.tbbt' >/dev/null 2>&1") == 0 or die 'tbbt-prep failed';
    system("'$dump' '$tmp/c.tbbt' >'$tmp/c.txt'") == 0 or die;
    split_by_time("$tmp/c.txt", "$tmp/c1.txt", "$tmp/c2.txt");
    my ($rc, $out) = run("-q '$tmp/c2.txt' '$tmp/c1.txt'");
    is($rc, 0, 'exit 0');
    ok($out eq slurp("$tmp/c.txt"), 'the original, byte for byte');
};

done_testing();
