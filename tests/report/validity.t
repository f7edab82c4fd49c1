#!/usr/bin/perl
# tests/report/validity.t -- runs made invalid on purpose on a real
# nfs-ganesha are flagged with the right reason and left out of the
# verdict, and a sweep with a known knee puts the peak at the right load
# point, and tbbt-compare warns of runs too short for their interval
# (tests/report/live-runs.sh makes the runs, about two minutes):
#   - a server paused 3 s mid-run (SIGSTOP): "stalled";
#   - a run of another trace: "different trace";
#   - a load the -o sync server cannot reach (20000 ops/s): "rate not
#     reached";
#   - the two ordinary runs: valid, and the verdict's figures are theirs;
#   - the sweep at 100, 200 and 20000 ops/s: the peak is the 200 point,
#     though the 20000 point achieves more throughput;
#   - tbbt-compare --runs 2 at full speed on the unlooped trace (runs of
#     a fraction of a second): a warning naming the --loop that would do,
#     and the runs and the report made all the same.
# Needs root, nfs-ganesha and loop mounts (skipped otherwise).
use strict;
use warnings;

use File::Basename qw(dirname);
use File::Temp qw(tempdir);
use JSON::PP;
use Test::More;

my $SRC   = $ENV{TBBT_SRC} // dirname(dirname(dirname(__FILE__)));
my $BUILD = $ENV{TBBT_BUILD} // "$SRC/build";
my $OUT   = tempdir('tbbt-validity.XXXXXX', TMPDIR => 1, CLEANUP => !$ENV{TBBT_KEEP});

my $log = `bash '$SRC/tests/report/live-runs.sh' '$BUILD' '$SRC' '$OUT' 2>&1`;
my $rc  = $? >> 8;
plan skip_all => "cannot run ganesha with a loop mount here: $log" if $rc == 77;
is($rc, 0, 'live-runs.sh made the runs') or BAIL_OUT($log);

# slurp(FILE): the file's text.
sub slurp {
    my ($f) = @_;
    open(my $fh, '<:encoding(UTF-8)', $f) or return '';
    local $/;
    return scalar <$fh>;
}

# json(FILE): the decoded document.
sub json {
    return JSON::PP->new->utf8->decode(do { open(my $fh, '<:raw', $_[0]) or die "$_[0]: $!"; local $/; <$fh> });
}

# report(DIR, ARGS): tbbt-report -o DIR ARGS; (page, text, stderr).
sub report {
    my ($dir, @args) = @_;
    my $q = join ' ', map { quotemeta } 'perl', "$SRC/scripts/tbbt-report", '-q', '-o', $dir, @args;
    system("$q 2>'$dir.err'");
    is($? >> 8, 0, "tbbt-report on $args[-1]: exit 0");
    return (slurp("$dir/report.html"), slurp("$dir/report.txt"), slurp("$dir.err"));
}

# reasons(HTML, RUN): whether a run is valid, and its reasons (code =>
# texts joined by " | ") from its validity row.
sub reasons {
    my ($html, $run) = @_;
    my ($valid, $row) = $html =~ /<tr data-run="\Q$run\E" data-valid="(yes|no)"[^>]*>(.*?)<\/tr>/s;
    my %r;
    while (($row // '') =~ /<span class="reason" data-code="(\w+)">([^<]*)<\/span>/g) {
        $r{$1} = defined $r{$1} ? "$r{$1} | $2" : $2;
    }
    return ($valid // '?', %r);
}

# ---- runs made invalid on purpose ----------------------------------------------
my @files = map { "$OUT/A-$_.json" } 1 .. 4;
my ($html, $txt, $err) = report("$OUT/r-runs", @files);
my ($v1, @r1) = reasons($html, 'A#1');
my ($v2, @r2) = reasons($html, 'A#2');
is("$v1 $v2", 'yes yes', 'the ordinary runs are valid') or diag("@r1 @r2");
my ($v3, %r3) = reasons($html, 'A#3');
is($v3, 'no', 'the paused run is invalid');
like($r3{stall} // '', qr/^stalled: no reply for [2-9] s/, "the paused run: stalled ($r3{stall})");
my ($v4, %r4) = reasons($html, 'A#4');
is($v4, 'no', 'the run of another trace is invalid');
like($r4{differs} // '', qr/^different trace: noread\.tbbt where the other runs have trace\.tbbt/,
    "another trace: named ($r4{differs})");
like($txt, qr/^INVALID A#3: stalled/m, 'the text flags the pause');
like($txt, qr/^INVALID A#4: different trace/m, 'the text flags the trace');
like($err, qr/^tbbt-report: warning: A#3 .* is invalid: stalled/m, 'stderr warns of the pause');
# the verdict is the two valid runs' alone
my @ok = map { json($_) } @files[0, 1];
my $ops = ($ok[0]{totals}{ops_per_s} + $ok[1]{totals}{ops_per_s}) / 2;
my ($tr) = $html =~ /<table id="verdict-servers".*?<tr data-server="A">(.*?)<\/tr>/s;
my %cell = ($tr // '') =~ /data-m="(\w+)" data-v="([^"]*)"/g;
is($cell{valid}, 2, 'the verdict counts 2 valid runs of 4');
ok(abs(($cell{ops} // 0) - $ops) < 1e-6 * $ops, "the verdict's throughput ($cell{ops}) is the valid runs' mean ($ops)");
like($txt, qr/2 of A's 4 runs are invalid and left out/, 'the verdict says 2 runs were left out');

# ---- runs too short: tbbt-compare warns and refuses nothing ---------------------------
my $short = slurp("$OUT/short.err");
like($short, qr/^tbbt-compare: warning: server A: 2 of its runs last [\d.]+ s on average, shorter than the 10 s a run needs for its own interval; loop the trace \(--loop (\d+), or --duration 30\)$/m,
    'tbbt-compare warns that the runs are too short, with the --loop that would do');
my ($wall, $loop) = $short =~ /last ([\d.]+) s on average.*\(--loop (\d+),/;
cmp_ok(($loop // 0) * (($wall // 0) + 0.005), ">=", 10, "... the --loop it suggests (" . ($loop // '-') . " x $wall s) makes 10 s");
ok(-s "$OUT/short/A/run-1.json" && -s "$OUT/short/A/run-2.json" && -s "$OUT/short/report/report.html",
    '... and makes both runs and the report all the same');

# ---- the knee ---------------------------------------------------------------------------
my @x = slurp("$OUT/knee.txt") =~ /speedups (\S+) (\S+) (\S+)/;
is(scalar @x, 3, "the sweep's speedups: @x (100, 200, 20000 ops/s)");
my @sweep = grep { !/init\.json$/ } sort glob("$OUT/sweep/A/sweep-x*.json");
is(scalar @sweep, 3, 'the sweep ran its three load points (it stops after the unreachable one)');
my %by = map { my $j = json($_); ($j->{meta}{speedup} => $j) } @sweep;
my ($lo, $mid, $hi) = map { $by{ 0 + $_ } } @x;
SKIP: {
    skip 'a load point is missing', 8 unless $lo && $mid && $hi;
    cmp_ok($hi->{totals}{ops_per_s}, '>', $mid->{totals}{ops_per_s},
        "the unreachable point achieves more ($hi->{totals}{ops_per_s} ops/s) than the knee ($mid->{totals}{ops_per_s})");
    ($html, $txt) = report("$OUT/r-sweep", '--p99-limit', 1000, '--latency-from', 'send', @sweep);
    like($html, qr/<table id="verdict-servers" data-mode="sweep"/, 'the report reads the runs as a sweep');
    my @peak = $html =~ /<tr data-server="A" data-speedup="([^"]+)" data-peak="yes"/g;
    is("@peak", 0 + sprintf('%.6g', $x[1]), "the peak is at the knee, speedup $x[1] (200 ops/s)");
    my ($vh, %rh) = reasons($html, 'A#3');
    is($vh, 'no', 'the point at 20000 ops/s is invalid');
    like($rh{rate} // '', qr/^rate not reached: [\d.]+ ops\/s achieved against [\d.]+ requested/, "... rate not reached ($rh{rate})");
    my ($vl) = reasons($html, 'A#1');
    my ($vm) = reasons($html, 'A#2');
    is("$vl $vm", 'yes yes', 'the two points below the knee are valid');
    ($tr) = $html =~ /<table id="verdict-servers".*?<tr data-server="A">(.*?)<\/tr>/s;
    %cell = ($tr // '') =~ /data-m="(\w+)" data-v="([^"]*)"/g;
    ok(abs(($cell{ops} // 0) - $mid->{totals}{ops_per_s}) < 1e-3, "the verdict's peak is the knee's throughput ($cell{ops})");
    like($html, qr/<figure id="plot-curve"/, 'the curve is drawn');
}
done_testing();
