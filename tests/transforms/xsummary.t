#!/usr/bin/perl
# xsummary.t -- tbbt-summary's C hot loop (libexec/tbbt-xsummary) against its
# Perl reference (TBBT_PERL_ONLY=1), byte for byte: text and --json on
# every fixture of tests/data, on the records of the bundled capture
# (traces/) and of ../shared/captures when present; bad lines: the same
# one-line message with FILE:LINE and the same exit code.
use strict;
use warnings;
use Test::More;
use File::Basename qw(dirname);
use File::Temp qw(tempdir);
use Cwd qw(abs_path);
use FindBin;
use lib "$FindBin::Bin/../lib";
use TBBTTest qw(run_script);

my $src    = $ENV{TBBT_SRC} // abs_path(dirname(__FILE__) . '/../..');
my $build  = $ENV{TBBT_BUILD} // "$src/build";
my $tool   = "$src/scripts/tbbt-summary";
my $dump   = "$build/tools/tbbt-dump";
my $prep   = "$build/transform/tbbt-prep";
my $tmp    = tempdir(CLEANUP => 1);
plan skip_all => 'tbbt-xsummary not built' unless -x "$build/libexec/tbbt-xsummary";

# run(PERL_ONLY, SHELL-ARGS): (exit code, stdout, stderr) of the tool.
sub run {
    my ($perl, $args) = @_;
    return run_script($tool, $build, $perl, $args, "$tmp/err");
}

# same(ARGS, WHAT): both paths give the same exit, stdout and stderr.
sub same {
    my ($args, $what) = @_;
    my @p = run(1, $args);
    my @c = run(0, $args);
    is($c[0], $p[0], "$what: exit $p[0] both");
    ok($c[1] eq $p[1], "$what: stdout byte for byte") or diag "C:\n$c[1]\nPerl:\n$p[1]";
    is($c[2], $p[2], "$what: stderr");
    return @c;
}

# put(PATH, TEXT)
sub put {
    open my $fh, '>', $_[0] or die "$_[0]: $!";
    print $fh $_[1];
    close $fh or die;
}

# records(CAPTURE, NAME): the capture's records as text in $tmp/NAME.txt.
sub records {
    my ($cap, $name) = @_;
    system("'$prep' -q --no-map '$cap' -o '$tmp/$name.tbbt' >/dev/null 2>&1") == 0 or return;
    system("'$dump' '$tmp/$name.tbbt' >'$tmp/$name.txt'") == 0 or return;
    return "$tmp/$name.txt";
}

my @inputs = glob "$src/tests/data/*.txt";
if (-x $prep) {
    push @inputs, grep {defined} records("$src/traces/ganesha-libnfs-mixed.pcap.zst", 'bundled');
}
my $shared = abs_path("$src/..") . '/shared/captures/public';
for my $cap (sort glob "$shared/*.pcap.zst") {
    last unless -x $prep;
    my ($base) = $cap =~ m{([^/]+)\.pcap\.zst\z};
    push @inputs, grep {defined} records($cap, "shared-$base");
}
ok(@inputs > 7, 'fixtures and at least one capture') or diag "@inputs";

for my $in (@inputs) {
    my $name = (split m{/}, $in)[-1];
    same("'$in'", "$name text");
    same("--json - --interval 0.01 --top 3 '$in'", "$name --json, interval 0.01");
    same("--interval 0.3 --top 50 --json '$tmp/j.json' '$in'", "$name --interval 0.3 text");
}

subtest 'several inputs, stdin, a record file' => sub {
    my @two = grep {/xform-/} @inputs;
    same("--json - '$two[0]' - '$two[1]' <'$two[0]'", 'three inputs with stdin');
    system("'$dump' --text-in '$two[1]' -o '$tmp/r.tbbt'") == 0 or die;
    same("--json - '$tmp/r.tbbt'", 'a .tbbt through tbbt-dump');
};

subtest 'odd but valid lines' => sub {
    my $h = '1.000000000 1.000100000 10.0.0.1:700 10.0.0.2:2049 0xABCDEF01 v3';
    put("$tmp/odd.txt", join '',
        "$h read 0 T cred=1:007:0 obj=5 obj=6 rcount=10 rcount=x\n",
        "  $h\twrite 5 - cred=01:0:0:1,2 count=7 obj=\r\n",
        "$h readdirfoo -3 C+1f cred=2:1:1: obj=9 dir= x_1=\"a b\n",
        "-0.500000000 - :80 - 0x00000000 v0099 frob_2 - L cred=0:0:0\n",
        "2.000000000 1.000000000 [::1]:1 x 0x00000001 v2 read 1 TX cred=1:1:1 rcount=99999999999\n",
        "9223372036.854775807 - a b 0x00000002 v3 null - L cred=1:0:0\n",
        "-9223372036.854775808 9223372036.854775807 a b 0x00000003 v3 null 0 - cred=1:0:0\n",
        "0");
    same("--json - --interval 0.000001 '$tmp/odd.txt'", 'odd lines, --json, tiny buckets');
    same("--interval 7 '$tmp/odd.txt'", 'odd lines, text');
};

subtest 'bad lines: the same one-line error, FILE:LINE, exit 1' => sub {
    my $ok = '1.000000000 1.000100000 10.0.0.1:700 10.0.0.2:2049 0x00000001 v3 getattr 0 - cred=1:0:0';
    my @bad = (
        '', '   ', 'a b c', 'x 1.0 a b 0x1 v3 p 0 - cred=1:0:0',
        '1.000000000 1.0 a b 0x00000001 v3 getattr 0 - cred=1:0:0',
        '1.000000000 - a b 0x0000001 v3 getattr 0 L cred=1:0:0',
        '1.000000000 - a b 0x00000001 3 getattr 0 L cred=1:0:0',
        '1.000000000 - a b 0x00000001 v3 GetAttr 0 L cred=1:0:0',
        '1.000000000 - a b 0x00000001 v3 getattr ok L cred=1:0:0',
        '1.000000000 - a b 0x00000001 v3 getattr 0 l cred=1:0:0',
        '1.000000000 - a b 0x00000001 v3 getattr 0 L+ cred=1:0:0',
        '1.000000000 - a b 0x00000001 v3 getattr 0 L cred=1:0',
        '1.000000000 - a b 0x00000001 v3 getattr 0 - cred=1:0:0',
        '1.000000000 2.000000000 a b 0x00000001 v3 getattr 0 L cred=1:0:0',
        "$ok obj=1 Obj=2",
        "$ok =3",
        '9223372036.854775808 - a b 0x00000001 v3 getattr 0 L cred=1:0:0',
        "1.000000000 - a b 0x00000001 v3 getattr 0 L cred=1:0:0 k=\x00\xff x\x01",
    );
    for my $i (0 .. $#bad) {
        put("$tmp/bad$i.txt", "$ok\n$ok\n$bad[$i]\n$ok\n");
        my ($rc, $out, $err) = same("'$tmp/bad$i.txt'", "bad line $i");
        is($rc, 1, "bad line $i: exit 1");
        like($err, qr/\Atbbt-summary: \Q$tmp\E\/bad$i\.txt:3: column \d+: [^\n]*\n\z/, "bad line $i: one line");
    }
    my ($rc, $out, $err) = same("- <'$tmp/bad2.txt'", 'bad line on stdin');
    like($err, qr/\Atbbt-summary: stdin:3: /, 'named stdin');
    same("'$tmp/none.txt'", 'a missing input');
    same("'$src/tests/data/xform-ganesha.txt' '$tmp/bad5.txt' '$tmp/none.txt'", 'the first error wins');
};

done_testing();
