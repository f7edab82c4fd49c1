#!/usr/bin/perl
# cli.t -- the command-line contract of scripts/tbbt-ellard that users
# rely on (a front end over tbbt-prep's Ellard reader and tbbt-dump; the
# summary on stderr is tbbt-prep's "Ellard text:" lines and report): stdout carries records only, the exit codes (0 done,
# 1 failed with one line naming the file, 2 usage), -o writes a complete
# file or none, the same records from a file, stdin or a .gz, several
# files read as one trace, warnings bounded by --max-warnings, and the
# "not a trace" rule (first 10 content lines).
use strict;
use warnings;
use Test::More;
use File::Basename qw(dirname);
use File::Temp qw(tempdir);
use Cwd qw(abs_path);

my $src     = $ENV{TBBT_SRC} // abs_path(dirname(__FILE__) . '/../..');
my $tool    = "$src/scripts/tbbt-ellard";
my $fixture = "$src/tests/data/ellard-quirks.txt";
my $tmp     = tempdir(CLEANUP => 1);

# run(SHELL-ARGS): runs the importer with a 60 s limit; returns (exit
# code, stdout, stderr). A crash or a hang shows as an exit code >= 124.
sub run {
    my ($args, $stdin) = @_;
    my $cmd = "timeout 60 perl '$tool' $args 2>'$tmp/err'";
    $cmd .= " <'$stdin'" if $stdin;
    my $out = `$cmd`;
    my $rc  = $? & 127 ? 128 + ($? & 127) : $? >> 8;
    my $err = do { open my $fh, '<', "$tmp/err" or die; local $/; <$fh> // '' };
    return ($rc, $out, $err);
}

# write_file(NAME, TEXT): creates $tmp/NAME; returns its path.
sub write_file {
    my ($name, $text) = @_;
    open my $fh, '>', "$tmp/$name" or die;
    print $fh $text;
    close $fh;
    return "$tmp/$name";
}

my @fix = do { open my $fh, '<', $fixture or die; <$fh> };
my ($rc, $ref, $err) = run("-q '$fixture'");
is($rc, 0, 'reference run');
ok(length $ref, 'records on stdout');
unlike($err, qr/Ellard text:|records/, '-q: no summary');

subtest 'the records are tbbt-prep\'s (tests/ellard/golden/, prep_golden.t)' => sub {
    my $sample = "$src/../shared/captures/public/ellard-raw-data.txt";
    for my $c (['quirks', $fixture], ['sample', $sample]) {
        my ($name, $in) = @$c;
      SKIP: {
            skip "no $in", 1 unless -r $in;
            my $gold = join '', grep { !/^#/ } do { open my $fh, '<', "$src/tests/ellard/golden/$name.golden.txt" or die; <$fh> };
            my ($rc, $out) = run("-q '$in'");
            is($out, $gold, "$name: the golden records of the C path, exactly");
        }
    }
};

subtest 'help and usage errors' => sub {
    my ($rc, $out, $e) = run('--help');
    is($rc, 0, '--help exits 0');
    like($out, qr/Usage:.*--reply-timeout/s, 'usage with the options on stdout');
    is($e, '', 'nothing on stderr');
    for my $bad ('--no-such-option', '--reply-timeout 0', '--step-threshold -1', '--size-swap-before 2003-13-45',
        '--max-warnings x')
    {
        ($rc, $out, $e) = run("$bad '$fixture'");
        is($rc, 2, "$bad: exit 2");
        is($out, '', "$bad: nothing on stdout");
    }
};

subtest 'a file that cannot be read: exit 1, one line naming it' => sub {
    for my $f ("$tmp/missing.txt", $tmp) {
        my ($rc, $out, $e) = run("'$f'");
        is($rc, 1, "$f: exit 1");
        is($out, '', 'nothing on stdout');
        like($e, qr/^tbbt-ellard: \Q$f\E: [^\n]+\n\z/, 'one line naming the file');
    }
};

subtest '-o writes a complete file, or none' => sub {
    my ($rc, $out) = run("-q -o '$tmp/o.txt' '$fixture'");
    is($rc, 0, 'exit 0');
    is($out, '', 'nothing on stdout');
    is(do { open my $fh, '<', "$tmp/o.txt" or die; local $/; <$fh> }, $ref, 'the same records as on stdout');
    ($rc) = run("-q -o '$tmp/bad.txt' '$src/tests/data/rec-sample.txt'");
    is($rc, 1, 'not a trace: exit 1');
    ok(!-e "$tmp/bad.txt", 'no output file');
    is_deeply([grep {/\.tmp\.\d+$/} glob("$tmp/.*")], [], 'no temporary file left');
};

subtest 'stdin and compressed input give the same records' => sub {
    my ($rc, $out) = run('-q', $fixture);
    is($rc, 0, 'stdin: exit 0');
    is($out, $ref, 'stdin: same records');
  SKIP: {
        skip 'no gzip', 2 unless system('gzip --version >/dev/null 2>&1') == 0;
        system("gzip -c '$fixture' > '$tmp/f.txt.gz'") == 0 or die;
        ($rc, $out) = run("-q '$tmp/f.txt.gz'");
        is($rc, 0, '.gz: exit 0');
        is($out, $ref, '.gz: same records');
    }
  SKIP: {
        skip 'no bzip2', 3 unless system('bzip2 --help >/dev/null 2>&1') == 0;
        system("bzip2 -c '$fixture' > '$tmp/f.txt.bz2'") == 0 or die;
        ($rc, $out) = run("-q '$tmp/f.txt.bz2'");
        is($rc, 0, '.bz2 (through bzip2): exit 0');
        is($out, $ref, '.bz2: same records');
        write_file('broken.bz2', "not bzip2 at all\n");
        my ($rc3, undef, $e3) = run("-q '$tmp/broken.bz2'");
        is($rc3, 1, 'a broken .bz2: exit 1');
    }
    write_file('broken.gz', "not gzip at all\n");
    my ($rc2, $out2, $e2) = run("-q '$tmp/broken.gz'");
    is($rc2, 1, 'a broken .gz: exit 1');
    like($e2, qr/\Q$tmp\E\/broken\.gz/, 'naming the file');
};

subtest 'several files are one trace' => sub {
    my ($cut) = grep { $fix[$_] =~ /^1006231510\.900000 / } 0 .. $#fix;    # between a call and its reply
    my $a = write_file('a.txt', join '', @fix[0 .. $cut]);
    my $b = write_file('b.txt', join '', @fix[ $cut + 1 .. $#fix ]);
    my ($rc, $out, $e) = run("'$a' '$b'");
    is($rc, 0, 'exit 0');
    is($out, $ref, 'same records as the whole file: pairing, IDs and order span files');
    like($e, qr/^Ellard text: ${\ scalar @fix} lines: /m, 'summary counts the lines of both files');
};

subtest 'warnings: at most --max-warnings, then counted' => sub {
    my $bad = "1006231511.200000 31.03f7 30.0801 T C3\n";
    my $f   = write_file('w.txt', join('', @fix) . ($bad x 14));
    my ($rc, $out, $e) = run("--max-warnings 3 '$f'");
    is($rc, 0, 'exit 0: the rest imported');
    is(scalar(() = $e =~ /^tbbt-ellard: warning: \Q$f\E:\d+: /mg), 3, 'three warnings shown');
    like($e, qr/malformed lines skipped: 15\b/, 'all 15 counted');
    like($e, qr/12 more Ellard line warnings not shown/, 'the rest announced');
    is($out, $ref, 'same records');
};

subtest 'the first 10 content lines decide whether a file is a trace' => sub {
    my $junk  = "this is not a trace\n";
    my $start = "# a comment\n\n";
    my $f     = write_file('nine.txt', $start . ($junk x 9) . join('', @fix));
    my ($rc, $out, $e) = run("-q '$f'");
    is($rc, 0, '9 bad lines, then a trace: exit 0');
    is($out, $ref, 'the trace is imported');
    my @lines = $e =~ /^tbbt-ellard: warning: \Q$f\E:(\d+): /mg;
    is_deeply([grep { $_ <= 11 } @lines], [3 .. 11], 'each bad line warned about, numbered in the file');
    $f = write_file('ten.txt', $start . ($junk x 10) . join('', @fix));
    ($rc, $out, $e) = run("-q '$f'");
    is($rc, 1, '10 bad lines first: exit 1');
    is($out, '', 'nothing on stdout');
    like($e, qr/^tbbt-ellard: \Q$f\E: not an Ellard nfsdump trace[^\n]*\n\z/, 'one line');
    # An empty trace is refused, as by tbbt-prep (the Perl importer wrote
    # no records and exited 0).
    $f = write_file('empty.txt', '');
    ($rc, $out, $e) = run("-q '$f'");
    is($rc, 1, 'an empty file: exit 1');
    is($out, '', 'no records');
    like($e, qr/^tbbt-ellard: \Q$f\E: no NFSv2 or NFSv3 calls found\n\z/, 'one line naming it');
};

subtest 'the procedure name decides; a number that disagrees is warned about' => sub {
    my $t = join '', grep { !/^#/ } @fix[0 .. 9];    # the fixture's first lookups
    my $f = write_file('names.txt', join '',
        "1006231501.600000 31.03f7 30.0801 T C3 1754f2e4 6 getattr fh cfbc65840a0000000c000000839b0300378000000c0000000200000001800000 con = XXX len = XXX\n",
        "1006231501.600393 30.0801 31.03f7 T R3 1754f2e4 6 getattr OK  status=XXX pl = XXX con = XXX len = XXX\n",
        "1006231501.700000 31.03f7 30.0801 T C2 1854f2e4 4 access fh cfbc65840a0000000c000000839b0300378000000c0000000200000001800000 acc 1 con = XXX len = XXX\n",
        "1006231501.800000 31.03f7 30.0801 T C3 1954f2e4 0 mnt \"/home\" con = XXX len = XXX\n", $t);
    my ($rc, $out, $e) = run("'$f'");
    is($rc, 0, 'exit 0');
    # (its reply prints no attributes: the C reader skips it with a
    # warning, so the call is written lost)
    like($out, qr/ 0x1754f2e4 v3 getattr /, 'number 6 (read) named getattr: a getattr record');
    like($e, qr/^tbbt-ellard: warning: \Q$f\E:1: procedure number 6 is not getattr's/m, 'warned with FILE:LINE');
    unlike($out, qr/0x1854f2e4/, 'access is not an NFSv2 procedure: no record');
    like($e, qr/^tbbt-ellard: warning: \Q$f\E:3: access is not an NFSv2 procedure/m, 'warned');
    unlike($out, qr/0x1954f2e4/, 'MOUNT lines: no record');
    like($e, qr/unsupported procedures skipped: 1\b/, 'counted in the summary');
};

subtest 'a reply that does not parse is skipped; its call ends lost' => sub {
    my @l = grep { !/^#/ } @fix[0 .. 9];
    $l[1] =~ s/ fh cfbc\S+/ fh not-a-handle/ or die 'fixture changed';    # the first lookup's reply
    my $f = write_file('badreply.txt', join '', @l);
    my ($rc, $out, $e) = run("'$f'");
    is($rc, 0, 'exit 0');
    like($e, qr/^tbbt-ellard: warning: \Q$f\E:2: bad value of 'fh'/m, 'warned with FILE:LINE');
    like($out, qr/^\S+ - \S+ \S+ 0xb653f2e4 v3 lookup - LT cred=0:0:0 dir=1 name="[^"]+"\n/m,
        'the call is written lost, with its arguments only');
};

# Pass 1 writes an answered call at once, so a repeat after the reply is
# counted as a retransmission but cannot flag the record already written
# (the Perl importer held records back and flagged it X).
subtest 'a call repeated after its reply: one record; counted as a retransmission; a second reply is a duplicate' => sub {
    my ($call) = grep {/ C3 1cf0d105 /} @fix;
    my ($reply) = grep {/ R3 1cf0d105 /} @fix;
    (my $again = $call) =~ s/^1006231510\.200000/1006231510.950000/ or die 'fixture changed';
    (my $reply2 = $reply) =~ s/^1006231510\.910000/1006231510.960000/ or die 'fixture changed';
    my $f = write_file('again.txt', $call . $reply . $again . $reply2);
    my ($rc, $out, $e) = run("'$f'");
    is($rc, 0, 'exit 0');
    my @r = split /\n/, $out;
    is(scalar @r, 1, 'one record');
    like($r[0] // '', qr/^1006231510\.200000000 1006231510\.910000000 \S+ \S+ 0x1cf0d105 v3 read 0 T /, 'the first call and reply');
    like($e, qr/ 1 retransmitted calls \(flag X\)/, 'the repeat counted');
    like($e, qr/ 1 duplicate replies/, 'the second reply is a duplicate');
};

subtest 'interrupted: exit 3, no output file' => sub {
    open my $saved, '>&', \*STDERR or die;
    open STDERR, '>', "$tmp/int.err" or die;
    my $pid = open(my $ph, '|-', 'perl', $tool, '-o', "$tmp/int.txt") or die "cannot run: $!";
    open STDERR, '>&', $saved or die;
    $ph->autoflush(1);
    print $ph @fix;    # and keep stdin open: the importer waits for more
    sleep 1;
    kill 'INT', $pid;
    close $ph;
    is($? >> 8, 3, 'exit 3');
    ok(!-e "$tmp/int.txt", 'no output file');
    is_deeply([grep {/\.tmp\.\d+$/} glob("$tmp/.*")], [], 'no temporary file left');
    like(do { open my $fh, '<', "$tmp/int.err" or die; local $/; <$fh> }, qr/^tbbt-ellard: interrupted\n\z/m, 'said so');
};

subtest '--reply-timeout decides when a call is lost' => sub {
    # The retransmitted read's reply comes 0.71 s after the call.
    my ($rc, $out, $e) = run("--reply-timeout 0.5 '$fixture'");
    is($rc, 0, 'exit 0');
    my ($read) = grep {/ 0x1cf0d105 /} split /\n/, $out;
    like($read, qr/^\S+ - \S+ \S+ 0x1cf0d105 v3 read - L/, 'a reply later than the timeout: the call is lost');
    like($e, qr/ 1 duplicate replies/, 'and the late reply counted as a duplicate (of a call written lost; 0 without the option)');
};

done_testing();
