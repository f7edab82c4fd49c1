#!/usr/bin/perl
# merge_captures.t -- scripts/tbbt-merge given packet captures (the same
# server seen on several interfaces): merged by mergecap in time and
# decoded by one tbbt-prep run. A real capture's packets dealt alternately
# into two captures merge back to the original's records and map; a
# capture merged with itself (every packet seen twice, plain and zstd)
# gives the original's records, the duplicates dropped; the same for a UDP
# (NFSv2) capture. Mixing captures and records, and no -o OUT.tbbt, are
# usage errors (exit 2, one line).
use strict;
use warnings;
use Test::More;
use File::Basename qw(dirname);
use File::Temp qw(tempdir);
use Cwd qw(abs_path);

my $src   = $ENV{TBBT_SRC} // abs_path(dirname(__FILE__) . '/../..');
my $build = $ENV{TBBT_BUILD} // "$src/build";
my $tool  = "$src/scripts/tbbt-merge";
my $prep  = "$build/transform/tbbt-prep";
my $dump  = "$build/tools/tbbt-dump";
my $tmp   = tempdir(CLEANUP => 1);
plan skip_all => 'mergecap not installed (dev/install-deps.sh)' if system('command -v mergecap >/dev/null') != 0;
plan skip_all => "$prep not built" unless -x $prep;

# run(ARGS...): the tool (120 s limit); returns (exit code, stderr).
sub run {
    my $cmd = join ' ', map {"'$_'"} @_;
    system("TBBT_BUILD='$build' timeout 120 perl '$tool' -q $cmd 2>'$tmp/err' >'$tmp/out'");
    my $rc = $? & 127 ? 128 + ($? & 127) : $? >> 8;
    open my $fh, '<', "$tmp/err" or die;
    local $/;
    return ($rc, <$fh> // '');
}

# records(BASE): the text of BASE.tbbt and the entries of BASE.hmap (its
# comment lines name the source and differ).
sub records {
    my ($base) = @_;
    my $r = `'$dump' '$base.tbbt'`;
    open my $fh, '<', "$base.hmap" or return ($r, undef);
    return ($r, join '', grep { !/^#/ } <$fh>);
}

# deal(IN, A, B): writes IN's packets alternately into the pcaps A and B.
sub deal {
    my ($in, $pa, $pb) = @_;
    open my $fh, '<:raw', $in or die "$in: $!";
    read $fh, my $gh, 24;
    my $magic = unpack 'V', $gh;
    my $le = $magic == 0xa1b2c3d4 || $magic == 0xa1b23c4d;
    open my $a, '>:raw', $pa or die;
    open my $b, '>:raw', $pb or die;
    print {$_} $gh for $a, $b;
    my $i = 0;
    while (read($fh, my $h, 16) == 16) {
        my $len = (unpack($le ? 'V4' : 'N4', $h))[2];
        read $fh, my $d, $len;
        print { $i++ % 2 ? $b : $a } $h, $d;
    }
    close $_ for $a, $b;
    return $i;
}

for my $c (['TCP, NFSv3', "$src/traces/ganesha-libnfs-mixed.pcap.zst"],
    ['UDP, NFSv2', "$src/tests/data/suricata-nfsv2-udp.pcap.zst"]) {
    my ($what, $zst) = @$c;
    my $t = "$tmp/" . ($what =~ /UDP/ ? 'udp' : 'tcp');
    system("zstdcat '$zst' >'$t.pcap'") == 0 or die;
    system($prep, '-q', '-o', "$t-ref.tbbt", "$t.pcap") == 0 or die "tbbt-prep failed on $t.pcap";
    my ($ref, $refmap) = records("$t-ref");
    ok(length $ref, "$what: the original's records");

    my $n = deal("$t.pcap", "$t-a.pcap", "$t-b.pcap");
    my ($rc, $err) = run('-o', "$t-ab.tbbt", "$t-a.pcap", "$t-b.pcap");
    is($rc, 0, "$what: $n packets dealt into two captures, merged: exit 0") or diag $err;
    my ($r, $m) = records("$t-ab");
    ok($r eq $ref, "$what: the merged halves give the original's records");
    ok(defined $m && $m eq $refmap, "$what: ... and its map's entries");

    ($rc, $err) = run('-o', "$t-dup.tbbt", "$t.pcap", $zst);
    is($rc, 0, "$what: the capture merged with itself (plain and zstd): exit 0") or diag $err;
    ($r) = records("$t-dup");
    ok($r eq $ref, "$what: every packet seen twice: the original's records, duplicates dropped");
}

my ($rc, $err) = run('-o', "$tmp/mix.tbbt", "$tmp/tcp.pcap", "$src/tests/data/xform-ganesha.txt");
is($rc, 2, 'a capture with a text trace: usage error');
like($err, qr/^tbbt-merge: captures and records cannot be merged together/, '... saying so');
ok(!-e "$tmp/mix.tbbt", '... no output');
($rc, $err) = run('-o', "$tmp/x.txt", "$tmp/tcp.pcap", "$tmp/tcp-a.pcap");
is($rc, 2, 'captures without -o OUT.tbbt: usage error');
like($err, qr/^tbbt-merge: merging captures needs -o OUT\.tbbt/, '... saying so');
done_testing();
