#!/usr/bin/perl
# ellard_prep.t -- tbbt-prep takes Ellard's nfsdump text traces directly
# (found by content, or forced with --format ellard) and the records' text
# form (--format text, or by content), through passes 2 and 3 like a
# capture: the per-procedure counts are those of the call lines the trace
# holds (counted here, independently of the importer), a map is written,
# and records written as text and read back are the same records.
use strict;
use warnings;
use Test::More;
use File::Basename qw(dirname);
use File::Copy qw(copy);
use File::Temp qw(tempdir);
use Cwd qw(abs_path);
use JSON::PP;

my $src   = $ENV{TBBT_SRC}   || abs_path(dirname(__FILE__) . '/../..');
my $build = $ENV{TBBT_BUILD} || "$src/build";
my $prep  = "$build/transform/tbbt-prep";
my $dump  = "$build/tools/tbbt-dump";
my $trace = "$src/../shared/captures/public/ellard-raw-data.txt";
plan skip_all => "no tbbt-prep in $build" unless -x $prep && -x $dump;
plan skip_all => "../shared absent: $trace" unless -r $trace;
my $tmp = tempdir('tbbt-ellard-prep.XXXXXX', TMPDIR => 1, CLEANUP => 1);

# The call lines per (version, procedure), counted from the text itself.
my %want;
open my $fh, '<', $trace or die "$trace: $!";
while (<$fh>) {
    next if /SHORT PACKET/;
    my @f = split ' ';
    next unless @f >= 8 && $f[4] =~ /^C([23])$/;
    my $proc = $f[7] eq 'readdirp' ? 'readdirplus' : $f[7];
    $want{"v$1 $proc"}++;
}
close $fh;
ok(%want, 'the sample holds call lines');

sub summary {
    my ($json) = @_;
    open my $j, '<', $json or die "$json: $!";
    local $/;
    return decode_json(<$j>);
}

sub counts {
    my ($s, $minus_inserted) = @_;
    my %got;
    for my $p (@{ $s->{procedures} }) {
        my $n = $p->{calls} - ($minus_inserted ? $p->{inserted} : 0);
        $got{"v$p->{vers} $p->{proc}"} = $n if $n;
    }
    return \%got;
}

# Found by content, pass 1 only: the counts of the lines.
my $rc = system("'$prep' -q --no-correct -o $tmp/a.tbbt --summary-json $tmp/a.json '$trace' 2>$tmp/a.err");
is($rc, 0, 'an Ellard trace is prepped (found by its content)') or diag(`cat $tmp/a.err`);
my $s = summary("$tmp/a.json");
is($s->{input}, 'Ellard text', 'and said to be Ellard text');
is_deeply(counts($s, 0), \%want, 'per-procedure counts equal the call lines of the trace');

# With passes 2 and 3: the same counts once the inserted records are set apart; a map.
$rc = system("'$prep' -q -o $tmp/b.tbbt --summary-json $tmp/b.json '$trace' 2>$tmp/b.err");
is($rc, 0, 'prepped with corrections and map');
$s = summary("$tmp/b.json");
is_deeply(counts($s, 1), \%want, 'traced records per procedure unchanged by pass 2');
ok($s->{map}{entries} > 0 && -s "$tmp/b.hmap", 'a hierarchy map was written');
open my $m, '<', "$tmp/b.hmap" or die;
my @lines = <$m>;
close $m;
my (%seen, $late, $n);
for (@lines) {
    next if /^#/;
    my ($id, $parent) = split ' ';
    $late++ if $parent && !$seen{$parent};
    $seen{$id} = 1;
    $n++;
}
ok(!$late, 'every map entry comes after its parent');
like($lines[-1], qr/^# end $n$/, 'the map ends with its entry count');

# Forced by option, whatever the name.
copy($trace, "$tmp/trace.dat") or die;
$rc = system("'$prep' -q --format ellard -o $tmp/c.tbbt '$tmp/trace.dat' 2>$tmp/c.err");
is($rc, 0, '--format ellard on a file of any name');

# The records' text form in, the same records out.
system("'$dump' $tmp/a.tbbt > $tmp/a.txt") == 0 or die;
$rc = system("'$prep' -q --no-correct --no-map -o $tmp/d.tbbt --summary-json $tmp/d.json $tmp/a.txt 2>$tmp/d.err");
is($rc, 0, 'the text form is prepped (found by its content)') or diag(`cat $tmp/d.err`);
is(summary("$tmp/d.json")->{input}, 'record text', 'and said to be record text');
is(`'$dump' $tmp/d.tbbt`, `cat $tmp/a.txt`, 'records through the text form come back the same');

# A text form with a bad line: one line naming the file and the line; nothing written.
open my $in, '<', "$tmp/a.txt" or die;
my @t = <$in>;
close $in;
$t[3] =~ s/ v3 / v9x /;
open my $out, '>', "$tmp/bad.txt" or die;
print $out @t;
close $out;
my $err = `'$prep' -q --format text -o $tmp/e.tbbt $tmp/bad.txt 2>&1`;
is($? >> 8, 1, 'a bad text line exits 1');
like($err, qr/^tbbt-prep: \S*bad\.txt:4: column \d+: .*\n\z/, 'with one line naming file, line and column')
    or diag($err);
ok(!-e "$tmp/e.tbbt" && !-e "$tmp/e.hmap", 'and leaves no records or map');

# An unknown --format is bad usage.
system("'$prep' --format pcapx $tmp/a.txt 2>/dev/null");
is($? >> 8, 2, 'an unknown --format exits 2');
done_testing();
