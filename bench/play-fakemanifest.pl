#!/usr/bin/perl
# bench/play-fakemanifest.pl MAP > MANIFEST
#
# A manifest for tbbt-play against tests/tools/tbbt-nullserver (the minimal
# responder for benchmarks only), which has no MOUNT and no tree: every
# object of the hierarchy map that exists before the trace starts (create
# 0) is mapped, in clone 0, to a 16-byte handle that encodes its TBBT-ID
# ("tbbtfake" then the ID as 16 hex digits). Paths are copied from the map
# (same quoting). A hard-linked object appears once, under its first path,
# as tbbt-init writes it (lib/manifest.h).
use strict;
use warnings;

my $map = shift // die "usage: play-fakemanifest.pl MAP > MANIFEST\n";
open(my $in, '<', $map) or die "play-fakemanifest: $map: $!\n";
my (%seen, @out);
while (my $l = <$in>) {
    next if $l =~ /^#/;
    chomp $l;
    my @c = split ' ', $l;
    die "play-fakemanifest: $map:$.: not a map line\n" if @c < 12;
    my ($id, $create, $path) = @c[0, 2, 10];
    next if $create ne '0' || $seen{$id}++;
    push @out, sprintf("0 %s %s%016x %s\n", $id, unpack('H*', 'tbbtfake'), $id, $path);
}
close $in;
print "# tbbt-manifest 1\n# server tbbt-nullserver (minimal responder for benchmarks only)\n# map $map\n";
print "# clones 1\n", @out, "# end ", scalar(@out), "\n";
