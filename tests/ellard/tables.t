#!/usr/bin/perl
# tables.t -- the protocol facts scripts/tbbt-ellard repeats in Perl agree
# with their one definition in lib/: procedure names and v2/v3 numbers
# (lib/nfs_ops.c op_table) and the order and names of the record's fields
# (lib/record.c tbbt_fields[], the canonical text form's order). Also: the
# conversion table names only known procedures, fields and converters.
use strict;
use warnings;
use Test::More;
use File::Basename qw(dirname);
use Cwd qw(abs_path);

my $src = $ENV{TBBT_SRC} // abs_path(dirname(__FILE__) . '/../..');
require "$src/scripts/tbbt-ellard";    # a modulino: defines TbbtEllard, runs nothing

# slurp(FILE): its text.
sub slurp {
    open my $fh, '<', $_[0] or die "$_[0]: $!";
    local $/;
    return <$fh>;
}

my %c_proc;
my $ops = slurp("$src/lib/nfs_ops.c");
while ($ops =~ /\{TBBT_OP_\w+, "(\w+)", (-?\d+), (-?\d+),/g) {
    $c_proc{$1} = [$2 + 0, $3 + 0];
}
ok(keys %c_proc >= 25, 'read the operation table of lib/nfs_ops.c');
is_deeply(\%TbbtEllard::PROC, \%c_proc, 'procedure names and v2/v3 numbers as in lib/nfs_ops.c');

my @c_fields = slurp("$src/lib/record.c") =~ /FLD\(TBBT_F_\w+, "(\w+)",/g;
ok(@c_fields >= 50, 'read tbbt_fields[] of lib/record.c');
is_deeply(\@TbbtEllard::FIELD_ORDER, \@c_fields, 'record fields in tbbt_fields[] order');

my %field = map { $_ => 1 } @TbbtEllard::FIELD_ORDER;
is_deeply([sort keys %TbbtEllard::TABLE], [sort keys %TbbtEllard::PROC], 'one table row per procedure');
for my $proc (sort keys %TbbtEllard::TABLE) {
    my $row = $TbbtEllard::TABLE{$proc};
    for my $side (qw(call call_v2 reply)) {
        for my $k (sort keys %{ $row->{$side} // {} }) {
            my $m = $row->{$side}{$k} or next;
            ok($field{ $m->[0] }, "$proc $side $k -> $m->[0] is a record field");
            ok($TbbtEllard::CONV{ $m->[1] }, "$proc $side $k: converter $m->[1] exists");
        }
    }
    for my $g (@{ $row->{groups_ok} // [] }, @{ $row->{groups_err} // [] }) {
        like($g, qr/^(?:obj|dir|dir2)$/, "$proc: attribute group target $g");
    }
}
for my $alias (sort keys %TbbtEllard::PROC_ALIAS) {
    ok($TbbtEllard::PROC{ $TbbtEllard::PROC_ALIAS{$alias} }, "alias $alias names a procedure");
}

done_testing();
