#!/usr/bin/perl
# max_memory.t -- --max-memory of tbbt-prep, tbbt-check and tbbt-map
# (issue 27, point 5): over the
# bound, one line naming the figure, the pass and the option, exit 1, and
# nothing written -- a previous output under the same names stays as it
# was, and no temporary file is left; a bad value is a usage error naming
# the option, the value and what is allowed. Real captures: the bundled
# nfs-ganesha capture (9 MiB at its peak, most of it the program itself:
# stopped at 4M at the first check) and a synthetic
# capture of 30,000 files from 500 clients (bench/tools/tbbt-synthcap,
# holds about 40 MiB, stopped at 20M, mid-way through). tbbt-check (pass 2
# alone, about 60 MiB on the synthetic records) and tbbt-map (pass 3 alone,
# about 15 MiB) stop the same way at 8M.
use strict;
use warnings;
use Test::More;
use File::Basename qw(dirname);
use File::Temp qw(tempdir);
use Cwd qw(abs_path);

my $src   = $ENV{TBBT_SRC}   || abs_path(dirname(__FILE__) . '/../..');
my $build = $ENV{TBBT_BUILD} || "$src/build";
my $prep  = "$build/transform/tbbt-prep";
my $synth = "$build/bench/tools/tbbt-synthcap";
plan skip_all => "no tbbt-prep in $build" unless -x $prep && -x $synth;
my $tmp = tempdir(CLEANUP => 1);
chdir $tmp or die;    # no workspace of the caller's is touched
system("zstd -dcq '$src/traces/ganesha-libnfs-mixed.pcap.zst' > '$tmp/real.pcap'") == 0 or BAIL_OUT("zstd");
system("'$synth' --objects 30000 > '$tmp/synth.pcap'") == 0 or BAIL_OUT("tbbt-synthcap");

# run ARGS: tbbt-prep with a 120 s limit; (exit code, stderr). A signal
# (a crash, the OOM killer's SIGKILL) shows as 128 + its number.
sub run {
    my $cmd = join ' ', 'timeout', '120', $prep, map {"'$_'"} @_;
    my $err = `$cmd 2>&1 >/dev/null`;
    my $rc  = $? & 127 ? 128 + ($? & 127) : $? >> 8;
    return ($rc, $err);
}

sub slurp { local $/; open my $f, '<', $_[0] or return undef; binmode $f; return scalar <$f> }

sub leftovers { opendir my $d, $tmp or die; return grep {/\.tmp|~$/} readdir $d }

for my $case (['real', '4M', qr/pass [123]/], ['synth', '20M', qr/pass [123]/]) {
    my ($name, $bound, $pass) = @$case;
    my ($rc, $err) = run('-q', '-o', "$tmp/$name.tbbt", "$tmp/$name.pcap");
    is($rc, 0, "$name: prepared under the default bound") or diag($err);
    my ($recs, $map) = (slurp("$tmp/$name.tbbt"), slurp("$tmp/$name.hmap"));
    ok(length($recs // '') > 0 && length($map // '') > 0, "$name: records and map written");
    ($rc, $err) = run('-q', '--max-memory', $bound, '-o', "$tmp/$name.tbbt", "$tmp/$name.pcap");
    is($rc, 1, "$name: --max-memory $bound: exit 1");
    my @lines = split /\n/, $err;
    is(scalar @lines, 1, "$name: one line") or diag($err);
    like($err, qr/^tbbt-prep: memory \d+(\.\d)? (MiB|KiB) in $pass, over --max-memory \d+(\.\d)? (MiB|KiB); nothing written: raise --max-memory/,
         "$name: names the figure, the pass and the option");
    ok(slurp("$tmp/$name.tbbt") eq $recs, "$name: the previous records untouched");
    ok(slurp("$tmp/$name.hmap") eq $map,  "$name: the previous map untouched");
    is_deeply([leftovers()], [], "$name: no temporary file left");
    ($rc, $err) = run('-q', '--max-memory', '1G', '-o', "$tmp/$name-big.tbbt", "$tmp/$name.pcap");
    is($rc, 0, "$name: --max-memory 1G: prepared") or diag($err);
    ok(slurp("$tmp/$name-big.tbbt") eq $recs, "$name: the same records as under the default bound");
}

# A stopped run under new names leaves no name behind.
my ($rc, $err) = run('-q', '--max-memory', '20M', '-o', "$tmp/fresh.tbbt", "$tmp/synth.pcap");
ok(!-e "$tmp/fresh.tbbt" && !-e "$tmp/fresh.hmap", 'synth: no record file or map under a new name');

# tbbt-check and tbbt-map: the same bound over their one pass.
for my $case (["$build/tools/tbbt-check", 'pass 2', '-w'], ["$build/hierarchy/tbbt-map", 'pass 3', '-m']) {
    my ($cmd, $pass, $out) = @$case;
    my $tool = (split m{/}, $cmd)[-1];
    my $go = sub {
        my $line = join ' ', 'timeout', '120', $cmd, map {"'$_'"} @_;
        my $e = `$line 2>&1 >/dev/null`;
        return ($? & 127 ? 128 + ($? & 127) : $? >> 8, $e);
    };
    my ($rc, $err) = $go->('-q', $out, "$tmp/$tool.out", "$tmp/synth.tbbt");
    ok($rc == 0 || ($tool eq 'tbbt-check' && $rc == 1 && $err eq ''), "$tool: ran under the default bound") or diag($err);
    my $prev = slurp("$tmp/$tool.out");
    ok(length($prev // '') > 0, "$tool: output written");
    ($rc, $err) = $go->('-q', '--max-memory', '8M', $out, "$tmp/$tool.out", "$tmp/synth.tbbt");
    is($rc, 1, "$tool: --max-memory 8M: exit 1");
    like($err, qr/^$tool: memory \d+(\.\d)? (MiB|KiB) in $pass, over --max-memory (8\.0 MiB|8192 KiB); nothing written: raise --max-memory[^\n]*\n\z/,
         "$tool: one line naming the figure, the pass and the option") or diag($err);
    ok(slurp("$tmp/$tool.out") eq $prev, "$tool: the previous output untouched");
    is_deeply([leftovers()], [], "$tool: no temporary file left");
    ($rc, $err) = $go->('--max-memory', '12X', "$tmp/synth.tbbt");
    is($rc, 2, "$tool: --max-memory 12X: usage error, exit 2");
    like($err, qr/^$tool: --max-memory 12X: must be a size from 1M to 1024T/, "$tool: names the option, the value and what is allowed");
}

for my $bad ('0', '12X', '-5M', '0.5M', 'G', '2000T', '') {
    ($rc, $err) = run('--max-memory', $bad, '-o', "$tmp/bad.tbbt", "$tmp/real.pcap");
    is($rc, 2, "--max-memory '$bad': usage error, exit 2");
    like($err, qr/^tbbt-prep: --max-memory \Q$bad\E: must be a size from 1M to 1024T/, "--max-memory '$bad': names the option, the value and what is allowed");
    ok(!-e "$tmp/bad.tbbt", "--max-memory '$bad': nothing written");
}
for my $good ('1.5G', '64m', '3000000K', '2GiB', '1T') {
    ($rc, $err) = run('-q', '--max-memory', $good, '-o', "$tmp/ok.tbbt", "$tmp/real.pcap");
    is($rc, 0, "--max-memory $good accepted") or diag($err);
}
done_testing();
