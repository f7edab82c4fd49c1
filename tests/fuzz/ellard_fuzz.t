#!/usr/bin/perl
# ellard_fuzz.t -- a bounded mutation fuzz of scripts/tbbt-ellard, the Ellard
# text importer (Perl, so libFuzzer cannot drive it). Each round takes a
# window of real lines (tests/data/ellard-quirks.txt and, when present,
# ../shared/captures/public/ellard-raw-data.txt), damages it at byte and
# field level (flips, cuts, deleted or doubled fields, huge and negative
# numbers, joined lines, binary junk, NULs, very long tokens), and runs the
# importer on it. What users rely on, every round: it never hangs (20 s),
# never dies with a Perl error or warning (stderr holds only
# "tbbt-ellard: " lines, none an "internal error"), and either succeeds
# or exits 1 with exactly one line naming the file and the line at fault;
# the records it writes are accepted by tbbt-dump --text-in.
# Seeded (TBBT_FUZZ_SEED, default fixed) so a failure replays; the number
# of rounds is TBBT_FUZZ_ROUNDS (default 300). A failing input is kept in
# $TBBT_BUILD/fuzz-crashes/ for tests/fuzz/regress/ellard/.
use strict;
use warnings;
use Test::More;
use File::Basename qw(dirname);
use File::Path qw(make_path);
use File::Temp qw(tempdir);
use Cwd qw(abs_path);

my $src    = $ENV{TBBT_SRC} // abs_path(dirname(__FILE__) . '/../..');
my $build  = $ENV{TBBT_BUILD} // "$src/build";
my $tool   = "$src/scripts/tbbt-ellard";
my $dump   = "$build/tools/tbbt-dump";
my $rounds = $ENV{TBBT_FUZZ_ROUNDS} // 300;
my $seed   = $ENV{TBBT_FUZZ_SEED} // 20050101;
my $tmp    = tempdir(CLEANUP => 1);

# read_lines(PATH): the file's lines, without their newlines.
sub read_lines {
    my ($path) = @_;
    open my $fh, '<:raw', $path or die "$path: $!";
    my @l = <$fh>;
    chomp @l;
    return \@l;
}

my @sources = (read_lines("$src/tests/data/ellard-quirks.txt"));
my $shared  = "$src/../shared/captures/public/ellard-raw-data.txt";
push @sources, read_lines($shared) if -r $shared;
note(scalar(@sources) . " source files, seed $seed, $rounds rounds");

my @huge = ('ffffffffffffffffffff', '99999999999999999999999', '-1', '0', '4294967296', '1e308',
    '18446744073709551616', '-9223372036854775809', '0x', '.', '1.', '.5', '99999999999.9999999');

# mutate_line(LINE): one random damage, at byte or field level.
sub mutate_line {
    my ($l) = @_;
    my @t = split / /, $l, -1;
    my $k = int rand 12;
    my $j = int rand(@t || 1);
    if ($k == 0 && length $l) {    # flip a byte
        my $i = int rand length $l;
        substr($l, $i, 1) = chr(ord(substr $l, $i, 1) ^ (1 << int rand 8));
        return $l;
    }
    return substr($l, 0, int rand(length($l) + 1)) if $k == 1;    # cut
    if    ($k == 2) { splice @t, $j, 1 }                           # delete a field
    elsif ($k == 3) { splice @t, $j, 0, $t[$j] // 'x' }            # double a field
    elsif ($k == 4) { $t[$j] = $huge[ rand @huge ] }               # a huge or odd number
    elsif ($k == 5) { $t[$j] = join '', map { chr rand 256 } 0 .. rand 12 }    # binary junk
    elsif ($k == 6) { $t[$j] = ($t[$j] // '') . "\0" }
    elsif ($k == 7) { $t[$j] = 'f' x (1000 + rand 100000) }                     # a very long token
    elsif ($k == 8) { @t = reverse @t }
    elsif ($k == 9) { $t[$j] = '"' . ($t[$j] // '') }                           # an open quote
    elsif ($k == 10) { @t = (@t, @t) }                                          # the line twice on one
    else             { $t[$j] = ($t[$j] // '') x 3 }
    return join ' ', @t;
}

# damaged(): a window of one source's lines with a few damages.
sub damaged {
    my $src = $sources[ rand @sources ];
    my $n   = 1 + int rand 40;
    my $at  = int rand @$src;
    my @w   = @{$src}[ $at .. ($at + $n - 1 > $#$src ? $#$src : $at + $n - 1) ];
    for (0 .. rand 6) {
        last unless @w;
        my $i = int rand @w;
        my $k = rand;
        if    ($k < 0.75) { $w[$i] = mutate_line($w[$i] // '') }
        elsif ($k < 0.85) { splice @w, $i, 2, join(' ', grep defined, @w[ $i, $i + 1 ]) }    # joined lines
        elsif ($k < 0.95) { @w[ $i, 0 ] = @w[ 0, $i ] }                                      # swapped lines
        else              { splice @w, $i, 1 }
    }
    my $text = join("\n", @w);
    $text .= "\n" if rand() < 0.8;    # sometimes no final newline
    return $text;
}

# keep(TEXT, WHY): saves a failing input for a regression test.
sub keep {
    my ($text, $why) = @_;
    my $dir = "$build/fuzz-crashes";
    make_path($dir);
    my $f = sprintf '%s/ellard-%d-%d.txt', $dir, $seed, $_[2];
    open my $fh, '>:raw', $f or return;
    print $fh $text;
    diag("$why: input kept as $f");
}

# verdict(PATH): runs the importer on PATH; returns (undef or what is
# wrong, exit code, records written).
sub verdict {
    my ($in) = @_;
    my $out   = `timeout 20 perl '$tool' -q --max-warnings 3 '$in' 2>'$tmp/err'`;
    my $rc    = $? & 127 ? 128 + ($? & 127) : $? >> 8;
    my $err   = do { open my $e, '<:raw', "$tmp/err" or die; local $/; <$e> // '' };
    my @err   = split /\n/, $err;
    my @alien = grep { !/^tbbt-ellard: / || /internal error/ } @err;
    my $bad;
    if ($rc != 0 && $rc != 1) {
        $bad = "exit $rc" . ($rc == 124 ? ' (hung)' : '');
    } elsif (@alien) {
        $bad = "stderr not the importer's own: $alien[0]";
    } elsif ($rc == 1 && !(@err == 1 && $err[0] =~ /^tbbt-ellard: \Q$in\E(?::\d+: |: .*\bline \d+)/)) {
        $bad = 'failure not one line naming the line: ' . ($err[0] // '(nothing)');
    } elsif ($rc == 1 && $out ne '') {
        $bad = 'failed but wrote records';
    }
    return ($bad, $rc, $out);
}

# The inputs that once broke it, kept as regressions.
for my $f (sort glob "$src/tests/fuzz/regress/ellard/*") {
    my ($bad) = verdict($f);
    ok(!$bad, "regression " . substr($f, length $src) . ($bad ? ": $bad" : ''));
}

srand $seed;
my ($ok0, $ok1, $records) = (0, 0, '');
for my $round (1 .. $rounds) {
    my $text = damaged();
    my $in   = "$tmp/in-$round.txt";
    open my $fh, '>:raw', $in or die;
    print $fh $text;
    close $fh;
    my ($bad, $rc, $out) = verdict($in);
    if ($bad) {
        fail("round $round: $bad");
        keep($text, "round $round", $round);
        next;
    }
    $rc ? $ok1++ : $ok0++;
    $records .= $out;
}
ok($ok0 + $ok1 == $rounds, "$rounds rounds: $ok0 imported, $ok1 refused with the line named");
ok($ok0 > $rounds / 4, 'most damaged windows still import (lines skipped, not the file)');
SKIP: {
    skip "no tbbt-dump in $build", 1 unless -x $dump;
    open my $fh, '>', "$tmp/all.txt" or die;
    print $fh $records;
    close $fh;
    is(system("'$dump' --text-in -o '$tmp/all.tbbt' '$tmp/all.txt'"), 0,
        'tbbt-dump accepts every record written (' . ($records =~ tr/\n//) . ')');
}

done_testing();
