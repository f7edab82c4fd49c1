package TBBT::Decide;

# TBBT::Decide -- the decision tbbt-report leads with, computed from
# tbbt-play's result documents: which runs can be trusted (validity, SPEC
# style), each server's figures with their 95% intervals, the ratio
# between servers and whether it is significant, the procedures that
# differ, and from a sweep the throughput-latency curve, its peak under
# the latency limit and the overall response time.
#
# Pure computation: no output, no files. tbbt-report formats what it
# returns; tbbt-compare uses the same checks to warn. tests/report/decide.t
# checks every function on made-up inputs; tests/report/verdict.t checks
# the page's numbers against a second computation of its own.
#
# Vocabulary: a run is one result document (tbbt-play --json); a group
# is one server's runs (tbbt-report's grouping); a load point is a
# group's runs at one speedup (a sweep has several per group).

use strict;
use warnings;
use utf8;

use Exporter qw(import);
use File::Basename qw(basename);
use JSON::PP;
use List::Util qw(max min sum0);
use POSIX qw(ceil floor);
use TBBT::Hist qw(hist_merge hist_merge_m hist_quantile hist_mean hist_sd);

our @EXPORT_OK = qw(t975 est_sample est_hist est_batches ratio_ci rel_hw run_view check_run check_settings
  group_cautions sweep_points sweep_peak overall_rt verdict default_limits);

# default_limits(): the thresholds, each overridable by tbbt-report's
# options: the share the achieved rate may fall below the requested one
# (timestamp mode), the status match a valid run needs, the whole
# one-second intervals a run needs, the relative half-width asked of a
# server's 95% interval, the seconds without a reply that make a stall,
# the share of the records a warm-up may take, the p99 limit of a sweep
# and which latency it is measured on (schedule: from the scheduled send
# time; send: from the actual send).
sub default_limits {
    return {
        rate_tol      => 0.05,
        match_min     => 0.999,
        min_intervals => 10,
        ci_target     => 0.05,
        stall_s       => 2,
        warmup_max    => 0.5,
        p99_limit_ms  => 10,
        latency_from  => 'schedule',
    };
}

# ---------------------------------------------------------------------
# Estimates and intervals
# ---------------------------------------------------------------------

# Two-sided 95% quantiles of Student's t by degrees of freedom 1..30.
my @T975 = (
    undef, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
    2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045,
    2.042
);

# t975(DF): the t quantile for DF degrees of freedom (a fractional DF, as
# Welch's gives, is rounded down: the wider interval); 1.96 beyond 1000.
sub t975 {
    my ($df) = @_;
    my $d = floor($df);
    $d = 1 if $d < 1;
    return $T975[$d] if $d <= 30;
    return $d >= 1000 ? 1.960 : $d >= 120 ? 1.980 : $d >= 60 ? 2.000 : $d >= 40 ? 2.021 : 2.042;
}

# est_sample(VALUES): {n, mean, sd, se, df} of a sample; sd, se and df are
# undef with fewer than two values (no spread known).
sub est_sample {
    my @v = @_;
    return undef unless @v;
    my $m = sum0(@v) / @v;
    return {n => 1, mean => $m, sd => undef, se => undef, df => undef} if @v < 2;
    my $sd = sqrt(sum0(map { ($_ - $m)**2 } @v) / (@v - 1));
    return {n => scalar @v, mean => $m, sd => $sd, se => $sd / sqrt(@v), df => @v - 1};
}

# est_batches(VALUES): est_sample of a run's one-second figures (batch
# means with one-second batches): the interval of a single run's mean.
sub est_batches {
    my $e = est_sample(@_) or return undef;
    $e->{basis} = 'batches';
    return $e;
}

# est_hist(M, SCALE): the estimate of the mean of a merged histogram's
# values divided by SCALE, over its requests (se = sd / sqrt(n)); undef
# when empty.
sub est_hist {
    my ($m, $scale) = @_;
    return undef unless $m && $m->{n};
    my $sd = hist_sd($m);
    return {n => $m->{n}, mean => hist_mean($m) / $scale, basis => 'requests',
        sd => defined $sd ? $sd / $scale : undef, se => defined $sd ? $sd / $scale / sqrt($m->{n}) : undef,
        df => $m->{n} > 1 ? $m->{n} - 1 : undef};
}

# rel_hw(E): the half-width of E's 95% interval relative to its mean
# (0.05 = ±5%); undef without a spread or with a zero mean.
sub rel_hw {
    my ($e) = @_;
    return undef unless $e && defined $e->{se} && $e->{mean};
    return t975($e->{df}) * $e->{se} / abs($e->{mean});
}

# ratio_ci(A, B): B's mean over A's with its 95% interval: {ratio, lo, hi,
# significant => yes|no|unknown, df}. On the log scale (the delta
# method): var = (seA/meanA)^2 + (seB/meanB)^2, degrees of freedom by
# Welch-Satterthwaite, lo/hi = ratio * exp(-/+ t * sqrt(var)). Significant
# when the interval leaves out 1; unknown when either side has no spread.
sub ratio_ci {
    my ($x, $y) = @_;
    return undef unless $x && $y && $x->{mean} && $x->{mean} > 0 && $y->{mean} > 0;
    my $r = $y->{mean} / $x->{mean};
    return {ratio => $r, lo => undef, hi => undef, significant => 'unknown'}
      unless defined $x->{se} && defined $y->{se};
    my ($va, $vb) = (($x->{se} / $x->{mean})**2, ($y->{se} / $y->{mean})**2);
    my $v = $va + $vb;
    return {ratio => $r, lo => $r, hi => $r, significant => $r == 1 ? 'no' : 'yes', df => undef} if $v == 0;
    my $df = $v**2 / ($va**2 / $x->{df} + $vb**2 / $y->{df});
    my $hw = t975($df) * sqrt($v);
    my ($lo, $hi) = ($r * exp(-$hw), $r * exp($hw));
    return {ratio => $r, lo => $lo, hi => $hi, df => $df, significant => ($lo > 1 || $hi < 1) ? 'yes' : 'no'};
}

# ---------------------------------------------------------------------
# One run
# ---------------------------------------------------------------------

# run_view(J, LIMITS): what the checks and the verdict read of one result:
# {timed (timestamp mode), speedup, wall_s, ops (achieved ops/s),
# requested (ops/s the trace asked for, timestamp mode only), measured
# (records minus warm-up), match (matched over measured), secs (replies
# in each whole second, from the first second with a reply), lat (merged
# latency histogram on the limit's basis), lat_send (from the actual
# send), mean_ms, p99_ms (on the basis), send_mean_ms, send_p99_ms,
# basis (schedule|send)}.
sub run_view {
    my ($j, $lim) = @_;
    my $m  = $j->{meta};
    my $t  = $j->{totals};
    my $sp = $m->{speedup} // 0;
    my %v  = (timed => $sp > 0 ? 1 : 0, speedup => $sp, wall_s => $t->{wall_s}, ops => $t->{ops_per_s});
    $v{requested} = $t->{records} * $sp / $t->{trace_span_s} if $sp > 0 && ($t->{trace_span_s} // 0) > 0;
    $v{measured} = $t->{records} - ($t->{warmup} // 0);
    $v{match} = $v{measured} > 0 ? $t->{matched} / $v{measured} : 0;
    my $whole = floor($t->{wall_s});
    my @done = (0) x $whole;
    for my $s (@{ $j->{series} }) {
        $done[ $s->{t} ] = $s->{done} if $s->{t} < $whole;
    }
    my $first = 0;
    $first++ while $first < @done && !$done[$first];
    $v{secs}  = [@done[$first .. $#done]];
    $v{first} = $first;
    my @p = @{ $j->{procedures} };
    $v{lat_send} = hist_merge(map { $_->{latency_ns} } @p);
    my $sched = hist_merge(map { $_->{latency_from_schedule_ns} } @p);
    my $from_sched = $v{timed} && $lim->{latency_from} eq 'schedule' && $sched->{n};
    $v{basis} = $from_sched ? 'schedule' : 'send';
    $v{lat}   = $from_sched ? $sched : $v{lat_send};
    $v{mean_ms}      = hist_mean($v{lat}) / 1e6;
    $v{p99_ms}       = hist_quantile($v{lat}, .99) / 1e6;
    $v{send_mean_ms} = hist_mean($v{lat_send}) / 1e6;
    $v{send_p99_ms}  = hist_quantile($v{lat_send}, .99) / 1e6;
    return \%v;
}

# check_run(V, J, LIMITS): the reasons a run is not valid, each {code,
# text} (code: partial, rate, match, stall, warmup, short), and the notes
# that do not invalidate it (code coldstart). Returns (reasons, notes).
sub check_run {
    my ($v, $j, $lim) = @_;
    my (@why, @note);
    my $t = $j->{totals};
    if ($j->{meta}{partial}) {
        push @why, {code => 'partial', text => sprintf('partial: interrupted after %d of the trace\'s records',
            $t->{replies} // 0)};
    }
    if (defined $v->{requested} && $v->{requested} > 0) {
        my $short = 1 - $v->{ops} / $v->{requested};
        my $below = sprintf('%.1f', 100 * $short);    # 5.04 is not "5.0% below; 5% allowed"
        $below = sprintf('%.2f', 100 * $short) if $below <= 100 * $lim->{rate_tol};
        push @why, {code => 'rate', text => sprintf(
            'rate not reached: %.1f ops/s achieved against %.1f requested (%s%% below; %s%% allowed)',
            $v->{ops}, $v->{requested}, $below, num(100 * $lim->{rate_tol}))}
          if $short > $lim->{rate_tol};
    }
    if ($v->{match} < $lim->{match_min}) {
        push @why, {code => 'match', text => sprintf(
            'status match %.3f%% (%d of %d records got the traced status; %s%% needed)',
            100 * $v->{match}, $t->{matched}, $v->{measured}, num(100 * $lim->{match_min}))};
    }
    if (my $s = stall($v, $lim)) {
        push @why, {code => 'stall', text => $s};
    }
    my $warm = $t->{warmup} // 0;
    if ($warm && $t->{records} && $warm / $t->{records} > $lim->{warmup_max}) {
        push @why, {code => 'warmup', text => sprintf(
            'warm-up took %.0f%% of the records (%d of %d; at most %s%%): the figures cover too little of the trace',
            100 * $warm / $t->{records}, $warm, $t->{records}, num(100 * $lim->{warmup_max}))};
    } elsif (!$warm && (my $c = cold_start($v))) {
        push @note, {code => 'coldstart', text => $c};
    }
    my $n = @{ $v->{secs} };
    if ($n < $lim->{min_intervals}) {
        push @why, {code => 'short', text => sprintf(
            'too short: %s measured, %d whole one-second interval%s; a run must last at least %d s to have '
              . 'the %d intervals its own 95%% interval and its time series need', secs_text($t->{wall_s}), $n,
            $n == 1 ? '' : 's', $lim->{min_intervals}, $lim->{min_intervals})};
    }
    return (\@why, \@note);
}

# stall(V, LIMITS): the text of the longest stretch of whole seconds with
# no reply between the first and the last second with one, when it is at
# least stall_s long and at least 10 replies were due in it at the run's
# own rate (so an idle stretch of a slow trace is no stall); else undef.
sub stall {
    my ($v, $lim) = @_;
    my @s = @{ $v->{secs} };
    pop @s while @s && !$s[-1];
    my ($best, $at, $len, $start) = (0, 0, 0, 0);
    for my $i (0 .. $#s) {
        if ($s[$i]) { $len = 0; next }
        $start = $i if !$len++;
        ($best, $at) = ($len, $start) if $len > $best;
    }
    return undef unless $best >= $lim->{stall_s};
    my $due = $v->{ops} * $best;
    return undef unless $due >= 10;
    return sprintf('stalled: no reply for %d s (seconds %d to %d of the run) where about %.0f were due: the '
          . 'server paused or the network broke, so the figures are not its steady state',
        $best, $at + $v->{first}, $at + $v->{first} + $best - 1, $due);
}

# cold_start(V): a note when the run's first whole second is far from the
# rest (its replies under half the median second's, or at full speed its
# share of the run's latency out of line: not known per second here, so
# throughput only), else undef. Only for runs of 4 seconds or more.
sub cold_start {
    my ($v) = @_;
    my @s = @{ $v->{secs} };
    return undef unless @s >= 4;
    my @rest = sort { $a <=> $b } @s[1 .. $#s];
    my $med = $rest[ int(@rest / 2) ];
    return undef unless $med > 0 && $s[0] < 0.5 * $med;
    return sprintf('cold start: the first second had %d replies against a median second of %d, and no warm-up '
          . 'was left out (tbbt-play --warmup SEC)', $s[0], $med);
}

# secs_text(S): a duration as "0.21 s" or "34 s".
sub secs_text {
    my ($s) = @_;
    return $s < 10 ? sprintf('%.2f s', $s) : sprintf('%.0f s', $s);
}

# num(X): X with up to 4 significant digits, no trailing zeros.
sub num {
    return 0 + sprintf('%.4g', $_[0]);
}

# The settings runs must share to be compared: name, how to read it from
# the metadata, and whether it may differ within a sweep (the load).
my @SETTINGS = (
    ['trace',       sub { defined $_[0]{trace} ? basename($_[0]{trace}) : 'none' }, 0],
    ['map',         sub { substr($_[0]{map_sha256} // 'none', 0, 12) }, 0],
    ['image',       sub { canon(image_params($_[0]{init_params})) }, 0],
    ['order',       sub { $_[0]{order} // 'none' }, 0],
    ['timing',      sub { $_[0]{timing} // 'none' }, 1],
    ['mode',        sub { ($_[0]{speedup} // 0) > 0 ? 'timestamps' : 'full speed' }, 0],
    ['window',      sub { canon($_[0]{window}) }, 0],
    ['connections', sub { canon($_[0]{connections}) }, 0],
);

# image_params(P): tbbt-init's parameters without the clone count (a
# looped run has as many clones as copies; each clone is the same image).
sub image_params {
    my ($p) = @_;
    return $p unless ref $p eq 'HASH';
    my %q = %$p;
    delete $q{clones};
    return \%q;
}

# canon(V): a canonical JSON text of V.
sub canon {
    return JSON::PP->new->canonical->allow_nonref->encode($_[0]);
}

# check_settings(RUNS, SWEEP): {label => [reasons]} for the runs whose
# settings differ from the reference: per setting the value most runs
# have (the first run's on a tie). RUNS are {label, json}. In a sweep the
# timing (speedup and loop count) is the load and may differ.
sub check_settings {
    my ($runs, $sweep) = @_;
    my %why;
    for my $s (@SETTINGS) {
        my ($name, $get, $load) = @$s;
        next if $load && $sweep;
        my (%n, %first, @vals);
        for my $i (0 .. $#$runs) {
            my $v = $get->($runs->[$i]{json}{meta});
            push @vals, $v;
            $first{$v} //= $i;
            $n{$v}++;
        }
        next if keys %n < 2;
        my ($ref) = sort { $n{$b} <=> $n{$a} || $first{$a} <=> $first{$b} } keys %n;
        my ($rj) = map { $runs->[$_]{json}{meta} } grep { $vals[$_] eq $ref } 0 .. $#$runs;
        for my $i (0 .. $#$runs) {
            next if $vals[$i] eq $ref;
            my ($mine, $theirs) = $name eq 'image'
              ? param_diff(image_params($runs->[$i]{json}{meta}{init_params}), image_params($rj->{init_params}))
              : ($vals[$i], $ref);
            push @{ $why{ $runs->[$i]{label} } }, {code => 'differs', text => "different $name: "
                  . short($mine) . ' where the other runs have ' . short($theirs)};
        }
    }
    return \%why;
}

# param_diff(P, Q): the parameters of P and of Q that differ, as "key
# value, ..." each (when both are objects; else their canonical texts).
sub param_diff {
    my ($p, $q) = @_;
    return (canon($p), canon($q)) unless ref $p eq 'HASH' && ref $q eq 'HASH';
    my %k = map { $_ => 1 } keys %$p, keys %$q;
    my @d = grep { canon($p->{$_}) ne canon($q->{$_}) } sort keys %k;
    return map { my $h = $_; join(', ', map { "$_ " . canon($h->{$_}) } @d) } $p, $q;
}

# short(S): S cut to 60 characters.
sub short {
    my ($s) = @_;
    return length $s > 60 ? substr($s, 0, 57) . '...' : $s;
}

# ---------------------------------------------------------------------
# One server
# ---------------------------------------------------------------------

# group_cautions(LABEL, EST, WHAT, SECONDS, LIMITS): the reasons not to
# trust a server's figure (not invalidating any run): a single valid run
# (no spread known), or a 95% interval wider than the one asked, with the
# run length it would need (the interval narrows as 1/sqrt(length) when
# the spread comes from within the runs) or the number of runs.
sub group_cautions {
    my ($label, $e, $what, $secs, $lim) = @_;
    return () unless $e;
    return ("$label has one valid run: no spread is known, so no difference with it can be called significant "
          . '(repeat the run: tbbt-compare --runs 3)') if !defined $e->{se} && ($e->{basis} // '') ne 'batches';
    my $rel = rel_hw($e);
    return () unless defined $rel && $rel > $lim->{ci_target};
    my $k   = $rel / $lim->{ci_target};
    my $how = ($e->{basis} // '') eq 'batches'
      ? sprintf('a run of about %.0f s', $secs * $k * $k)
      : sprintf('runs of about %.0f s each (now %s), or about %d runs', $secs * $k * $k, secs_text($secs),
        ceil($e->{n} * $k * $k));
    return sprintf("%s's %s is known to ±%.1f%% (95%% interval from %s); for the ±%s%% asked it needs %s",
        $label, $what, 100 * $rel, ($e->{basis} // '') eq 'batches' ? "the one-second intervals of one run of "
          . secs_text($secs) : "$e->{n} runs of " . secs_text($secs), num(100 * $lim->{ci_target}), $how);
}

# ---------------------------------------------------------------------
# Sweeps
# ---------------------------------------------------------------------

# sweep_points(RUNS, LIMITS): a server's load points, by speedup: each
# {speedup, runs (all), valid (the valid ones), requested, ops, mean_ms,
# p99_ms (means over the valid runs, or over all when none is valid),
# ok (a valid run), under (p99 within the limit), est (the throughput's
# estimate: over the runs with two or more, else one run's seconds)}.
# RUNS are {view, valid}.
sub sweep_points {
    my ($runs, $lim) = @_;
    my %by;
    push @{ $by{ $_->{view}{speedup} } }, $_ for @$runs;
    my @pts;
    for my $x (sort { $a <=> $b } keys %by) {
        my @all  = @{ $by{$x} };
        my @good = grep { $_->{valid} } @all;
        my @use  = @good ? @good : @all;
        my %p    = (speedup => 0 + $x, runs => \@all, valid => \@good, ok => scalar(@good) > 0);
        for my $k (qw(requested ops mean_ms p99_ms)) {
            my @v = grep { defined } map { $_->{view}{$k} } @use;
            $p{$k} = @v ? sum0(@v) / @v : undef;
        }
        $p{under} = defined $p{p99_ms} && $p{p99_ms} <= $lim->{p99_limit_ms} ? 1 : 0;
        $p{est} = @use > 1 ? est_sample(map { $_->{view}{ops} } @use) : est_batches(@{ $use[0]{view}{secs} });
        $p{est}{mean} = $p{ops} if $p{est};    # batch means: the run's own ops/s is the figure
        push @pts, \%p;
    }
    return \@pts;
}

# sweep_peak(POINTS): the valid point with the highest throughput whose
# p99 is within the limit, or undef.
sub sweep_peak {
    my ($pts) = @_;
    my $peak;
    for my $p (@$pts) {
        next unless $p->{ok} && $p->{under};
        $peak = $p if !$peak || $p->{ops} > $peak->{ops};
    }
    return $peak;
}

# overall_rt(POINTS, PEAK): SPEC's overall response time: the area under
# the mean-latency-against-throughput curve from 0 to the peak's
# throughput, divided by the peak's throughput. The curve is the valid
# points up to the peak's load, in order of throughput, joined by straight
# lines, and held at the first point's latency from 0 ops/s to it (no
# load lower than the first was measured). Undef without a peak.
sub overall_rt {
    my ($pts, $peak) = @_;
    return undef unless $peak && $peak->{ops} > 0;
    my @c = sort { $a->{ops} <=> $b->{ops} }
      grep { $_->{ok} && $_->{speedup} <= $peak->{speedup} && $_->{ops} <= $peak->{ops} } @$pts;
    my $area = $c[0]{ops} * $c[0]{mean_ms};
    for my $i (1 .. $#c) {
        $area += ($c[$i]{ops} - $c[ $i - 1 ]{ops}) * ($c[$i]{mean_ms} + $c[ $i - 1 ]{mean_ms}) / 2;
    }
    return $area / $peak->{ops};
}

# ---------------------------------------------------------------------
# The verdict
# ---------------------------------------------------------------------

# verdict(GROUPS, LIMITS, SWEEP): the decision. GROUPS are tbbt-report's,
# each {label, server, runs => [{label, json, view, valid}]}. Returns
# {mode (runs|sweep), figure (ops|latency: what decides), servers => [{
# label, server, nruns, nvalid, ops, mean, p99 (estimates over the valid
# runs, or the peak's in a sweep), requested and speedup (plain runs: the
# load asked, timestamp mode), points, peak, ort, secs}], ratios =>
# [{label, of, ops => ratio_ci, mean => ratio_ci}], procs => [{label, of,
# key, share, ratio_ci..., basis}], at (the common load of the procedure
# comparison in a sweep), cautions => [text]}.
sub verdict {
    my ($groups, $lim, $sweep) = @_;
    my %v = (mode => $sweep ? 'sweep' : 'runs', servers => [], ratios => [], procs => [], cautions => []);
    my @valid_all = map { grep { $_->{valid} } @{ $_->{runs} } } @$groups;
    my $timed = @valid_all && !grep { !$_->{view}{timed} } @valid_all;
    $v{figure} = $sweep || !$timed ? 'ops' : 'latency';
    for my $g (@$groups) {
        my @good = grep { $_->{valid} } @{ $g->{runs} };
        my %s = (label => $g->{label}, server => $g->{server}, nruns => scalar @{ $g->{runs} },
            nvalid => scalar @good);
        $s{secs} = @good ? sum0(map { $_->{view}{wall_s} } @good) / @good : 0;
        if ($sweep) {
            $s{points} = sweep_points($g->{runs}, $lim);
            $s{peak}   = sweep_peak($s{points});
            $s{ort}    = overall_rt($s{points}, $s{peak});
            if ($s{peak}) {
                $s{ops}  = $s{peak}{est};
                my @pr = @{ $s{peak}{valid} };
                $s{mean} = est_sample(map { $_->{view}{mean_ms} } @pr);
                $s{p99}  = est_sample(map { $_->{view}{p99_ms} } @pr);
                $s{secs} = sum0(map { $_->{view}{wall_s} } @pr) / @pr;
            }
        } elsif (@good) {
            $s{ops} = @good > 1 ? est_sample(map { $_->{view}{ops} } @good)
              : est_batches(@{ $good[0]{view}{secs} });
            $s{ops}{mean} = $good[0]{view}{ops} if $s{ops} && @good == 1;
            $s{mean} = est_sample(map { $_->{view}{mean_ms} } @good);
            $s{p99}  = est_sample(map { $_->{view}{p99_ms} } @good);
            my @req = grep { defined } map { $_->{view}{requested} } @good;
            $s{requested} = sum0(@req) / @req if @req == @good;
            $s{speedup}   = $good[0]{view}{speedup};
        }
        push @{ $v{servers} }, \%s;
    }
    my @s = @{ $v{servers} };
    for my $s (@s) {
        my $why = $sweep ? ($s->{peak} ? undef : "$s->{label} has no valid load point with p99 within "
              . num($lim->{p99_limit_ms}) . ' ms') : $s->{nvalid} ? undef : "$s->{label} has no valid run";
        push @{ $v{cautions} }, "$why: it is left out of the verdict" if $why;
        next if $why;
        my $est = $v{figure} eq 'ops' ? $s->{ops} : $s->{mean};
        my $what = $v{figure} eq 'ops' ? ($sweep ? 'peak throughput' : 'throughput') : 'mean latency';
        push @{ $v{cautions} }, group_cautions($s->{label}, $est, $what, $s->{secs}, $lim);
        push @{ $v{cautions} }, "$s->{label} has one valid run: its interval comes from that run's one-second "
          . 'intervals, which leave out the spread from run to run (repeat the run: tbbt-compare --runs 3)'
          if !$sweep && $s->{nvalid} == 1 && ($est->{basis} // '') eq 'batches';
        my $bad = $s->{nruns} - $s->{nvalid};
        push @{ $v{cautions} }, sprintf('%d of %s\'s %d runs are invalid and left out (see Validity)', $bad,
            $s->{label}, $s->{nruns}) if $bad && !$sweep;
    }
    my ($base) = grep { $sweep ? $_->{peak} : $_->{nvalid} } @s;
    return \%v unless $base;
    for my $other (grep { $_ != $base && ($sweep ? $_->{peak} : $_->{nvalid}) } @s) {
        my $r = {label => $other->{label}, of => $base->{label}, ops => ratio_ci($base->{ops}, $other->{ops}),
            mean => ratio_ci($base->{mean}, $other->{mean}), p99 => ratio_ci($base->{p99}, $other->{p99})};
        push @{ $v{ratios} }, $r;
        my $d = $v{figure} eq 'ops' ? $r->{ops} : $r->{mean};
        push @{ $v{cautions} }, sprintf('the difference between %s and %s is within the noise (95%% interval of '
              . 'the ratio %s to %s includes 1)', $other->{label}, $base->{label}, fix($d->{lo}), fix($d->{hi}))
          if $d && $d->{significant} eq 'no';
    }
    proc_diffs(\%v, $groups, $base, $sweep);
    return \%v;
}

# fix(X): X with 3 decimals.
sub fix {
    return defined $_[0] ? sprintf('%.3f', $_[0]) : '-';
}

# proc_diffs(V, GROUPS, A, SWEEP): fills V->{procs}: per server against A
# and per procedure both have, the ratio of the mean latency (from the
# actual send: the server's own response time) with its interval and
# significance, and the procedure's share of A's requests. Over the
# runs' per-procedure means when both sides have two valid runs or more,
# else over the requests of the merged histograms. In a sweep, at the
# highest speedup where both servers have a valid point (V->{at}).
sub proc_diffs {
    my ($v, $groups, $base, $sweep) = @_;
    my %g = map { $_->{label} => $_ } @$groups;
    my $runs_of = sub {
        my ($label, $x) = @_;
        return grep { $_->{valid} && (!defined $x || $_->{view}{speedup} == $x) } @{ $g{$label}{runs} };
    };
    for my $r (@{ $v->{ratios} }) {
        my $x;
        if ($sweep) {
            my %bx = map { $_->{view}{speedup} => 1 } $runs_of->($r->{label});
            ($x) = sort { $b <=> $a } grep { $bx{$_} } map { $_->{view}{speedup} } $runs_of->($base->{label});
            next unless defined $x;
            $v->{at}{ $r->{label} } = $x;
        }
        my @ra = $runs_of->($base->{label}, $x);
        my @rb = $runs_of->($r->{label}, $x);
        my ($pa, $na) = per_proc(@ra);
        my ($pb)      = per_proc(@rb);
        for my $k (sort { $pa->{$b}{count} <=> $pa->{$a}{count} || $a cmp $b } keys %$pa) {
            next unless $pb->{$k};
            my ($ea, $eb, $basis);
            if (@{ $pa->{$k}{means} } > 1 && @{ $pb->{$k}{means} } > 1) {
                ($ea, $eb, $basis) = (est_sample(@{ $pa->{$k}{means} }), est_sample(@{ $pb->{$k}{means} }), 'runs');
            } else {
                ($ea, $eb, $basis) = (est_hist($pa->{$k}{hist}, 1e6), est_hist($pb->{$k}{hist}, 1e6), 'requests');
            }
            my $c = ratio_ci($ea, $eb) or next;
            push @{ $v->{procs} }, {%$c, label => $r->{label}, of => $base->{label}, key => $k, basis => $basis,
                share => $na ? $pa->{$k}{count} / $na : 0, a_ms => $ea->{mean}, b_ms => $eb->{mean}};
        }
    }
}

# per_proc(RUNS): ({key => {count, means => [per run mean ms], hist}},
# total requests) over RUNS' procedures with matched requests.
sub per_proc {
    my (%p, $n);
    for my $r (@_) {
        for my $q (@{ $r->{json}{procedures} }) {
            my $h = $q->{latency_ns};
            next unless $h && $h->{n};
            my $k = "v$q->{vers} $q->{proc}";
            $p{$k}{count} += $q->{count};
            $n += $q->{count};
            push @{ $p{$k}{means} }, $h->{mean} / 1e6;
            $p{$k}{hist} = hist_merge_m($p{$k}{hist}, hist_merge($h));
        }
    }
    return (\%p, $n // 0);
}

1;
