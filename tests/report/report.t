#!/usr/bin/perl
# tests/report/report.t -- tbbt-report on real tbbt-play results: every
# output and every section is there, and every figure of the CSV and of the
# HTML page equals the figure this test computes from the JSON on its own
# (per-run figures straight from the documents, "all" from the procedures'
# histogram buckets merged here with hist.h's bucket bounds, repeated runs'
# means and 95% intervals with a Student t table typed in here, ratios with
# their intervals, the better server and the significance rule as the page
# states it). The fixtures' runs (7 s each) are all too short to be valid:
# the page says so run by run and gives no verdict, and its figures then
# describe every run.
#
# Inputs: the fixtures tests/data/play-{A,B}-*.json (two ganesha servers,
# three runs each) as "one run each" (A-1, B-1) and as repeated runs (all
# six); or, when TBBT_REPORT_INPUTS is set (tests/e2e/report_ganesha.sh),
# those files only. TBBT_REPORT_KEEP=DIR keeps the outputs in DIR.
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
my $DATA   = "$SRC/tests/data";
my $HAVE_GNUPLOT = grep { -x "$_/gnuplot" } split /:/, $ENV{PATH};

binmode(Test::More->builder->$_, ':encoding(UTF-8)') for qw(output failure_output todo_output);

# slurp(FILE): the file's text (UTF-8).
sub slurp {
    my ($f) = @_;
    open(my $fh, '<:encoding(UTF-8)', $f) or return undef;
    local $/;
    return scalar <$fh>;
}

# run_report(DIR, ARGS): runs tbbt-report -o DIR ARGS; (exit code, stdout, stderr).
sub run_report {
    my ($dir, @args) = @_;
    my $q = join ' ', map { quotemeta } 'perl', $REPORT, '-o', $dir, @args;
    my $out = `$q 2>'$dir.err'`;
    utf8::decode($out);
    return ($? >> 8, $out, slurp("$dir.err") // '');
}

# ---- the figures, computed here ----------------------------------------

# bounds(I): values [lo, hi] of histogram bucket I, as hist.h describes
# them: one bucket per value below 128, then 128 equal buckets per power of
# two.
sub bounds {
    my ($i) = @_;
    return ($i, $i) if $i < 128;
    my $e = 7 + int(($i - 128) / 128);
    my $w = 2**($e - 7);
    my $lo = 2**$e + ($i % 128) * $w;
    return ($lo, $lo + $w - 1);
}

# quantile(BUCKETS, N, MIN, MAX, Q): the middle of the bucket holding the
# value of rank floor(Q*N), clamped to [MIN, MAX].
sub quantile {
    my ($bk, $n, $min, $max, $q) = @_;
    my $rank = int($q * $n);
    $rank = $n - 1 if $rank >= $n;
    my $seen = 0;
    for my $i (sort { $a <=> $b } keys %$bk) {
        $seen += $bk->{$i};
        next if $seen <= $rank;
        my ($lo, $hi) = bounds($i);
        my $mid = $lo + int(($hi - $lo) / 2);
        return $mid < $min ? $min : $mid > $max ? $max : $mid;
    }
    return $max;
}

# run_expect(J): {key => {metric => value}} of one result.
sub run_expect {
    my ($j) = @_;
    my $t = $j->{totals};
    my %e;
    my (%b, $n, $sum, $min, $max);
    my (%sb, $sn, $ssum, $smin, $smax);    # latency from the scheduled send
    for my $p (@{ $j->{procedures} }) {
        my $h = $p->{latency_ns};
        my %r = (
            count     => $p->{count},
            ops_s     => $p->{count} / $t->{wall_s},
            match_pct => 100 * $p->{matched} / $p->{count},
        );
        my $sh = $p->{latency_from_schedule_ns};
        if ($sh && $sh->{n}) {
            $r{sched_mean_ms} = $sh->{mean} / 1e6;
            $r{sched_p99_ms}  = $sh->{p99} / 1e6;
            $sn += $sh->{n};
            $ssum += $sh->{mean} * $sh->{n};
            $smin = $sh->{min} if !defined $smin || $sh->{min} < $smin;
            $smax = $sh->{max} if !defined $smax || $sh->{max} > $smax;
            $sb{ $_->[0] } += $_->[1] for @{ $sh->{buckets} };
        }
        if ($h->{n}) {
            $r{mean_ms} = $h->{mean} / 1e6;
            $r{"${_}_ms"} = $h->{$_} / 1e6 for qw(p50 p90 p99 p999);
            $n += $h->{n};
            $sum += $h->{mean} * $h->{n};
            $min = $h->{min} if !defined $min || $h->{min} < $min;
            $max = $h->{max} if !defined $max || $h->{max} > $max;
            $b{ $_->[0] } += $_->[1] for @{ $h->{buckets} };
        }
        $e{"v$p->{vers} $p->{proc}"} = \%r;
    }
    $e{all} = {
        count     => sum0(map { $_->{count} } @{ $j->{procedures} }),
        ops_s     => $t->{ops_per_s},
        match_pct => 100 * $t->{matched} / $t->{records},
        mean_ms   => $sum / $n / 1e6,
        p50_ms    => quantile(\%b, $n, $min, $max, .5) / 1e6,
        p90_ms    => quantile(\%b, $n, $min, $max, .9) / 1e6,
        p99_ms    => quantile(\%b, $n, $min, $max, .99) / 1e6,
        p999_ms   => quantile(\%b, $n, $min, $max, .999) / 1e6,
        $sn ? (sched_mean_ms => $ssum / $sn / 1e6, sched_p99_ms => quantile(\%sb, $sn, $smin, $smax, .99) / 1e6) : (),
    };
    return \%e;
}

# Student t, 97.5% quantile, by degrees of freedom (any table of it).
my %T = (1 => 12.706, 2 => 4.303, 3 => 3.182, 4 => 2.776, 5 => 2.571, 6 => 2.447, 7 => 2.365, 8 => 2.306,
    9 => 2.262, 10 => 2.228, 11 => 2.201, 12 => 2.179, 13 => 2.160, 14 => 2.145, 15 => 2.131, 16 => 2.120,
    17 => 2.110, 18 => 2.101, 19 => 2.093, 20 => 2.086, 21 => 2.080, 22 => 2.074, 23 => 2.069, 24 => 2.064,
    25 => 2.060, 26 => 2.056, 27 => 2.052, 28 => 2.048, 29 => 2.045, 30 => 2.042);

# meanci(VALUES): [mean, 95% CI half-width or undef, n].
sub meanci {
    my @v = @_;
    my $m = sum0(@v) / @v;
    return [$m, undef, 1] if @v == 1;
    die "no t for df " . (@v - 1) unless $T{ @v - 1 };
    my $sd = sqrt(sum0(map { ($_ - $m)**2 } @v) / (@v - 1));
    return [$m, $T{ @v - 1 } * $sd / sqrt(@v), scalar @v];
}

# expect(FILES): (groups, runs): groups in first-seen order, each {label,
# server, runs => [files], keys => [...], fig => {key => {metric => [mean,
# ci, n]}}}.
sub expect {
    my @files = @_;
    my (@g, %by, @runs);
    for my $f (@files) {
        my $j = JSON::PP->new->utf8->decode(do { open(my $fh, '<:raw', $f) or die "$f: $!"; local $/; <$fh> });
        my $k = "$j->{meta}{server}\0$j->{meta}{run}";
        my $g = $by{$k} //= do {
            push @g, {label => chr(65 + @g), server => $j->{meta}{server}, runs => [], exp => [], jsons => []};
            $g[-1];
        };
        push @{ $g->{runs} }, $f;
        push @{ $g->{exp} }, run_expect($j);
        push @{ $g->{jsons} }, $j;
        push @runs, {file => $f, json => $j, label => "$g->{label}#" . scalar @{ $g->{runs} }};
    }
    for my $g (@g) {
        my %keys = map { %$_ } @{ $g->{exp} };
        $g->{keys} = [sort keys %keys];
        for my $k (@{ $g->{keys} }) {
            for my $m (qw(count ops_s mean_ms p50_ms p90_ms p99_ms p999_ms match_pct sched_mean_ms sched_p99_ms)) {
                my @v = grep { defined } map { $_->{$k} && $_->{$k}{$m} } @{ $g->{exp} };
                $g->{fig}{$k}{$m} = meanci(@v) if @v;
            }
        }
    }
    return (\@g, \@runs);
}

my %LOWER = map { $_ => 1 } qw(mean_ms p50_ms p90_ms p99_ms p999_ms sched_mean_ms sched_p99_ms);

# t97(DF): Student t's 97.5% quantile, a fractional df rounded down.
sub t97 {
    my $d = int($_[0]);
    return $T{$d} if $T{$d};
    return $d >= 1000 ? 1.960 : $d >= 120 ? 1.980 : $d >= 60 ? 2.000 : $d >= 40 ? 2.021 : $d >= 30 ? 2.042 : 12.706;
}

# est(VALUES): [mean, standard error or undef, df].
sub est {
    my @v = @_;
    my $m = sum0(@v) / @v;
    return [$m, undef, 0] if @v < 2;
    my $sd = sqrt(sum0(map { ($_ - $m)**2 } @v) / (@v - 1));
    return [$m, $sd / sqrt(@v), @v - 1];
}

# est_requests(G, KEY): [mean ms, se, df] over one run's requests of a
# procedure: the merged buckets, each value at its bucket's middle.
sub est_requests {
    my ($g, $k) = @_;
    my (%b, $n, $sum);
    for my $j (@{ $g->{jsons} }) {
        for my $p (@{ $j->{procedures} }) {
            next unless $k eq 'all' || "v$p->{vers} $p->{proc}" eq $k;
            my $h = $p->{latency_ns};
            next unless $h->{n};
            $n += $h->{n};
            $sum += $h->{mean} * $h->{n};
            $b{ $_->[0] } += $_->[1] for @{ $h->{buckets} };
        }
    }
    return undef unless $n && $n > 1;
    my $m = $sum / $n;
    my $ss = 0;
    for my $i (keys %b) {
        my ($lo, $hi) = bounds($i);
        $ss += $b{$i} * (($lo + $hi) / 2 - $m)**2;
    }
    return [$m / 1e6, sqrt($ss / ($n - 1)) / 1e6 / sqrt($n), $n - 1];
}

# est_seconds(J): [mean, se, df] of one run's replies per whole second,
# from its first second with a reply.
sub est_seconds {
    my ($j) = @_;
    my $whole = int($j->{totals}{wall_s});
    my @d = (0) x $whole;
    $d[ $_->{t} ] = $_->{done} for grep { $_->{t} < $whole } @{ $j->{series} };
    shift @d while @d && !$d[0];
    return @d ? est(@d) : undef;
}

# whole_seconds(J): the whole one-second intervals a run measured: from
# its first second with a reply to its last whole second.
sub whole_seconds {
    my ($j) = @_;
    my $whole = int($j->{totals}{wall_s});
    my @d = (0) x $whole;
    $d[ $_->{t} ] = $_->{done} for grep { $_->{t} < $whole } @{ $j->{series} };
    shift @d while @d && !$d[0];
    return scalar @d;
}

# cmp_expect(A, B, KEY, METRIC): [ratio, better, significant, lo, hi] as
# the page states the rule: ratio B/A; better = lower latency, higher
# ops/s and match rate; the ratio's 95% interval on the log scale (the
# relative standard errors combined, Welch's df), significant when it
# leaves out 1. Over the runs with two or more a side; with one run, the
# mean latency over its requests, the overall ops/s over its seconds;
# else "unknown".
sub cmp_expect {
    my ($a, $b, $k, $m) = @_;
    my ($x, $y) = ($a->{fig}{$k}{$m}, $b->{fig}{$k}{$m});
    return undef unless $x && $y;
    my $better = $x->[0] == $y->[0] ? 'same'
      : ($LOWER{$m} ? $y->[0] < $x->[0] : $y->[0] > $x->[0]) ? $b->{label} : $a->{label};
    my $ratio = $x->[0] ? $y->[0] / $x->[0] : undef;
    return [$ratio, $better, '-'] unless $ratio;
    my $side = sub {
        my ($g) = @_;
        my @v = grep { defined } map { $_->{$k} && $_->{$k}{$m} } @{ $g->{exp} };
        return est(@v) if @v > 1;
        if ($m eq 'mean_ms') {
            my $e = est_requests($g, $k);
            return $e ? [$v[0], $e->[1], $e->[2]] : est(@v);
        }
        if ($m eq 'ops_s' && $k eq 'all') {
            my $e = est_seconds($g->{jsons}[0]);
            return $e ? [$v[0], $e->[1], $e->[2]] : est(@v);
        }
        return est(@v);
    };
    my ($ea, $eb) = ($side->($a), $side->($b));
    return [$ratio, $better, 'unknown'] unless defined $ea->[1] && defined $eb->[1] && $ea->[0] > 0 && $eb->[0] > 0;
    my ($va, $vb) = (($ea->[1] / $ea->[0])**2, ($eb->[1] / $eb->[0])**2);
    return [$ratio, $better, $ratio == 1 ? 'no' : 'yes', $ratio, $ratio] if $va + $vb == 0;    # no spread at all
    my $df = ($va + $vb)**2 / ($va**2 / $ea->[2] + $vb**2 / $eb->[2]);
    my $hw = t97($df) * sqrt($va + $vb);
    my ($lo, $hi) = ($ratio * exp(-$hw), $ratio * exp($hw));
    return [$ratio, $better, ($lo > 1 || $hi < 1) ? 'yes' : 'no', $lo, $hi];
}

# ---- reading the outputs -------------------------------------------------

# csv_rows(TEXT): (header, rows as hashes) of a CSV text.
sub csv_rows {
    my ($text) = @_;
    my @lines = split /\n/, $text;
    my $split = sub {
        my ($l) = @_;
        my @f;
        while ($l =~ /\G(?:"((?:[^"]|"")*)"|([^,]*))(,|$)/g) {
            my $v = defined $1 ? $1 =~ s/""/"/gr : $2;
            push @f, $v;
            last if $3 eq '';
        }
        return @f;
    };
    my @h = $split->(shift @lines);
    return (\@h, map { my @f = $split->($_); my %r; @r{@h} = @f; \%r } @lines);
}

# near(GOT, WANT, TOL): numeric equality within TOL (and both defined).
sub near {
    my ($got, $want, $tol) = @_;
    return 0 unless defined $got && defined $want && $got =~ /^-?[\d.]+(?:e[-+]?\d+)?$/i;
    return abs($got - $want) <= $tol + 1e-12 * abs($want);
}

my %DEC = (count => 0, ops_s => 1, mean_ms => 3, p50_ms => 3, p90_ms => 3, p99_ms => 3, p999_ms => 3,
    match_pct => 3, sched_mean_ms => 3, sched_p99_ms => 3);

# html_cells(HTML, TABLE-RE): {proc => {metric => {v, ci, text}}} of the
# <td data-m> cells of the tables whose opening tag matches TABLE-RE.
sub html_cells {
    my ($html, $re) = @_;
    my %c;
    while ($html =~ /<table $re>(.*?)<\/table>/gs) {
        my $t = $1;
        while ($t =~ /<tr data-proc="([^"]+)">(.*?)<\/tr>/gs) {
            my ($k, $row) = ($1, $2);
            while ($row =~ /<td class="[^"]*" data-m="(\w+)"((?: data-\w+="[^"]*")*)>([^<]*)<\/td>/g) {
                my ($m, $attrs, $text) = ($1, $2, $3);
                my %a = $attrs =~ /data-(\w+)="([^"]*)"/g;
                push @{ $c{$k}{$m} }, {%a, text => $text};
            }
        }
    }
    return \%c;
}

# ---- the checks ---------------------------------------------------------

# check_report(NAME, FILES): runs tbbt-report on FILES and checks it all.
sub check_report {
    my ($name, @files) = @_;
    my ($groups, $runs) = expect(@files);
    my $dir = $ENV{TBBT_REPORT_KEEP} ? "$ENV{TBBT_REPORT_KEEP}/$name" : tempdir(CLEANUP => 1) . "/out";
    my ($rc, $out, $err) = run_report($dir, @files);
    is($rc, 0, "$name: exit 0") or diag($err);
    my $txt  = slurp("$dir/report.txt")  // '';
    my $html = slurp("$dir/report.html") // '';
    my $csv  = slurp("$dir/report.csv")  // '';
    ok(length $txt && length $html && length $csv, "$name: report.txt, report.html and report.csv written");
    is($out, $txt, "$name: the text report is printed as written");
    my $one = !grep { @{ $_->{runs} } > 1 } @$groups;

    # validity: the fixtures' runs last 7 s: too short, every one (the
    # rule the page states: 10 whole one-second intervals); none else
    my %short = map { ($_->{label} => (whole_seconds($_->{json}) < 10 ? 1 : 0)) } @$runs;
    my @vrows = $html =~ /<tr data-run="([^"]+)" data-valid="(yes|no)"/g;
    my %valid = @vrows;
    is(scalar(keys %valid), scalar @$runs, "$name: the validity table has one row per run");
    is(join(' ', map { "$_->{label}=" . ($valid{ $_->{label} } // '?') } @$runs),
        join(' ', map { "$_->{label}=" . ($short{ $_->{label} } ? 'no' : 'yes') } @$runs),
        "$name: each run valid or not as its length says");
    for my $r (grep { $short{ $_->{label} } } @$runs) {
        my ($row) = $html =~ /<tr data-run="\Q$r->{label}\E"[^>]*>(.*?)<\/tr>/s;
        like($row // '', qr/<span class="reason" data-code="short">too short: [\d.]+ s measured, \d whole one-second intervals?; a run must last at least 10 s/,
            "$name: $r->{label} is flagged too short, with the length it needs");
        like($txt, qr/^INVALID \Q$r->{label}\E: too short/m, "$name: the text flags $r->{label}");
    }
    unlike($html, qr/<span class="reason" data-code="(?!short)\w+"/, "$name: no other reason (same trace, image, settings; all matched)");
    if (!grep { !$short{$_} } keys %short) {
        like($txt, qr/^Verdict\n(?:One server only|No verdict: fewer than two servers have a valid run)/m,
            "$name: no verdict from invalid runs");
        like($html, qr/<div id="trust" class="warn">/, "$name: the page says not to trust it");
        like($html, qr/no valid run of [A-Z, ]+: the figures below describe all of its runs/, "$name: the figures say they cover invalid runs");
    }

    # text sections, in order
    my @order = ('Verdict', 'Validity', 'Procedure mix', ($#$groups ? 'Comparison: B against A' : ()), 'Figures of A', 'Runs in detail');
    my $re = join('.*', map { "^\Q$_\E" } @order);
    like($txt, qr/$re/ms, "$name: text sections in order: @order");
    like($txt, qr/^\Q$_->{label}#\E\d+\s/m, "$name: text lists $_->{label}'s runs") for @$groups;
    like($txt, qr/^Figures of \Q$_->{label}: $_->{server}\E/m, "$name: text has $_->{label}'s figures") for @$groups;
    if ($one) {
        like($txt, qr/one run each: no spread known/, "$name: text says plainly one run each: no spread known");
        like($html, qr/one run each: no spread known/i, "$name: page says plainly one run each: no spread known");
    } else {
        like($txt, qr/95% confidence interval \(Student t\)/, "$name: text says what the ± is");
    }
    like($html, qr/a difference is significant when that interval leaves out 1/, "$name: the page states the significance rule");

    # text rows: the "all" row of each server holds its figures
    for my $g (@$groups) {
        my ($block) = $txt =~ /^Figures of \Q$g->{label}\E:.*?\n(.*?)(?:\n\n|\z)/ms;
        my ($row) = ($block // '') =~ /^all\s+(.*)$/m;
        my $want = sprintf('%.3f', $g->{fig}{all}{p99_ms}[0]);
        like($row // '', qr/(?:^|\s)\Q$want\E(?:\s|$)/, "$name: text's $g->{label} all row shows p99 $want ms");
    }

    # HTML sections (the verdict first), plots, self-contained
    my @sec = $html =~ /<section id="([\w-]+)"/g;
    my $load = grep { ref $_->{json}{load} eq 'HASH' } @$runs; # tbbt-play's load against the trace, a detail
    is(join(' ', @sec), 'verdict validity mix comparison plots figures' . ($load ? ' load' : '') . ' method',
        "$name: page sections, the verdict first");
    like($html, qr/<details id="figures-$_->{label}" class="figures">/, "$name: page has $_->{label}'s figures, collapsed") for @$groups;
    unlike($html, qr/https?:\/\//i, "$name: page names no URL (opens with no network)");
    unlike($html, qr/<(?:script|link|img|iframe|object)\b/i, "$name: page loads nothing and runs no script");
    unlike($html, qr/\ssrc=/i, "$name: page has no src attribute");
    my @cards = $html =~ /<div class="card" data-run="/g;
    is(scalar @cards, scalar @files, "$name: the run details have one card per file");
    for my $r (@$runs) {
        my ($card) = $html =~ /<div class="card" data-run="\Q$r->{label}\E">(.*?)<\/table><\/div>/s;
        ok(defined $card && index($card, $r->{json}{meta}{started}) >= 0 && index($card, $r->{json}{meta}{trace}) >= 0
              && index($card, $r->{json}{meta}{order}) >= 0,
            "$name: $r->{label}'s metadata (trace, order, start) in its card");
        my %v = ($card // '') =~ /data-m="(\w+)" data-v="([^"]*)"/g;
        my @bad = grep { !near($v{$_}, $r->{json}{totals}{$_}, 0) } qw(records sent replies matched mismatched skipped timeouts wall_s ops_per_s);
        is("@bad", '', "$name: $r->{label}'s totals in the page equal the JSON's");
    }
    # the mix: count and share per procedure, no per-procedure ops/s
    for my $g (@$groups) {
        my @bad;
        my $all = $g->{fig}{all}{count}[0];
        for my $k (grep { $_ ne 'all' } @{ $g->{keys} }) {
            my ($row) = $html =~ /<table id="mix-table">.*?<tr data-proc="\Q$k\E">(.*?)<\/tr>/s;
            my @c = ($row // '') =~ /data-m="count" data-v="([^"]*)".*?data-m="share" data-v="([^"]*)"/g;
            my $i = 2 * (ord($g->{label}) - 65);
            push @bad, "$k count $c[$i]" unless near($c[$i], $g->{fig}{$k}{count}[0], 1e-3);
            push @bad, "$k share $c[$i+1]" unless near($c[ $i + 1 ], $g->{fig}{$k}{count}[0] / $all, 1e-6);
        }
        is(join("\n", @bad), '', "$name: the mix of $g->{label} (count, share) equals the JSON's");
    }
    my @proc_tables = $html =~ /(<table class="(?:figures|comparison)".*?<\/table>)/gs;
    ok(@proc_tables && !grep({ /ops\/s/ } @proc_tables), "$name: no per-procedure ops/s column on the page");
    if ($HAVE_GNUPLOT) {
        my @plots = ('cdf-all', 'throughput', 'latency-time', 'outstanding');
        push @plots, 'issue-error' if grep { $_->{json}{issue_error_ns}{n} } @$runs;
        for my $g (@$groups) {
            push @plots, map { my $k = $_; $k =~ s/ /-/; "cdf-$k" } grep { $_ ne 'all' && defined $g->{fig}{$_}{p50_ms} } @{ $g->{keys} };
        }
        my %uniq = map { $_ => 1 } @plots;
        for my $p (sort keys %uniq) {
            like($html, qr/<figure id="plot-\Q$p\E" class="[^"]*">\s*<svg\b[^>]*>.*?<path\b.*?<\/svg>/s, "$name: plot $p inline as SVG");
            my $png = "$dir/$p.png";
            my $sig = -s $png ? do { open(my $fh, '<:raw', $png); read($fh, my $b, 8); $b } : '';
            is($sig, "\x89PNG\r\n\x1a\n", "$name: $p.png beside the page");
        }
        my $nsvg = () = $html =~ /<svg\b/g;
        is($nsvg, scalar keys %uniq, "$name: one SVG per plot");
        my @small = $html =~ /<figure id="plot-cdf-[^"]+" class="small">/g;
        is(scalar @small, scalar(grep { /^cdf-/ && $_ ne 'cdf-all' } keys %uniq), "$name: per-procedure CDFs as small multiples");
        my %ids;
        $ids{$_}++ for $html =~ /\sid=["']([^"']+)["']/g;
        is(join(' ', grep { $ids{$_} > 1 } sort keys %ids), '', "$name: no id used twice in the page");
        # one colour per server, the same in every plot as in the legend
        my %col = $html =~ /<span class="srv" data-server="([A-Z])"><span class="sw" style="background:(#[0-9A-F]{6})">/g;
        is(scalar keys %col, scalar @$groups, "$name: a colour per server in the legend");
        my @off;
        while ($html =~ /<figure id="plot-cdf-([^"]+)"[^>]*>(.*?)<\/figure>/gs) {
            my ($p, $svg) = ($1, $2);
            my %used = map { s/\s//gr => 1 } $svg =~ /stroke=['"]rgb\(([\d,\s]+)\)['"]/g;
            for my $g (@$groups) {
                my $k = $p eq 'all' ? 'all' : $p =~ s/^v(\d)-/v$1 /r;
                next unless $g->{fig}{$k} && defined $g->{fig}{$k}{p50_ms};
                my $rgb = join(',', map { hex } unpack('(A2)*', substr($col{ $g->{label} } // '#000000', 1)));
                push @off, "cdf-$p lacks $g->{label}'s colour $col{$g->{label}}" unless $used{$rgb};
            }
        }
        is(join("\n", @off), '', "$name: every CDF draws each server in its legend colour");
    }

    # CSV: every figure equals the one computed here
    my ($head, @csv) = csv_rows($csv);
    my $a = $groups->[0];
    for my $g (@$groups) {
        my @mine = grep { $_->{label} eq $g->{label} } @csv;
        is(join(' ', sort map { $_->{proc} eq 'all' ? 'all' : "v$_->{vers} $_->{proc}" } @mine),
            join(' ', sort @{ $g->{keys} }), "$name: CSV has one row per procedure of $g->{label}, and all");
        my @bad;
        for my $r (@mine) {
            my $k = $r->{proc} eq 'all' ? 'all' : "v$r->{vers} $r->{proc}";
            push @bad, "$k server" unless $r->{server} eq $g->{server};
            for my $m (keys %DEC) {
                my $w = $g->{fig}{$k}{$m};
                push @bad, "$k $m=$r->{$m} want " . ($w ? $w->[0] : 'none')
                  unless $w ? near($r->{$m}, $w->[0], 1e-6) : $r->{$m} eq '';
                if ($w && defined $w->[1]) {
                    push @bad, "$k ${m}_ci95=$r->{\"${m}_ci95\"} want $w->[1]" unless near($r->{"${m}_ci95"}, $w->[1], 1e-6);
                } else {
                    push @bad, "$k ${m}_ci95 not empty" unless ($r->{"${m}_ci95"} // '') eq '';
                }
                next if $m eq 'count';
                my $x = $g == $a ? undef : cmp_expect($a, $g, $k, $m);
                if (!$x) {
                    push @bad, "$k ${m}_ratio not empty" if $g == $a && ($r->{"${m}_ratio"} // '') ne '';
                    next;
                }
                push @bad, "$k ${m}_ratio=$r->{\"${m}_ratio\"} want $x->[0]"
                  unless defined $x->[0] ? near($r->{"${m}_ratio"}, $x->[0], 1e-6) : $r->{"${m}_ratio"} eq '';
                push @bad, "$k ${m}_better=$r->{\"${m}_better\"} want $x->[1]" unless $r->{"${m}_better"} eq $x->[1];
                push @bad, "$k ${m}_significant=$r->{\"${m}_significant\"} want $x->[2]"
                  unless $r->{"${m}_significant"} eq $x->[2];
                push @bad, "$k ${m}_ratio_lo/hi=$r->{\"${m}_ratio_lo\"}/$r->{\"${m}_ratio_hi\"} want " . ($x->[3] // '')
                  unless defined $x->[3] ? near($r->{"${m}_ratio_lo"}, $x->[3], 1e-6) && near($r->{"${m}_ratio_hi"}, $x->[4], 1e-6)
                  : $r->{"${m}_ratio_lo"} eq '' && $r->{"${m}_ratio_hi"} eq '';
            }
        }
        is(join("\n", @bad), '', "$name: CSV figures of $g->{label} equal those computed from the JSON");
    }

    # HTML: the figure tables and the comparison tables
    for my $g (@$groups) {
        my $cells = html_cells($html, qr/class="figures" data-group="$g->{label}"/);
        is(join(' ', sort keys %$cells), join(' ', sort @{ $g->{keys} }), "$name: page's table of $g->{label} has every procedure");
        my @bad;
        for my $k (@{ $g->{keys} }) {
            for my $m (grep { $_ ne 'ops_s' } keys %DEC) {
                my $c = $cells->{$k}{$m} && $cells->{$k}{$m}[0];
                my $w = $g->{fig}{$k}{$m};
                if (!$w) {
                    push @bad, "$k $m shown" unless $c && $c->{text} eq '-';
                    next;
                }
                push @bad, "$k $m missing" and next unless $c;
                push @bad, "$k $m data-v=$c->{v} want $w->[0]" unless near($c->{v}, $w->[0], 1e-6);
                my ($shown, $pm) = $c->{text} =~ /^(-?[\d.]+)(?: ±([\d.]+))?$/;
                push @bad, "$k $m shows '$c->{text}' want $w->[0]" unless near($shown, $w->[0], 0.5 * 10**-$DEC{$m});
                if (defined $w->[1] && $m ne 'count') {
                    push @bad, "$k $m ± '$c->{text}' want $w->[1]" unless near($pm, $w->[1], 0.5 * 10**-$DEC{$m});
                } elsif (defined $pm) {
                    push @bad, "$k $m shows a ± with no spread";
                }
            }
        }
        is(join("\n", @bad), '', "$name: page's figures of $g->{label} equal those computed from the JSON");
    }
    for my $b (@$groups[1 .. $#$groups]) {
        my $cells = html_cells($html, qr/class="comparison" data-a="A" data-b="$b->{label}"/);
        my @keys = do { my %s; grep { !$s{$_}++ } @{ $a->{keys} }, @{ $b->{keys} } };
        is(join(' ', sort keys %$cells), join(' ', sort @keys), "$name: page compares every procedure of A and $b->{label}");
        my @bad;
        for my $k (@keys) {
            for my $m (qw(mean_ms p99_ms)) {
                my $x = cmp_expect($a, $b, $k, $m) or next;
                my $c = $cells->{$k};
                push @bad, "$k $m ratio" unless defined $x->[0] ? near($c->{"${m}_ratio"}[0]{v}, $x->[0], 1e-6)
                  && near($c->{"${m}_ratio"}[0]{text}, $x->[0], 0.0005) : 1;
                push @bad, "$k $m interval $c->{\"${m}_ratio\"}[0]{lo}-$c->{\"${m}_ratio\"}[0]{hi} want "
                  . ($x->[3] // '-') . '-' . ($x->[4] // '-')
                  unless defined $x->[3] ? near($c->{"${m}_ratio"}[0]{lo}, $x->[3], 1e-6) && near($c->{"${m}_ratio"}[0]{hi}, $x->[4], 1e-6)
                  : !defined $c->{"${m}_ratio"}[0]{lo};
                push @bad, "$k $m significant '$c->{\"${m}_significant\"}[0]{text}' want $x->[2]"
                  unless ($c->{"${m}_significant"}[0]{text} // '') eq $x->[2];
                push @bad, "$k $m A side" unless near($c->{$m}[0]{v}, $a->{fig}{$k}{$m}[0], 1e-6);
                push @bad, "$k $m B side" unless near($c->{$m}[1]{v}, $b->{fig}{$k}{$m}[0], 1e-6);
            }
        }
        is(join("\n", @bad), '', "$name: page's comparison of $b->{label} with A equals the one computed here");
    }
    return ($groups, $dir);
}

# The JSON's own percentiles agree with its buckets read as hist.h says:
# the CDF plots (drawn from the buckets) and the "all" row rely on it.
sub check_buckets {
    my ($f) = @_;
    my $j = JSON::PP->new->utf8->decode(do { open(my $fh, '<:raw', $f) or die; local $/; <$fh> });
    my @bad;
    for my $p (@{ $j->{procedures} }) {
        for my $which (qw(latency_ns latency_from_schedule_ns)) {
            my $h = $p->{$which};
            next unless $h && $h->{n};
            my %b = map { @$_ } @{ $h->{buckets} };
            push @bad, "v$p->{vers} $p->{proc} $which: bucket total" unless sum0(values %b) == $h->{n};
            for my $q ([p50 => .5], [p90 => .9], [p99 => .99], [p999 => .999]) {
                my $v = quantile(\%b, $h->{n}, $h->{min}, $h->{max}, $q->[1]);
                push @bad, "v$p->{vers} $p->{proc} $which $q->[0]: $v vs $h->{$q->[0]}" unless $v == $h->{ $q->[0] };
            }
        }
    }
    is(join("\n", @bad), '', "$f: every procedure's percentiles follow from its buckets");
}

if ($ENV{TBBT_REPORT_INPUTS}) {
    my @in = split ' ', $ENV{TBBT_REPORT_INPUTS};
    check_buckets($_) for @in;
    my ($g) = check_report('inputs', @in);
    cmp_ok(scalar @$g, '>=', 2, 'the inputs are of two servers or more');
} else {
    my @one = map { "$DATA/play-$_-1.json" } qw(A B);
    my @all = sort glob("$DATA/play-[AB]-*.json");
    is(scalar @all, 6, 'six fixture results') or BAIL_OUT('fixtures missing');
    check_buckets($_) for @all;
    my ($g1) = check_report('one-each', @one);
    is(scalar @$g1, 2, 'one-each: two servers');
    my ($g2) = check_report('repeated', @all);
    is(join(' ', map { scalar @{ $_->{runs} } } @$g2), '3 3', 'repeated: two servers, three runs each');
    # B's repeated runs made four times slower (every procedure's latency
    # figures; the buckets, and so "all", unchanged): the median, stable
    # from run to run, differs beyond the spread and is called significant
    # (the mean, which a few slow requests move, mostly is not)
    my $tmp = tempdir(CLEANUP => 1);
    my @slow;
    for my $f (grep { /play-B-/ } @all) {
        my $j = JSON::PP->new->utf8->decode(do { open(my $fh, '<:raw', $f) or die; local $/; <$fh> });
        for my $p (@{ $j->{procedures} }) {
            $p->{latency_ns}{$_} *= 4 for qw(mean p50 p90 p99 p999);
        }
        (my $n = $f) =~ s/.*\///;
        open(my $fh, '>:raw', "$tmp/$n") or die;
        print $fh JSON::PP->new->utf8->encode($j);
        close $fh;
        push @slow, "$tmp/$n";
    }
    my ($g4, $d4) = check_report('significant', (grep { /play-A-/ } @all), @slow);
    my (undef, @rows) = csv_rows(do { open(my $fh, '<', "$d4/report.csv") or die; local $/; <$fh> });
    my @yes = grep { ($_->{p50_ms_significant} // '') eq 'yes' && $_->{p50_ms_better} eq 'A' } @rows;
    cmp_ok(scalar @yes, '>=', 5, 'significant: B four times slower is significantly worse in median latency for '
          . scalar(@yes) . ' procedures');
    ok(!grep({ ($_->{p50_ms_significant} // '') eq 'yes' && $_->{p50_ms_better} ne 'A' } @rows),
        'significant: never in favour of the slowed server');

    # a single server: no comparison, no error
    my ($g3, $dir) = check_report('single', "$DATA/play-A-1.json", "$DATA/play-A-2.json");
    like(slurp("$dir/report.html"), qr/One server only: nothing to compare/, 'single: the page says there is nothing to compare');
    like(slurp("$dir/report.txt"), qr/^Verdict\nOne server only: nothing to compare\./m, 'single: the verdict says so too');
}

done_testing();
