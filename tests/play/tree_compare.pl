#!/usr/bin/perl
# tree_compare.pl -- list a directory tree as text, and compare two listings
# (tests/play/replay_ganesha.sh: the export a replay left against the tree
# the trace implies).
#
#   tree_compare.pl list DIR > FILE
#       one line per name under DIR (DIR itself left out), sorted by path:
#       PATH TYPE MODE UID GID NLINK SIZE TARGET, tab-separated, where TYPE
#       is f d l p s c b, MODE the permission bits in octal, SIZE "-" for
#       directories (a directory's size is its history on the server, not
#       something the trace implies) and TARGET a symbolic link's target
#       ("-" otherwise). Times and file contents are left out: a replay
#       writes its own payload at its own time. Names are escaped (\t \n \\
#       and other control bytes as \xHH) so each entry is one line.
#   tree_compare.pl diff EXPECTED ACTUAL [MAX]
#       exit 0 when the listings are equal; else prints up to MAX (default
#       10) differences, first in path order ("missing", "unexpected",
#       "differs: expected ... got ..."), and the counts, and exits 1.
# Exit 2 on bad usage or an unreadable directory or file.
use strict;
use warnings;
use Fcntl ':mode';
$SIG{__DIE__} = sub { print STDERR $_[0]; exit 2 };

# esc(NAME): NAME with tab, newline, backslash and control bytes escaped.
sub esc {
    my ($s) = @_;
    $s =~ s/\\/\\\\/g;
    $s =~ s/\t/\\t/g;
    $s =~ s/\n/\\n/g;
    $s =~ s/([\x00-\x1f\x7f])/sprintf("\\x%02x", ord($1))/ge;
    return $s;
}

# type_of(MODE): the one-letter type of an lstat mode.
sub type_of {
    my ($m) = @_;
    return 'f' if S_ISREG($m);
    return 'd' if S_ISDIR($m);
    return 'l' if S_ISLNK($m);
    return 'p' if S_ISFIFO($m);
    return 's' if S_ISSOCK($m);
    return 'c' if S_ISCHR($m);
    return 'b' if S_ISBLK($m);
    return '?';
}

# walk(ROOT, REL, OUT): appends the entries under ROOT/REL to the array OUT.
sub walk {
    my ($root, $rel, $out) = @_;
    my $dir = $rel eq '' ? $root : "$root/$rel";
    opendir(my $dh, $dir) or die "tree_compare.pl: $dir: $!\n";
    my @names = grep { $_ ne '.' && $_ ne '..' } readdir($dh);
    closedir($dh);
    for my $n (@names) {
        my $r = $rel eq '' ? $n : "$rel/$n";
        my @st = lstat("$root/$r") or die "tree_compare.pl: $root/$r: $!\n";
        my $t = type_of($st[2]);
        my $size = $t eq 'd' ? '-' : $st[7];
        my $target = '-';
        if ($t eq 'l') {
            $target = readlink("$root/$r");
            die "tree_compare.pl: $root/$r: $!\n" unless defined $target;
            $target = esc($target);
        }
        push @$out, [esc($r), join("\t", $t, sprintf('%04o', S_IMODE($st[2])), $st[4], $st[5], $st[3], $size, $target)];
        walk($root, $r, $out) if $t eq 'd';
    }
}

# cmd_list(DIR): prints DIR's listing.
sub cmd_list {
    my ($dir) = @_;
    -d $dir or die "tree_compare.pl: $dir: not a directory\n";
    my @e;
    walk($dir, '', \@e);
    print "$_->[0]\t$_->[1]\n" for sort { $a->[0] cmp $b->[0] } @e;
    return 0;
}

# read_listing(FILE): hash path => attributes of a listing.
sub read_listing {
    my ($f) = @_;
    open(my $fh, '<', $f) or die "tree_compare.pl: $f: $!\n";
    my %h;
    while (my $l = <$fh>) {
        chomp $l;
        my ($p, $rest) = split(/\t/, $l, 2);
        $h{$p} = $rest;
    }
    close($fh);
    return \%h;
}

# cmd_diff(EXPECTED, ACTUAL, MAX): prints the first MAX differences; 0 if none.
sub cmd_diff {
    my ($ef, $af, $max) = @_;
    my ($e, $a) = (read_listing($ef), read_listing($af));
    my %all = (%$e, %$a);
    my ($missing, $extra, $differ, $shown) = (0, 0, 0, 0);
    my $fmt = sub { my $v = shift; $v =~ s/\t/ /g; return $v };
    for my $p (sort keys %all) {
        my $line;
        if (!exists $a->{$p}) {
            $missing++;
            $line = "missing     $p (" . $fmt->($e->{$p}) . ")";
        } elsif (!exists $e->{$p}) {
            $extra++;
            $line = "unexpected  $p (" . $fmt->($a->{$p}) . ")";
        } elsif ($e->{$p} ne $a->{$p}) {
            $differ++;
            $line = "differs     $p: expected " . $fmt->($e->{$p}) . ", got " . $fmt->($a->{$p});
        }
        next unless defined $line;
        print "  $line\n" if $shown++ < $max;
    }
    my $n = $missing + $extra + $differ;
    return 0 if $n == 0;
    print "  ... and " . ($n - $max) . " more\n" if $n > $max;
    print "  trees differ: $missing missing, $extra unexpected, $differ with other attributes"
        . " (type mode uid gid nlink size target) of " . scalar(keys %$e) . " expected entries\n";
    return 1;
}

my $cmd = shift // '';
if ($cmd eq 'list' && @ARGV == 1) {
    exit cmd_list($ARGV[0]);
} elsif ($cmd eq 'diff' && (@ARGV == 2 || @ARGV == 3)) {
    exit cmd_diff($ARGV[0], $ARGV[1], $ARGV[2] // 10);
}
print STDERR "usage: tree_compare.pl list DIR | diff EXPECTED ACTUAL [MAX]\n";
exit 2;
