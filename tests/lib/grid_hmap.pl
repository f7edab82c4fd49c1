#!/usr/bin/perl
# grid_hmap.pl -- writes a hierarchy map (lib/hmap.h's format) of a grid
# of initial objects: DIRS directories under the root, FILES files of
# 4 KiB in each, and with --links a symbolic link "l" (to f0) and a hard
# link "hard" (to the last file) in each. For tests that need tbbt-init
# to work for a while.
use strict;
use warnings;
use Getopt::Long;

=head1 SYNOPSIS

grid_hmap.pl [--links] SOURCE DIRS FILES >MAP.hmap

=cut

my $links = 0;
GetOptions('links' => \$links) && @ARGV == 3 or die "usage: grid_hmap.pl [--links] SOURCE DIRS FILES\n";
my ($source, $dirs, $files) = @ARGV;
print "# tbbt-hmap 1\n# source $source\n1 0 0 - dir 4096 0755 0 0 r \".\" -\n";
my ($id, $n) = (2, 1);
for my $d (0 .. $dirs - 1) {
    my $did = $id++;
    print "$did 1 0 - dir 4096 0755 0 0 t \"d$d\" -\n";
    $n++;
    for my $f (0 .. $files - 1) { print $id++, " $did 0 - reg 4096 0644 0 0 t \"d$d/f$f\" -\n"; $n++ }
    next unless $links;
    print $id++, " $did 0 - lnk 2 0777 0 0 t \"d$d/l\" \"f0\"\n";
    print $id - 2, " $did 0 - reg 4096 0644 0 0 t \"d$d/hard\" -\n";
    $n += 2;
}
print "# end $n\n";
