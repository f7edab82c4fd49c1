package TBBT::Usage;

# TBBT::Usage -- what the Perl commands do with a wrong argument, the same
# as the C commands (lib/usage.h): an unknown option, a bad option value, a
# missing or an extra operand print, on standard error only,
#
#   PROG: what is wrong
#   Usage:
#       the POD's SYNOPSIS (Pod::Usage, verbose 0)
#   Try 'PROG --help' for the options.
#
# and exit 2, before any input is read or any output made.

use strict;
use warnings;

use Exporter qw(import);
use FindBin;
use Pod::Usage qw(pod2usage);

our @EXPORT_OK = qw(usage_error version print_version);

# usage_error(PROG, MSG): prints "PROG: MSG" (MSG made one line: its own
# lines joined with "; ") and the synopsis of the running script ($0's
# POD) on stderr; exits 2. One sub so that every script says it the same
# way, with the synopsis and the exit code.
sub usage_error {
    my ($prog, $msg) = @_;
    $msg //= 'bad usage';
    $msg =~ s/\s+\z//;
    $msg =~ s/\s*\n\s*/; /g;
    print STDERR "$prog: $msg\n";
    pod2usage(-verbose => 0, -exitval => 'NOEXIT', -output => \*STDERR);
    print STDERR "Try '$prog --help' for the options.\n";
    exit 2;
}

# version(): tbbt's version, from TBBT::Version, which CMake makes from
# project(tbbt VERSION ...) (lib/CMakeLists.txt), as it makes the C
# commands' lib/version.h: looked for in @INC (installed beside this
# module), then in the build tree ($TBBT_BUILD, then ../build beside the
# script, as TBBT::Tool finds the C programs). undef when not built.
sub version {
    my @build = ((defined $ENV{TBBT_BUILD} && $ENV{TBBT_BUILD} ne '' ? ("$ENV{TBBT_BUILD}/scripts/lib") : ()),
        "$FindBin::Bin/../build/scripts/lib");
    local @INC = (@INC, @build);
    return eval { require TBBT::Version; $TBBT::Version::VERSION };
}

# print_version(PROG): "PROG (tbbt) VERSION" on stdout, exit 0 (1 with a
# line on stderr when TBBT::Version was not built): --version, the same as
# the C commands' (lib/opttab.h).
sub print_version {
    my ($prog) = @_;
    my $v = version();
    unless (defined $v) {
        print STDERR "$prog: the version is not known: TBBT::Version was not built (cmake)\n";
        exit 1;
    }
    print "$prog (tbbt) $v\n";
    exit 0;
}

1;
