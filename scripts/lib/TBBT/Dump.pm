package TBBT::Dump;

# TBBT::Dump -- what a Perl command says when the tbbt-dump it reads a
# record file (NAME.tbbt) through fails.
#
# A corrupt or cut record file makes tbbt-dump exit 1 after one line that
# names the file and the offset where it fails ("tbbt-dump: t.tbbt: offset
# 134: checksum mismatch in frame"). The commands used to add their own
# line after it ("tbbt-summary: t.tbbt: tbbt-dump failed (exit 1)"): two
# lines for one fault, the second saying less. Now they add nothing then;
# any other end of tbbt-dump (a signal, another exit code, a read error)
# still gets the command's line. The C helpers (libexec/tbbt-xmerge.c) do
# the same.

use strict;
use warnings;

use Exporter qw(import);

our @EXPORT_OK = qw(dump_failure);

# dump_failure(NAME): called when close() of the handle reading NAME
# through tbbt-dump failed, with $! and $? as close left them. Returns
# undef when tbbt-dump exited 1 (it has said why in one line: the caller
# exits 1 without a line of its own), else the caller's message: "NAME:
# read error: ..." or "NAME: tbbt-dump failed (exit N)".
sub dump_failure {
    my ($name) = @_;
    return "$name: read error: $!" if $!;
    return undef if ($? & 127) == 0 && ($? >> 8) == 1;
    return "$name: tbbt-dump failed (exit " . ($? >> 8) . ')';    # as libexec/tbbt-xmerge.c words it
}

1;
