package TBBT::Time;

# TBBT::Time -- the record text's time column read in Perl, as
# lib/rectext.c reads it: "SEC.NNNNNNNNN" (nine fraction digits, a sign
# allowed) into integer nanoseconds. tbbt-summary and tbbt-merge read call
# times with it.

use strict;
use warnings;

use Exporter qw(import);

our @EXPORT_OK = qw(parse_time);

# parse_time(TOKEN): the time token as integer nanoseconds, or undef when
# it is not one or is out of the text form's range (64-bit nanoseconds, as
# lib/rectext.c reads it: beyond, Perl's arithmetic would turn inexact).
sub parse_time {
    my ($t) = @_;
    return undef unless $t =~ /\A(-?)(\d+)\.(\d{9})\z/;
    my ($neg, $sec, $frac) = ($1, $2, $3);
    (my $digits = "$sec$frac") =~ s/\A0+(?=\d)//;
    my $max = $neg ? '9223372036854775808' : '9223372036854775807';
    return undef if length $digits > length $max || (length $digits == length $max && $digits gt $max);
    my $ns = $sec * 1_000_000_000 + $frac;
    return $neg ? -$ns : $ns;
}

1;
