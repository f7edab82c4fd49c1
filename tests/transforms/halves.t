#!/usr/bin/perl
# halves.t -- the issue's round trip: a prepped real trace filtered into
# its first and its second half (tbbt-filter, which re-runs passes 2 and 3
# on each half), the halves merged again (tbbt-merge): the merged records
# are the original's captured records. Said, and left out of the
# comparison: records pass 2 inserted (flag I: each half is corrected on
# its own, so they may differ), and the victim IDs pass 3 writes (a half
# may not see the record that revealed an object, and then gives it an ID
# of its own).
use strict;
use warnings;
use Test::More;
use File::Basename qw(dirname);
use File::Temp qw(tempdir);
use Cwd qw(abs_path);

my $src   = $ENV{TBBT_SRC}   || abs_path(dirname(__FILE__) . '/../..');
my $build = $ENV{TBBT_BUILD} || "$src/build";
my ($prep, $dump) = ("$build/transform/tbbt-prep", "$build/tools/tbbt-dump");
plan skip_all => "no tbbt-prep or tbbt-dump in $build" unless -x $prep && -x $dump;
my $tmp = tempdir('tbbt-halves.XXXXXX', TMPDIR => 1, CLEANUP => 1);
$ENV{TBBT_BUILD} = $build;

is(system("'$prep' -q -o $tmp/all.tbbt '$src/traces/ganesha-libnfs-mixed.pcap.zst'"), 0, 'the bundled trace preps');

# the captured records as comparable lines: no inserted ones, no victims
sub captured {
    my ($file) = @_;
    my @out;
    for (`'$dump' '$file'`) {
        my @f = split ' ';
        next if $f[8] =~ /I/;
        push @out, join ' ', grep { !/^victim2?=/ } @f;
    }
    return \@out;
}
my $orig = captured("$tmp/all.tbbt");
ok(@$orig > 1000, scalar(@$orig) . ' captured records');

# the middle call time splits the trace in two
my @times = map { (split ' ')[0] } `'$dump' '$tmp/all.tbbt'`;
my $mid = $times[int(@times / 2)];
for my $h (['a', "--to $mid"], ['b', "--from $mid"]) {
    my $rc = system("'$src/scripts/tbbt-filter' -q $h->[1] -o $tmp/$h->[0].tbbt $tmp/all.tbbt");
    is($rc, 0, "half $h->[0] ($h->[1]) filtered and re-prepped (passes 2 and 3)");
    ok(-s "$tmp/$h->[0].hmap", "half $h->[0] has its map");
}
is(system("'$src/scripts/tbbt-merge' -q -o $tmp/m.txt $tmp/a.tbbt $tmp/b.tbbt"), 0, 'the halves merge');
system("'$dump' --text-in $tmp/m.txt -o $tmp/m.tbbt") == 0 or die "tbbt-dump --text-in failed";
my $merged = captured("$tmp/m.tbbt");
is(scalar(@$merged), scalar(@$orig), 'as many captured records as the original');
is_deeply($merged, $orig, 'the merged halves give back the original captured records, in order');
my $ins = () = grep { (split ' ')[8] =~ /I/ } `'$dump' '$tmp/m.tbbt'`;
note("records pass 2 inserted in the halves: $ins (left out of the comparison)");
done_testing();
