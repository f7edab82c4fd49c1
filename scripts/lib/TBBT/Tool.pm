package TBBT::Tool;

# TBBT::Tool -- where the Perl commands find the C programs they run
# (tbbt-dump, tbbt-prep, their C helpers), looked for in one order by all.
# Installed, this module is PREFIX/share/tbbt/perl/TBBT/Tool.pm and the
# programs are in PREFIX/bin and PREFIX/libexec/tbbt; in the sources it is
# scripts/lib/TBBT/Tool.pm and the programs are in a build tree.

use strict;
use warnings;

use Cwd ();
use Exporter qw(import);
use File::Basename qw(dirname);
use FindBin;

our @EXPORT_OK = qw(find_tool helper_tool dump_tool);

# This module's directory, links resolved.
my $HERE = dirname(Cwd::abs_path(__FILE__) // __FILE__);

# installed_dirs(): PREFIX/libexec/tbbt and PREFIX/bin when this module is
# the installed copy (PREFIX/share/tbbt/perl/TBBT), else nothing.
sub installed_dirs {
    return () unless $HERE =~ m{^(.*)/share/tbbt/perl/TBBT$};
    return ("$1/libexec/tbbt", "$1/bin");
}

# find_tool(SUBDIR, NAME, BUILD): the path of a tbbt program: BUILD/SUBDIR
# (BUILD given, else $TBBT_BUILD: a developer's build tree), then the
# installed programs beside this module's prefix (installed_dirs), then the
# build tree beside the running script (../build/SUBDIR: the sources), then
# the PATH; undef when none is an executable file.
sub find_tool {
    my ($sub, $name, $build) = @_;
    $build //= $ENV{TBBT_BUILD};
    my @cand;
    push @cand, "$build/$sub/$name" if defined $build && $build ne '';
    push @cand, map {"$_/$name"} installed_dirs();
    push @cand, "$FindBin::Bin/../build/$sub/$name";
    push @cand, map {"$_/$name"} split /:/, ($ENV{PATH} // '');
    return (grep { -f && -x } @cand)[0];
}

# helper_tool(NAME, BUILD): a C helper (libexec/) doing a script's work
# (the script is its front end), or undef when it is not built.
sub helper_tool {
    my ($name, $build) = @_;
    return find_tool('libexec', $name, $build);
}

# dump_tool(BUILD): tbbt-dump: $TBBT_DUMP, else find_tool, else the bare
# name (the error then comes from running it).
sub dump_tool {
    return $ENV{TBBT_DUMP} || find_tool('tools', 'tbbt-dump', $_[0]) || 'tbbt-dump';
}

1;
