#!/usr/bin/perl
# tests/report/report.t -- tbbt-report on real tbbt-play results: every
# output and every section is there, and every figure of the CSV and of the
# HTML page equals the figure this test computes from the JSON on its own
# (per-run figures straight from the documents, "all" from the procedures'
# histogram buckets merged here with hist.h's bucket bounds, repeated runs'
# means and 95% intervals with a Student t table typed in here, ratios,
# the better server and the significance rule as the page states it).
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
    9 => 2.262, 10 => 2.228);

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
            push @g, {label => chr(65 + @g), server => $j->{meta}{server}, runs => [], exp => []};
            $g[-1];
        };
        push @{ $g->{runs} }, $f;
        push @{ $g->{exp} }, run_expect($j);
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

# cmp_expect(A, B, KEY, METRIC): [ratio, better, significant] as the page
# states the rule: ratio B/A; better = lower latency, higher ops/s and
# match rate; significant only when both have >= 2 runs and the 95%
# intervals do not overlap ("unknown" with a single run on either side).
sub cmp_expect {
    my ($a, $b, $k, $m) = @_;
    my ($x, $y) = ($a->{fig}{$k}{$m}, $b->{fig}{$k}{$m});
    return undef unless $x && $y;
    my $better = $x->[0] == $y->[0] ? 'same'
      : ($LOWER{$m} ? $y->[0] < $x->[0] : $y->[0] > $x->[0]) ? $b->{label} : $a->{label};
    my $sig = $x->[2] < 2 || $y->[2] < 2 ? 'unknown'
      : ($x->[0] + $x->[1] < $y->[0] - $y->[1] || $y->[0] + $y->[1] < $x->[0] - $x->[1]) ? 'yes' : 'no';
    return [$x->[0] ? $y->[0] / $x->[0] : undef, $better, $sig];
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

    # text sections
    like($txt, qr/^Runs\n/m, "$name: text has the runs");
    # the runs share trace, image and settings (all inputs here do); a run
    # is flagged only when partial or above 0.1% mismatched + skipped
    my @flag = grep {
        my $t = $_->{json}{totals};
        $_->{json}{meta}{partial} || ($t->{mismatched} + $t->{skipped}) > 0.001 * $t->{records}
    } @$runs;
    if (!@flag) {
        like($txt, qr/^Warnings\nnone: the runs are comparable\n/m, "$name: text says the runs are comparable");
        like($html, qr/<p class="ok">No warning/, "$name: page says there is no warning");
        unlike($html, qr/<li class="warning">/, "$name: page lists no warning");
    }
    for my $r (@flag) {
        like($txt, qr/^WARNING: \Q$r->{label} ($r->{file})\E/m, "$name: text flags $r->{label}");
        like($html, qr/<li class="warning">\Q$r->{label} ($r->{file})\E/, "$name: page flags $r->{label}");
    }
    my $nwarn = () = $html =~ /<li class="warning">/g;
    is($nwarn, scalar @flag, "$name: as many warnings as flagged runs (" . scalar @flag . ")");
    like($txt, qr/^\Q$_->{label}#\E\d+\s/m, "$name: text lists $_->{label}'s runs") for @$groups;
    like($txt, qr/^Figures of \Q$_->{label}: $_->{server}\E/m, "$name: text has $_->{label}'s figures") for @$groups;
    like($txt, qr/^Comparison: \Q$_->{label}\E against A/m, "$name: text compares $_->{label} with A")
      for @$groups[1 .. $#$groups];
    if ($one) {
        like($txt, qr/one run each: no spread known/, "$name: text says plainly one run each: no spread known");
        like($html, qr/one run each: no spread known/, "$name: page says plainly one run each: no spread known");
    } else {
        like($txt, qr/95% confidence interval \(Student t\)/, "$name: text says what the ± is");
    }
    like($html, qr/significant<\/em> only when both servers have two or more runs and their 95% confidence intervals do not overlap/,
        "$name: the page states the significance rule");

    # text rows: the "all" row of each server holds its figures
    for my $g (@$groups) {
        my ($block) = $txt =~ /^Figures of \Q$g->{label}\E:.*?\n(.*?)(?:\n\n|\z)/ms;
        my ($row) = ($block // '') =~ /^all\s+(.*)$/m;
        my $want = sprintf('%.3f', $g->{fig}{all}{p99_ms}[0]);
        like($row // '', qr/(?:^|\s)\Q$want\E(?:\s|$)/, "$name: text's $g->{label} all row shows p99 $want ms");
    }

    # HTML sections, plots, self-contained
    like($html, qr/<section id="$_"/, "$name: page has section $_") for qw(runs warnings method comparison plots);
    like($html, qr/<section id="figures-$_->{label}"/, "$name: page has $_->{label}'s figures") for @$groups;
    unlike($html, qr/https?:\/\//i, "$name: page names no URL (opens with no network)");
    unlike($html, qr/<(?:script|link|img|iframe|object)\b/i, "$name: page loads nothing and runs no script");
    unlike($html, qr/\ssrc=/i, "$name: page has no src attribute");
    my @rows = $html =~ /<table id="runs-meta">(.*?)<\/table>/s ? ($1 =~ /<tr data-run="/g) : ();
    is(scalar @rows, scalar @files, "$name: the runs table has one row per file");
    for my $r (@$runs) {
        my ($tr) = $html =~ /<table id="runs-meta">.*?<tr data-run="\Q$r->{label}\E">(.*?)<\/tr>/s;
        ok(defined $tr && index($tr, $r->{json}{meta}{started}) >= 0 && index($tr, $r->{json}{meta}{trace}) >= 0
              && index($tr, $r->{json}{meta}{order}) >= 0,
            "$name: $r->{label}'s metadata (trace, order, start) in the header");
        my ($tt) = $html =~ /<table id="runs-totals">.*?<tr data-run="\Q$r->{label}\E">(.*?)<\/tr>/s;
        my %v = ($tt // '') =~ /data-m="(\w+)" data-v="([^"]*)"/g;
        my @bad = grep { !near($v{$_}, $r->{json}{totals}{$_}, 0) } qw(records sent replies matched mismatched skipped timeouts wall_s ops_per_s);
        is("@bad", '', "$name: $r->{label}'s totals in the page equal the JSON's");
    }
    if ($HAVE_GNUPLOT) {
        my @plots = ('cdf-all', 'throughput', 'latency-time', 'outstanding');
        push @plots, 'issue-error' if grep { $_->{json}{issue_error_ns}{n} } @$runs;
        for my $g (@$groups) {
            push @plots, map { my $k = $_; $k =~ s/ /-/; "cdf-$k" } grep { $_ ne 'all' && defined $g->{fig}{$_}{p50_ms} } @{ $g->{keys} };
        }
        my %uniq = map { $_ => 1 } @plots;
        for my $p (sort keys %uniq) {
            like($html, qr/<figure id="plot-\Q$p\E">\s*<svg\b[^>]*>.*?<path\b.*?<\/svg>/s, "$name: plot $p inline as SVG");
            my $png = "$dir/$p.png";
            my $sig = -s $png ? do { open(my $fh, '<:raw', $png); read($fh, my $b, 8); $b } : '';
            is($sig, "\x89PNG\r\n\x1a\n", "$name: $p.png beside the page");
        }
        my $nsvg = () = $html =~ /<svg\b/g;
        is($nsvg, scalar keys %uniq, "$name: one SVG per plot");
        my %ids;
        $ids{$_}++ for $html =~ /\sid=["']([^"']+)["']/g;
        is(join(' ', grep { $ids{$_} > 1 } sort keys %ids), '', "$name: no id used twice in the page");
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
            for my $m (keys %DEC) {
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
            for my $m (qw(ops_s mean_ms p99_ms)) {
                my $x = cmp_expect($a, $b, $k, $m) or next;
                my $c = $cells->{$k};
                push @bad, "$k $m ratio" unless defined $x->[0] ? near($c->{"${m}_ratio"}[0]{v}, $x->[0], 1e-6)
                  && near($c->{"${m}_ratio"}[0]{text}, $x->[0], 0.0005) : 1;
                push @bad, "$k $m better '$c->{\"${m}_better\"}[0]{text}' want $x->[1]"
                  unless ($c->{"${m}_better"}[0]{text} // '') eq $x->[1];
                push @bad, "$k $m significant" unless ($c->{"${m}_significant"}[0]{text} // '') eq $x->[2];
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
}

done_testing();
