#!/usr/bin/perl
# nfstrace.t -- tbbt-prep's per-procedure totals against nfstrace's own
# breakdown (the *.breakdown.ref files beside the nfstrace captures in
# ../shared/captures/public, its `-a breakdown` output). nfstrace counts an
# operation when the call and its reply were both seen, so the figure to
# compare is our records with a reply. Skipped when ../shared is absent.
use strict;
use warnings;
use Test::More;
use File::Basename qw(basename dirname);
use Cwd qw(abs_path);
use JSON::PP;

my $src    = $ENV{TBBT_SRC}   || abs_path(dirname(__FILE__) . '/../..');
my $build  = $ENV{TBBT_BUILD} || "$src/build";
my $shared = abs_path("$src/../shared/captures/public");
plan skip_all => '../shared/captures absent' unless $shared && -d $shared;
plan skip_all => "no tbbt-prep in $build" unless -x "$build/transform/tbbt-prep";

# Differences that remain, per capture and procedure: ours minus nfstrace's,
# each with its reason. Anything not listed must be equal.
my %explained = (
    # The ACCESS call after the fuzzed SYN/RST (see tshark.t) whose reply
    # we also reassemble; nfstrace, like tshark, drops that exchange.
    'nfstrace-eth-ipv6-tcp-nfsv3-bad_alloc' => { access => 1 },
    # 64 KiB loopback writes, some frames cut at 65535 bytes, NFSv4 and
    # CIFS beside. We pair 42 more WRITEs with their replies than nfstrace:
    # each has a distinct xid inside the client's sequence (7167 calls over
    # an xid span of 7571, none repeated) and a reply bearing that xid.
    'nfstrace-eth-ipv4-tcp-nfsv3-4-41-cifs1-2' => { write => 42 },
);

my @refs = glob("$shared/nfstrace-*.breakdown.ref");
for my $ref (@refs) {
    my $b = basename($ref, '.breakdown.ref');
    my $cap = "$shared/$b.pcap.zst";
    next unless -r $cap;
    my %theirs = breakdown($ref);
    my $json = "/tmp/nfstrace-t.$$.json";
    system("'$build/transform/tbbt-prep' -q --port 2049 -o /tmp/nfstrace-t.$$.tbbt --summary-json $json '$cap'") == 0
        or do { fail("$b: tbbt-prep ran"); next };
    my $s = decode_json(slurp($json));
    unlink $json, "/tmp/nfstrace-t.$$.tbbt", "/tmp/nfstrace-t.$$.hmap";
    my %ours;
    for my $p (@{ $s->{procedures} }) {
        next unless $p->{vers} == 3;
        $ours{ $p->{proc} } += $p->{replied};
    }
    my %diff;
    for my $p (keys %theirs, keys %ours) {
        my $d = ($ours{$p} // 0) - ($theirs{$p} // 0);
        $diff{$p} = $d if $d;
    }
    my $exp = $explained{$b} || {};
    my $total = 0;
    $total += $_ for values %theirs;
    is_deeply(\%diff, $exp, "$b: answered calls per procedure equal nfstrace's ($total operations)"
        . (%$exp ? ' but for the explained differences' : ''))
        or diag("ours - nfstrace: " . join(', ', map {"$_ $diff{$_}"} sort keys %diff));
}
done_testing();

# Reads the NFS v3 block of a breakdown: procedure (lower case) => count.
sub breakdown {
    my ($f) = @_;
    open my $fh, '<', $f or die "$f: $!\n";
    my ($in, %c) = (0);
    while (<$fh>) {
        if (/^NFS v3 protocol/) { $in = 1; next; }
        next unless $in;
        last if /^Per connection info/ || /^###/;
        $c{ lc $1 } = $2 if /^([A-Z]+)\s+(\d+)\s/ && $2 > 0;
    }
    return %c;
}

sub slurp {
    my ($f) = @_;
    open my $fh, '<', $f or return '';
    local $/;
    return <$fh>;
}
