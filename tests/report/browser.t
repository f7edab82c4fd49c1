#!/usr/bin/perl
# tests/report/browser.t -- the decision page in a real browser (Debian's
# headless chromium), at a laptop's 1280x800 and a desktop's 1920x1080:
# nothing on it wider than the window (every collapsible block opened
# first), every plot laid out with its curves drawn, no console message or
# script error, nothing fetched (self-contained), the verdict on the first
# screen. Two pages: repeated runs and a sweep, from real results of two
# nfs-ganesha filers, one mounted -o sync (tests/data/report-fixtures.tar.zst,
# made by tests/report/make-fixtures.sh). The screenshots are kept as
# $TBBT_BUILD/report-test/{runs,sweep}-WxH.png (with the pages beside
# them, in report-test/{runs,sweep}/); TBBT_REPORT_TEST_DIR replaces
# $TBBT_BUILD/report-test; TBBT_REPORT_INPUTS (result files) makes one
# page of them instead. Skipped (skip_all) without chromium, gnuplot or
# tar with zstd.
use strict;
use warnings;

use File::Basename qw(dirname);
use File::Path qw(make_path remove_tree);
use File::Temp qw(tempdir);
use JSON::PP;
use Test::More;

my $SRC    = $ENV{TBBT_SRC} // dirname(dirname(dirname(__FILE__)));
my $REPORT = "$SRC/scripts/tbbt-report";
my $FIX    = "$SRC/tests/data/report-fixtures.tar.zst";

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
plan skip_all => 'zstd not installed' unless which('zstd');

my $BASE = $ENV{TBBT_REPORT_TEST_DIR}
  // ($ENV{TBBT_BUILD} ? "$ENV{TBBT_BUILD}/report-test" : tempdir(CLEANUP => 0) . '/report-test');
make_path($BASE);
my $PROFILE = tempdir(CLEANUP => 1);
my $IN      = tempdir(CLEANUP => 1);
system('tar', '-C', $IN, '--zstd', '-xf', $FIX) == 0 or BAIL_OUT("cannot unpack $FIX");

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

# png_size(FILE): (width, height) of a PNG, or ().
sub png_size {
    my ($f) = @_;
    open(my $fh, '<:raw', $f) or return ();
    read($fh, my $b, 24);
    return () unless length $b == 24 && substr($b, 0, 8) eq "\x89PNG\r\n\x1a\n";
    return unpack('NN', substr($b, 16, 8));
}

# The probe, added to a copy of the page (the page has no script of its
# own): once loaded, it opens every collapsible block, then measures what
# the browser laid out: the viewport, every element wider than it or
# reaching past its right edge, every plot's box and drawn paths, where
# the verdict ends, errors raised, resources fetched.
my $PROBE_HEAD = <<'JS';
<script>
window.__errors = [];
window.addEventListener('error', function (e) { window.__errors.push(String(e.message)); });
</script>
JS
my $PROBE = <<'JS';
<script>
window.addEventListener('load', function () {
  document.querySelectorAll('details').forEach(function (d) { d.open = true; });
  var vw = document.documentElement.clientWidth;
  var r = { errors: window.__errors, vw: vw, sw: document.documentElement.scrollWidth, wide: [], svgs: [],
            fetched: performance.getEntriesByType('resource').map(function (e) { return e.name; }) };
  document.querySelectorAll('body *').forEach(function (el) {
    if (el.closest('svg') && el.tagName.toLowerCase() !== 'svg') return;
    if (/^(tbody|thead|tr|td|th)$/i.test(el.tagName)) return;    // their table is measured
    var b = el.getBoundingClientRect();
    if (b.width > vw + 0.5 || b.right > vw + 0.5)
      r.wide.push(el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + (el.className && el.className.baseVal === undefined ? '.' + el.className : '')
                  + (el.dataset && el.dataset.group ? '[' + el.dataset.group + ']' : '') + ' ' + Math.round(b.width) + 'px to ' + Math.round(b.right));
  });
  document.querySelectorAll('figure > svg').forEach(function (s) {
    var b = s.getBoundingClientRect(), drawn = 0, paths = s.querySelectorAll('path');
    paths.forEach(function (p) { var q = p.getBBox(); if (q.width > 0 && q.height > 0) drawn++; });
    var c = s.querySelector('g[id$="gnuplot_plot_1"]');
    var cb = c ? c.getBBox() : { width: 0, height: 0 };
    r.svgs.push({ id: s.parentNode.id, w: Math.round(b.width), h: Math.round(b.height), paths: paths.length,
                  drawn: drawn, curve: cb.width > 0 && cb.height > 0 });
  });
  var v = document.querySelector('#verdict .headline');
  r.headline_bottom = v ? Math.round(v.getBoundingClientRect().bottom) : -1;
  var t = document.getElementById('verdict-servers');
  r.servers_bottom = t ? Math.round(t.getBoundingClientRect().bottom) : -1;
  var pre = document.createElement('pre');
  pre.id = 'probe-result';
  pre.textContent = JSON.stringify(r);
  document.body.appendChild(pre);
});
</script>
JS

# check_page(NAME, ARGS...): tbbt-report ARGS into BASE/NAME, then the
# page at both window sizes.
sub check_page {
    my ($name, @args) = @_;
    my $out = "$BASE/$name";
    remove_tree($out);
    make_path($out);
    my $q = join ' ', map { quotemeta } 'perl', $REPORT, '-q', '-o', $out, @args;
    system("$q 2>'$BASE/report.err'");
    is($? >> 8, 0, "$name: tbbt-report wrote the page") or return diag(slurp("$BASE/report.err"));
    my $html = slurp("$out/report.html");
    my $nsvg = () = $html =~ /<svg\b/g;
    cmp_ok($nsvg, '>=', 5, "$name: the page has $nsvg plots");
    my $url = "file://$out/report.html";

    # the page as written: its DOM and console
    my ($rc, $dom, $log) = chromium('--window-size=1280,800', '--dump-dom', $url);
    is($rc, 0, "$name: chromium loaded the page") or diag($log);
    my $dsvg = () = $dom =~ /<svg\b/g;
    is($dsvg, $nsvg, "$name: the DOM holds every plot ($nsvg SVGs)");
    is(join("\n", console($log)), '', "$name: no console message or script error while loading the page");

    (my $copy = $html) =~ s/<head>/<head>\n$PROBE_HEAD/;
    $copy =~ s/<\/body>/$PROBE<\/body>/;
    my $pf = "$out/probe.html";
    open(my $fh, '>:encoding(UTF-8)', $pf) or die "$pf: $!";
    print $fh $copy;
    close $fh;
    for my $size ([1280, 800], [1920, 1080]) {
        my ($w, $h) = @$size;
        my $shot = "$BASE/$name-${w}x$h.png";
        unlink $shot;
        ($rc, undef, $log) = chromium('--hide-scrollbars', "--window-size=$w,$h", "--screenshot=$shot", $url);
        is($rc, 0, "$name ${w}x$h: chromium took a screenshot") or diag($log);
        is(join(' x ', png_size($shot)), "$w x $h", "$name ${w}x$h: the screenshot is a ${w}x$h PNG: $shot");
        cmp_ok(-s $shot // 0, '>', 30_000, "$name ${w}x$h: the screenshot is not blank (" . (-s $shot // 0) . ' bytes)');

        ($rc, $dom, $log) = chromium("--window-size=$w,$h", '--dump-dom', "file://$pf");
        is($rc, 0, "$name ${w}x$h: chromium loaded the probed copy") or diag($log);
        my ($json) = $dom =~ /<pre id="probe-result">(.*?)<\/pre>/s;
        ok(defined $json, "$name ${w}x$h: the probe ran") or diag(join("\n", console($log)));
        $json //= '{}';
        $json =~ s/&quot;/"/g;
        $json =~ s/&lt;/</g;
        $json =~ s/&gt;/>/g;
        $json =~ s/&amp;/&/g;
        my $r = eval { decode_json($json) } // {};
        cmp_ok($r->{vw} // 0, '>=', $w - 20, "$name ${w}x$h: the viewport is $w px wide ($r->{vw} px beside the scroll bar)");
        is(join("\n", @{ $r->{wide} // ['no probe'] }), '', "$name ${w}x$h: no element wider than the window, every block open");
        cmp_ok($r->{sw} // 1e9, '<=', $r->{vw} // 0, "$name ${w}x$h: no horizontal scrolling (page $r->{sw} px)");
        is(join('; ', @{ $r->{errors} // ['no probe'] }), '', "$name ${w}x$h: no error raised while loading");
        is(join(' ', @{ $r->{fetched} // ['no probe'] }), '', "$name ${w}x$h: the page fetched nothing (self-contained)");
        is(scalar @{ $r->{svgs} // [] }, $nsvg, "$name ${w}x$h: the probe saw every plot");
        my @bad;
        for my $s (@{ $r->{svgs} // [] }) {
            push @bad, "$s->{id}: laid out $s->{w}x$s->{h}" unless $s->{w} >= 200 && $s->{h} >= 130;
            push @bad, "$s->{id}: $s->{drawn} of $s->{paths} paths drawn" unless $s->{drawn} >= 5;
            push @bad, "$s->{id}: no first curve drawn" unless $s->{curve};
        }
        is(join("\n", @bad), '', "$name ${w}x$h: every plot laid out with its axes and a visible first curve");
        cmp_ok($r->{servers_bottom} // -1, '>', 0, "$name ${w}x$h: the verdict's table is laid out");
        cmp_ok($r->{servers_bottom} // 1e9, '<=', $h, "$name ${w}x$h: the headline and every server's figures on the first screen"
              . " (bottom at $r->{servers_bottom} px)");
        is(join("\n", console($log)), '', "$name ${w}x$h: no console message in the probed load");
    }
    unlink $pf;
    return $html;
}

if ($ENV{TBBT_REPORT_INPUTS}) {    # tests/e2e/report_ganesha.sh: results made there
    check_page('inputs', split(' ', $ENV{TBBT_REPORT_INPUTS}));
    diag("screenshots: $BASE/inputs-{1280x800,1920x1080}.png");
    done_testing();
    exit 0;
}
my @runs  = sort glob("$IN/runs/*.json");
my @sweep = sort glob("$IN/sweep/*.json");
cmp_ok(scalar @runs,  '>=', 6, 'fixtures: repeated runs of two servers');
cmp_ok(scalar @sweep, '>=', 6, 'fixtures: a sweep of two servers');
my $h1 = check_page('runs', @runs);
like($h1, qr/<section id="verdict">/, 'runs: the verdict section');
my $h2 = check_page('sweep', '--p99-limit', 50, '--latency-from', 'send', @sweep);
like($h2, qr/<figure id="plot-curve" class="main wide">/, 'sweep: the throughput-latency curve');
diag("screenshots: $BASE/{runs,sweep}-{1280x800,1920x1080}.png");
done_testing();
