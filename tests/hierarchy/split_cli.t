#!/usr/bin/perl
# split_cli.t -- tbbt-split on the bundled trace (traces/, prepped here):
#   - the trace works in one directory it writes throughout (dev/): one
#     group, and tbbt-split says so (exit 1, one line, nothing written)
#     instead of inventing a split;
#   - that directory declared --shared: groups appear, and the split is
#     refused (exit 1, one line naming the first crossing record, which
#     does lock the object it names) unless --force;
#   - forced into 3 parts: every record of the trace lands in exactly one
#     part, in trace order; the parts' records add up to the whole and to
#     the shares printed; each part's map is valid (parents before
#     children, end line), made of the whole map's lines, and holds every
#     object the part's records name that the whole map holds;
#   - --select 0,2: one trace of those two parts together, in trace order;
#   - bad arguments exit 2 with one line; a corrupt trace or map exits 1
#     with one line naming the file.
use strict;
use warnings;
use Test::More;
use File::Basename qw(dirname);
use File::Temp qw(tempdir);
use Cwd qw(abs_path);

my $src   = $ENV{TBBT_SRC}   || abs_path(dirname(__FILE__) . '/../..');
my $build = $ENV{TBBT_BUILD} || "$src/build";
my ($prep, $dump, $split) = ("$build/transform/tbbt-prep", "$build/tools/tbbt-dump", "$build/hierarchy/tbbt-split");
plan skip_all => "tbbt-prep, tbbt-dump or tbbt-split not built in $build" unless -x $prep && -x $dump && -x $split;
my $tmp = tempdir('tbbt-split.XXXXXX', TMPDIR => 1, CLEANUP => 1);

is(system("'$prep' -q -o $tmp/t.tbbt '$src/traces/ganesha-libnfs-mixed.pcap.zst'"), 0, 'the bundled trace preps');
my @all = `'$dump' '$tmp/t.tbbt'`;
ok(@all > 1000, scalar(@all) . ' records');

# run ARGS: (exit code, stdout, stderr lines)
sub run {
    my ($args) = @_;
    my $out = `'$split' $args 2>$tmp/err`;
    my $rc  = $? >> 8;
    open my $fh, '<', "$tmp/err" or die;
    my @err = <$fh>;
    return ($rc, $out, \@err);
}

sub outputs { my @f = glob("$tmp/o.part*"); return scalar @f }

# 1. one group: said, nothing written
my ($rc, $out, $err) = run("-o $tmp/o $tmp/t.tbbt");
is($rc, 1, 'one group: exit 1');
like($out, qr/ 1 group of objects accessed together/, 'the group count is printed');
is(scalar @$err, 1, 'one line on stderr');
like($err->[0] // '', qr/1 group of objects accessed together: no split into 2 parts/, "it says why: $err->[0]");
is(outputs(), 0, 'nothing written');

# 2. dev/ shared: refused, naming the first crossing record
my $dev = 'tbbt-subtree-1/dev';
($rc, $out, $err) = run("--shared $dev -o $tmp/o $tmp/t.tbbt");
is($rc, 1, 'a crossing dependency: exit 1');
is(scalar @$err, 1, 'one line on stderr');
my ($pos, $obj) = ($err->[0] // '') =~ /record (\d+) \(part \d\) locks object (\d+)/;
ok(defined $pos, "the first crossing record is named: $err->[0]");
like($all[$pos // 0], qr/\b(?:obj|dir|dir2|newobj|victim|victim2)=$obj\b/, "record $pos names object $obj");
my ($devid) = map { (split ' ')[0] } grep { /"\Q$dev\E" / } do { open my $m, '<', "$tmp/t.hmap" or die; <$m> };
is($obj, $devid, 'the object crossed is the shared directory');
is(outputs(), 0, 'nothing written');

# 3. forced, 3 parts
($rc, $out, $err) = run("--shared $dev --force -k 3 -o $tmp/o $tmp/t.tbbt");
is($rc, 0, '--force: the split is written') or diag(@$err);
like($out, qr/crossing dependencies: \d+ records/, 'the crossings are counted');
my %printed = $out =~ /^part (\d+): (\d+) records/mg;
my (%pos, @seen, $sum);
for my $i (0 .. $#all) { push @{ $pos{ $all[$i] } }, $i }
for my $p (0 .. 2) {
    my @recs = `'$dump' '$tmp/o.part$p.tbbt'`;
    ok(@recs > 0, "part $p: " . scalar(@recs) . ' records');
    is(scalar @recs, $printed{$p}, "part $p: the share printed is what was written");
    $sum += @recs;
    my $last = -1;
    my $in_order = 1;
    for my $r (@recs) {
        my $i = shift @{ $pos{$r} // [] };    # identical lines match in order
        if (!defined $i) { $in_order = 0; last }
        $in_order = 0 if $i < $last;
        $last = $i;
        $seen[$i]++;
    }
    ok($in_order, "part $p: every record is one of the trace's, in trace order");
}
is($sum, scalar @all, "the parts' records add up to the whole ($sum)");
is(scalar(grep { ($_ // 0) == 1 } @seen[0 .. $#all]), scalar @all, 'every record lands in exactly one part');

# a map's lines and the IDs in it; checks its order and end line
sub map_lines {
    my ($file) = @_;
    open my $fh, '<', $file or return;
    my (@lines, %ids, $end, $order_ok);
    $order_ok = 1;
    for (<$fh>) {
        if (/^# end (\d+)/) { $end = $1; next }
        next if /^#/;
        my ($id, $parent) = split ' ';
        $order_ok = 0 if $parent && !$ids{$parent};
        $ids{$id} = 1;
        push @lines, $_;
    }
    return (\@lines, \%ids, $order_ok && defined $end && $end == @lines);
}
my ($whole, $whole_ids) = map_lines("$tmp/t.hmap");
my %whole_line = map { $_ => 1 } @$whole;
for my $p (0 .. 2) {
    my ($lines, $ids, $valid) = map_lines("$tmp/o.part$p.hmap");
    ok($valid, "part $p map: parents before children, complete");
    ok(@$lines < @$whole, "part $p map: a proper subset (" . scalar(@$lines) . ' of ' . scalar(@$whole) . ' entries)');
    is(scalar(grep { !$whole_line{$_} } @$lines), 0, "part $p map: every entry is the whole map's");
    my %named;
    for (`'$dump' '$tmp/o.part$p.tbbt'`) { $named{$1} = 1 while /\b(?:obj|dir|dir2|newobj|victim|victim2)=(\d+)/g }
    my @lack = grep { $whole_ids->{$_} && !$ids->{$_} } keys %named;
    is(scalar @lack, 0, "part $p map: holds every object its records name") or diag("missing @lack");
}

# 4. --select 0,2
($rc, $out, $err) = run("--shared $dev --force -k 3 --select 0,2 -o $tmp/s $tmp/t.tbbt");
is($rc, 0, '--select 0,2 written') or diag(@$err);
ok(-s "$tmp/s.part0+2.tbbt" && -s "$tmp/s.part0+2.hmap", 'one trace and one map: PREFIX.part0+2');
ok(!-e "$tmp/s.part1.tbbt", 'the part left out is not written');
my @sel  = `'$dump' '$tmp/s.part0+2.tbbt'`;
my %want = map { $_ => 1 } `'$dump' '$tmp/o.part0.tbbt'`, `'$dump' '$tmp/o.part2.tbbt'`;
is(scalar @sel, $printed{0} + $printed{2}, 'parts 0 and 2 together');
is_deeply(\@sel, [grep { $want{$_} } @all], 'their records, in trace order');

# 5. bad usage: exit 2, one line, then the synopsis (lib/usage.h)
for my $bad (['-k 1', 'parts'], ['-k 65', 'parts'], ['--select 3', 'select'], ['--select 0,0', 'twice'],
    ['--select x', 'select'], ['--select ""', 'select'], ['--bogus', 'bogus'], ['', 'expected'],
    ["--shared no/such/dir", 'no directory'], ['-k', 'k'])
{
    my ($a, $what) = @$bad;
    my $args = $a eq '' ? '' : "$a $tmp/t.tbbt";
    ($rc, $out, $err) = run($args);
    is($rc, 2, "'$a': exit 2");
    ok($err->[0] =~ /^tbbt-split: .*\Q$what\E/i && ($err->[1] // '') =~ /^Usage: tbbt-split /
          && !grep({ !/^(tbbt-split:|Usage:|   or:|Try )/ } @$err) && (grep { /^tbbt-split:/ } @$err) == 1,
        "'$a': one line, then the synopsis: " . ($err->[0] // ''));
}

# 6. corrupt inputs: exit 1, one line naming the file
open my $in, '<:raw', "$tmp/t.tbbt" or die;
my $bytes = do { local $/; <$in> };
for my $c (['cut', substr($bytes, 0, int(length($bytes) / 2))], ['garbage', 'x' x 200],
    ['flipped', substr($bytes, 0, 300) . chr(ord(substr($bytes, 300, 1)) ^ 0xff) . substr($bytes, 301)])
{
    open my $o, '>:raw', "$tmp/$c->[0].tbbt" or die;
    print $o $c->[1];
    close $o;
    system("cp $tmp/t.hmap $tmp/$c->[0].hmap");
    ($rc, $out, $err) = run("--shared $dev -f -o $tmp/c $tmp/$c->[0].tbbt");
    is($rc, 1, "$c->[0] trace: exit 1");
    ok(@$err == 1 && $err->[0] =~ /\Q$c->[0].tbbt\E/, "$c->[0] trace: one line naming the file: " . ($err->[0] // ''));
}
ok(!glob("$tmp/c.part*"), 'nothing written from a corrupt trace');
system("grep -v '^# end' $tmp/t.hmap > $tmp/noend.hmap");
($rc, $out, $err) = run("$tmp/t.tbbt $tmp/noend.hmap");
is($rc, 1, 'a map without its end line: exit 1');
ok(@$err == 1 && $err->[0] =~ /noend\.hmap/, 'one line naming the map: ' . ($err->[0] // ''));
($rc, $out, $err) = run("$tmp/t.tbbt $tmp/absent.hmap");
is($rc, 1, 'an absent map: exit 1');
ok(@$err == 1 && $err->[0] =~ /absent\.hmap/, 'one line naming it: ' . ($err->[0] // ''));
done_testing();
