#!/usr/bin/perl
# fuzz.t -- scripts/tbbt-ellard on damaged traces: the fixture's real lines
# in order, many times over, each round later in time, with tokens dropped,
# replaced by junk, cut short (seeded, so every run is the same). A user
# feeding a damaged trace must get: exit 0, warnings and the summary only
# (never a Perl warning or stack trace), records that tbbt-dump accepts,
# in call-time order but for those the summary counts out of order (pass 1
# writes an answered call at once), each from a call line of the input.
# The C reader itself is fuzzed by fuzz/fuzz_ellard.c (libFuzzer).
use strict;
use warnings;
use Test::More;
use File::Basename qw(dirname);
use File::Temp qw(tempdir);
use Cwd qw(abs_path);

my $src   = $ENV{TBBT_SRC} // abs_path(dirname(__FILE__) . '/../..');
my $build = $ENV{TBBT_BUILD} // "$src/build";
my $tool  = "$src/scripts/tbbt-ellard";
my $dump  = "$build/tools/tbbt-dump";
my $tmp   = tempdir(CLEANUP => 1);

my @lines = grep { !/^#/ } do { open my $fh, '<', "$src/tests/data/ellard-quirks.txt" or die; <$fh> };
chomp @lines;

# mutate(TOKENS): one random damage to a line's tokens.
sub mutate {
    my @t = @_;
    my $j = int rand @t;
    my $k = int rand 7;
    if    ($k == 0) { splice @t, $j, 1 }
    elsif ($k == 1) { $t[$j] = join '', map { chr(33 + rand 94) } 0 .. rand 6 }
    elsif ($k == 2) { $t[$j] = 'ffffffffffffffffffff' }
    elsif ($k == 3) { $t[$j] = '"' }
    elsif ($k == 4) { $t[$j] = '-1' }
    elsif ($k == 5) { @t = @t[ 0 .. $j ] }
    else            { $t[$j] = '"a\\zz"' }
    return @t;
}

srand 20011130;
my (%call_xids, $n);
open my $out, '>', "$tmp/damaged.txt" or die;
for my $round (0 .. 59) {
    for my $line (@lines) {
        my @t = split / /, $line;
        $t[0] = sprintf '%.6f', $t[0] + 100 * $round if $t[0] =~ /^\d+\.\d+$/;
        $t[5] = sprintf '%x', (hex($t[5]) + $round) & 0xffffffff if ($t[5] // '') =~ /^[0-9a-f]+$/;
        @t = mutate(@t) if rand() < 0.4;
        my $l = join ' ', @t;
        $call_xids{ sprintf '0x%08x', hex $1 } = 1 if $l =~ /^\S+ \S+ \S+ [TU] C[23] ([0-9a-fA-F]{1,8}) /;
        print $out "$l\n";
        $n++;
    }
}
close $out;

my $records = `perl '$tool' --max-warnings 5 '$tmp/damaged.txt' 2>'$tmp/err'`;
is($? >> 8, 0, "$n damaged lines: exit 0");
my $err = do { open my $fh, '<', "$tmp/err" or die; local $/; <$fh> };
is_deeply([grep { / at \S+ line \d+|internal error/ } split /\n/, $err], [], 'stderr: no Perl warning or error');
like($err, qr/malformed lines skipped: [1-9]/, 'damaged lines are counted');
my @recs = split /\n/, $records;
ok(@recs > 1000, scalar(@recs) . ' records');
my @t = map { (split / /)[0] } @recs;
my ($ooo) = $err =~ / (\d+) records out of call-time order/;
is(scalar(grep { $t[$_] < $t[ $_ - 1 ] } 1 .. $#t), $ooo // -1, 'in call-time order but those counted out of order');
is(scalar(grep { !$call_xids{ (split / /)[4] } } @recs), 0, 'every record comes from a call line');
SKIP: {
    skip "no tbbt-dump in $build", 1 unless -x $dump;
    open my $fh, '>', "$tmp/r.txt" or die;
    print $fh $records;
    close $fh;
    is(system("'$dump' --text-in -o '$tmp/r.tbbt' '$tmp/r.txt'"), 0, 'tbbt-dump accepts every record');
}

done_testing();
