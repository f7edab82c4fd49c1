#!/usr/bin/perl
# tests/report/browser.t -- tbbt-report's page loaded in headless Chromium
# (Debian's chromium): it renders its tables and its plots, with no script
# error and nothing fetched from the network; a screenshot is kept as
# $TBBT_BUILD/report-test/screenshot.png (the report itself beside it, in
# report-test/report/).
#
# Two loads: the page as written (console log and DOM: every table and SVG
# there, no console message), and a copy with a probe script added (the
# page has none of its own) that measures, once the page has loaded, what
# the browser laid out (every plot's box, the drawn extent of its curves,
# every table's rows), any error raised while loading, and every resource
# fetched (none: the page is self-contained).
# Inputs: the fixtures tests/data/play-{A,B}-*.json, or TBBT_REPORT_INPUTS;
# TBBT_REPORT_TEST_DIR replaces $TBBT_BUILD/report-test.
# Skipped (skip_all) without chromium or gnuplot.
use strict;
use warnings;

use File::Basename qw(dirname);
use File::Path qw(make_path remove_tree);
use File::Temp qw(tempdir);
use JSON::PP;
use Test::More;

my $SRC    = $ENV{TBBT_SRC} // dirname(dirname(dirname(__FILE__)));
my $REPORT = "$SRC/scripts/tbbt-report";

# which(NAME...): the first of the programs found in PATH, or undef.
sub which {
    for my $n (@_) {
        for my $d (split /:/, $ENV{PATH}) { return "$d/$n" if -x "$d/$n" }
    }
    return undef;
}

my $CHROMIUM = which(qw(chromium chromium-browser));
plan skip_all => 'chromium not installed (dev/install-deps.sh)' unless $CHROMIUM;
plan skip_all => 'gnuplot not installed (dev/install-deps.sh)' unless which('gnuplot');

my $BASE = $ENV{TBBT_REPORT_TEST_DIR}
  // ($ENV{TBBT_BUILD} ? "$ENV{TBBT_BUILD}/report-test" : tempdir(CLEANUP => 0) . '/report-test');
my $OUT  = "$BASE/report";
remove_tree($OUT);
make_path($OUT);
my $PROFILE = tempdir(CLEANUP => 1);

# slurp(FILE): the file's text.
sub slurp {
    my ($f) = @_;
    open(my $fh, '<:encoding(UTF-8)', $f) or return '';
    local $/;
    return scalar <$fh>;
}

# chromium(ARGS): runs headless chromium on ARGS; (exit code, stdout,
# stderr). Its own profile directory, no sandbox (tests run as root), a
# 120 s limit.
sub chromium {
    my @args = @_;
    my @cmd = ('timeout', '120', $CHROMIUM, '--headless', '--disable-gpu', '--no-sandbox', '--no-first-run',
        '--disable-dev-shm-usage', "--user-data-dir=$PROFILE", '--enable-logging=stderr', '--v=0', @args);
    my $q = join ' ', map { quotemeta } @cmd;
    my $out = `$q 2>'$BASE/chromium.err'`;
    utf8::decode($out);
    return ($? >> 8, $out, slurp("$BASE/chromium.err"));
}

# console(STDERR): chromium's console lines (messages the page logged,
# errors it raised) from its log.
sub console {
    my ($log) = @_;
    return grep { /CONSOLE|Uncaught|SyntaxError|ReferenceError|TypeError/ } split /\n/, $log;
}

my @in = $ENV{TBBT_REPORT_INPUTS} ? split(' ', $ENV{TBBT_REPORT_INPUTS})
  : sort glob("$SRC/tests/data/play-[AB]-*.json");
my $q = join ' ', map { quotemeta } 'perl', $REPORT, '-q', '-o', $OUT, @in;
system("$q 2>'$BASE/report.err'");
is($? >> 8, 0, 'tbbt-report wrote the report') or BAIL_OUT(slurp("$BASE/report.err"));
my $html = slurp("$OUT/report.html");
my $nsvg   = () = $html =~ /<svg\b/g;
my $ntable = () = $html =~ /<table\b/g;
my $nrow   = () = $html =~ /<tr\b/g;
cmp_ok($nsvg, '>=', 5, "the page has $nsvg plots");

# 1. The page as written: DOM, console, network, screenshot.
my $url = "file://$OUT/report.html";
my ($rc, $dom, $log) = chromium('--dump-dom', $url);
is($rc, 0, 'chromium loaded the page') or diag($log);
my $dsvg   = () = $dom =~ /<svg\b/g;
my $dtable = () = $dom =~ /<table\b/g;
is($dsvg,   $nsvg,   "the DOM holds every plot ($nsvg SVGs)");
is($dtable, $ntable, "the DOM holds every table ($ntable)");
like($dom, qr/<section id="$_"/, "the DOM has section $_") for qw(runs warnings method comparison plots);
is(join("\n", console($log)), '', 'no console message or script error while loading the page');

my $shot = "$BASE/screenshot.png";
unlink $shot;
($rc, undef, $log) = chromium('--hide-scrollbars', '--window-size=1400,6000', "--screenshot=$shot", $url);
is($rc, 0, 'chromium took a screenshot') or diag($log);
my $sig = -s $shot ? do { open(my $fh, '<:raw', $shot); read($fh, my $b, 24); $b } : '';
is(substr($sig, 0, 8), "\x89PNG\r\n\x1a\n", "the screenshot is a PNG: $shot");
my ($w, $h) = length $sig >= 24 ? unpack('NN', substr($sig, 16, 8)) : (0, 0);
is("$w x $h", '1400 x 6000', 'the screenshot has the window size');
cmp_ok(-s $shot, '>', 50_000, 'the screenshot is not blank (' . (-s $shot // 0) . ' bytes)');

# 2. A copy with a probe: what the browser laid out.
my $probe = <<'JS';
<script>
window.__errors = [];
window.addEventListener('error', function (e) { window.__errors.push(String(e.message)); });
</script>
JS
my $measure = <<'JS';
<script>
window.addEventListener('load', function () {
  var r = { errors: window.__errors, svgs: [], tables: [],
            fetched: performance.getEntriesByType('resource').map(function (e) { return e.name; }) };
  document.querySelectorAll('figure > svg').forEach(function (s) {
    var b = s.getBoundingClientRect(), drawn = 0, paths = s.querySelectorAll('path');
    paths.forEach(function (p) { var q = p.getBBox(); if (q.width > 0 && q.height > 0) drawn++; });
    var c = s.querySelector('g[id$="gnuplot_plot_1"]');
    var cb = c ? c.getBBox() : { width: 0, height: 0 };
    r.svgs.push({ id: s.parentNode.id, w: Math.round(b.width), h: Math.round(b.height),
                  paths: paths.length, drawn: drawn, curve_w: cb.width, curve_h: cb.height });
  });
  document.querySelectorAll('table').forEach(function (t) {
    var b = t.getBoundingClientRect();
    r.tables.push({ rows: t.rows.length, w: Math.round(b.width), h: Math.round(b.height) });
  });
  var pre = document.createElement('pre');
  pre.id = 'probe-result';
  pre.textContent = JSON.stringify(r);
  document.body.appendChild(pre);
});
</script>
JS
(my $copy = $html) =~ s/<head>/<head>\n$probe/;
$copy =~ s/<\/body>/$measure<\/body>/;
my $pf = "$OUT/probe.html";
open(my $fh, '>:encoding(UTF-8)', $pf) or die "$pf: $!";
print $fh $copy;
close $fh;
($rc, $dom, $log) = chromium('--window-size=1400,1000', '--dump-dom', "file://$pf");
is($rc, 0, 'chromium loaded the probed copy') or diag($log);
my ($json) = $dom =~ /<pre id="probe-result">(.*?)<\/pre>/s;
ok(defined $json, 'the probe ran') or diag(join("\n", console($log)));
$json //= '{}';
$json =~ s/&quot;/"/g;
$json =~ s/&lt;/</g;
$json =~ s/&gt;/>/g;
$json =~ s/&amp;/&/g;
my $r = eval { decode_json($json) } // {};
is(join('; ', @{ $r->{errors} // ['no probe'] }), '', 'no error raised while loading');
is(join(' ', @{ $r->{fetched} // ['no probe'] }), '', 'the page fetched nothing (self-contained)');
is(scalar @{ $r->{svgs} // [] }, $nsvg, 'the probe saw every plot');
my @bad;
for my $s (@{ $r->{svgs} // [] }) {
    push @bad, "$s->{id}: laid out $s->{w}x$s->{h}" unless $s->{w} >= 300 && $s->{h} >= 180;
    push @bad, "$s->{id}: $s->{drawn} of $s->{paths} paths drawn" unless $s->{drawn} >= 5;
    push @bad, "$s->{id}: first curve is $s->{curve_w}x$s->{curve_h}" unless $s->{curve_w} > 10 && $s->{curve_h} > 10;
}
is(join("\n", @bad), '', 'every plot is laid out with its axes and a visible first curve');
my $rows = 0;
$rows += $_->{rows} for @{ $r->{tables} // [] };
is(scalar @{ $r->{tables} // [] }, $ntable, 'the probe saw every table');
is($rows, $nrow, "every table row is in the rendered tables ($nrow)");
is(join(' ', map { "$_->{w}x$_->{h}" } grep { !($_->{w} > 100 && $_->{h} > 20) } @{ $r->{tables} // [] }), '',
    'every table is laid out');
is(join("\n", console($log)), '', 'no console message in the probed load');
unlink $pf;

diag("screenshot: $shot");
done_testing();
