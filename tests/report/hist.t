#!/usr/bin/perl
# tests/report/hist.t -- TBBT::Hist reads a result document's buckets with
# the layout the document gives ("hist_layout", lib/hist.h's
# tbbt_hist_layout_json), and with the one tbbt-play always wrote (128
# buckets per power of two) when it gives none; a layout it cannot read is
# refused with a sentence, and documents of two layouts are not merged.
# The expected buckets and bounds are computed here from the layout's
# definition, not by the module.
use strict;
use warnings;

use File::Basename qw(dirname);
use Test::More;

my $SRC;
BEGIN { $SRC = $ENV{TBBT_SRC} // dirname(dirname(dirname(__FILE__))) }
use lib "$SRC/scripts/lib";
use TBBT::Hist qw(hist_adopt hist_bounds hist_merge hist_merge_m hist_quantile);

# bucket(V, SUB): the bucket of value V with SUB buckets per power of two:
# V itself below SUB; above, 2^e split in SUB equal parts.
sub bucket {
    my ($v, $sub) = @_;
    return $v if $v < $sub;
    my ($k, $e) = (0, 0);
    $k++ while (1 << $k) < $sub;
    $e++ while (1 << ($e + 1)) <= $v;
    return ($e - $k + 1) * $sub + (($v >> ($e - $k)) - $sub);
}

# doc(SUB, LAYOUT, VALUES): a result document with one procedure whose
# latency histogram holds VALUES in SUB's layout; LAYOUT is its
# "hist_layout" (none when undef).
sub doc {
    my ($sub, $layout, @v) = @_;
    my %b;
    $b{ bucket($_, $sub) }++ for @v;
    my ($min, $max, $sum) = ($v[0], $v[0], 0);
    for (@v) { $min = $_ if $_ < $min; $max = $_ if $_ > $max; $sum += $_ }
    my $h = {n => scalar @v, min => $min, max => $max, mean => $sum / @v,
        buckets => [map { [$_, $b{$_}] } sort { $a <=> $b } keys %b]};
    return {schema => 'tbbt-play-result/1', (defined $layout ? (hist_layout => $layout) : ()),
        procedures => [{proc => 'getattr', latency_ns => $h}]};
}

# Bounds from the definition, for both layouts, against hist_bounds.
for my $sub (128, 64) {
    my $bad = 0;
    for my $v (0 .. 5000, map { $_ * 977 } 1 .. 3000) {
        my ($lo, $hi) = hist_bounds(bucket($v, $sub), $sub);
        $bad++ unless $lo <= $v && $v <= $hi;
    }
    is($bad, 0, "sub $sub: every value lies within its bucket's bounds");
}

# 10 values at 500 ns, 80 at 1000, 9 at 300000 and one at 400000: p50 is
# the middle of 1000's bucket and p95 of 300000's (neither the minimum nor
# the maximum, which would clamp them), when read with the layout they
# were written in.
my @v = ((500) x 10, (1000) x 80, (300000) x 9, 400000);
my $d64 = doc(64, {scheme => 'log-linear', sub => 64, exp => 42, buckets => 2432}, @v);
is(hist_adopt($d64), undef, 'a log-linear layout of 64 is read');
my $m = hist_merge($d64->{procedures}[0]{latency_ns});
is($m->{sub}, 64, 'the merged histogram keeps the layout');
my ($lo, $hi) = hist_bounds(bucket(300000, 64), 64);
is(hist_quantile($m, .95), $lo + int(($hi - $lo) / 2), 'p95 is the middle of the 64-layout bucket holding 300000');
($lo, $hi) = hist_bounds(bucket(1000, 64), 64);
is(hist_quantile($m, .5), $lo + int(($hi - $lo) / 2), 'p50 is the middle of the 64-layout bucket holding 1000');

# The same buckets read as the old layout give other figures: the layout
# is what decides.
my $wrong = doc(64, undef, @v);
is(hist_adopt($wrong), undef, 'no hist_layout: read as before');
my $w = hist_merge($wrong->{procedures}[0]{latency_ns});
is($w->{sub}, 128, 'no hist_layout: 128 buckets per power of two');
isnt(hist_quantile($w, .5), hist_quantile($m, .5), '64-layout buckets read as 128 give another p50');

# An old document (no hist_layout) written in the old layout.
my $old = doc(128, undef, @v);
hist_adopt($old);
my $o = hist_merge($old->{procedures}[0]{latency_ns});
($lo, $hi) = hist_bounds(bucket(300000, 128), 128);
is(hist_quantile($o, .95), $lo + int(($hi - $lo) / 2), 'old document: p95 from the 128 layout');
my $new128 = doc(128, {scheme => 'log-linear', sub => 128, exp => 42, buckets => 4608}, @v);
hist_adopt($new128);
is(hist_quantile(hist_merge($new128->{procedures}[0]{latency_ns}), .95), hist_quantile($o, .95),
    'a document saying 128 reads as an old one');

# Layouts it cannot read.
like(hist_adopt({hist_layout => 'log'}), qr/not an object/, 'layout not an object: refused');
like(hist_adopt({hist_layout => {scheme => 'hdr', sub => 128}}), qr/unknown scheme "hdr"/, 'unknown scheme: refused');
like(hist_adopt({hist_layout => {scheme => 'log-linear', sub => 100}}), qr/power of two/, 'sub 100: refused');
like(hist_adopt({hist_layout => {scheme => 'log-linear'}}), qr/power of two/, 'no sub: refused');

# Two layouts are not merged, at either level.
ok(!eval { hist_merge($d64->{procedures}[0]{latency_ns}, $old->{procedures}[0]{latency_ns}); 1 },
    'histograms of two layouts: not merged');
like($@, qr/different layouts/, '... and says why');
ok(!eval { hist_merge_m($m, $o); 1 }, 'merged histograms of two layouts: not merged');
is(hist_merge_m($o, hist_merge($new128->{procedures}[0]{latency_ns}))->{n}, 200, 'same layout: merged');

done_testing();
