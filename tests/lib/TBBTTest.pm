package TBBTTest;
# TBBTTest -- what the Perl tests of the transforms share: running one of
# the scripts with or without its C helper.
use strict;
use warnings;
use Exporter qw(import);
our @EXPORT_OK = qw(run_script);

=head1 SYNOPSIS

    use FindBin;
    use lib "$FindBin::Bin/../lib";
    use TBBTTest qw(run_script);
    my ($rc, $stdout, $stderr) = run_script($tool, $build, $perl_only, $args, "$tmp/err");

=head1 DESCRIPTION

run_script runs the Perl script TOOL with the shell arguments ARGS, its
helpers found in BUILD, with TBBT_PERL_ONLY set when PERL_ONLY is true
(the Perl reference path) and empty otherwise (the C helper), under a
120-second timeout; stderr goes to ERRFILE. Returns the exit code (128 +
the signal when killed), stdout and stderr.

=cut

sub run_script {
    my ($tool, $build, $perl, $args, $errfile) = @_;
    my $env = $perl ? 'TBBT_PERL_ONLY=1' : 'TBBT_PERL_ONLY=';
    my $out = `$env TBBT_BUILD='$build' timeout 120 perl '$tool' $args 2>'$errfile'`;
    my $rc  = $? & 127 ? 128 + ($? & 127) : $? >> 8;
    my $err = do { open my $fh, '<:raw', $errfile or die "$errfile: $!"; local $/; <$fh> // '' };
    return ($rc, $out, $err);
}

1;
