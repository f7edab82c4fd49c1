#!/usr/bin/perl
# summary_golden.t -- tbbt-summary's output byte for byte against golden
# files (tests/data/golden/summary.golden.zst): text and --json on the
# record fixtures of tests/data, several inputs with stdin, a record
# file, odd but valid lines; bad lines: the one-line message with
# FILE:LINE and the exit code. The golden file was made from the outputs
# on the day the Perl counting path was removed, when that path and the C
# helper agreed byte for byte on every case here (the test that compared
# them, xsummary.t, is this one's history). Properties that hold of any
# correct summary are tested in summary.t. Re-record (after a deliberate
# change of the output): TBBT_GOLDEN_WRITE=1 prove tests/transforms/summary_golden.t
use strict;
use warnings;
use Test::More;
use File::Basename qw(dirname);
use File::Temp qw(tempdir);
use Cwd qw(abs_path);
use FindBin;
use lib "$FindBin::Bin/../lib";
use TBBTTest qw(run_script golden_load golden_check golden_finish);

my $src    = $ENV{TBBT_SRC} // abs_path(dirname(__FILE__) . '/../..');
my $build  = $ENV{TBBT_BUILD} // "$src/build";
my $tool   = "$src/scripts/tbbt-summary";
my $dump   = "$build/tools/tbbt-dump";
my $tmp    = tempdir(CLEANUP => 1);
plan skip_all => 'tbbt-xsummary not built' unless -x "$build/libexec/tbbt-xsummary" && -x $dump;

my $golden = golden_load("$src/tests/data/golden/summary.golden.zst");

# same(ARGS, WHAT): the tool's exit code, stdout and stderr (the
# temporary directory and the sources named TMP and SRC) are the golden
# file's case WHAT; returns them.
sub same {
    my ($args, $what) = @_;
    my ($rc, $out, $err) = run_script($tool, $build, $args, "$tmp/err");
    (my $e = $err) =~ s/\Q$tmp\E/TMP/g;
    $e =~ s/\Q$src\E/SRC/g;
    golden_check($golden, $what, {rc => $rc, stdout => $out, stderr => $e});
    return ($rc, $out, $err);
}

# put(PATH, TEXT)
sub put {
    open my $fh, '>', $_[0] or die "$_[0]: $!";
    print $fh $_[1];
    close $fh or die;
}

# The record fixtures (fixed texts: captures go through tbbt-prep, whose
# output may change, and are tested by property in summary.t).
my @inputs = map {"$src/tests/data/$_.txt"} qw(rec-sample xform-ganesha xform-nfstrace xform-suricata-v2
  xform2-2sessions xform2-suricata);

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

golden_finish($golden, 'made by TBBT_GOLDEN_WRITE=1 prove tests/transforms/summary_golden.t on 2026-11-27 (h-onepath), '
      . 'from tbbt-summary with its C helper, which then agreed byte for byte with the Perl path (TBBT_PERL_ONLY=1) on every case');
done_testing();
