#!/usr/bin/perl
# tshark.t -- tbbt-prep against tshark, record by record, on every capture
# the project has: the fixtures in tests/data (always) and the real captures
# in ../shared/captures (skipped when that folder is absent).
#
# For each capture tshark-compare.pl keys every NFS call by (client, server,
# xid) and compares procedure, status, name, name2, offset and count. Where
# tshark itself loses messages, the differences that remain are listed
# below with their reason and their exact count, so a change in either
# direction fails the test; those captures are also held to nfstrace's
# per-procedure breakdown in nfstrace.t.
use strict;
use warnings;
use Test::More;
use File::Basename qw(basename dirname);
use Cwd qw(abs_path);

my $src   = $ENV{TBBT_SRC}   || abs_path(dirname(__FILE__) . '/../..');
my $build = $ENV{TBBT_BUILD} || "$src/build";
my $shared = abs_path("$src/../shared/captures");
plan skip_all => 'tshark not installed' unless system('sh', '-c', 'command -v tshark >/dev/null') == 0;
plan skip_all => "no tbbt-prep in $build" unless -x "$build/transform/tbbt-prep";

# capture basename => [ports to decode as RPC, { category => count }]
# Ports: tshark finds RPC on 2049 only by heuristics; where it guesses
# wrong (DNS on the UDP replies of dup-retransm) the port is forced.
my %known = (
    'ganesha-libnfs-mixed.pcap.zst' => [ [20490], {} ],
    'maildir3-s200.pcap.zst'        => [ [29216], {} ],    # nfs-ganesha on a private port
    'nfstrace-eth-ipv4-udp-nfsv3-dup-retransm.pcap.zst' => [ [2049], {} ],
    # A fuzzed capture: bogus SYN/RST segments inside the stream. tshark
    # takes the two ACCESS calls sent after them for spurious
    # retransmissions and drops them; their xids fill exact gaps in the
    # client's sequence (0x38615be0 -> 0x39615be0 ...), so they are real.
    'nfstrace-eth-ipv6-tcp-nfsv3-bad_alloc.pcap.zst' => [ [2049], { 'only-in-tbbt' => 2 } ],
    # Overlapping sequence ranges inside RPC fragments: tshark gives up on
    # the stream after the first calls. Held to nfstrace's counts instead.
    'nfstrace-tcp-seq-overlap-in-fragment-12721.pcap.zst' => [ [2049], { 'only-in-tbbt' => 6169 } ],
);
# Captures compared against nfstrace only (tshark cannot reassemble them).
my %nfstrace_only = ('nfstrace-eth-ipv4-tcp-nfsv3-4-41-cifs1-2.pcap.zst' => 1);

my @caps = glob("$src/tests/data/*.zst");
push @caps, glob("$shared/real/*.pcap.zst"), glob("$shared/public/*.zst") if $shared && -d $shared;
@caps = grep { !/\.(txt|tar)(\.zst)?$/ && !$nfstrace_only{ basename($_) } } @caps;    # text traces, archives: no packets

for my $cap (@caps) {
    my $b = basename($cap);
    my ($ports, $expect) = @{ $known{$b} || [ [2049], {} ] };
    my $report = "/tmp/tshark-compare.$$.json";
    my @args = ('--build', $build, '--report', $report, map { ('--port', $_) } @$ports);
    my $out = `perl '$src/tests/decode/tshark-compare.pl' @args '$cap' 2>&1`;
    my $rc  = $? >> 8;
    my $r = eval { require JSON::PP; JSON::PP::decode_json(slurp($report)) };
    unlink $report;
    if (!$r) {
        fail("$b: compare ran");
        diag($out);
        next;
    }
    my %cat = %{ $r->{categories} };
    delete $cat{$_} for grep {/^explained:/} keys %cat;
    if (%$expect) {
        is_deeply(\%cat, $expect, "$b: only the known differences remain ($r->{matched} of $r->{calls} match)")
            or diag($out);
    } else {
        ok($rc == 0 && $r->{differ} == 0 && $r->{calls} > 0,
            "$b: all $r->{calls} calls equal tshark's (xid, procedure, status, name, offset, count)")
            or diag($out);
    }
}
done_testing();

sub slurp {
    my ($f) = @_;
    open my $fh, '<', $f or return undef;
    local $/;
    return <$fh>;
}
