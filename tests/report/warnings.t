#!/usr/bin/perl
# tests/report/warnings.t -- tbbt-report marks a run invalid, with the
# reason, on stderr, in the text and in the page, when it differs from the
# others in what makes runs comparable (trace, map, image, order, timing),
# is partial, misses its rate or its status match (--max-mismatch), or is
# too short, and not otherwise; bad input exits 1 with one line naming the
# file; bad usage exits 2. The inputs are the real fixtures
# tests/data/play-*.json, and copies of them with one field changed.
use strict;
use warnings;

use File::Basename qw(dirname);
use File::Temp qw(tempdir);
use JSON::PP;
use Test::More;

my $SRC    = $ENV{TBBT_SRC} // dirname(dirname(dirname(__FILE__)));
my $REPORT = "$SRC/scripts/tbbt-report";
my $DATA   = "$SRC/tests/data";
my $TMP    = tempdir(CLEANUP => 1);
my $A      = "$DATA/play-A-1.json";
my $B      = "$DATA/play-B-1.json";

# slurp(FILE): the file's bytes.
sub slurp {
    my ($f) = @_;
    open(my $fh, '<:raw', $f) or return '';
    local $/;
    return scalar <$fh>;
}

my $N = 0;

# run(ARGS): tbbt-report -q -o (a new dir) ARGS: (exit code, stderr, dir).
sub run {
    my @args = @_;
    my $dir = "$TMP/out" . ++$N;
    my $q = join ' ', map { quotemeta } 'perl', $REPORT, '-q', '-o', $dir, @args;
    system("$q >'$dir.out' 2>'$dir.err'");
    return ($? >> 8, slurp("$dir.err"), $dir);
}

# variant(FILE, NAME, EDIT): a copy of FILE as TMP/NAME with EDIT applied
# to its decoded document; the copy's path.
sub variant {
    my ($file, $name, $edit) = @_;
    my $j = decode_json(slurp($file));
    $edit->($j);
    my $p = "$TMP/$name";
    open(my $fh, '>:raw', $p) or die "$p: $!";
    print $fh encode_json($j);
    close $fh;
    return $p;
}

# flagged(NAME, FILES, RUN, CODE, RE, ARGS): runs on FILES and checks
# that RUN is invalid for reason CODE, its text matching RE: on stderr, in
# the text and in the page's validity table. --min-intervals 2: the
# fixtures' 7-second runs are otherwise all too short (a rule of its own).
sub flagged {
    my ($name, $files, $run, $code, $re, @args) = @_;
    my ($rc, $err, $dir) = run('--min-intervals', 2, @args, @$files);
    is($rc, 0, "$name: exit 0 (an invalid run is not an error)");
    like($err, qr/^tbbt-report: warning: \Q$run\E \(.*\) is invalid: $re/m, "$name: warned on stderr");
    like(slurp("$dir/report.txt"), qr/^INVALID \Q$run\E: $re/m, "$name: flagged in report.txt");
    my $html = slurp("$dir/report.html");
    my ($row) = $html =~ /<tr data-run="\Q$run\E" data-valid="no"[^>]*>(.*?)<\/tr>/s;
    like($row // '', qr/<span class="reason" data-code="$code">$re/, "$name: $run invalid in the page, reason $code");
    like($html, qr/<td class="num" data-m="valid" data-v="\d+">/, "$name: the verdict counts valid runs");
}

# valid(NAME, FILES, ARGS): runs on FILES and checks that every run is valid.
sub valid {
    my ($name, $files, @args) = @_;
    my ($rc, $err, $dir) = run('--min-intervals', 2, @args, @$files);
    is($rc, 0, "$name: exit 0");
    unlike($err, qr/is invalid/, "$name: no invalid run on stderr");
    unlike(slurp("$dir/report.txt"), qr/^INVALID/m, "$name: report.txt flags no run");
    my $html = slurp("$dir/report.html");
    unlike($html, qr/data-valid="no"/, "$name: every run valid in the page");
    unlike($html, qr/<span class="reason"/, "$name: no reason given");
}

# --- valid where the runs are comparable
valid('two servers, one run each', [$A, $B]);
valid('two servers, three runs each', [sort glob("$DATA/play-[AB]-*.json")]);
valid('the same trace in another directory', [$A, variant($B, 'moved.json', sub { $_[0]{meta}{trace} = '/elsewhere/wl.tbbt' })]);
valid('another clone and seed', [$A, variant($B, 'clone.json', sub { $_[0]{meta}{clone} = 1 })]);
valid('another clone count (a looped run)', [$A, variant($B, 'clones.json', sub { $_[0]{meta}{init_params}{clones} = 9 })]);

# --- invalid for each thing that makes runs incomparable (the first run is
# the reference on a tie)
flagged('another trace', [$A, variant($B, 'trace.json', sub { $_[0]{meta}{trace} = '/x/other.tbbt' })],
    'B#1', 'differs', qr/different trace: other\.tbbt where the other runs have wl\.tbbt/);
flagged('another map', [$A, variant($B, 'map.json', sub { $_[0]{meta}{map_sha256} = 'ab' x 32 })],
    'B#1', 'differs', qr/different map: abababababab/);
flagged('another image', [$A, variant($B, 'scope.json', sub { $_[0]{meta}{init_params}{scope} = 8192 })],
    'B#1', 'differs', qr/different image: scope 8192 where the other runs have scope 64/);
flagged('another order', [$A, variant($B, 'order.json', sub { $_[0]{meta}{order} = 'fsdep' })],
    'B#1', 'differs', qr/different order: fsdep where the other runs have conservative/);
flagged('another speedup', [$A, variant($B, 'speed.json', sub { $_[0]{meta}{speedup} = 6; $_[0]{meta}{timing} = 'timestamps x6' })],
    'B#1', 'differs', qr/different timing: timestamps x6 where the other runs have timestamps x0\.03/);
flagged('full speed against timestamps', [$A, variant($B, 'timing.json', sub { $_[0]{meta}{timing} = 'full speed'; $_[0]{meta}{speedup} = 0 })],
    'B#1', 'differs', qr/different timing: full speed/);
flagged('differing repeated runs of one server', [$A, variant($A, 'order-a.json', sub { $_[0]{meta}{order} = 'fsdep' }), $B],
    'A#2', 'differs', qr/different order: fsdep where the other runs have conservative/);
flagged('a partial run', [$A, variant($B, 'partial.json', sub { $_[0]{meta}{partial} = JSON::PP::true })],
    'B#1', 'partial', qr/partial: interrupted/);
flagged('a rate not reached', [$A, variant($B, 'slow.json', sub { $_[0]{totals}{ops_per_s} *= 0.9 })],
    'B#1', 'rate', qr/rate not reached: [\d.]+ ops\/s achieved against [\d.]+ requested \(10\.\d% below; 5% allowed\)/);
flagged('too short', [$A, $B], 'A#1', 'short', qr/too short: 7\.23 s measured, 7 whole one-second intervals; a run must last at least 10 s/,
    '--min-intervals', 10);

# --- status match: matched over the measured records against 1 - --max-mismatch
my $recs = decode_json(slurp($B))->{totals}{records};
my $limit = int($recs / 1000);    # the most records 0.1% allows to miss
my $over = variant($B, 'mis-over.json', sub { $_[0]{totals}{matched} = $recs - $limit - 1; $_[0]{totals}{mismatched} = $limit + 1 });
my $at   = variant($B, 'mis-at.json',   sub { $_[0]{totals}{matched} = $recs - $limit; $_[0]{totals}{mismatched} = $limit });
flagged("matched " . ($recs - $limit - 1) . " of $recs, under 99.9%", [$A, $over],
    'B#1', 'match', qr/status match 99\.\d+% \(${\($recs - $limit - 1)} of $recs records got the traced status; 99\.9% needed\)/);
valid("matched " . ($recs - $limit) . " of $recs, 99.9% or more", [$A, $at]);
flagged("the same with --max-mismatch 0", [$A, $at], 'B#1', 'match', qr/status match .*; 100% needed/, '--max-mismatch', '0');
valid("the first with --max-mismatch 0.01 (1%)", [$A, $over], '--max-mismatch', '0.01');
valid("the first with --max-mismatch 1%", [$A, $over], '--max-mismatch', '1%');

# --- bad input: exit 1, one line naming the file
my %bad = (
    'missing.json' => undef,
    'empty.json'   => '',
    'notjson.json' => "{\"schema\": \"tbbt-play-result/1\", \"meta\": {",
    'other.json'   => '{"schema": "something-else/1"}',
    'noprocs.json' => do { my $j = decode_json(slurp($A)); delete $j->{procedures}; encode_json($j) },
    'badhist.json' => do { my $j = decode_json(slurp($A)); $j->{procedures}[0]{latency_ns}{buckets} = [[1]]; encode_json($j) },
    'nocount.json' => do { my $j = decode_json(slurp($A)); delete $j->{procedures}[2]{count}; encode_json($j) },
    'layout-scheme.json' => do { my $j = decode_json(slurp($A)); $j->{hist_layout} = {scheme => 'hdr', sub => 128}; encode_json($j) },
    'layout-sub.json'    => do { my $j = decode_json(slurp($A)); $j->{hist_layout} = {scheme => 'log-linear', sub => 100}; encode_json($j) },
);
for my $name (sort keys %bad) {
    my $p = "$TMP/$name";
    if (defined $bad{$name}) {
        open(my $fh, '>:raw', $p) or die;
        print $fh $bad{$name};
        close $fh;
    }
    my ($rc, $err, $dir) = run($A, $p);
    is($rc, 1, "$name: exit 1");
    like($err, qr/\A\Qtbbt-report: $p:\E [^\n]+\n\z/, "$name: one line naming the file ($err)");
    ok(!-e "$dir/report.html", "$name: no report written");
}

# --- usage: exit 2
my ($rc, $err) = run();
is($rc, 2, 'no file: exit 2');
like($err, qr/no result file given/, 'no file: says so');
($rc, $err) = run('--no-such-option', $A);
is($rc, 2, 'unknown option: exit 2');
($rc, $err) = run('--max-mismatch', 'lots', $A);
is($rc, 2, 'bad --max-mismatch: exit 2');
like($err, qr/--max-mismatch/, 'bad --max-mismatch: names the option');
my $help = `perl '$REPORT' --help 2>&1`;
is($? >> 8, 0, '--help: exit 0');
like($help, qr/tbbt-report \[-o DIR\] \[--title T\] \[--max-mismatch F\]/, '--help: the usage');
like($help, qr/^\s+--max-mismatch=F\s+.*\(default 0\.1%\)$/m, '--help: the options, with their defaults');
my $man = `perl '$REPORT' --man 2>&1`;
like($man, qr/EXIT STATUS/, '--man: the whole manual');

# --- --title
my $dir;
($rc, $err, $dir) = run('--title', 'Filer <X> & Y', $A, $B);
like(slurp("$dir/report.html"), qr/<title>Filer &lt;X&gt; &amp; Y<\/title>/, '--title: the page title, escaped');
like(slurp("$dir/report.txt"), qr/\AFiler <X> & Y\n=+\n/, '--title: the text title');

done_testing();
