#!/usr/bin/perl
# tests/install/opts.t -- the Perl commands' option tables (TBBT::Opts):
#   - the module itself, on a table of its own: defaults set, values
#     parsed and checked (int and number bounds, choices, a rule of the
#     command's, a repeatable option, --no-NAME), the first bad value a
#     usage error naming the option, the value and what is allowed, a bad
#     table refused;
#   - every Perl command (scripts/tbbt-*): --list-options in the C
#     commands' format (six tab-separated fields; --help, --man, --version
#     last), --help listing exactly those options with their defaults,
#     and, for every option with bounds or choices, a value outside them
#     refused with exit 2 and "PROG: --NAME VALUE: must be ALLOWED" (the
#     ALLOWED its --list-options says), before anything is read;
#   - the same words as the C commands (lib/opttab.c): an unknown option,
#     a missing value, a bad value, and --version.
# Usage: prove tests/install/opts.t (TBBT_BUILD: a build tree, for the C
# side and TBBT::Version; without one those parts are skipped).
use strict;
use warnings;
use Test::More;
use FindBin;
use File::Temp qw(tempdir);

my $SRC = $ENV{TBBT_SRC} // "$FindBin::Bin/../..";
my $BUILD = $ENV{TBBT_BUILD};
my $tmp = tempdir(CLEANUP => 1);
my @CMDS = grep { -f && -x } glob("$SRC/scripts/tbbt-*");

# run(ARGV...): (exit code, stdout, stderr) of a command, in $tmp, stdin empty.
sub run {
    my @cmd = @_;
    my $pid = fork // die "fork: $!";
    if (!$pid) {
        chdir $tmp or die;
        open STDIN,  '<', '/dev/null';
        open STDOUT, '>', "$tmp/out";
        open STDERR, '>', "$tmp/err";
        exec @cmd or exit 127;
    }
    waitpid $pid, 0;
    my $rc = $? >> 8;
    local $/;
    open my $o, '<', "$tmp/out"; my $out = <$o> // '';
    open my $e, '<', "$tmp/err"; my $err = <$e> // '';
    return ($rc, $out, $err);
}

# --- the module, on a table of its own (a child perl: usage errors exit)
my $T = <<'EOF';
use lib "$ENV{TBBT_SRC}/scripts/lib";
use TBBT::Opts qw(parse_opts);
our @OPTIONS = (
    { name => 'count', short => 'c', type => 'int', arg => 'N', default => 4, lo => 1, hi => 64, help => 'How many' },
    { name => 'rate', type => 'num', arg => 'F', above => 0, hi => 10, help => 'How fast' },
    { name => 'frac', type => 'num', arg => 'F', default => 0.5, lo => 0, hi => 1, help => 'A fraction' },
    { name => 'mode', type => 'str', arg => 'M', default => 'fast', choices => [qw(fast slow exact)], help => 'Which' },
    { name => 'even', type => 'str', arg => 'E', check => sub { $_[0] =~ /^\d+$/ && $_[0] % 2 == 0 },
      allowed => 'an even number', help => 'Even' },
    { name => 'tag', type => 'list', arg => 'T', help => 'Tags' },
    { name => 'port', type => 'list', of => 'int', arg => 'P', lo => 1, hi => 65535, help => 'Ports' },
    { name => 'swap', type => 'negflag', help => 'Swap' },
    { name => 'dry-run', short => 'n', type => 'flag', help => 'Nothing' },
);
my $o = parse_opts('t-opts', \@ARGV, \@OPTIONS, underscore => ($ENV{U} // 0));
print join(' ', map { "$_=" . (ref $o->{$_} ? join(',', @{ $o->{$_} }) : $o->{$_} // 'undef') } sort keys %$o), ' | ', join(' ', @ARGV), "\n";
EOF
open my $fh, '>', "$tmp/t-opts" or die;
print $fh "=head1 SYNOPSIS\n\n  t-opts [options] ARG...\n\n=cut\n$T";
close $fh;
local $ENV{TBBT_SRC} = $SRC;
my @T = ($^X, "$tmp/t-opts");

subtest 'defaults, values, operands' => sub {
    my ($rc, $out) = run(@T);
    is($rc, 0, 'no option: exit 0');
    is($out, "count=4 frac=0.5 mode=fast port= tag= | \n", 'the defaults set, lists empty, the rest absent');
    ($rc, $out) = run(@T, qw(-c 64 --rate 10 --frac=0 --mode exact --even 8 --tag a --tag b --port 1 --port 65535
        --no-swap -n op1 -- --op2));
    is($rc, 0, 'every value in bounds: exit 0');
    is($out, "count=64 dry-run=1 even=8 frac=0 mode=exact port=1,65535 rate=10 swap=0 tag=a,b | op1 --op2\n",
        'every value stored, lists in order, operands left');
    ($rc, $out) = run(@T, '--swap', '-nc3');
    is($out, "count=3 dry-run=1 frac=0.5 mode=fast port= swap=1 tag= | \n", 'bundled short options, --NAME of a negflag');
    local $ENV{U} = 1;
    ($rc, $out) = run(@T, '-n');
    like($out, qr/\bdry_run=1\b/, 'underscore => 1: the key dry_run');
};

subtest 'bad values: exit 2, the option, the value, what is allowed' => sub {
    my @bad = (
        [[qw(-c 0)],         '--count 0: must be an integer from 1 to 64'],
        [[qw(--count 65)],   '--count 65: must be an integer from 1 to 64'],
        [[qw(--count 1.5)],  '--count 1.5: must be an integer from 1 to 64'],
        [[qw(--count x)],    '--count x: must be an integer from 1 to 64'],
        [[qw(--rate 0)],     '--rate 0: must be a number above 0, up to 10'],
        [[qw(--rate 10.01)], '--rate 10.01: must be a number above 0, up to 10'],
        [[qw(--rate nan)],   '--rate nan: must be a number above 0, up to 10'],
        [[qw(--frac -0.1)],  '--frac -0.1: must be a number from 0 to 1'],
        [[qw(--mode quick)], '--mode quick: must be fast, slow or exact'],
        [[qw(--even 3)],     '--even 3: must be an even number'],
        [[qw(--port 1 --port 0)], '--port 0: must be an integer from 1 to 65535'],
        [[qw(--bogus)],      'Unknown option --bogus'],
        [[qw(-x)],           'Unknown option -x'],
        [[qw(--count)],      'Missing argument for --count'],
        [[qw(--mode fast -c)], 'Missing argument for -c'],
        [[qw(--coun 3)],     'Unknown option --coun'],    # no abbreviations: GLib has none
        [[qw(--Count 3)],    'Unknown option --Count'],   # case matters, as in GLib
        [[qw(-c 0 --mode quick)], '--count 0: must be an integer from 1 to 64'],    # the first one met
    );
    for my $b (@bad) {
        my ($args, $msg) = @$b;
        my ($rc, $out, $err) = run(@T, @$args);
        is($rc, 2, "@$args: exit 2");
        is($out, '', "@$args: nothing on stdout");
        my @l = split /\n/, $err;
        is($l[0], "t-opts: $msg", "@$args: $msg");
        like($l[1] // '', qr/^Usage:/, "@$args: then the synopsis");
    }
};

subtest 'a bad table is refused' => sub {
    for my $c ([q({ name => 'count', type => 'flag', help => 'again' }), qr/--count declared twice/],
        [q({ name => 'other', short => 'c', type => 'flag', help => 'again' }), qr/-c declared twice/],
        [q({ name => 'x', type => 'int', default => 99, lo => 1, hi => 10, help => 'x' }), qr/--x: default 99 not allowed/],
        [q({ name => 'help', type => 'flag', help => 'mine' }), qr/--help declared twice/],
        [q({ name => 'y', type => 'float', help => 'y' }), qr/--y: unknown type float/])
    {
        (my $bad = $T) =~ s/^\);$/$c->[0],\n);/m;
        open my $f, '>', "$tmp/t-bad" or die;
        print $f "=head1 SYNOPSIS\n\n  t-bad\n\n=cut\n$bad";
        close $f;
        my ($rc, $out, $err) = run($^X, "$tmp/t-bad");
        isnt($rc, 0, "$c->[1]: not run");
        like($err, $c->[1], "$c->[1]: said");
    }
};

# --- every Perl command
# fields(LINE): the six fields of a --list-options line.
sub fields { return split /\t/, $_[0], -1 }

for my $cmd (@CMDS) {
    (my $name = $cmd) =~ s{.*/}{};
    subtest $name => sub {
        my ($rc, $list, $err) = run($cmd, '--list-options');
        is($rc, 0, '--list-options: exit 0');
        my @lines = split /\n/, $list;
        ok(@lines >= 4, 'some options');
        is((grep { my @f = fields($_); @f == 6 && $f[0] =~ /^--[a-z0-9][a-z0-9-]*$/ && $f[1] =~ /^(-[A-Za-z0-9])?$/ && $f[5] ne '' } @lines),
            scalar @lines, 'every line: --NAME, -C or nothing, ARG, DEFAULT, ALLOWED, HELP');
        is_deeply([map { (fields($_))[0] } @lines[-3 .. -1]], [qw(--help --man --version)], 'the built-ins last');
        my ($hrc, $help) = run($cmd, '--help');
        is($hrc, 0, '--help: exit 0');
        like($help, qr/\AUsage:\n\s+\Q$name\E/, '--help: the synopsis first');
        for my $l (@lines) {
            my ($long, $short, $arg, $def, $allowed) = fields($l);
            my $form = ($short ne '' ? "$short, " : '') . $long . ($arg ne '' ? "=$arg" : '');
            my $d = $def eq '' ? '' : qr/.*\(default:? \Q$def\E\)/;
            like($help, qr/^  \Q$form\E\s.*$d/m, "--help: $form" . ($def ne '' ? " (default $def)" : ''));
            my @try;
            if ($allowed =~ /^an integer from (-?\d+) to (-?\d+)$/) {
                @try = ($1 - 1, $2 + 1, 'x');
            } elsif ($allowed =~ /^a number above (\S+?),? /) {
                @try = ($1, 'x');
            } elsif ($allowed =~ /^a number above (\S+)$/) {
                @try = ($1, 'x');
            } elsif ($allowed =~ /^a number from (\S+) to (\S+)$/) {
                @try = ($1 - 1, $2 + 1);
            } elsif ($allowed =~ /^a number/) {
                @try = ('x');
            } elsif ($allowed =~ /^[a-z]+(, [a-z]+)* or [a-z]+$/) {
                @try = ('zzz');
            }
            for my $v (@try) {
                my ($r, $o, $e) = run($cmd, $long, $v, 'in1', 'in2');
                is($r, 2, "$long $v: exit 2");
                is((split /\n/, $e)[0], "$name: $long $v: must be $allowed", "$long $v: named, with what is allowed");
            }
        }
        ($rc, undef, $err) = run($cmd, '--bogus');
        is($rc, 2, '--bogus: exit 2');
        is((split /\n/, $err)[0], "$name: Unknown option --bogus", '--bogus: the C commands\' words');
    };
}

# --- the same words as the C side
SKIP: {
    my $play = $BUILD && "$BUILD/player/tbbt-play";
    skip 'no build tree (TBBT_BUILD): the C side', 4 unless $play && -x $play;
    my (undef, undef, $ce) = run($play, '--window', '0', 't.tbbt');
    like((split /\n/, $ce)[0], qr/^tbbt-play: --window 0: must be an integer from 1 to \d+$/, 'C: the same form of bad value');
    (undef, undef, $ce) = run($play, '--bogus');
    is((split /\n/, $ce)[0], 'tbbt-play: Unknown option --bogus', 'C: the same unknown option');
    (undef, undef, $ce) = run($play, '--window');
    is((split /\n/, $ce)[0], 'tbbt-play: Missing argument for --window', 'C: the same missing value');
    my (undef, $cv) = run($play, '--version');
    my %v = map { my (undef, $v) = run($_, '--version'); (my $n = $_) =~ s{.*/}{}; $v =~ s/^\Q$n\E //r => 1 } @CMDS;
    is_deeply([keys %v], [$cv =~ s/^tbbt-play //r], '--version: every Perl command says what the C ones do');
}

done_testing();
