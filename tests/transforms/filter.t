#!/usr/bin/perl
# filter.t -- what users of scripts/tbbt-filter rely on: a time window
# keeps exactly the records whose call time is in [from, to) (counted here
# independently, by awk), absolute or relative to the first record; the
# client, uid and procedure selections keep exactly theirs; a .tbbt input
# gives the same; without --raw the result goes through passes 2 and 3
# (exit 0, OUT.tbbt and OUT.hmap, and tbbt-check then finds no replay
# failure); bad input fails with FILE:LINE and leaves no output.
#
# Fixtures: tests/data/xform2-*.txt (tests/data/README.md).
use strict;
use warnings;
use Test::More;
use File::Basename qw(dirname);
use File::Temp qw(tempdir);
use Cwd qw(abs_path);

my $src   = $ENV{TBBT_SRC} // abs_path(dirname(__FILE__) . '/../..');
my $build = $ENV{TBBT_BUILD} // "$src/build";
my $tool  = "$src/scripts/tbbt-filter";
my $prep  = "$build/transform/tbbt-prep";
my $dump  = "$build/tools/tbbt-dump";
my $check = "$build/tools/tbbt-check";
my $tmp   = tempdir(CLEANUP => 1);
my $fix   = "$src/tests/data/xform2-2sessions.txt";

# run(SHELL-ARGS): runs the tool (60 s limit); returns (exit code, stdout,
# stderr).
sub run {
    my ($args) = @_;
    my $out = `TBBT_BUILD='$build' timeout 60 perl '$tool' $args 2>'$tmp/err'`;
    my $rc  = $? & 127 ? 128 + ($? & 127) : $? >> 8;
    return ($rc, $out, slurp("$tmp/err"));
}

# slurp(PATH): the file's content ('' when missing).
sub slurp {
    open(my $fh, '<:raw', $_[0]) or return '';
    local $/;
    return <$fh> // '';
}

# awk(PROGRAM): the fixture's lines that an awk program prints.
sub awk {
    my ($prog) = @_;
    return `awk '$prog' '$fix'`;
}

plan skip_all => "build first: $prep" unless -x $prep && -x $dump && -x $check;

my @all = split /\n/, slurp($fix);
my @ct  = map { (split ' ')[0] } @all;
my ($lo, $hi) = ($ct[10], $ct[50]);    # call times of two records, as bounds

subtest 'usage' => sub {
    my ($rc, $out) = run('--help');
    is($rc, 0, '--help: exit 0');
    like($out, qr/--exclude-proc/, '--help shows the options');
    for my $bad ("--from x --raw '$fix'", "--proc nosuch --raw '$fix'", "--exclude-proc --raw '$fix'",
        "-o '$tmp/x.txt' '$fix'", "--raw", "--uid u --raw '$fix'")
    {
        ($rc, $out) = run($bad);
        is($rc, 2, "$bad: exit 2");
    }
};

subtest 'time window: exactly the records in [from, to)' => sub {
    my ($rc, $out) = run("-q --raw --from $lo --to $hi '$fix'");
    is($rc, 0, 'exit 0');
    my $want = awk("\$1 >= $lo && \$1 < $hi");
    ok(length $want, 'awk finds records in the window');
    is($out, $want, 'the same lines as awk');
    # +SEC: the bounds' offsets from the first call time, computed exactly
    # in integer nanoseconds; they must select the same window.
    my $ns  = sub { my ($s, $f) = $_[0] =~ /^(\d+)\.(\d{9})$/ or die; $s * 1_000_000_000 + $f };
    my $off = sub { my $d = $ns->($_[0]) - $ns->($ct[0]); sprintf('+%d.%09d', int($d / 1e9), $d % 1_000_000_000) };
    my ($rc2, $rel) = run('-q --raw --from ' . $off->($lo) . ' --to ' . $off->($hi) . " '$fix'");
    is($rc2, 0, 'relative bounds: exit 0');
    is($rel, $want, 'relative bounds (+SEC): the same lines as awk');
    ($rc, $out) = run("-q --raw --from $hi '$fix'");
    is($out, awk("\$1 >= $hi"), '--from alone');
    ($rc, $out) = run("-q --raw --to $lo '$fix'");
    is($out, awk("\$1 < $lo"), '--to alone');
};

subtest 'clients' => sub {
    my ($rc, $out) = run("-q --raw --client 10.6.136.107:9322 '$fix'");
    my $want = awk('$3 == "10.6.136.107:9322"');
    ok(length $want, 'records of port 9322');
    is($out, $want, 'host:port: exactly that session');
    ($rc, $out) = run("-q --raw --client 10.6.136.107:9322 --client 10.6.136.107:9318 '$fix'");
    is($out, awk('$3 == "10.6.136.107:9322" || $3 == "10.6.136.107:9318"'), 'two --client: either');
    ($rc, $out) = run("-q --raw --client 10.6.136.107 '$fix'");
    is($out, slurp($fix), 'host alone: every port');
    ($rc, $out) = run("-q --raw --client 10.9.9.9 '$fix'");
    is($out, '', 'another host: nothing');
};

subtest 'procedures and users' => sub {
    my ($rc, $out) = run("-q --raw --proc lookup --proc getattr '$fix'");
    my $want = awk('$7 == "lookup" || $7 == "getattr"');
    ok(length $want, 'lookups and getattrs in the fixture');
    is($out, $want, '--proc: exactly those');
    ($rc, $out) = run("-q --raw --proc lookup --proc getattr --exclude-proc '$fix'");
    is($out, awk('$7 != "lookup" && $7 != "getattr"'), '--exclude-proc: all the others');
    ($rc, $out) = run("-q --raw --uid 500 '$fix'");
    is($out, awk('$10 ~ /^cred=[0-9]+:500:/'), '--uid 500');
    ($rc, $out) = run("-q --raw --uid 500 --proc write --from $lo '$fix'");
    is($out, awk("\$10 ~ /^cred=[0-9]+:500:/ && \$7 == \"write\" && \$1 >= $lo"), 'selections combine');
};

subtest 'a .tbbt input, a .tbbt output with --raw' => sub {
    is(system("'$dump' --text-in '$fix' -o '$tmp/in.tbbt'"), 0, 'fixture as a record file');
    my ($rc, $out) = run("-q --raw --from $lo --to $hi '$tmp/in.tbbt'");
    is($out, awk("\$1 >= $lo && \$1 < $hi"), 'the same window from .tbbt');
    ($rc) = run("-q --raw --proc lookup -o '$tmp/raw.tbbt' '$fix'");
    is($rc, 0, '--raw -o X.tbbt: exit 0');
    is(scalar `'$dump' '$tmp/raw.tbbt'`, awk('$7 == "lookup"'), 'holds those records');
};

subtest 'passes 2 and 3 on the result' => sub {
    for my $sel ("--from $lo --to $hi", '--proc remove --proc rmdir --proc create --exclude-proc',
        '--client 10.6.136.107:9322', "--from $hi")
    {
        unlink "$tmp/f.tbbt", "$tmp/f.hmap";
        my ($rc, $out, $err) = run("-q $sel -o '$tmp/f.tbbt' '$fix'");
        is($rc, 0, "$sel: exit 0") or diag $err;
        ok(-s "$tmp/f.tbbt" && -s "$tmp/f.hmap", 'OUT.tbbt and OUT.hmap written');
        like(slurp("$tmp/f.hmap"), qr/\n# end \d+\n\z/, 'the map is complete');
        is(system("'$check' '$tmp/f.tbbt' >/dev/null 2>&1"), 0, 'tbbt-check: no replay failure left');
        my @kept = split /\n/, `'$dump' '$tmp/f.tbbt'`;
        my @orig = grep { (split ' ')[8] !~ /I/ } @kept;
        (my $awk = $sel) =~ s/^--from (\S+) --to (\S+)$/\$1 >= $1 && \$1 < $2/;
        if ($awk =~ /^\$1/) {
            is(scalar @orig, scalar(() = awk($awk) =~ /\n/g), 'the records not inserted by pass 2: the window');
        }
    }
    is(system("'$tool' -q --proc lookup -o '$tmp/g.tbbt' '$tmp/nosuch.txt' 2>/dev/null"), 1 << 8,
        'missing input: exit 1');
};

subtest 'bad input: exit 1, FILE:LINE, no output left' => sub {
    my @b = @all;
    $b[6] =~ s/^\S+/12x/;
    open(my $fh, '>', "$tmp/bad.txt") or die;
    print $fh join("\n", @b), "\n";
    close $fh;
    my ($rc, $out, $err) = run("-q --from $lo -o '$tmp/bad.tbbt' '$tmp/bad.txt'");
    is($rc, 1, 'exit 1');
    like($err, qr/^tbbt-filter: \Q$tmp\E\/bad\.txt:7: [^\n]+\n\z/, 'one line naming FILE:7');
    ok(!-e "$tmp/bad.tbbt" && !-e "$tmp/bad.hmap", 'no output');
    is_deeply([glob("$tmp/.bad*")], [], 'no temporary file left');
};

done_testing();
