#!/usr/bin/perl
# badinput.t -- tbbt-prep on bad input: a clear one-line error naming the
# file, the exit codes of design.md (0 done, 1 failed, 2 usage), records
# kept up to a cut tail, never a crash or a hang, and never a file with the
# final name that is not complete.
use strict;
use warnings;
use Test::More;
use File::Basename qw(dirname);
use File::Temp qw(tempdir);
use Cwd qw(abs_path);

my $src   = $ENV{TBBT_SRC}   || abs_path(dirname(__FILE__) . '/../..');
my $build = $ENV{TBBT_BUILD} || "$src/build";
my $prep  = "$build/transform/tbbt-prep";
my $dump  = "$build/tools/tbbt-dump";
plan skip_all => "no tbbt-prep in $build" unless -x $prep;
my $tmp = tempdir(CLEANUP => 1);
my $sample = "$src/traces/ganesha-libnfs-mixed.pcap.zst";
system("zstd -dcq '$sample' > '$tmp/good.pcap'") == 0 or BAIL_OUT("zstd");
my $good = slurp("$tmp/good.pcap");

# run ARGS: runs tbbt-prep with a 60 s limit; returns (exit code, stderr).
# A signal (crash) or the limit (hang) shows as exit code >= 124.
sub run {
    my @args = @_;
    my $cmd = join ' ', 'timeout', '60', $prep, map {"'$_'"} @args;
    my $err = `$cmd 2>&1 >/dev/null`;
    my $rc = $? & 127 ? 128 + ($? & 127) : $? >> 8;
    return ($rc, $err);
}

sub records {
    my ($f) = @_;
    my @l = `'$dump' '$f'`;
    return scalar @l;
}

# Full capture: the reference count.
my ($rc, $err) = run('-q', '-o', "$tmp/full.tbbt", "$tmp/good.pcap");
is($rc, 0, 'the sample decodes');
my $full = records("$tmp/full.tbbt");
cmp_ok($full, '>', 1000, "the sample has $full records");

# Usage errors: exit 2, one line saying what is wrong, the synopsis and a
# pointer to --help (lib/usage.h).
for my $case ([ 'no argument', [] ], [ 'two captures', [ "$tmp/good.pcap", "$tmp/good.pcap" ] ],
    [ 'unknown option', [ '--frobnicate', "$tmp/good.pcap" ] ], [ 'bad port', [ '--port', 'abc', "$tmp/good.pcap" ] ],
    [ 'bad port before a missing file', [ '--port', 'abc', "$tmp/missing.pcap" ] ],
    [ 'port out of range', [ '--port', '70000', "$tmp/good.pcap" ] ],
    [ 'negative timeout', [ '--reply-timeout', '-1', "$tmp/good.pcap" ] ])
{
    ($rc, $err) = run(@{ $case->[1] });
    is($rc, 2, "usage: $case->[0] exits 2");
    like($err, qr/\Atbbt-prep: [^\n]+\nUsage: tbbt-prep .*\nTry 'tbbt-prep --help'[^\n]*\n\z/s,
        "usage: $case->[0] says so in one line, then the synopsis") or diag($err);
}

# Not a capture, empty, missing: exit 1, one line naming the file, no output.
write_file("$tmp/text.pcap", "this is not a capture\n" x 100);
write_file("$tmp/empty.pcap", '');
write_file("$tmp/garbage.pcap", join '', map { chr(int(rand(256))) } 1 .. 5000);
for my $f (qw(text empty garbage missing)) {
    ($rc, $err) = run('-o', "$tmp/$f.tbbt", "$tmp/$f.pcap");
    is($rc, 1, "$f: exits 1");
    like($err, qr/^tbbt-prep: \S*$f\.pcap: .+\n\z/, "$f: one line naming the file") or diag($err);
    ok(!-e "$tmp/$f.tbbt" && !-e "$tmp/$f.hmap", "$f: no record file or map left");
}

# A capture with no NFS in it: exit 1, said plainly, nothing written.
my $hdr = substr($good, 0, 24);
write_file("$tmp/nonfs.pcap", $hdr);
($rc, $err) = run('-o', "$tmp/nonfs.tbbt", "$tmp/nonfs.pcap");
is($rc, 1, 'a capture with no packets exits 1');
like($err, qr/nonfs\.pcap: no NFSv2 or NFSv3 calls found/, 'and says there was no NFS') or diag($err);
ok(!-e "$tmp/nonfs.tbbt" && !glob("$tmp/nonfs.tbbt.tmp*") && !-e "$tmp/nonfs.hmap" && !glob("$tmp/nonfs.hmap.tmp*"),
    'and leaves no record file or map, final or temporary');

# Tails cut at many points (tcpdump killed): every record before the cut,
# a warning naming the file and packet, exit 0.
my $prev = 0;
for my $frac (0.1, 0.37, 0.5, 0.83, 0.999) {
    my $cut = int(length($good) * $frac);
    write_file("$tmp/cut.pcap", substr($good, 0, $cut));
    ($rc, $err) = run('-q', '-o', "$tmp/cut.tbbt", "$tmp/cut.pcap");
    is($rc, 0, "cut at $cut bytes: exit 0");
    like($err, qr/warning: .*cut\.pcap: capture cut short after packet \d+/, "cut at $cut bytes: warns, naming the packet")
        or diag($err);
    my $n = records("$tmp/cut.tbbt");
    ok($n > $prev && $n <= $full, "cut at $cut bytes: $n records, more than a shorter cut, at most the whole");
    $prev = $n;
}

# A packet whose IP header is garbage: reported with its number.
my $badip = $good;
my ($off, $i) = (24, 0);
while ($off + 16 <= length($badip)) {
    my ($caplen) = unpack('V', substr($badip, $off + 8, 4));
    if (++$i == 300) { substr($badip, $off + 16 + 14, 1) = chr(0x99); last; }    # IP version 9
    $off += 16 + $caplen;
}
write_file("$tmp/badip.pcap", $badip);
($rc, $err) = run('-q', '-o', "$tmp/badip.tbbt", "$tmp/badip.pcap");
is($rc, 0, 'a packet with a garbage IP header: exit 0');
like($err, qr/^tbbt-prep: warning: \S*badip\.pcap: packet 300: malformed packet headers/m,
    'and a one-line warning names the file and packet 300')
    or diag($err);

# Packets of garbage inside a good capture: flip bytes in packet payloads
# (not the pcap record headers: those are the file's framing). The decoder
# must survive and keep most records.
my $mangled = $good;
my $flipped = 0;
($off, $i) = (24, 0);
while ($off + 16 <= length($mangled)) {
    my ($caplen) = unpack('V', substr($mangled, $off + 8, 4));
    last if $off + 16 + $caplen > length($mangled);
    if ($i++ % 7 == 3 && $caplen > 80) {
        substr($mangled, $off + 16 + 66 + $_, 1) = chr(int(rand(256))) for 0 .. 11;
        $flipped++;
    }
    $off += 16 + $caplen;
}
write_file("$tmp/mangled.pcap", $mangled);
($rc, $err) = run('-q', '-o', "$tmp/mangled.tbbt", "$tmp/mangled.pcap");
is($rc, 0, "$flipped packets with garbage payloads: exit 0, no crash") or diag($err);
like($err, qr/^tbbt-prep: warning: \S*mangled\.pcap: packet \d+: .+$/m, 'and warnings name the file and the packet')
    or diag($err);
my @w = $err =~ /^tbbt-prep: warning: \S+: packet /mg;
cmp_ok(scalar @w, '<=', 10, 'at most --max-warnings (10) of them are printed one by one');
my $m = records("$tmp/mangled.tbbt");
cmp_ok($m, '>', $full / 2, "and $m of $full records survive");

# An RPC record mark announcing an absurd length (2 GiB) in the middle of
# the stream: skipped and resynchronised on, not allocated.
my $absurd = $good;
($off, $i) = (24, 0);
my $done = 0;
while (!$done && $off + 16 <= length($absurd)) {
    my ($caplen) = unpack('V', substr($absurd, $off + 8, 4));
    # the first TCP payload after 100 packets: Ethernet 14 + IPv4 20 + TCP 32
    if ($i++ > 100 && $caplen > 66 + 8) {
        substr($absurd, $off + 16 + 66, 4) = pack('N', 0xfffffff0);
        $done = 1;
    }
    $off += 16 + $caplen;
}
write_file("$tmp/absurd.pcap", $absurd);
($rc, $err) = run('-q', '-o', "$tmp/absurd.tbbt", "$tmp/absurd.pcap");
is($rc, 0, 'an absurd RPC record length: exit 0, no crash, no hang') or diag($err);
like($err, qr/^tbbt-prep: warning: \S*absurd\.pcap: packet \d+: RPC record framing lost/m,
    'and the lost framing is reported with its packet number')
    or diag($err);
cmp_ok(records("$tmp/absurd.tbbt"), '>=', $full - 50, 'and the records around it are kept');

# An output directory that does not exist: exit 1 naming the path.
($rc, $err) = run('-o', "$tmp/no/such/dir/x.tbbt", "$tmp/good.pcap");
is($rc, 1, 'unwritable output: exit 1');
like($err, qr{no/such/dir/x\.tbbt}, 'and names the path') or diag($err);

done_testing();

sub slurp {
    my ($f) = @_;
    open my $fh, '<:raw', $f or die "$f: $!";
    local $/;
    return <$fh>;
}

sub write_file {
    my ($f, $data) = @_;
    open my $fh, '>:raw', $f or die "$f: $!";
    print $fh $data;
    close $fh;
}
