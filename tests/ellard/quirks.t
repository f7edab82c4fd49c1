#!/usr/bin/perl
# quirks.t -- scripts/tbbt-ellard on tests/data/ellard-quirks.txt: one
# subtest per quirk of the published Ellard traces, each checking the
# records a user gets (found by xid) against values worked out here from
# the fixture's hex, not taken from the importer.
use strict;
use warnings;
no warnings qw(portable);
use Test::More;
use File::Basename qw(dirname);
use File::Temp qw(tempdir);
use Cwd qw(abs_path);

my $src     = $ENV{TBBT_SRC} // abs_path(dirname(__FILE__) . '/../..');
my $build   = $ENV{TBBT_BUILD} // "$src/build";
my $tool    = "$src/scripts/tbbt-ellard";
my $dump    = "$build/tools/tbbt-dump";
my $fixture = "$src/tests/data/ellard-quirks.txt";
my $tmp     = tempdir(CLEANUP => 1);

# run(ARGS...): runs the importer; returns (exit code, stdout, stderr).
sub run {
    my @args = @_;
    my $cmd = join ' ', 'perl', map {"'$_'"} $tool, @args;
    my $out = `$cmd 2>'$tmp/err'`;
    my $rc  = $? >> 8;
    open my $fh, '<', "$tmp/err" or die;
    local $/;
    my $err = <$fh> // '';
    return ($rc, $out, $err);
}

# records(TEXT): parses record lines with the grammar of lib/rectext.h
# into hashes (header columns, and f => {key => raw value}).
sub records {
    my @r;
    for my $line (split /\n/, $_[0]) {
        my @c = split / /, $line;
        my %r;
        @r{qw(call reply client server xid vers proc status flags cred)} = splice @c, 0, 10;
        for (@c) {
            my ($k, $v) = /^([a-z_0-9]+)=(.*)$/ or die "bad field '$_'";
            $r{f}{$k} = $v;
        }
        push @r, \%r;
    }
    return @r;
}

# unq(STR): the bytes of a text-form quoted string.
sub unq {
    my ($s) = @_;
    $s =~ /^"(.*)"$/ or die "not quoted: $s";
    $s = $1;
    $s =~ s/\\(?:x([0-9a-f]{2})|(["\\]))/defined $1 ? chr hex $1 : $2/ge;
    return $s;
}

my ($rc, $out, $err) = run($fixture);
is($rc, 0, 'the fixture imports (exit 0)');
my @recs = records($out);
my %by_xid;
push @{ $by_xid{ $_->{xid} } }, $_ for @recs;
sub rec { my @r = @{ $by_xid{ $_[0] } // [] }; is(scalar @r, 1, "one record for xid $_[0]"); return $r[0] // {f => {}} }
my @err = split /\n/, $err;
is_deeply([grep { / at \S+ line \d+/ } @err], [], 'no Perl warnings on stderr');
is_deeply([grep { !/^tbbt-ellard: / } split /\n/, (run('-q', $fixture))[2]], [],
    '-q: stderr holds only tbbt-ellard messages');

subtest 'every record is accepted by tbbt-dump --text-in and is canonical' => sub {
    plan skip_all => "no tbbt-dump in $build" unless -x $dump;
    open my $fh, '>', "$tmp/q.txt" or die;
    print $fh $out;
    close $fh;
    is(system("'$dump' --text-in -o '$tmp/q.tbbt' '$tmp/q.txt'"), 0, 'tbbt-dump --text-in accepts every line');
    is(scalar `'$dump' '$tmp/q.tbbt'`, $out, 'tbbt-dump writes the same text back');
};

subtest 'SHORT PACKET lines are skipped' => sub {
    ok(!$by_xid{'0x3892f72d'}, 'no record for the SHORT PACKET rename');
    like($err, qr/SHORT PACKET lines skipped: 1 /, 'counted in the summary');
    like($err, qr/ 2 replies without call \(none seen, late or to a SHORT PACKET call\)/,
        'its reply is counted among those without a call (with 0xd3d2f2e4)');
};

subtest 'LONGPKT and JUMBO are stripped' => sub {
    my $r = rec('0x1754f2e4');
    is($r->{status}, 0, 'reply paired, status OK');
    is($r->{f}{fileid}, hex('39b83'), 'the reply ending in JUMBO keeps its attributes');
    is($r->{f}{ctime}, '1006231501.291384000', 'last attribute before the trailer intact');
};

subtest 'trailers are dropped' => sub {
    my $r = rec('0x3e5a1eea');
    is($r->{proc}, 'null', 'null call with two trailers');
    is($r->{status}, 0, 'its reply (status=0 pl = 0 ... status=XXX ...) pairs, status 0');
    ok(!$r->{f}, 'no fields taken from the trailers');
    unlike($err, qr/unknown keys/, 'no trailer word is taken for a key anywhere');
};

subtest 'NFSv2 lines' => sub {
    my @c2 = grep {/^\d\S*\s+\S+\s+\S+\s+U\s+C2\s/} do { open my $fh, '<', $fixture or die; <$fh> };
    my @v2 = grep { $_->{vers} eq 'v2' } @recs;
    is(scalar @v2, scalar @c2, 'one v2 record per C2 line');
    my $g = rec('0x8200eec4');
    is($g->{proc}, 'getattr', 'getattr');
    is($g->{f}{mode}, hex('8180') & 07777, 'mode: permission bits only');
    is($g->{f}{type}, 1, 'type: regular file (from the mode format bits)');
    is($g->{f}{used}, hex('8') * hex('2000'), 'used = blocks * blksize');
    is($g->{f}{size}, hex('22e'), 'size');
    is($g->{f}{ctime}, '1036443759.007002000', 'v2 time: the fraction counts microseconds');
    my $l = rec('0x8200eec6');
    is(unq($l->{f}{name}), 'notes.txt', 'lookup fn is the name');
    is($l->{f}{newobj}, $g->{f}{obj}, 'lookup reveals the handle getattr used');
    isnt($l->{f}{dir}, $g->{f}{obj}, 'the directory is another object');
    my $rd = rec('0x8200eec5');
    is_deeply([@{ $rd->{f} }{qw(offset count rcount)}], [0, 8192, hex('22e')], 'read offset, count, bytes read');
    my $w = rec('0x072cd8ac');
    is($w->{f}{count}, hex('bba'), 'write: tcount is the data length');
    my $s = rec('0x8200eee7');
    is_deeply([@{ $s->{f} }{qw(set_atime set_mtime)}], ['server', 'server'], 'sattr microseconds 1000000 = server time');
    my $rm = rec('0x8203a7e8');
    is($rm->{status}, 0, 'remove OK (nfsstat after OK ignored)');
    is(unq($rm->{f}{name}), 'old', 'remove name');
};

subtest 'two attribute groups in a reply fill dir_*' => sub {
    my $l = rec('0xb653f2e4');
    is($l->{f}{fileid}, hex('84fb8'), 'first group: the object found');
    is($l->{f}{type}, 1, 'its type');
    is($l->{f}{dir_fileid}, hex('86603'), 'second group: the directory');
    is($l->{f}{dir_mtime}, '1006231501.427114000', 'directory mtime');
    is($l->{f}{dir_nlink}, 2, 'directory nlink');
    is($l->{f}{dir_size}, hex('2000'), 'directory size');
    my $rm = rec('0x2054f2e4');
    is($rm->{f}{dir_fileid}, hex('86603'), "remove: the reply's one group is the directory's");
    ok(!exists $rm->{f}{fileid} && !exists $rm->{f}{type}, 'and not taken for the removed object');
    my $f = rec('0xb953f2e4');
    is($f->{status}, 2, 'failed lookup: status NOENT');
    ok(!exists $f->{f}{newobj}, 'no new object');
};

subtest 'quoted names with escapes round-trip to the right bytes' => sub {
    my $c = rec('0x8bf2d105');
    is(unq($c->{f}{name}), qq(my file"q\\b), 'space, quote, backslash (\\20 \\22 \\5c)');
    my $r = rec('0xb791e2ee');
    is(unq($r->{f}{name}),  "caf\xc3\xa9", 'raw bytes kept');
    is(unq($r->{f}{name2}), "tab\tend",    'tab (\\09)');
    my $l = rec('0x1129d205');
    my @names = map { unq($_) } $l->{f}{entries} =~ /("(?:[^"\\]|\\.)*")/g;
    is_deeply(\@names, ['.', 'my file'], 'readdirplus entry names');
    my ($e1) = $l->{f}{entries} =~ /,(\d+:\d+:\d+:\d+:\d+):/;
    is($e1, join(':', hex('84fb9'), hex('200'), 0, 1, hex('207')), 'entry fileid:cookie:id:type:size');
    is($l->{f}{rcount}, 2, 'rcount = entries');
  SKIP: {
        skip "no tbbt-dump in $build", 1 unless -x $dump;
        my $json = `'$dump' --jsonl '$tmp/q.tbbt'`;
        like($json, qr/"name":"my file\\"q\\\\b"/, 'tbbt-dump decodes the same name');
    }
};

# Pass 1 writes an answered call at once: a call stamped 0.3 s before the
# two printed above it (an inversion under --step-threshold) comes out
# after them, counted as out of order (the Perl importer sorted it in).
subtest 'non-monotonic timestamps: a 300 s step back is repaired, the output in order but one inversion' => sub {
    like($err, qr/1 backward clock steps removed \(299\.9\d* s\)/, 'one step, its size, in the summary');
    my @t = map { $_->{call} } grep { $_->{xid} ne '0x9df0d105' } @recs;
    is_deeply(\@t, [sort { $a <=> $b } @t], 'records sorted by call time, but the inverted call');
    like($err, qr/ 1 records out of call-time order/, 'the inversion counted');
    my @x = map { $_->{xid} } grep { $_->{xid} =~ /^0x9[a-d]f0d105$/ } @recs;
    is_deeply(\@x, [qw(0x9af0d105 0x9bf0d105 0x9cf0d105 0x9df0d105)], 'the 0.3 s early call after the two before it');
    for my $r (grep { $_->{xid} =~ /^0x9[a-d]f0d105$/ } @recs) {
        ok($r->{call} >= 1065000001 && $r->{call} < 1065000002, "$r->{xid} stays within the second it was sent in");
        ok($r->{reply} >= $r->{call}, "$r->{xid} reply not before its call");
    }
    my $c = rec('0x9cf0d105');
    is(sprintf('%.6f', $c->{reply} - $c->{call}), '0.000300', 'latency after the step unchanged');
};

subtest 'setattr size word-swapped before Sep 2003, not after' => sub {
    is(rec('0x97f0d105')->{f}{set_size}, 0x1000, '2001: 100000000000 is 0x1000 swapped');
    is(rec('0xa5f0d105')->{f}{set_size}, 0x100000000000, '2003-10: kept');
    my ($rc2, $o2) = run('-q', '--no-size-swap', $fixture);
    my %x = map { $_->{xid} => $_ } records($o2);
    is($x{'0x97f0d105'}{f}{set_size}, 0x100000000000, '--no-size-swap keeps 2001 sizes');
    ($rc2, $o2) = run('-q', '--size-swap', $fixture);
    %x = map { $_->{xid} => $_ } records($o2);
    is($x{'0xa5f0d105'}{f}{set_size}, 0x1000, '--size-swap swaps 2003 sizes');
    ($rc2, $o2) = run('-q', '--size-swap-before', '2003-11-01', $fixture);
    %x = map { $_->{xid} => $_ } records($o2);
    is($x{'0xa5f0d105'}{f}{set_size}, 0x1000, '--size-swap-before moves the cutoff');
};

subtest 'acc as letters (early traces) and as hex' => sub {
    is(rec('0x59efd105')->{f}{access}, 2,  'L = LOOKUP');
    is(rec('0x48f0d105')->{f}{access}, 1,  'R = READ');
    is(rec('0x48f0d106')->{f}{access}, 33, 'RX = READ|EXECUTE');
    my $u = rec('0x48f0d107');
    ok(!exists $u->{f}{access}, 'U (several bits, unknown) is left out');
    is($u->{f}{raccess}, 3, 'the reply acc is hex');
    my $h = rec('0x072a66dc');
    is($h->{f}{access}, hex('2d'), 'lower-case hex acc');
    is($h->{cred}, 'cred=1:' . hex('18a8f') . ':' . hex('18a90'), 'euid/egid become AUTH_SYS credentials');
    is(rec('0x59efd105')->{cred}, 'cred=0:0:0', 'no euid/egid: unknown, AUTH_NONE');
};

subtest 'lost reply: flag L' => sub {
    my $w = rec('0x44acf2e4');
    like($w->{flags}, qr/^L/, 'flag L');
    is($w->{reply},  '-', 'reply time -');
    is($w->{status}, '-', 'status -');
    is($w->{f}{stable}, 0, 'its arguments are kept (stable U = 0)');
    is(scalar(grep { $_->{flags} =~ /L/ } @recs), 1, 'no other call is lost');
};

subtest 'retransmitted call: one record, flag X' => sub {
    my $r = rec('0x1cf0d105');
    like($r->{flags}, qr/X/, 'flag X');
    is($r->{call},  '1006231510.200000000', 'the first copy is kept');
    is($r->{reply}, '1006231510.910000000', 'paired with the reply');
};

subtest 'anonymised hosts and IPv4 hex hosts' => sub {
    my $r = rec('0x49f0d105');
    is($r->{client}, '10.0.0.5:1015', 'IPv4 client (0a000005.03f7)');
    is($r->{server}, '10.0.0.1:2049', 'IPv4 server (0a000001.0801)');
    my $a = rec('0xb653f2e4');
    is($a->{client}, '~' . ('0' x 30) . '31:1015', 'anonymised client 31, right-aligned');
    is($a->{server}, '~' . ('0' x 30) . '30:2049', 'anonymised server 30');
    like(rec('0x3e5a1eea')->{client}, qr/^~0{30}75:40075$/, 'UDP client port 9c8b');
    is(rec('0x3e5a1eea')->{flags}, '-', 'UDP: no T flag');
    like(rec('0xb653f2e4')->{flags}, qr/T/, 'TCP: T flag');
};

subtest 'malformed line: one warning with FILE:LINE, the rest imported' => sub {
    my @lines = do { open my $fh, '<', $fixture or die; <$fh> };
    my ($bad) = grep { $lines[$_] !~ /^#/ && split(' ', $lines[$_]) < 8 } 0 .. $#lines;
    my @w = grep {/^tbbt-ellard: warning: \Q$fixture\E:\d+: /} @err;
    is(scalar @w, 1, 'one warning');
    like($w[0] // '', qr/^tbbt-ellard: warning: \Q$fixture\E:${\($bad + 1)}: /, 'naming the file and the line');
    like($err, qr/malformed lines skipped: 1\b/, 'counted');
    ok(rec('0x8203a7e8')->{proc}, 'lines after it are imported');
};

subtest 'a reply without a call is dropped and counted' => sub {
    ok(!$by_xid{'0xd3d2f2e4'}, 'no record');
    like($err, qr/ 2 replies without call /, 'counted (with the SHORT PACKET call\'s reply)');
};

subtest 'a file that is not Ellard at all: exit 1, one line' => sub {
    open my $fh, '>', "$tmp/bin" or die;
    print $fh map { chr(($_ * 37) % 256) } 0 .. 4095;
    close $fh;
    for my $f ("$src/tests/data/rec-sample.txt", "$tmp/bin") {
        my ($rc2, $o2, $e2) = run($f);
        is($rc2, 1, "$f: exit 1");
        is($o2, '', 'nothing on stdout');
        like($e2, qr/^tbbt-ellard: \Q$f\E: not an Ellard nfsdump trace[^\n]*\n\z/, 'one line naming the file');
    }
};

done_testing();
