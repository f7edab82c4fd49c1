package TBBT::Workspace;

# TBBT::Workspace -- the Perl commands' side of the workspace (the C side:
# lib/workspace.h; the user's description: docs/workspace.md). tbbt-play
# writes one result file per run into the current directory's
# tbbt-results/; tbbt-report and tbbt-compare given no result files read
# those.

use strict;
use warnings;

use Exporter qw(import);

our @EXPORT_OK = qw(workspace_results);

our $FILE    = 'tbbt-workspace';    # lib/workspace.h TBBT_WS_FILE
our $RESULTS = 'tbbt-results';      # lib/workspace.h TBBT_WS_RESULTS

# workspace_results(): the result files of the workspace of the current
# directory (tbbt-results/*.json), oldest first (then by name): the first
# server played is the report's baseline A. Empty when there are none.
sub workspace_results {
    my @f = grep { -f } glob("$RESULTS/*.json");
    my %t = map { $_ => (stat $_)[9] } @f;
    return sort { $t{$a} <=> $t{$b} || $a cmp $b } @f;
}

1;
