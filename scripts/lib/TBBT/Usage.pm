package TBBT::Usage;

# TBBT::Usage -- what the Perl commands do with a wrong argument, the same
# as the C commands (lib/usage.h): an unknown option, a bad option value, a
# missing or an extra operand print, on standard error only,
#
#   PROG: what is wrong
#   Usage:
#       the POD's SYNOPSIS (Pod::Usage, verbose 0)
#
# and exit 2, before any input is read or any output made.

use strict;
use warnings;

use Exporter qw(import);
use Getopt::Long qw(GetOptionsFromArray);
use Pod::Usage qw(pod2usage);

our @EXPORT_OK = qw(usage_error get_options);

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
    pod2usage(-verbose => 0, -exitval => 2, -output => \*STDERR);
}

# get_options(PROG, ARGV, SPEC...): GetOptionsFromArray(ARGV, SPEC...),
# returning true; when it fails, the complaints Getopt::Long warns
# ("Unknown option: x", 'Value "abc" invalid for option n (number
# expected)', "Option o requires an argument") become one usage error,
# named after PROG rather than left as bare warnings.
sub get_options {
    my ($prog, $argv, @spec) = @_;
    my @why;
    my $ok = do {
        local $SIG{__WARN__} = sub { push @why, $_[0] };
        GetOptionsFromArray($argv, @spec);
    };
    usage_error($prog, @why ? join('', @why) : 'bad option') unless $ok;
    return 1;
}

1;
