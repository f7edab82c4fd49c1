#!/usr/bin/perl
# tests/report/verdict.t -- the verdict's numbers, as the page and the
# text show them, equal a second computation made here from the run
# JSONs, written from the rules the page states and sharing no code with
# tbbt-report: which runs are valid, each server's figures over its valid
# runs, the ratio between the servers with its 95% interval (log scale,
# Welch) and its significance; from a sweep each server's load points,
# its peak (the valid point with the most throughput and p99 within the
# limit), its overall response time (SPEC's area under the curve over the
# peak) and the ratio of the peaks. Inputs: real results of two ganesha
# filers, one mounted -o sync (tests/data/report-fixtures.tar.zst).
use strict;
use warnings;
use utf8;

use File::Basename qw(dirname);
use File::Temp qw(tempdir);
use JSON::PP;
use List::Util qw(sum0 max);
use Test::More;

my $SRC    = $ENV{TBBT_SRC} // dirname(dirname(dirname(__FILE__)));
my $REPORT = "$SRC/scripts/tbbt-report";
my $FIX    = "$SRC/tests/data/report-fixtures.tar.zst";
plan skip_all => 'zstd not installed' unless grep { -x "$_/zstd" } split /:/, $ENV{PATH};
binmode(Test::More->builder->$_, ':encoding(UTF-8)') for qw(output failure_output todo_output);

my $IN = tempdir(CLEANUP => 1);
system('tar', '-C', $IN, '--zstd', '-xf', $FIX) == 0 or BAIL_OUT("cannot unpack $FIX");

# slurp(FILE): the file's text.
sub slurp {
    my ($f) = @_;
    open(my $fh, '<:encoding(UTF-8)', $f) or return '';
    local $/;
    return scalar <$fh>;
}

# ---- the second computation ---------------------------------------------------

# Student t, 97.5%, by degrees of freedom (any printed table).
my @T = (0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
    2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042);
sub tq {
    my $d = int $_[0];
    $d = 1 if $d < 1;
    return $d <= 30 ? $T[$d] : $d < 40 ? 2.042 : $d < 60 ? 2.021 : $d < 120 ? 2.000 : $d < 1000 ? 1.980 : 1.960;
}

# bucket_mid(I): the middle of hist.h's bucket I.
sub bucket_mid {
    my ($i) = @_;
    return $i if $i < 128;
    my $e  = 7 + int(($i - 128) / 128);
    my $w  = 2**($e - 7);
    my $lo = 2**$e + ($i % 128) * $w;
    return $lo + int(($w - 1) / 2);
}

# figures(J): what a run says: ops, requested, match, whole seconds, mean
# and p99 latency (ms, from the send: every merged bucket read here).
sub figures {
    my ($j) = @_;
    my $t = $j->{totals};
    my %f = (ops => $t->{ops_per_s}, wall => $t->{wall_s}, speedup => $j->{meta}{speedup} // 0);
    $f{req} = $t->{records} * $f{speedup} / $t->{trace_span_s} if $f{speedup} > 0;
    $f{match} = $t->{matched} / ($t->{records} - ($t->{warmup} // 0));
    my @d = (0) x int($t->{wall_s});
    $d[ $_->{t} ] = $_->{done} for grep { $_->{t} < @d } @{ $j->{series} };
    shift @d while @d && !$d[0];
    $f{secs} = \@d;
    my (%b, $n, $sum, $min, $max);
    for my $p (@{ $j->{procedures} }) {
        my $h = $p->{latency_ns};
        next unless $h->{n};
        $n += $h->{n};
        $sum += $h->{mean} * $h->{n};
        $min = $h->{min} if !defined $min || $h->{min} < $min;
        $max = $h->{max} if !defined $max || $h->{max} > $max;
        $b{ $_->[0] } += $_->[1] for @{ $h->{buckets} };
    }
    $f{mean} = $sum / $n / 1e6;
    my ($rank, $seen) = (int(0.99 * $n), 0);
    for my $i (sort { $a <=> $b } keys %b) {
        $seen += $b{$i};
        next if $seen <= $rank;
        my $v = bucket_mid($i);
        $v = $min if $v < $min;
        $v = $max if $v > $max;
        $f{p99} = $v / 1e6;
        last;
    }
    # valid: the rules the page states (same trace and settings hold here)
    my @why;
    push @why, 'partial' if $j->{meta}{partial};
    push @why, 'rate'    if defined $f{req} && $f{ops} < 0.95 * $f{req};
    push @why, 'match'   if $f{match} < 0.999;
    push @why, 'short'   if @d < 10;
    $f{why} = \@why;
    return \%f;
}

# est(V...): [mean, se, df].
sub est {
    my @v = @_;
    my $m = sum0(@v) / @v;
    return [$m, undef, 0] if @v < 2;
    return [$m, sqrt(sum0(map { ($_ - $m)**2 } @v) / (@v - 1)) / sqrt(@v), @v - 1];
}

# ratio(A, B): [ratio, lo, hi, significant] of two [mean, se, df].
sub ratio {
    my ($a, $b) = @_;
    my $r = $b->[0] / $a->[0];
    return [$r, undef, undef, 'unknown'] unless defined $a->[1] && defined $b->[1];
    my ($x, $y) = (($a->[1] / $a->[0])**2, ($b->[1] / $b->[0])**2);
    my $df = ($x + $y)**2 / ($x**2 / $a->[2] + $y**2 / $b->[2]);
    my $hw = tq($df) * sqrt($x + $y);
    my ($lo, $hi) = ($r * exp(-$hw), $r * exp($hw));
    return [$r, $lo, $hi, ($lo > 1 || $hi < 1) ? 'yes' : 'no'];
}

# load(DIR, SERVER): the figures of SERVER's result files in DIR.
sub load {
    my ($dir, $s) = @_;
    return map {
        my $j = JSON::PP->new->utf8->decode(do { open(my $fh, '<:raw', $_) or die; local $/; <$fh> });
        my $f = figures($j);
        $f->{file} = $_;
        $f
    } sort glob("$dir/$s-*.json");
}

# ---- reading the page ---------------------------------------------------------------

# row(HTML, TABLE-ID, ATTR): {metric => {v, ci, lo, hi, text}} of the row
# of table TABLE-ID whose tag has ATTR.
sub row {
    my ($html, $id, $attr) = @_;
    my ($tab) = $html =~ /<table id="$id"[^>]*>(.*?)<\/table>/s;
    my ($tr) = ($tab // '') =~ /<tr $attr[^>]*>(.*?)<\/tr>/s;
    my %c;
    while (($tr // '') =~ /<td class="[^"]*" data-m="(\w+)"((?: data-\w+="[^"]*")*)>([^<]*)<\/td>/g) {
        my ($m, $a, $t) = ($1, $2, $3);
        $c{$m} = {($a =~ /data-(\w+)="([^"]*)"/g), text => $t};
    }
    return \%c;
}

# near(GOT, WANT): equal to 1e-6 relative (6 decimals printed).
sub near {
    my ($g, $w) = @_;
    return defined $g && defined $w && $g ne '' && abs($g - $w) <= 1e-6 + 1e-6 * abs($w);
}

# report(NAME, ARGS): the page and the text of tbbt-report on ARGS.
sub report {
    my ($name, @args) = @_;
    my $dir = tempdir(CLEANUP => 1);
    my $q = join ' ', map { quotemeta } 'perl', $REPORT, '-q', '-o', $dir, @args;
    system("$q 2>'$dir/err'");
    is($? >> 8, 0, "$name: tbbt-report exit 0") or diag(slurp("$dir/err"));
    return (slurp("$dir/report.html"), slurp("$dir/report.txt"));
}

# ---- repeated runs ---------------------------------------------------------------------
{
    my %f = map { $_ => [load("$IN/runs", $_)] } qw(A B);
    my ($html, $txt) = report('runs', '--latency-from', 'send', map { $_->{file} } @{ $f{A} }, @{ $f{B} });
    my %est;
    for my $s (qw(A B)) {
        my @ok = grep { !@{ $_->{why} } } @{ $f{$s} };
        my $n = 0;
        for my $r (@{ $f{$s} }) {
            $n++;
            my ($tr) = $html =~ /<tr data-run="$s#$n" data-valid="(yes|no)"/;
            is($tr, @{ $r->{why} } ? 'no' : 'yes', "runs: $s#$n valid as computed here (" . join(' ', @{ $r->{why} }) . ')');
        }
        my $c = row($html, 'verdict-servers', "data-server=\"$s\"");
        is($c->{valid}{v}, scalar @ok, "runs: $s has " . scalar(@ok) . ' valid runs in the verdict');
        $est{$s} = {ops => est(map { $_->{ops} } @ok), mean => est(map { $_->{mean} } @ok), p99 => est(map { $_->{p99} } @ok)};
        my $ci = $est{$s}{mean}[1] ? tq($est{$s}{mean}[2]) * $est{$s}{mean}[1] : undef;
        ok(near($c->{ops}{v}, $est{$s}{ops}[0]), "runs: ${s}'s throughput $c->{ops}{v} = mean of its valid runs $est{$s}{ops}[0]");
        ok(near($c->{mean_ms}{v}, $est{$s}{mean}[0]), "runs: ${s}'s mean latency $c->{mean_ms}{v} = $est{$s}{mean}[0] ms");
        ok(!defined $ci || near($c->{mean_ms}{ci}, $ci), "runs: ${s}'s mean latency interval ±" . ($ci // '-'));
        ok(near($c->{p99_ms}{v}, $est{$s}{p99}[0]), "runs: ${s}'s p99 $c->{p99_ms}{v} = $est{$s}{p99}[0] ms");
        like($c->{mean_ms}{text}, qr/^\Q${\ sprintf($est{$s}{mean}[0] >= 1 ? '%.2f' : '%.3f', $est{$s}{mean}[0])}\E/,
            "runs: ${s}'s mean latency shown as $c->{mean_ms}{text}");
    }
    for my $fig (qw(mean ops p99)) {
        my $w = ratio($est{A}{$fig}, $est{B}{$fig});
        my $c = row($html, 'verdict-ratios', "data-b=\"B\" data-a=\"A\" data-fig=\"$fig\"");
        ok(near($c->{ratio}{v}, $w->[0]), "runs: B/A $fig ratio $c->{ratio}{v} = $w->[0]");
        ok(defined $w->[1] ? near($c->{ratio}{lo}, $w->[1]) && near($c->{ratio}{hi}, $w->[2]) : !defined $c->{ratio}{lo},
            "runs: B/A $fig interval " . ($c->{ratio}{lo} // '-') . ' to ' . ($c->{ratio}{hi} // '-'));
        is($c->{significant}{text}, $w->[3], "runs: B/A $fig significant: $w->[3]");
    }
    # timestamp mode: the mean latency decides; the headline says it
    my $w = ratio($est{A}{mean}, $est{B}{mean});
    my $x = sprintf('%.3g', $w->[0]);
    my @ra = map { $_->{req} } grep { !@{ $_->{why} } } @{ $f{A} };
    my $req = sprintf('%.0f', sum0(@ra) / @ra);
    like($txt, qr/^Verdict\n.*B's mean latency at \Q$req\E ops\/s asked \(x0\.0625 the trace's pace\) is \Q$x\E× A's/m,
        "runs: the text's headline gives the load asked of A ($req ops/s) and the ratio $x");
    like($txt, $w->[3] eq 'yes' ? qr/^Verdict\n[^\n]*a significant difference/m : qr/^Verdict\nNo significant difference/m,
        "runs: the headline says significant: $w->[3]");
    my @bad = grep { @{ $_->{why} } } @{ $f{A} }, @{ $f{B} };
    like($txt, qr/\Q${\ scalar @bad} of 6 runs invalid, left out\E/, 'runs: the verdict says how many runs it left out') if @bad;
}

# ---- a sweep --------------------------------------------------------------------------------
{
    my %f = map { $_ => [sort { $a->{speedup} <=> $b->{speedup} } load("$IN/sweep", $_)] } qw(A B);
    my ($html, $txt) = report('sweep', '--p99-limit', 50, '--latency-from', 'send', map { $_->{file} } @{ $f{A} }, @{ $f{B} });
    my %peak;
    for my $s (qw(A B)) {
        my @pts = @{ $f{$s} };
        my @ok  = grep { !@{ $_->{why} } && $_->{p99} <= 50 } @pts;
        my ($p) = sort { $b->{ops} <=> $a->{ops} } @ok;
        ok($p, "sweep: $s has a peak") or next;
        $peak{$s} = $p;
        my ($top) = sort { $b->{ops} <=> $a->{ops} } @pts;
        note("sweep: $s peak at x$p->{speedup} ($p->{ops} ops/s); most throughput at x$top->{speedup} ($top->{ops})");
        my $c = row($html, 'verdict-servers', "data-server=\"$s\"");
        ok(near($c->{speedup}{v}, $p->{speedup}), "sweep: ${s}'s peak at speedup $p->{speedup}");
        ok(near($c->{ops}{v}, $p->{ops}), "sweep: ${s}'s peak throughput $p->{ops} ops/s");
        ok(near($c->{requested}{v}, $p->{req}), "sweep: ${s}'s peak was asked $p->{req} ops/s");
        ok(near($c->{p99_ms}{v}, $p->{p99}), "sweep: ${s}'s p99 at the peak $p->{p99} ms");
        ok(near($c->{mean_ms}{v}, $p->{mean}), "sweep: ${s}'s mean latency at the peak $p->{mean} ms");
        # SPEC's overall response time: area under mean latency against
        # throughput, flat from 0 to the first valid point, to the peak
        my @c = sort { $a->{ops} <=> $b->{ops} }
          grep { !@{ $_->{why} } && $_->{speedup} <= $p->{speedup} && $_->{ops} <= $p->{ops} } @pts;
        my $area = $c[0]{ops} * $c[0]{mean};
        $area += ($c[$_]{ops} - $c[ $_ - 1 ]{ops}) * ($c[$_]{mean} + $c[ $_ - 1 ]{mean}) / 2 for 1 .. $#c;
        ok(near($c->{ort_ms}{v}, $area / $p->{ops}), "sweep: ${s}'s overall response time " . $area / $p->{ops} . ' ms');
        for my $q (@pts) {
            my ($tr) = $html =~ /<tr data-server="$s" data-speedup="[^"]*" data-peak="(yes|no)"(?: class="invalid")?><td>[^\n]*?data-m="speedup" data-v="\Q${\ sprintf('%.6f', $q->{speedup})}\E"/;
            is($tr, $q == $p ? 'yes' : 'no', "sweep: $s x$q->{speedup} " . ($q == $p ? 'is' : 'is not') . ' the peak');
        }
    }
    my ($ea, $eb) = map { my $e = est(@{ $peak{$_}{secs} }); [$peak{$_}{ops}, $e->[1], $e->[2]] } qw(A B);
    my $w = ratio($ea, $eb);
    my $c = row($html, 'verdict-ratios', 'data-b="B" data-a="A" data-fig="ops"');
    ok(near($c->{ratio}{v}, $w->[0]), "sweep: B/A peak ratio $w->[0]");
    ok(near($c->{ratio}{lo}, $w->[1]) && near($c->{ratio}{hi}, $w->[2]),
        "sweep: its interval from the peak runs' one-second intervals: $w->[1] to $w->[2]");
    is($c->{significant}{text}, $w->[3], "sweep: significant: $w->[3]");
    like($html, qr/<p id="ort-definition"><b>Overall response time<\/b>: the area under the curve of mean latency against achieved throughput/,
        'sweep: the page defines the overall response time');
    like($txt, qr/^Verdict\nA sustains more load: B's peak throughput within the p99 limit of 50 ms is/m,
        'sweep: the text leads with who sustains more');
}

done_testing();
