#!/usr/bin/perl
# tests/report/decide.t -- TBBT::Decide, the decision's arithmetic, on
# made-up results whose answers are worked out here by hand: Student's t,
# the ratio's interval on the log scale, each validity rule (the run just
# inside and just outside it), the settings check, a sweep's peak and
# overall response time, and the verdict leaving invalid runs out.
use strict;
use warnings;
use utf8;

use File::Basename qw(dirname);
use Test::More;

my $SRC;
BEGIN { $SRC = $ENV{TBBT_SRC} // dirname(dirname(dirname(__FILE__))) }
use lib "$SRC/scripts/lib";
use TBBT::Decide qw(t975 est_sample ratio_ci rel_hw run_view check_run check_settings sweep_points sweep_peak
  overall_rt verdict default_limits group_cautions);

binmode(Test::More->builder->$_, ':encoding(UTF-8)') for qw(output failure_output todo_output);

# bucket(V): the histogram bucket holding the value V (lib/hist.h): V
# itself below 128, else 128 buckets per power of two.
sub bucket {
    my ($v) = @_;
    return $v if $v < 128;
    my $e = int(log($v) / log(2));
    $e-- while (1 << $e) > $v;
    $e++ while (1 << ($e + 1)) <= $v;
    return ($e - 6) * 128 + ($v >> ($e - 7)) - 128;
}

# hist(NS...): a histogram of these latencies (ns), as tbbt-play writes one.
sub hist {
    my @v = @_;
    my %b;
    $b{ bucket($_) }++ for @v;
    my $m = 0;
    $m += $_ / @v for @v;
    my @s = sort { $a <=> $b } @v;
    return {n => scalar @v, min => $s[0], max => $s[-1], mean => $m, p50 => $s[@s / 2], p90 => $s[-1], p99 => $s[-1],
        p999 => $s[-1], buckets => [map { [$_, $b{$_}] } sort { $a <=> $b } keys %b]};
}

# result(%O): a made-up tbbt-play result: O->{ops} per second for
# O->{wall} seconds (or O->{secs}, replies per whole second), O->{speedup}
# (0: full speed) with the requested rate O->{req}, O->{lat} ms per
# request, and whatever meta or totals O overrides.
sub result {
    my (%o) = @_;
    my $wall  = $o{wall} // 12.3;
    my $secs  = $o{secs} // [($o{ops} // 100) x int($wall)];
    my $reps  = 0;
    $reps += $_ for @$secs;
    my $ops   = $o{ops} // $reps / $wall;
    my $sp    = $o{speedup} // 0;
    my $span  = $sp && $o{req} ? 1000 * $sp / $o{req} : 10;
    my $lat   = int(($o{lat} // 1) * 1e6);
    my $h     = hist(($lat) x 50, ($lat * 2) x 50);
    my %meta  = (trace => '/x/trace.tbbt', map_sha256 => 'aaaa', server => $o{server} // 'h:/a', run => 'r',
        init_params => {scope => 8, clones => 1}, order => 'fsdep', timing => $sp ? "timestamps x$sp" : 'full speed',
        speedup => $sp, window => 4096, connections => 0, partial => JSON::PP::false(), %{ $o{meta} // {} });
    my %tot = (records => 1000, sent => 1000, replies => 1000, matched => 1000, mismatched => 0, skipped => 0,
        timeouts => 0, warmup => 0, wall_s => $wall, trace_span_s => $span, ops_per_s => $ops, %{ $o{totals} // {} });
    return {schema => 'tbbt-play-result/1', meta => \%meta, totals => \%tot,
        procedures => [{vers => 3, proc => 'write', count => 600, matched => 600, latency_ns => $h},
            {vers => 3, proc => 'getattr', count => 400, matched => 400, latency_ns => hist(($lat / 2) x 10)}],
        series => [map { {t => $_, done => $secs->[$_], lat_mean_ns => $lat} } 0 .. $#$secs]};
}

require JSON::PP;
my $LIM = default_limits();

# codes(J): the reason codes (and note codes after a slash) of one run.
sub codes {
    my ($j) = @_;
    my ($why, $note) = check_run(run_view($j, $LIM), $j, $LIM);
    return join(' ', map { $_->{code} } @$why) . (@$note ? ' / ' . join(' ', map { $_->{code} } @$note) : '');
}

# ---- Student t and intervals ---------------------------------------------
is(t975(1), 12.706, 't975: 1 degree of freedom');
is(t975(2.7), 4.303, 't975: a fractional df is rounded down (the wider interval)');
is(t975(5000), 1.96, 't975: large samples: the normal quantile');
my $e = est_sample(1, 2, 3);
is_deeply([map { sprintf '%.6f', $_ } @$e{qw(mean sd se df)}], ['2.000000', '1.000000', sprintf('%.6f', 1 / sqrt 3), '2.000000'],
    'est_sample: mean, sd, se, df of 1 2 3');
ok(!defined est_sample(7)->{se}, 'est_sample: one value has no spread');

# B half of A, both with a 2% relative standard error and 4 df: var on the
# log scale 2 x 0.02^2 = 0.0008, Welch df 0.0008^2 / (2 x 0.0004^2 / 4) = 8,
# t 2.306, half-width 2.306 x sqrt(0.0008) = 0.065225
my $r = ratio_ci({mean => 100, se => 2, df => 4}, {mean => 50, se => 1, df => 4});
is(sprintf('%.5f %.5f %.5f %.1f %s', @$r{qw(ratio lo hi df significant)}),
    sprintf('%.5f %.5f %.5f 8.0 yes', 0.5, 0.5 * exp(-2.306 * sqrt 0.0008), 0.5 * exp(2.306 * sqrt 0.0008)),
    'ratio_ci: 0.5 with its interval worked out by hand, significant');
is(ratio_ci({mean => 100, se => 2, df => 4}, {mean => 99, se => 2, df => 4})->{significant}, 'no',
    'ratio_ci: 0.99 with a 2% error each: the interval holds 1, not significant');
is(ratio_ci({mean => 100, se => undef}, {mean => 50, se => 1, df => 4})->{significant}, 'unknown',
    'ratio_ci: a side without spread: unknown');
is(sprintf('%.4f', rel_hw({mean => 200, se => 5, df => 3})), sprintf('%.4f', 3.182 * 5 / 200), 'rel_hw: t se / mean');

# ---- validity, rule by rule ------------------------------------------------
is(codes(result()), '', 'a 12 s full-speed run with every status matched is valid');
is(codes(result(speedup => 0.5, req => 100, ops => 96)), '', 'rate: 4% below the requested rate is within 5%');
is(codes(result(speedup => 0.5, req => 100, ops => 94)), 'rate', 'rate: 6% below is not');
like((check_run(run_view(result(speedup => 0.5, req => 100, ops => 94), $LIM), result(speedup => 0.5, req => 100, ops => 94), $LIM))[0][0]{text},
    qr/94\.0 ops\/s achieved against 100\.0 requested \(6\.0% below; 5% allowed\)/, 'rate: the reason gives both rates');
{
    my $j = result(speedup => 0.5, req => 100, ops => 94.96);
    like((check_run(run_view($j, $LIM), $j, $LIM))[0][0]{text}, qr/\(5\.04% below; 5% allowed\)/,
        'rate: just past the limit, two decimals (not "5.0% below; 5% allowed")');
}
is(codes(result(ops => 50)), '', 'rate: not checked at full speed');
is(codes(result(totals => {matched => 999})), '', 'match: 99.9% is enough');
is(codes(result(totals => {matched => 998})), 'match', 'match: 99.8% is not');
is(codes(result(totals => {matched => 998, warmup => 10})), '', 'match: over the measured records (warm-up left out)');
is(codes(result(meta => {partial => JSON::PP::true()})), 'partial', 'partial: an interrupted run');
is(codes(result(secs => [(100) x 5, 0, 0, 0, (100) x 5], wall => 13.5)), 'stall', 'stall: 3 s without a reply mid-run');
like((check_run(run_view(result(secs => [(100) x 5, 0, 0, 0, (100) x 5], wall => 13.5), $LIM),
    result(secs => [(100) x 5, 0, 0, 0, (100) x 5], wall => 13.5), $LIM))[0][0]{text},
    qr/no reply for 3 s \(seconds 5 to 7 of the run\)/, 'stall: the reason says when');
is(codes(result(secs => [(100) x 5, 0, (100) x 6], wall => 12.5)), '', 'stall: one quiet second is not');
is(codes(result(secs => [1, 1, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1], wall => 12.5, ops => 0.8)), '',
    'stall: a slow trace\'s idle seconds are not (under 10 replies due)');
is(codes(result(totals => {warmup => 600, matched => 400})), 'warmup', 'warm-up: 60% of the records is too much');
is(codes(result(totals => {warmup => 400, matched => 600})), '', 'warm-up: 40% is allowed');
is(codes(result(wall => 7.2)), 'short', 'short: 7 one-second intervals');
like((check_run(run_view(result(wall => 0.2, secs => []), $LIM), result(wall => 0.2, secs => []), $LIM))[0][0]{text},
    qr/too short: 0\.20 s measured, 0 whole one-second intervals; a run must last at least 10 s/, 'short: says how long');
is(codes(result(wall => 10.1)), '', 'short: 10 intervals are enough');
is(codes(result(secs => [20, (100) x 11])), ' / coldstart', 'a slow first second is a note, not a reason');

# settings: the reference is what most runs have
my @runs = map { {label => "A#$_", json => result()} } 1 .. 3;
push @runs, {label => 'A#4', json => result(meta => {trace => '/y/other.tbbt', map_sha256 => 'bbbb'})};
push @runs, {label => 'A#5', json => result(meta => {init_params => {scope => 8, clones => 40}})};
my $set = check_settings(\@runs, 0);
is(join(' ', sort keys %$set), 'A#4', 'settings: only the run on another trace differs (clone count is no image change)');
like(join('; ', map { $_->{text} } @{ $set->{'A#4'} }), qr/different trace: other\.tbbt where the other runs have trace\.tbbt; different map/,
    'settings: the reason names both traces');
@runs = ({label => 'A#1', json => result(speedup => 1, req => 100)}, {label => 'A#2', json => result(speedup => 2, req => 200)});
is(join(' ', sort keys %{ check_settings(\@runs, 0) }), 'A#2', 'settings: speedups differ between repeated runs (first kept on a tie)');
is(join(' ', sort keys %{ check_settings(\@runs, 1) }), '', 'settings: in a sweep the speedup is the load');

# ---- sweeps ------------------------------------------------------------------
# speedups 1 2 4 8 asking 100 200 400 800 ops/s; the last reaches 420 only
my @pts = ([1, 100, 100, 1], [2, 200, 200, 2], [4, 400, 390, 4], [8, 800, 420, 9]);
my @sw = map {
    my ($x, $req, $ops, $ms) = @$_;
    my $j = result(speedup => $x, req => $req, ops => $ops, lat => $ms, secs => [($ops) x 12]);
    my $v = run_view($j, $LIM);
    my ($why) = check_run($v, $j, $LIM);
    {label => "A#$x", json => $j, view => $v, valid => @$why ? 0 : 1}
} @pts;
is(join(' ', map { $_->{valid} } @sw), '1 1 1 0', 'sweep: the point 47.5% short of its rate is invalid');
my $lim = {%$LIM, p99_limit_ms => 10};
my $sp = sweep_points(\@sw, $lim);
my $peak = sweep_peak($sp);
is($peak->{speedup}, 4, 'sweep: the peak is the last valid point (390 ops/s), not the invalid one with more (420)');
# mean latency of a point: half its requests at L ms, half at 2L (the
# write histogram) and getattr's 10 at L/2: (50 L + 100 L + 5 L) / 110
my @m = map { (50 * $_ + 100 * $_ + 5 * $_) / 110 } 1, 2, 4;
my $area = 100 * $m[0] + 100 * ($m[0] + $m[1]) / 2 + 190 * ($m[1] + $m[2]) / 2;
is(sprintf('%.6f', overall_rt($sp, $peak)), sprintf('%.6f', $area / 390),
    'overall response time: the area under the mean-latency curve, held flat below the first point, over the peak');
$lim->{p99_limit_ms} = 7;    # p99 at speedup 4 is 2 x 4 ms = 8 ms: over it
is(sweep_peak(sweep_points(\@sw, $lim))->{speedup}, 2, 'sweep: a p99 over the limit moves the peak down');

# ---- the verdict ---------------------------------------------------------------
# A 100 102 98 ops/s, B 50 51 49 plus one partial run of 10 (left out)
my @ga = map { result(ops => $_, secs => [($_) x 12]) } 100, 102, 98;
my @gb = map { result(server => 'h:/b', ops => $_, secs => [($_) x 12]) } 50, 51, 49;
push @gb, result(server => 'h:/b', ops => 10, secs => [(10) x 12], meta => {partial => JSON::PP::true()});
my $i = 0;
my @groups = map {
    my ($l, @js) = @$_;
    {label => $l, server => "h:/$l", runs => [map {
        my $v = run_view($_, $LIM);
        my ($why) = check_run($v, $_, $LIM);
        {label => "$l#" . ++$i, json => $_, view => $v, valid => @$why ? 0 : 1}
    } @js]}
} ['A', @ga], ['B', @gb];
my $v = verdict(\@groups, $LIM, 0);
is($v->{figure}, 'ops', 'verdict: full speed decides on throughput');
is(sprintf('%.4f', $v->{servers}[1]{ops}{mean}), '50.0000', 'verdict: B\'s partial run is left out of its throughput');
is($v->{servers}[1]{nvalid}, 3, 'verdict: B has 3 valid runs of 4');
my $rc = $v->{ratios}[0]{ops};
my $sa = 2 / sqrt(3) / 100;    # sd 2 over 3 runs, relative
my $sb = 1 / sqrt(3) / 50;
my $df = ($sa**2 + $sb**2)**2 / ($sa**4 / 2 + $sb**4 / 2);
my $hw = t975($df) * sqrt($sa**2 + $sb**2);
is(sprintf('%.5f %.5f %.5f %s', @$rc{qw(ratio lo hi significant)}),
    sprintf('%.5f %.5f %.5f yes', 0.5, 0.5 * exp(-$hw), 0.5 * exp($hw)), 'verdict: B/A 0.5 with its interval, significant');
like(join("\n", @{ $v->{cautions} }), qr/1 of B's 4 runs are invalid and left out/, 'verdict: says a run was left out');
# sd 30 over 3 runs: ±4.303 x 30 / sqrt(3) / 100 = ±74.5%, (74.5 / 5)^2 = 222.2
# times as long (or as many runs)
my $k2 = (4.303 * 30 / sqrt(3) / 100 / 0.05)**2;
my ($want_s, $want_n) = (sprintf('%.0f', 12 * $k2), int(3 * $k2) + 1);
like(join("\n", group_cautions('A', est_sample(100, 130, 70), 'throughput', 12, $LIM)),
    qr/A's throughput is known to ±74\.5% .*runs of about $want_s s each \(now 12 s\), or about $want_n runs/,
    "a wide interval: the run length ($want_s s) and the run count ($want_n) that would narrow it to ±5%");

done_testing();
