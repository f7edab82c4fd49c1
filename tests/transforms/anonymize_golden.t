#!/usr/bin/perl
# anonymize_golden.t -- tbbt-anonymize's outputs byte for byte against
# golden files (tests/data/golden/anonymize.golden.zst): for every input
# here the output bytes, the map, the summary or the one-line error naming
# FILE:LINE, the exit code and the files left behind.
#
# Inputs: the text fixtures of tests/data with their maps, under several
# option sets; hand-made lines for the corner cases of the record syntax;
# bad records and maps; and seeded random corruptions of a fixture.
#
# The golden file was made from the outputs on the day the Perl mapping
# path was removed, when it and the C helper (libexec/tbbt-xanon.c) agreed
# byte for byte on every case here (the test that compared them, xanon.t,
# is this one's history). Properties of any correct anonymisation are
# tested in anonymize.t (which also runs the bundled captures). Re-record
# (after a deliberate change of the output):
# TBBT_GOLDEN_WRITE=1 prove tests/transforms/anonymize_golden.t
use strict;
use warnings;
use Test::More;
use File::Basename qw(dirname basename);
use File::Temp qw(tempdir);
use Cwd qw(abs_path);
use FindBin;
use lib "$FindBin::Bin/../lib";
use TBBTTest qw(run_script golden_load golden_check golden_finish);

my $src   = $ENV{TBBT_SRC} // abs_path(dirname(__FILE__) . '/../..');
my $build = $ENV{TBBT_BUILD} // "$src/build";
my $tool  = "$src/scripts/tbbt-anonymize";
my $xanon = "$build/libexec/tbbt-xanon";
my $dump  = "$build/tools/tbbt-dump";
my $tmp   = tempdir(CLEANUP => 1);
my $data  = "$src/tests/data";

plan skip_all => "build first: $xanon" unless -x $xanon && -x $dump;

# slurp(PATH): the file's bytes ('' when missing).
sub slurp {
    open(my $fh, '<:raw', $_[0]) or return '';
    local $/;
    return <$fh> // '';
}

# spit(PATH, BYTES): writes the file.
sub spit {
    open(my $fh, '>:raw', $_[0]) or die "$_[0]: $!";
    print $fh $_[1];
    close $fh or die;
}

my $golden = golden_load("$data/golden/anonymize.golden.zst");

# run1(ARGS, TAG): one run with outputs under $tmp/TAG.* (ARGS may name
# @OUT@ and @MAPOUT@); returns what it did: exit code, stdout, stderr (the
# temporary directory named TMP, the sources SRC), the output files' bytes
# ('<absent>' when not there; a .tbbt output as its record text).
sub run1 {
    my ($args, $tag) = @_;
    my ($out, $mout) = ("$tmp/$tag.out", "$tmp/$tag.mout");
    unlink $out, $mout, "$out.tbbt";
    (my $a = $args) =~ s/\@OUT\@/'$out'/g;
    $a =~ s/\@MAPOUT\@/'$mout'/g;
    my ($rc, $so, $err) = run_script($tool, $build, $a, "$tmp/$tag.err");
    $err =~ s/\Q$tmp\E/TMP/g;
    $err =~ s/\Q$src\E/SRC/g;
    my %r = (rc => $rc, stdout => $so, stderr => $err);
    $r{$_->[0]} = -e $_->[1] ? slurp($_->[1]) : '<absent>' for [out => $out], [mapout => $mout];
    $r{tbbt} = `'$dump' '$out.tbbt'` if -e "$out.tbbt";
    return \%r;
}

# same(ARGS, NAME): one run, as the golden file's case NAME; returns it.
sub same {
    my ($args, $name) = @_;
    my $c = run1($args, 'c');
    golden_check($golden, $name, $c);
    return $c;
}

my @opts = ('', '--keep-length', '--keep-ext', '--keep-length --keep-ext --hash-root',
    '--length 3 --id-range 7-20', '--length 1 --keep-ext --id-range 1-3');

subtest 'fixtures with their maps' => sub {
    for my $f (sort glob("$data/xform2-*.txt")) {
        (my $map = $f) =~ s/\.txt\z/.hmap/;
        for my $o (@opts) {
            my $r = same("--key-string A $o --map '$map' --map-out \@MAPOUT\@ -o \@OUT\@ '$f'", basename($f) . " $o");
            is($r->{rc}, 0, 'exit 0') if $o !~ /--length 1/;
        }
        same("-q --key-string B --map '$map' --map-out \@MAPOUT\@ '$f'", basename($f) . ': records on stdout');
        same("--key-string B --map '$map' --map-out \@MAPOUT\@", basename($f) . ': the map alone');
        same("--key-string B --map '$map' --map-out - -o \@OUT\@ '$f'", basename($f) . ': the map on stdout');
        same("--key-string B -o \@OUT\@ - < '$f'", basename($f) . ': records from stdin');
        same("--key-string B -o \@OUT\@.tbbt '$f'", basename($f) . ': a .tbbt output');
    }
    same("--key-string A --map '$data/hmap-small.hmap' --map-out \@MAPOUT\@", 'hmap-small.hmap');
};

subtest 'every record fixture of tests/data' => sub {
    for my $f (map {"$data/$_.txt"} qw(rec-sample xform-ganesha xform-nfstrace xform-suricata-v2 xform2-2sessions
        xform2-suricata)) {
        same("--key-string A $_ -o \@OUT\@ '$f'", "records only: " . basename($f) . " $_") for '', '--keep-length --keep-ext';
    }
};

# The records of the quirk file: each is valid for the Perl path's
# expressions; several are corner cases of them.
my $H = '1.000000000 2.000000000 10.1.2.3:700 10.0.0.1:2049 0x0000abcd v3 lookup 0 T cred=1:500:500';
my @quirks = (
    qq($H dir=1 name="a\\\\x41" newobj=2),                    # an escaped backslash then "x41"
    qq($H dir=1 name="\\x2Fup\\x20per" newobj=3),              # upper-case hex, a space
    qq($H dir=1 name=".hidden.txt"),
    qq($H dir=1 name="..c"),
    qq($H dir=1 name=".c"),
    qq($H dir=1 name="a.tar.gz" name2="b.123456789"),
    qq($H dir=1 name="." name2=".."),
    qq($H dir=1 cutname="1764174001.M880" cutlen=98),         # a name the snaplen cut: its start emptied
    qq($H dir=1 name=""),
    qq($H target="/a//b/../c/" name="\\xff\\x00\\"q"),
    qq($H entries=[]),
    qq($H entries=[1:2:3:4:5:"x",06:07:08:09:10:"y.txt"]),
    '1.000000000 - [::1]:2049 x 0x00000001 v2 getattr - L cred=0:0000:00:0,01,7 uid=0 gid=00 set_uid=000123 set_gid=99999999999999999999999',
    '-1.000000000 - ~0123456789abcdefABCDEF0123456789:1 x 0x0000000A v3 null 0 - cred=1:1:1 x=',
    '1.000000000 - -:5 x 0x00000001 v3 null 0 - cred=1:1:1 zz_9=a=b=c',
    '1.000000000 - - x 0x00000001 v3 null 0 - cred=1:4294967295:1',
    '1.000000000 - 1.2.3.4:0 x 0x00000001 v3 null 0 - cred=1:1:1',
    '1.000000000 - 001.2.003.4:00012 x 0x00000001 v3 null 0 - cred=1:1:1',
    '1.000000000 - [FE80::1]:1 x 0x00000001 v3 null 0 - cred=1:1:1',
    "   \t# a comment\r",
    '',
    "1.000000000\t2.000000000  10.1.2.4:9   x 0x00000001 v3 null 0 -\x0bcred=1:2:3\x0c\r",
);

subtest 'the Perl path\'s corner cases' => sub {
    spit("$tmp/quirks.txt", join("\n", @quirks) . "\n");
    same("--key-string A $_ -o \@OUT\@ '$tmp/quirks.txt'", "quirks $_") for @opts;
    spit("$tmp/nonl.txt", "$H dir=1 name=\"x\"\r");
    same("--key-string A -o \@OUT\@ '$tmp/nonl.txt'", 'a last line without its newline');
};

# Bad records: each replaces the second line of a good file.
my @bad = (
    'x', '1 2 3 4 5 6 7 8 9', "$H x", "$H name=\"a\\\\\"", "$H name=\"a\\\\q\"", "$H name=\"a\\x4\"",
    "$H name=\"a\"b\"", "$H name=a", "$H target=\"\\q\"", "$H entries=[1:2:3:4:5:\"x\"", "$H entries=[1:2:3:4:5:\"x\"]]",
    "$H entries=[1:2:3:4:\"x\"]", "$H entries=[1:2:3:4:5:\"\\q\"]", "$H entries=", "$H uid=-1", "$H set_gid=",
    "$H Name=\"x\"", "$H =1", '1.00000000 - - x 0x00000001 v3 null 0 - cred=1:1:1',
    '1.000000000 1 - x 0x00000001 v3 null 0 - cred=1:1:1', '1.000000000 - 1.2.3:4 x 0x00000001 v3 null 0 - cred=1:1:1',
    '1.000000000 - 1234.2.3.4:4 x 0x00000001 v3 null 0 - cred=1:1:1',
    "1.000000000 - \x01bad\xff:4 x 0x00000001 v3 null 0 - cred=1:1:1",
    '1.000000000 - [::1] x 0x00000001 v3 null 0 - cred=1:1:1', '1.000000000 - ~12:1 x 0x00000001 v3 null 0 - cred=1:1:1',
    '1.000000000 - - x 0x0000001 v3 null 0 - cred=1:1:1', '1.000000000 - - x 0x00000001 3 null 0 - cred=1:1:1',
    '1.000000000 - - x 0x00000001 v3 null 0 - cred=1:1', '1.000000000 - - x 0x00000001 v3 null 0 - cred=1:1:1:',
    '1.000000000 - - x 0x00000001 v3 null 0 - cred=1:1:1:2,', '1.000000000 - - x 0x00000001 v3 null 0 - cred=1:1:1:2:3',
);

subtest 'bad records: the same one-line error, exit code and leftovers' => sub {
    for my $i (0 .. $#bad) {
        spit("$tmp/bad.txt", "$H dir=1 name=\"ok\"\n$bad[$i]\n$H\n");
        my $r = same("--key-string A -o \@OUT\@ '$tmp/bad.txt'", "bad record $i");
        like($r->{stderr}, qr/^tbbt-anonymize: TMP\/bad\.txt:2: [^\n]+\n\z/, "bad record $i: FILE:2") or diag $r->{stderr};
        same("--key-string A '$tmp/bad.txt'", "bad record $i, stdout");
    }
    spit("$tmp/full.txt", join('', map { "$H dir=1 name=\"n$_\"\n" } 1 .. 70));
    my $r = same("--key-string A --length 1 -o \@OUT\@ '$tmp/full.txt'", 'no name left');
    is($r->{rc}, 1, 'no name left: exit 1');
    spit("$tmp/ids.txt", join('', map { "1.000000000 - - x 0x00000001 v3 null 0 - cred=1:$_:1\n" } 1 .. 5));
    same("--key-string A --id-range 1-3 -o \@OUT\@ '$tmp/ids.txt'", 'no uid left');
    system("'$dump' --text-in '$data/xform2-suricata.txt' -o '$tmp/s.tbbt'") == 0 or die;
    same("--key-string A --id-range 1-1 -o \@OUT\@ '$tmp/s.tbbt'", 'a failure on a .tbbt names the record');
    same("--key-string A -o \@OUT\@ '$tmp/missing.txt'", 'a missing trace');
    same("--key-string A --map '$data/xform2-suricata.hmap' --map-out \@MAPOUT\@ -o \@OUT\@ '$tmp/missing.txt'",
        'a missing trace after a good map (the map is written)');
};

my $MH = "# tbbt-hmap 1\n1 0 0 - dir 4096 0755 0 0 r \".\" -\n";
my @badmaps = (
    '', "1 0 0 - dir 4096 0755 0 0 r \".\" -\n# end 1\n", "# tbbt-hmap x\n# end 0\n", "# tbbt-hmap 1\n# end 0\n",
    "# tbbt-hmap 1\n# end 5\n", "$MH# end 1\n2 1 0 - reg 1 0644 0 0 t \"a\" -\n", "$MH", "$MH# end 01\n# more\n",
    "$MH\n# end 2\n", "$MH 2 1 0 - reg 1 0644 x 0 t \"a\" -\n# end 2\n", "$MH 2 1 0 - reg 1 0644 0 0 q \"a\" -\n# end 2\n",
    "$MH 2 1 0 - reg 1 0644 0 0 t \"a\" b\n# end 2\n", "$MH 2 1 0 - reg 1 0644 0 0 t a -\n# end 2\n",
    "$MH x 1 0 - reg 1 0644 0 0 t \"a\" -\n# end 2\n", "$MH 2 y 0 - reg 1 0644 0 0 t \"a\" -\n# end 2\n",
    "$MH 2 1 0 - reg 1 0644 - 5 o \"tbbt-subtree-9/x/\" \"../y\"\n3 1 0 - reg 1 0644 1 - t \"x\" -\n# end 3\n",
    "# tbbt-hmap 1\r\n# end 0\r\n", "  # tbbt-hmap 1\n# end 0\n",
);

subtest 'bad and odd maps' => sub {
    for my $i (0 .. $#badmaps) {
        spit("$tmp/bad.hmap", $badmaps[$i]);
        same("--key-string A --map '$tmp/bad.hmap' --map-out \@MAPOUT\@", "map $i");
        same("--key-string A --map '$tmp/bad.hmap' --map-out - -o \@OUT\@ '$data/xform2-suricata.txt'", "map $i, on stdout");
    }
};

subtest 'seeded random corruptions of a fixture' => sub {
    my @l = split /\n/, slurp("$data/xform2-2sessions.txt");
    my @alphabet = (split(//, ' "\\:=,[]x0-.a/'), "\t", "\xff", "\x00");
    srand(10);
    for my $case (1 .. 40) {
        my @b = @l;
        for (1 .. 1 + int(rand(3))) {
            my $i = int(rand(@b));
            my $p = int(rand(length $b[$i]));
            my $op = int(rand(3));
            my $c = $alphabet[int(rand(@alphabet))];
            if    ($op == 0) { substr($b[$i], $p, 1) = $c }
            elsif ($op == 1) { substr($b[$i], $p, 0) = $c }
            else             { substr($b[$i], $p, 1) = '' }
        }
        spit("$tmp/fuzz.txt", join("\n", @b) . "\n");
        same("--key-string F --keep-ext -o \@OUT\@ '$tmp/fuzz.txt'", "corruption $case");
    }
};

subtest 'the key does not appear on the helper\'s command line' => sub {
    # A build directory whose tbbt-xanon records its arguments, then runs
    # the real one.
    mkdir "$tmp/fb";
    mkdir "$tmp/fb/libexec";
    spit("$tmp/fb/libexec/tbbt-xanon", "#!/bin/sh\nprintf '%s\\n' \"\$@\" >'$tmp/argv'\nexec '$xanon' \"\$@\"\n");
    chmod 0755, "$tmp/fb/libexec/tbbt-xanon";
    my $out = `TBBT_BUILD='$tmp/fb' perl '$tool' -q --key-string SECRETKEY123 '$data/xform2-suricata.txt'`;
    is($? >> 8, 0, 'exit 0');
    is($out, run1("-q --key-string SECRETKEY123 '$data/xform2-suricata.txt'", 'k')->{stdout}, 'the same output');
    my $argv = slurp("$tmp/argv");
    like($argv, qr/^--key-fd$/m, 'the helper ran, the key through a pipe');
    unlike($argv, qr/SECRETKEY123/, 'the key is not among its arguments');
};

golden_finish($golden, 'made by TBBT_GOLDEN_WRITE=1 prove tests/transforms/anonymize_golden.t on 2026-11-27 (h-onepath), '
      . 'from tbbt-anonymize with its C helper, which then agreed byte for byte with the Perl path (TBBT_PERL_ONLY=1) on every case; '
      . 're-recorded once after tbbt-xanon took the map parser of lib/hmap.c: five bad maps now carry its wording (diff: their stderr only)');
done_testing();
