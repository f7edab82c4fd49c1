package TbbtGetoptSpy;

# TbbtGetoptSpy -- loaded with `perl -MTbbtGetoptSpy SCRIPT` by
# tests/install/man.sh: replaces Getopt::Long's GetOptionsFromArray before
# the script (and TBBT::Usage, which imports it) is compiled, so that the
# script's first option parse prints the option specs it would accept, one
# a line ('runs|k=i'), and exits 0 without doing anything else.

use strict;
use warnings;
use Getopt::Long ();

no warnings 'redefine';
*Getopt::Long::GetOptionsFromArray = sub {
    my (undef, @spec) = @_;
    print "$_\n" for grep { !ref } @spec;
    exit 0;
};

1;
