package TBBT::Output;

# TBBT::Output -- how the Perl commands put an output file in place.
#
# An output is written under a temporary name and renamed when complete,
# so a file under the final name is always whole. That is right only for
# a regular file or a new name. A device (/dev/null), a FIFO or a symlink
# that already exists under the name must be written in place: renaming
# over it replaces the device or the link with a plain file, and done as
# root to /dev/null it breaks every daemon started afterwards. The C
# tools follow the same rule (lib/outfile.h).

use strict;
use warnings;

use Exporter qw(import);
use File::Basename qw(basename dirname);
use File::Copy qw(copy);
use File::Temp qw(tempfile);

our @EXPORT_OK = qw(replaceable temp_for put_in_place);

# replaceable(PATH): true when PATH may be replaced by a rename: it does
# not exist, or it is a regular file (not a symlink).
sub replaceable {
    my ($path) = @_;
    return !-l $path && (!-e _ || -f _);
}

# temp_for(PATH, SUFFIX): (handle, name) of a new temporary file that will
# become PATH: beside PATH when PATH is replaceable (the rename is then
# atomic), else in $TMPDIR. Returns () with $! set when it cannot be made.
sub temp_for {
    my ($path, $suffix) = @_;
    $suffix //= '';
    if (replaceable($path)) {
        my $tmp = dirname($path) . '/.' . basename($path) . '.tmp.' . $$ . $suffix;
        open(my $fh, '>:raw', $tmp) or return;
        return ($fh, $tmp);
    }
    my ($fh, $tmp) = eval { tempfile('tbbt-out-XXXXXX', TMPDIR => 1, SUFFIX => $suffix) };
    return unless $fh;
    binmode $fh;
    return ($fh, $tmp);
}

# put_in_place(TMP, PATH): makes the complete TMP PATH's content: a
# rename when PATH is replaceable, else a copy written into PATH, and
# TMP removed. Returns true, or false with $! set.
sub put_in_place {
    my ($tmp, $path) = @_;
    return rename($tmp, $path) if replaceable($path);
    my $ok  = copy($tmp, $path);
    my $err = $!;
    unlink $tmp;
    $! = $err;
    return $ok;
}

1;
