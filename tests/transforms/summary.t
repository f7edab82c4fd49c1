#!/usr/bin/perl
# summary.t -- scripts/tbbt-summary against independent counts of the
# fixtures' lines (regular expressions over the raw text, not the tool's
# parser): procedures, statuses, clients, users, bytes, the rate series,
# the busiest files, latency; a .tbbt input reads as its text; a bad line
# fails with FILE:LINE; --help and usage errors; a capture from
# ../shared/captures through tbbt-prep when that is available.
use strict;
use warnings;
use Test::More;
use File::Basename qw(dirname);
use File::Temp qw(tempdir);
use Cwd qw(abs_path);
use JSON::PP;
use List::Util qw(sum0);

my $src   = $ENV{TBBT_SRC} // abs_path(dirname(__FILE__) . '/../..');
my $build = $ENV{TBBT_BUILD} // "$src/build";
my $tool  = "$src/scripts/tbbt-summary";
my $dump  = "$build/tools/tbbt-dump";
my $tmp   = tempdir(CLEANUP => 1);
my @fixtures = map {"$src/tests/data/xform-$_.txt"} qw(ganesha nfstrace suricata-v2);

# run(SHELL-ARGS): runs the tool (60 s limit); returns (exit code, stdout,
# stderr).
sub run {
    my ($args) = @_;
    my $out = `TBBT_BUILD='$build' timeout 60 perl '$tool' $args 2>'$tmp/err'`;
    my $rc  = $? & 127 ? 128 + ($? & 127) : $? >> 8;
    my $err = do { open my $fh, '<', "$tmp/err" or die; local $/; <$fh> // '' };
    return ($rc, $out, $err);
}

# lines(PATH): the file's lines.
sub lines {
    open my $fh, '<', $_[0] or die "$_[0]: $!";
    return <$fh>;
}

# ns(TIME): a text-form time as integer nanoseconds (string arithmetic).
sub ns {
    my ($s, $n) = $_[0] =~ /\A(\d+)\.(\d{9})\z/ or die "bad time $_[0]";
    return $s * 1_000_000_000 + $n;
}

for my $fx (@fixtures) {
    my $name = (split m{/}, $fx)[-1];
    subtest "$name: counts equal independent counts" => sub {
        my ($rc, $out, $err) = run("--json - --interval 0.01 --top 3 '$fx'");
        is($rc, 0, 'exit 0') or diag $err;
        my $d  = decode_json($out);
        my @ls = lines($fx);
        is($d->{records}, scalar @ls, 'records = lines');

        my %byproc = map { $_->{proc} => $_ } @{$d->{procedures}};
        my %procs  = map { / v\d+ ([a-z]+) / ? ($1 => 1) : () } @ls;
        is_deeply([sort keys %byproc], [sort keys %procs], 'the procedures seen');
        for my $p (sort keys %procs) {
            my $n    = grep {/ v\d+ \Q$p\E /} @ls;
            my $ok   = grep {/ v\d+ \Q$p\E 0 [A-KM-Z-]+ /} @ls;
            my $lost = grep {/ v\d+ \Q$p\E \S+ [A-Z]*L/} @ls;
            is($byproc{$p}{count},          $n,    "$p: count");
            is($byproc{$p}{status}{0} // 0, $ok,   "$p: ok replies");
            is($byproc{$p}{lost},           $lost, "$p: lost replies");
        }

        my %client;
        $client{$_}++ for map {/^\S+ \S+ (\S+):\d+ /} @ls;
        is_deeply({map { $_->{client} => $_->{count} } @{$d->{clients}}}, \%client, 'per client host');
        my %user;
        for (@ls) {
            my ($flavor, $uid) = / cred=(\d+):(\d+):/ or die;
            $user{$flavor eq '1' ? $uid : "flavor$flavor"}++;
        }
        is_deeply({map { $_->{user} => $_->{count} } @{$d->{users}}}, \%user, 'per uid');

        my $rd = sum0(map {/ read .* rcount=(\d+)/ ? $1 : 0} @ls);
        my $wr = sum0(map { / write / ? (/ rcount=(\d+)/ ? $1 : / count=(\d+)/ ? $1 : 0) : 0 } @ls);
        is($d->{bytes_read},    $rd, 'bytes read = sum of read rcounts');
        is($d->{bytes_written}, $wr, 'bytes written = sum of write rcounts');
        is($d->{read_write_ratio}, $wr ? $rd / $wr : undef, 'ratio');

        my %bucket;
        $bucket{int(ns((split ' ', $_)[0]) / 10_000_000)}++ for @ls;
        is_deeply([map { $_->{requests} } @{$d->{rate}}], [map { $bucket{$_} } sort { $a <=> $b } keys %bucket],
            'requests per 10 ms bucket');

        my %file;
        $file{$_}++ for map {/ v\d+ (?:read|write) .* obj=(\d+)/} @ls;
        my @top = sort { $file{$b} <=> $file{$a} || $a cmp $b } keys %file;
        is_deeply([map { [$_->{id}, $_->{requests}] } @{$d->{top_files}}],
            [map { [$_, $file{$_}] } grep {defined} @top[0 .. 2]], 'top 3 files');

        my %lat;
        for (@ls) {
            my @c = split ' ';
            push @{$lat{$c[6]}}, ns($c[1]) - ns($c[0]) if $c[1] ne '-';
        }
        for my $p (sort keys %lat) {
            my @v = sort { $a <=> $b } @{$lat{$p}};
            my $l = $byproc{$p}{latency};
            is($l->{n}, scalar @v, "$p: latency samples");
            ok(abs($l->{mean} - sum0(@v) / @v / 1e9) < 1e-9, "$p: mean latency exact");
            for my $q ([p50 => 0.5], [p99 => 0.99]) {
                my $rank = int($q->[1] * @v + 0.999999);
                my $want = $v[($rank || 1) - 1] / 1e9;
                ok(abs($l->{$q->[0]} - $want) <= 0.025 * $want + 1e-9, "$p: $q->[0] within 2.5 %")
                  or diag "$l->{$q->[0]} vs $want";
            }
        }
    };
}

subtest 'text tables' => sub {
    my ($rc, $out) = run("'$fixtures[0]'");
    is($rc, 0, 'exit 0');
    like($out, qr/^records 255 /, 'the total first');
    like($out, qr/^  lookup +\d+ +[\d.]+% +\d+ +2:14 /m, 'lookup row with its 14 ENOENT');
    like($out, qr/^requests per second/m, 'rate table');
    like($out, qr/^busiest files/m,       'files table');
};

subtest 'several inputs, stdin and a record file read as their text' => sub {
    my ($rc, $want) = run("--json - '$fixtures[0]' '$fixtures[1]'");
    is($rc, 0, 'two files');
    my ($rc2, $got) = run("--json - '$fixtures[0]' - <'$fixtures[1]'");
    is($got, $want, 'a file and stdin: the same document');
    plan skip_all => "no $dump" unless -x $dump;
    system($dump, '--text-in', '-o', "$tmp/g.tbbt", $fixtures[0]) == 0 or die;
    ($rc, $want) = run("--json - '$fixtures[0]'");
    ($rc2, $got) = run("--json - '$tmp/g.tbbt'");
    is($rc2, 0,     '.tbbt: exit 0');
    is($got, $want, '.tbbt: the same document as its text');
};

subtest 'a bad line: exit 1, FILE:LINE' => sub {
    my @ls = lines($fixtures[1]);
    $ls[4] =~ s/ 0x[0-9a-f]+ / 0xZZ /;
    open my $fh, '>', "$tmp/bad.txt" or die;
    print $fh @ls;
    close $fh;
    my ($rc, $out, $err) = run("'$tmp/bad.txt'");
    is($rc, 1, 'exit 1');
    is($out, '', 'nothing on stdout');
    like($err, qr/^tbbt-summary: \Q$tmp\E\/bad\.txt:5: column 5: [^\n]*\n\z/, 'one line naming FILE:5 and the column');
    ($rc, $out, $err) = run("- <'$tmp/bad.txt'");
    like($err, qr/^tbbt-summary: stdin:5: /, 'stdin:5');
    ($rc, $out, $err) = run("'$tmp/missing.txt'");
    is($rc, 1, 'missing file: exit 1');
    like($err, qr/^tbbt-summary: \Q$tmp\E\/missing\.txt: /, 'names it');
};

subtest 'help and usage' => sub {
    my ($rc, $out, $err) = run('--help');
    is($rc, 0, '--help: exit 0');
    like($out, qr/Usage:.*--interval.*--top.*--json/s, 'usage with the options');
    for my $bad ('--interval 0', '--interval x', '--top -1', '--nope') {
        ($rc, $out) = run("$bad '$fixtures[0]'");
        is($rc,  2,  "$bad: exit 2");
        is($out, '', "$bad: nothing on stdout");
    }
};

subtest 'a shared capture through tbbt-prep' => sub {
    my $cap  = abs_path("$src/..") . '/shared/captures/public/nfstrace-eth-ipv4-udp-nfsv3.pcap.zst';
    my $prep = "$build/transform/tbbt-prep";
    plan skip_all => 'no ../shared/captures or no tbbt-prep' unless -r $cap && -x $prep && -x $dump;
    system("'$prep' -q --no-map '$cap' -o '$tmp/c.tbbt' >/dev/null 2>&1") == 0 or die 'tbbt-prep failed';
    my @ls = `'$dump' '$tmp/c.tbbt'`;
    my ($rc, $out) = run("--json - '$tmp/c.tbbt'");
    is($rc, 0, 'exit 0');
    my $d = decode_json($out);
    is($d->{records}, scalar @ls, 'every record');
    my %n;
    $n{(split ' ')[6]}++ for @ls;
    is_deeply({map { $_->{proc} => $_->{count} } @{$d->{procedures}}}, \%n, 'per procedure');
};

done_testing();
