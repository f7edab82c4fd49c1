#!/usr/bin/perl
# capture.t -- scripts/tbbt-capture without capturing: the command lines
# --dry-run prints for several option sets (interface, whole packets, the
# kernel buffer, the NFS/MOUNT/fragment filter and --host, rotation by size
# and time, the zstd step and --keep, the tbbt-prep pipeline and its
# ports), the filter compiled by tcpdump itself when it can; with stand-in
# ethtool and tcpdump scripts (no root, no capture): one warning line per
# offload that is on with its fix, the drop report line, the last file
# compressed at the stop, exit 0, 3 on drops, 1 when tcpdump fails; bad usage
# (exit 2, one line naming the option and the value, then the synopsis,
# nothing on stdout and nothing created), --help from the POD, and
# podchecker. tests/e2e/capture_ganesha.sh captures for real.
use strict;
use warnings;
use Test::More;
use File::Basename qw(dirname);
use File::Temp qw(tempdir);
use Cwd qw(abs_path);

my $src   = $ENV{TBBT_SRC} // abs_path(dirname(__FILE__) . '/../..');
my $build = $ENV{TBBT_BUILD} // "$src/build";
my $tool  = "$src/scripts/tbbt-capture";
my $tmp   = tempdir(CLEANUP => 1);

# run(SHELL-ARGS): runs the tool (30 s limit); returns (exit code, stdout,
# stderr).
sub run {
    my ($args) = @_;
    my $out = `cd '$tmp' && TBBT_BUILD='$build' timeout 30 perl '$tool' $args 2>'$tmp/err'`;
    my $rc  = $? & 127 ? 128 + ($? & 127) : $? >> 8;
    my $err = do { open my $fh, '<', "$tmp/err" or die; local $/; <$fh> // '' };
    return ($rc, $out, $err);
}

# dry(SHELL-ARGS): the --dry-run output's lines, checked to exit 0 with
# nothing on stderr.
sub dry {
    my ($args) = @_;
    my ($rc, $out, $err) = run("--dry-run $args");
    is($rc,  0,  "$args: exit 0") or diag $err;
    is($err, '', "$args: nothing on stderr");
    return split /\n/, $out;
}

# words(LINE): a printed command line split back into words (single
# quotes as the shell reads them).
sub words {
    my ($line) = @_;
    my @w;
    while ($line =~ /\G\s*((?:'[^']*'|\\'|[^\s'])+)/gc) {
        (my $w = $1) =~ s/'([^']*)'|\\(')/defined $1 ? $1 : $2/ge;
        push @w, $w;
    }
    return @w;
}

# opt(WORDS, FLAG): the word after FLAG, undef when FLAG is not there.
sub opt {
    my ($w, $flag) = @_;
    for my $i (0 .. $#$w - 1) { return $w->[$i + 1] if $w->[$i] eq $flag }
    return undef;
}

my $FRAG = '(ip[6:2] & 0x1fff != 0) or (ip6[6] = 44)';
my $can_compile = $> == 0 && system('command -v tcpdump >/dev/null') == 0;
my @filters;

subtest 'defaults: -i any, whole packets, 256 MiB, port 2049, 1000 MB files' => sub {
    my @l = dry('-w cap');
    is(scalar @l, 3, 'three lines: the offload check, tcpdump, the zstd step');
    is($l[0], '# offloads: not checked on any', 'no offload check on any');
    my @w = words($l[1]);
    is($w[0], 'tcpdump', 'tcpdump runs');
    is(opt(\@w, '-i'), 'any', '-i any');
    is(opt(\@w, '-s'), '0',   '-s 0: whole packets');
    is(opt(\@w, '-B'), 256 * 1024, '-B 262144 KiB = 256 MiB');
    ok(grep({ $_ eq '-n' } @w), '-n');
    ok(!grep({ $_ eq '--immediate-mode' } @w), 'no --immediate-mode unless asked');
    like(opt(\@w, '-w'), qr{\A\Q$tmp\E/cap/tbbt-\d{8}-\d{6}\.pcap\z}, '-w DIR/tbbt-STAMP.pcap (absolute)');
    is(opt(\@w, '-C'), '1000', '-C 1000 (MB)');
    is(opt(\@w, '-G'), undef,  'no -G');
    is($w[-1], "port 2049 or $FRAG", 'the filter: NFS and IP fragments');
    push @filters, $w[-1];
    like($l[2], qr/^# each finished file F: zstd -q -3 -o F\.zst F, then F removed$/, 'each finished file compressed with zstd');
    ok(!-e "$tmp/cap", 'the directory is not created by a dry run');
};

subtest 'rotation by time, --keep, -B, --immediate, an interface' => sub {
    my @l = dry('-i eth0 -w /data/cap --rotate-seconds 300 --keep 5 -B 64 --immediate --duration 3600');
    is($l[0], '# offloads: ethtool -k eth0', 'offloads of eth0 checked first');
    my @w = words($l[1]);
    is(opt(\@w, '-i'), 'eth0', '-i eth0');
    is(opt(\@w, '-B'), 65536,  '-B 64 MiB = 65536 KiB');
    ok(grep({ $_ eq '--immediate-mode' } @w), '--immediate-mode');
    is(opt(\@w, '-G'), '300', '-G 300');
    is(opt(\@w, '-C'), undef, 'no -C when only seconds are given');
    is(opt(\@w, '-w'), '/data/cap/tbbt-%Y%m%d-%H%M%S.pcap', 'a strftime name, one file per interval');
    like($l[2], qr/the newest 5 kept$/, '--keep 5');
    like($l[3], qr/^# stop: after 3600 s/, '--duration');
};

subtest 'rotation by size and time' => sub {
    my @w = words((dry('-w d --rotate-size 50 --rotate-seconds 60'))[1]);
    is(opt(\@w, '-C'), '50', '-C 50');
    is(opt(\@w, '-G'), '60', '-G 60');
};

subtest 'ports, --host, --prep: a pipeline into tbbt-prep' => sub {
    my @l = dry('-i lo --nfs-port 2049,20049 --nfs-port 2049 --mount-port 20048 --host 10.1.2.3 --prep out.tbbt -q');
    is(scalar @l, 2, 'two lines: the offload note and the pipeline');
    is($l[0], '# offloads: not checked on lo', 'no offload check on lo');
    my ($td, $prep) = split / \| /, $l[1];
    ok(defined $prep, 'tcpdump | tbbt-prep');
    my @w = words($td);
    is(opt(\@w, '-w'), '-', 'tcpdump writes to the pipe');
    is(opt(\@w, '-C'), undef, 'no rotation');
    is($w[-1], "host 10.1.2.3 and (port 2049 or port 20049 or port 20048 or $FRAG)",
        'the filter: the server, its NFS and MOUNT ports once each, fragments');
    push @filters, $w[-1];
    my @p = words($prep);
    like($p[0], qr{(\A|/)tbbt-prep\z}, 'tbbt-prep');
    is_deeply([@p[1 .. $#p]], [qw(-q -p 20049 -p 20048 -o out.tbbt -)], 'reads stdin, -o OUT, the ports beyond 2049, -q');
    if (-x "$build/transform/tbbt-prep") {
        is($p[0], "$build/transform/tbbt-prep", 'the build\'s tbbt-prep ($TBBT_BUILD)');
    }
};

subtest 'the filters compile (tcpdump -d)' => sub {
    plan skip_all => 'needs root and tcpdump' unless $can_compile;
    for my $f (@filters) {
        is(system("tcpdump -d -i lo '$f' >/dev/null 2>&1") >> 8, 0, "compiles: $f");
    }
};

# Stand-ins for ethtool and tcpdump (first in PATH): the offload lines of a
# NIC with GRO and TSO on; a tcpdump that says it listens, writes the -w
# file, and at SIGINT prints its figures (FAKE_DROPS dropped) and exits 0,
# or fails at once when FAKE_FAIL is set. The control flow without root.
my $fake = "$tmp/fake";
mkdir $fake or die;
{
    open my $fh, '>', "$fake/ethtool" or die;
    print $fh <<'SH';
#!/bin/sh
printf 'Features for %s:\ngeneric-receive-offload: on\nlarge-receive-offload: off [fixed]\n' "$2"
printf 'tcp-segmentation-offload: on\n\ttx-tcp-segmentation: on\ngeneric-segmentation-offload: off\n'
SH
    close $fh;
    open $fh, '>', "$fake/tcpdump" or die;
    print $fh <<'SH';
#!/bin/sh
if [ -n "$FAKE_FAIL" ]; then echo "tcpdump: eth9: No such device exists" >&2; exit 1; fi
while [ $# -gt 0 ]; do [ "$1" = -w ] && out=$2; shift; done
echo "tcpdump: listening on eth9, link-type EN10MB (Ethernet), snapshot length 262144 bytes" >&2
[ "$out" = - ] || echo "fake capture" >"$out"
trap 'printf "12 packets captured\n14 packets received by filter\n%s packets dropped by kernel\n" "${FAKE_DROPS:-0}" >&2; exit 0' INT TERM
while :; do sleep 0.05; done
SH
    close $fh;
    chmod 0755, "$fake/ethtool", "$fake/tcpdump";
}

subtest 'offload warnings, the report and the exit codes (stand-in ethtool and tcpdump)' => sub {
    plan skip_all => 'zstd not installed' if system('command -v zstd >/dev/null') != 0;
    my $path = "PATH='$fake':\$PATH";
    my $go = sub {
        my ($env, $args) = @_;
        my $o = `cd '$tmp' && $path $env TBBT_BUILD='$build' timeout 30 perl '$tool' $args 2>'$tmp/err'`;
        my $c = $? >> 8;
        my $e = do { open my $fh, '<', "$tmp/err" or die; local $/; <$fh> // '' };
        return ($c, $o, $e);
    };
    my ($rc, $out, $err) = $go->('', '-i eth9 -w fk --duration 0.3');
    is($rc, 0, 'no drop: exit 0') or diag $err;
    my @warn = grep {/warning: eth9: /} split /\n/, $err;
    is(scalar @warn, 2, 'one warning line per offload that is on (gro, tso)') or diag $err;
    like($warn[0] // '', qr/generic-receive-offload \(gro\) is on: .*fix: ethtool -K eth9 gro off lro off tso off gso off \(or capture on a mirror port\)$/,
        'GRO: what it does, the fix');
    like($warn[1] // '', qr/tcp-segmentation-offload \(tso\) is on: .*fix: ethtool -K eth9 /, 'TSO: the fix');
    like($err, qr/^tbbt-capture: tcpdump: listening on eth9/m, 'tcpdump listening, said');
    like($out, qr/^tbbt-capture: tcpdump: 12 packets captured, 14 received by filter, 0 dropped by kernel$/m, 'the drop report line');
    like($out, qr/^tbbt-capture: 1 compressed files in fk /m, 'one compressed file reported');
    my @z = glob "$tmp/fk/*";
    is(scalar @z, 1, 'one file left in the directory');
    like($z[0] // '', qr{/tbbt-\d{8}-\d{6}-00000\.pcap\.zst\z}, 'the last file compressed at the stop');
    is(`zstd -dc '$z[0]'`, "fake capture\n", 'its content') if @z;

    ($rc, $out, $err) = $go->('FAKE_DROPS=3', '-i eth9 -w fk3 --duration 0.3');
    is($rc, 3, 'dropped packets: exit 3');
    like($out, qr/^tbbt-capture: tcpdump: 12 packets captured, 14 received by filter, 3 dropped by kernel$/m, 'the drop report line');
    like($err, qr/^tbbt-capture: warning: 3 packets lost \(20\.00 %\) before tcpdump saw them: the capture is incomplete; use a bigger -B \(now 256 MiB\), a faster disk \(or --prep\), a narrower filter \(--host\), or a mirror port$/m,
        'the warning: how many, the share, what to do');

    ($rc, $out, $err) = $go->('FAKE_FAIL=1', '-i eth9 -w fk2');
    is($rc, 1, 'tcpdump cannot start: exit 1');
    like($err, qr/^tbbt-capture: tcpdump: eth9: No such device exists\n(.*\n)?tbbt-capture: tcpdump did not start$/m, 'its message, then ours');
    is($out, '', 'no report');
};

subtest 'bad usage: exit 2, one line naming the option and the value' => sub {
    my @bad = (
        ['-w d -B x',                   qr/--buffer x: must be an integer from 1 to 2097151$/],
        ['-w d -B 0',                   qr/--buffer 0: must be an integer from 1 to 2097151$/],
        ['-w d --nfs-port 70000',       qr/--nfs-port 70000: must be ports from 1 to 65535, comma-separated$/],
        ['-w d --nfs-port 2049,,2050',  qr/--nfs-port 2049,,2050: must be ports/],
        ['-w d --mount-port abc',       qr/--mount-port abc: must be ports/],
        ['-w d --rotate-size 0',        qr/--rotate-size 0: must be an integer from 1 to 1000000000$/],
        ['-w d --rotate-seconds 1.5',   qr/--rotate-seconds 1\.5: must be an integer from 1 to/],
        ['-w d --keep -1',              qr/--keep -1: must be an integer from 0 to 1000000000$/],
        ['-w d --duration 0',           qr/--duration 0: must be a number above 0$/],
        ['-w d --duration soon',        qr/--duration soon: must be a number above 0$/],
        ["-w d --host 'a b'",           qr/--host a b: must be a host name or address$/],
        ["-w d -i 'eth0;x'",            qr/--interface eth0;x: must be an interface name$/],
        ['--prep o.tbbt --keep 3',      qr/--keep is for -w DIR.*'3'/],
        ['--prep o.tbbt --rotate-size 5', qr/--rotate-size is for -w DIR.*'5'/],
        ['-w d --prep o.tbbt',          qr/-w DIR and --prep OUT\.tbbt cannot go together/],
        ['',                            qr/one of -w DIR .* or --prep OUT\.tbbt .* is needed/],
        ['-w d extra',                  qr/unexpected operand: extra/],
        ['-w d --nope',                 qr/Unknown option --nope$/],
        ['-w',                          qr/Missing argument for -w$/],
    );
    for my $b (@bad) {
        my ($args, $why) = @$b;
        my ($rc, $out, $err) = run($args);
        my @e = split /\n/, $err;
        is($rc,  2,  "'$args': exit 2");
        is($out, '', "'$args': nothing on stdout");
        like($e[0] // '', qr/^tbbt-capture: /, "'$args': one line") && like($e[0], $why, "'$args': names it");
        like($e[1] // '', qr/^Usage:/, "'$args': then the synopsis");
    }
    ok(!-e "$tmp/d", 'nothing created');
};

subtest '--help and the POD' => sub {
    my ($rc, $out, $err) = run('--help');
    is($rc, 0, '--help: exit 0');
    like($out, qr/^Usage:\n\s+tbbt-capture /, 'the synopsis');
    for my $o (qw(--interface --nfs-port --mount-port --host --buffer --immediate --write --rotate-size
        --rotate-seconds --keep --prep --duration --dry-run --quiet)) {
        like($out, qr/^\s+(-\w, )?\Q$o\E\b/m, "$o described");
    }
    like($out, qr/^The whole manual: man tbbt-capture/m, 'where the rest is');
    ($rc, $out) = run('--man');
    is($rc, 0, '--man: exit 0');
    like($out, qr/NAME.*SYNOPSIS.*OPTIONS.*DESCRIPTION.*EXIT STATUS.*EXAMPLES/s, 'every section');
    like($out, qr/\b3\b.*partial/s, 'the exit codes');
    plan skip_all => 'podchecker not installed' if system('command -v podchecker >/dev/null') != 0;
    my $pc = `podchecker '$tool' 2>&1`;
    is($? >> 8, 0, 'podchecker: no error') or diag $pc;
    unlike($pc, qr/WARNING/, 'podchecker: no warning') or diag $pc;
};

done_testing();
