#!/usr/bin/perl
# golden.t -- every sample trace in traces/ with a NAME.summary beside it
# still prints that summary (per-procedure calls, statuses and response
# times, pairing, streams, objects, time repair, loss). The lines that
# depend on the run (Speed, Footprint, Wrote, Capture's path) are left out of both.
# A change to the decoder that moves any figure fails here; if the change
# is right, regenerate the file as traces/README.md says and say why in the
# commit.
use strict;
use warnings;
use Test::More;
use File::Basename qw(dirname basename);
use Cwd qw(abs_path);

my $src   = $ENV{TBBT_SRC}   || abs_path(dirname(__FILE__) . '/../..');
my $build = $ENV{TBBT_BUILD} || "$src/build";
plan skip_all => "no tbbt-prep in $build" unless -x "$build/transform/tbbt-prep";
my @sums = glob("$src/traces/*.summary");
plan skip_all => 'no summaries in traces/' unless @sums;
for my $sum (@sums) {
    (my $cap = $sum) =~ s/\.summary$/.pcap.zst/;
    my $got = `'$build/transform/tbbt-prep' -o /tmp/golden.$$.tbbt '$cap'`;
    unlink "/tmp/golden.$$.tbbt", "/tmp/golden.$$.hmap";
    $got = join '', grep { !/^(Speed|Footprint|Wrote|Capture)[: ]/ } split /^/, $got;
    open my $fh, '<', $sum or die "$sum: $!";
    my $want = do { local $/; <$fh> };
    is($got, $want, basename($cap) . ': summary as in ' . basename($sum));
}
done_testing();
