#!/usr/bin/perl
# tests/report/warnings.t -- tbbt-report's comparability warnings appear
# when the runs differ in what makes them comparable (trace, image, order,
# timing, speedup; a partial run; replay mismatches above --max-mismatch)
# and not otherwise; bad input exits 1 with one line naming the file; bad
# usage exits 2. The inputs are the real fixtures tests/data/play-*.json,
# and copies of them with one field changed.
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

# warned(NAME, FILES, RE, ARGS): runs on FILES and checks that a warning
# matching RE is on stderr, in the text and in the page.
sub warned {
    my ($name, $files, $re, @args) = @_;
    my ($rc, $err, $dir) = run(@args, @$files);
    is($rc, 0, "$name: exit 0 (a warning is not an error)");
    like($err, qr/^tbbt-report: warning: .*$re/m, "$name: warned on stderr");
    like(slurp("$dir/report.txt"), qr/^WARNING: .*$re/m, "$name: warned in report.txt");
    like(slurp("$dir/report.html"), qr/<li class="warning">[^<]*$re/, "$name: warned in report.html");
}

# quiet(NAME, FILES, ARGS): runs on FILES and checks that no warning is given.
sub quiet {
    my ($name, $files, @args) = @_;
    my ($rc, $err, $dir) = run(@args, @$files);
    is($rc, 0, "$name: exit 0");
    unlike($err, qr/warning/, "$name: no warning on stderr");
    like(slurp("$dir/report.txt"), qr/^Warnings\nnone: the runs are comparable$/m, "$name: report.txt says comparable");
    unlike(slurp("$dir/report.html"), qr/<li class="warning">/, "$name: no warning in the page");
}

# --- no warning where the runs are comparable
quiet('two servers, one run each', [$A, $B]);
quiet('two servers, three runs each', [sort glob("$DATA/play-[AB]-*.json")]);
quiet('the same trace in another directory', [$A, variant($B, 'moved.json', sub { $_[0]{meta}{trace} = '/elsewhere/wl.tbbt' })]);
quiet('another clone and seed', [$A, variant($B, 'clone.json', sub { $_[0]{meta}{clone} = 1 })]);

# --- a warning for each thing that makes runs incomparable
warned('another trace', [$A, variant($B, 'trace.json', sub { $_[0]{meta}{trace} = '/x/other.tbbt' })],
    qr/differ in trace.*other\.tbbt/);
warned('another map', [$A, variant($B, 'map.json', sub { $_[0]{meta}{map_sha256} = 'ab' x 32 })],
    qr/differ in map digest/);
warned('another image', [$A, variant($B, 'scope.json', sub { $_[0]{meta}{init_params}{scope} = 8192 })],
    qr/differ in image \(init_params\)/);
warned('another order', [$A, variant($B, 'order.json', sub { $_[0]{meta}{order} = 'fsdep' })],
    qr/differ in order: conservative \(A#1\); fsdep \(B#1\)/);
warned('another speedup', [$A, variant($B, 'speed.json', sub { $_[0]{meta}{speedup} = 6; $_[0]{meta}{timing} = 'timestamps x6' })],
    qr/differ in speedup/);
warned('full speed against timestamps', [$A, variant($B, 'timing.json', sub { $_[0]{meta}{timing} = 'full speed' })],
    qr/differ in timing/);
warned('differing repeated runs of one server', [$A, variant($A, 'order-a.json', sub { $_[0]{meta}{order} = 'fsdep' }), $B],
    qr/differ in order: conservative \(A#1, B#1\); fsdep \(A#2\)/);
warned('a partial run', [$A, variant($B, 'partial.json', sub { $_[0]{meta}{partial} = JSON::PP::true })],
    qr/B#1 \(.*partial\.json\) is a partial run/);

# --- mismatches: (mismatched + skipped) / records against --max-mismatch
my $recs = decode_json(slurp($B))->{totals}{records};
my $limit = int($recs / 1000);    # the most records 0.1% allows
my $over = variant($B, 'mis-over.json', sub { $_[0]{totals}{mismatched} = $limit; $_[0]{totals}{skipped} = 1 });
my $at   = variant($B, 'mis-at.json',   sub { $_[0]{totals}{mismatched} = $limit });
warned("mismatched + skipped = " . ($limit + 1) . " of $recs, over 0.1%", [$A, $over],
    qr/B#1 \(.*mis-over\.json\): ${\($limit + 1)} of $recs records .* above --max-mismatch 0\.1%/);
quiet("mismatched = $limit of $recs, within 0.1%", [$A, $at]);
warned("the same with --max-mismatch 0", [$A, $at], qr/above --max-mismatch 0%/, '--max-mismatch', '0');
quiet("the first with --max-mismatch 0.01 (1%)", [$A, $over], '--max-mismatch', '0.01');
quiet("the first with --max-mismatch 1%", [$A, $over], '--max-mismatch', '1%');

# --- bad input: exit 1, one line naming the file
my %bad = (
    'missing.json' => undef,
    'empty.json'   => '',
    'notjson.json' => "{\"schema\": \"tbbt-play-result/1\", \"meta\": {",
    'other.json'   => '{"schema": "something-else/1"}',
    'noprocs.json' => do { my $j = decode_json(slurp($A)); delete $j->{procedures}; encode_json($j) },
    'badhist.json' => do { my $j = decode_json(slurp($A)); $j->{procedures}[0]{latency_ns}{buckets} = [[1]]; encode_json($j) },
    'nocount.json' => do { my $j = decode_json(slurp($A)); delete $j->{procedures}[2]{count}; encode_json($j) },
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
like($help, qr/EXIT STATUS/, '--help: the whole manual');

# --- --title
my $dir;
($rc, $err, $dir) = run('--title', 'Filer <X> & Y', $A, $B);
like(slurp("$dir/report.html"), qr/<title>Filer &lt;X&gt; &amp; Y<\/title>/, '--title: the page title, escaped');
like(slurp("$dir/report.txt"), qr/\AFiler <X> & Y\n=+\n/, '--title: the text title');

done_testing();
