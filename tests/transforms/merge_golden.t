#!/usr/bin/perl
# merge_golden.t -- tbbt-merge's outputs byte for byte against golden
# files (tests/data/golden/merge.golden.zst): the record fixtures of
# tests/data, each split in two interleaved pieces and merged, merged with
# itself (every call a duplicate, ties in time), with --dup-window 0 and
# -o; bad inputs: the one-line error with FILE:LINE, the exit code, no
# output left. The golden file was made from the outputs on the day the
# Perl merge loop was removed, when it and the C helper agreed byte for
# byte on every case here (the test that compared them, xmerge.t, is this
# one's history). Properties of any correct merge are tested in merge.t.
# Re-record (after a deliberate change of the output):
# TBBT_GOLDEN_WRITE=1 prove tests/transforms/merge_golden.t
use strict;
use warnings;
use Test::More;
use File::Basename qw(dirname);
use File::Temp qw(tempdir);
use Cwd qw(abs_path);
use FindBin;
use lib "$FindBin::Bin/../lib";
use TBBTTest qw(run_script golden_load golden_check golden_finish);

my $src   = $ENV{TBBT_SRC} // abs_path(dirname(__FILE__) . '/../..');
my $build = $ENV{TBBT_BUILD} // "$src/build";
my $tool  = "$src/scripts/tbbt-merge";
my $dump  = "$build/tools/tbbt-dump";
my $tmp   = tempdir(CLEANUP => 1);
plan skip_all => 'tbbt-xmerge not built' unless -x "$build/libexec/tbbt-xmerge" && -x $dump;

my $golden = golden_load("$src/tests/data/golden/merge.golden.zst");

# run(SHELL-ARGS): (exit code, stdout, stderr) of the tool.
sub run {
    my ($args) = @_;
    my ($rc, $out, $err) = run_script($tool, $build, $args, "$tmp/err");
    # A failed merge into a .tbbt stops the output's tbbt-dump (SIGTERM), which
    # says so, or not when the signal comes before its handler is set: a race.
    $err =~ s/^tbbt-dump: interrupted, nothing written\n//m;
    return ($rc, $out, $err);
}

# slurp(PATH): the file's bytes, or undef.
sub slurp {
    open my $fh, '<', $_[0] or return undef;
    local $/;
    return <$fh>;
}

# put(PATH, TEXT)
sub put {
    open my $fh, '>', $_[0] or die "$_[0]: $!";
    print $fh $_[1];
    close $fh or die;
}

# same(ARGS, WHAT, OUT): the exit code, stdout, stderr (the temporary
# directory named TMP, the source tree SRC) and, when OUT is given, the file OUT (its record
# text when it is a .tbbt, or none) are the golden file's case WHAT;
# returns the exit code, stdout and stderr.
sub same {
    my ($args, $what, $out) = @_;
    unlink $out if defined $out;
    my ($rc, $so, $err) = run($args);
    (my $e = $err) =~ s/\Q$tmp\E/TMP/g;
    $e =~ s/\Q$src\E/SRC/g;    # the golden file holds no path of the tree it was made in
    my %got = (rc => $rc, stdout => $so, stderr => $e);
    if (defined $out) {
        $got{file} = !-e $out ? '<none>' : $out =~ /\.tbbt\z/ ? scalar `'$dump' '$out'` : slurp($out);
    }
    golden_check($golden, $what, \%got);
    return ($rc, $so, $err);
}

# Inputs: the record fixtures sorted by call time (fixed texts: captures go
# through tbbt-prep, whose output may change, and are tested by property
# in merge.t and merge_captures.t).
my @inputs = map {"$src/tests/data/$_.txt"} qw(rec-sample xform-ganesha xform-nfstrace xform-suricata-v2
  xform2-2sessions xform2-suricata);

for my $in (@inputs) {
    my $name = (split m{/}, $in)[-1];
    my @l = split /^/, slurp($in);
    my @sorted = sort { (split ' ', $a)[0] <=> (split ' ', $b)[0] } @l;
    if (join('', @sorted) ne join('', @l)) {    # not a sorted trace: both refuse it the same way
        same("'$in'", "$name unsorted");
        next;
    }
    put("$tmp/p1.txt", join '', @l[grep { $_ % 3 == 0 } 0 .. $#l]);
    put("$tmp/p2.txt", join '', @l[grep { $_ % 3 != 0 } 0 .. $#l]);
    same("'$tmp/p2.txt' '$tmp/p1.txt'", "$name in two pieces");
    same("--dup-window 0 '$in' '$tmp/p1.txt' '$in'", "$name with itself, window 0");
    same("-o '$tmp/o.txt' '$tmp/p1.txt' '$in'", "$name -o", "$tmp/o.txt");
}

subtest 'duplicates across inputs, window edges, stdin, .tbbt in and out' => sub {
    my $h = '10.0.0.1:700 10.0.0.2:2049';
    my $a = join '', map { my ($t, $x) = @$_; "$t - $h 0x0000000$x v3 getattr - L cred=1:0:0\n" }
      (['1.000000000', 1], ['1.000000000', 2], ['1.500000000', 1], ['3.000000000', 1], ['3.000000000', 1]);
    my $b = join '', map { my ($t, $x) = @$_; "$t - $h 0x0000000$x v3 getattr - L cred=1:0:0 obj=9\n" }
      (['1.000000000', 1], ['2.000000000', 'A'], ['2.500000000', 1], ['4.000000001', 1], ['9.000000000', 3]);
    put("$tmp/da.txt", $a);
    put("$tmp/db.txt", $b . "9.500000000 - $h 0x00000003 v3 getattr - L cred=1:0:0");
    for my $w ('0', '0.5', '1', '1.000000001', '2', '99999999999999') {
        same("--dup-window $w '$tmp/da.txt' '$tmp/db.txt'", "window $w");
        same("--dup-window $w '$tmp/db.txt' - '$tmp/da.txt' <'$tmp/da.txt'", "window $w, stdin");
    }
    system("'$dump' --text-in '$tmp/db.txt' -o '$tmp/db.tbbt'") == 0 or die;
    same("'$tmp/db.tbbt' '$tmp/da.txt'", 'a .tbbt input');
    same("-q -o '$tmp/m.tbbt' '$tmp/da.txt' '$tmp/db.tbbt'", 'a .tbbt output', "$tmp/m.tbbt");
};

subtest 'bad input: the same one-line error, FILE:LINE, exit 1, no output' => sub {
    my $ok  = "1.000000000 - a b 0x00000001 v3 getattr - L cred=1:0:0\n";
    my $ok2 = "2.000000000 - a b 0x00000002 v3 getattr - L cred=1:0:0\n";
    my @bad = (
        "\n", "a b c\n", "x - a b 0x00000001 v3 getattr - L cred=1:0:0\n",
        "3.000000000 - a b 0x0000001 v3 getattr - L cred=1:0:0\n",
        "3.000000000 - a b 0x00000001 3 getattr - L cred=1:0:0\n",
        "3.000000000 - a b 0x00000001 v3 Getattr - L cred=1:0:0\n",
        "1.500000000 - a b 0x00000001 v3 getattr - L cred=1:0:0\n",
        "9223372036.854775808 - a b 0x00000001 v3 getattr - L cred=1:0:0\n",
    );
    for my $i (0 .. $#bad) {
        put("$tmp/bad$i.txt", "$ok$ok2$bad[$i]$ok2");
        my ($rc, $out, $err) = same("-o '$tmp/bo.txt' '$tmp/da.txt' '$tmp/bad$i.txt'", "bad $i", "$tmp/bo.txt");
        is($rc, 1, "bad $i: exit 1");
        like($err, qr/\Atbbt-merge: \Q$tmp\E\/bad$i\.txt:3: [^\n]*\n\z/, "bad $i: one line with FILE:LINE");
        same("-o '$tmp/bo.tbbt' '$tmp/bad$i.txt' '$tmp/da.txt'", "bad $i to .tbbt", "$tmp/bo.tbbt");
    }
    same("'$tmp/da.txt' '$tmp/none.txt'", 'a missing input');
    same("'$tmp/bad0.txt' '$tmp/none.txt'", 'a bad line and a missing input');
    same("-o /nonexistent/dir/x.txt '$tmp/bad0.txt'", 'an output that cannot be made');
    same("- <'$tmp/bad2.txt'", 'bad line on stdin');
};

golden_finish($golden, 'made by TBBT_GOLDEN_WRITE=1 prove tests/transforms/merge_golden.t on 2026-11-27 (h-onepath), '
      . 'from tbbt-merge with its C helper, which then agreed byte for byte with the Perl path (TBBT_PERL_ONLY=1) on every case');
done_testing();
