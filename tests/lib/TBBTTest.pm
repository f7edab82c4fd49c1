package TBBTTest;
# TBBTTest -- what the Perl tests of the transforms share: running one of
# the scripts, and golden files (the outputs of a run recorded once,
# compared on every later run).
use strict;
use warnings;
use Exporter qw(import);
our @EXPORT_OK = qw(run_script golden_load golden_check golden_finish);
use Test::More ();

=head1 SYNOPSIS

    use FindBin;
    use lib "$FindBin::Bin/../lib";
    use TBBTTest qw(run_script golden_load golden_check golden_finish);
    my ($rc, $stdout, $stderr) = run_script($tool, $build, $args, "$tmp/err");
    my $g = golden_load("$src/tests/data/golden/summary.golden.zst");
    golden_check($g, 'case name', {rc => $rc, stdout => $stdout, stderr => $stderr});
    golden_finish($g, 'how the file was made');

=head1 DESCRIPTION

run_script runs the Perl script TOOL with the shell arguments ARGS, its
C helpers found in BUILD, under a 120-second timeout; stderr goes to
ERRFILE. Returns the exit code (128 + the signal when killed), stdout and
stderr.

A golden file (zstd-compressed) holds, per named case, the byte strings a
run gave (exit code, stdout, stderr, output files). golden_check compares
a run with its case (a case missing from the file fails). With
TBBT_GOLDEN_WRITE=1 in the environment, nothing is compared: the cases are
collected and golden_finish writes them, with the provenance line given,
as the new golden file (then read it with git diff before committing).

Format (before compression): "# " provenance lines, then per case
"@case NAME\n" and per field "@FIELD LENGTH\n" + LENGTH bytes + "\n".

=cut

sub run_script {
    my ($tool, $build, $args, $errfile) = @_;
    my $out = `TBBT_BUILD='$build' timeout 120 perl '$tool' $args 2>'$errfile'`;
    my $rc  = $? & 127 ? 128 + ($? & 127) : $? >> 8;
    my $err = do { open my $fh, '<:raw', $errfile or die "$errfile: $!"; local $/; <$fh> // '' };
    return ($rc, $out, $err);
}

# golden_load(PATH): the golden file's cases (or an empty set to fill
# under TBBT_GOLDEN_WRITE=1).
sub golden_load {
    my ($path) = @_;
    my $g = {path => $path, write => !!$ENV{TBBT_GOLDEN_WRITE}, cases => {}, order => []};
    return $g if $g->{write};
    open my $fh, '-|:raw', 'zstd', '-dcq', $path or die "$path: cannot run zstd: $!";
    my $text = do { local $/; <$fh> // '' };
    close $fh or die "$path: zstd -d failed";
    my $pos = 0;
    my $case;
    while ($pos < length $text) {
        my $nl = index($text, "\n", $pos);
        die "$path: truncated at byte $pos" if $nl < 0;
        my $line = substr($text, $pos, $nl - $pos);
        $pos = $nl + 1;
        next if $line =~ /^# /;
        if ($line =~ /^\@case (.*)\z/) { $case = $g->{cases}{$1} = {}; next }
        my ($field, $len) = $line =~ /^\@(\w+) (\d+)\z/ or die "$path: bad line at byte $pos: $line";
        die "$path: field before a case" unless $case;
        $case->{$field} = substr($text, $pos, $len);
        $pos += $len + 1;
    }
    return $g;
}

# golden_check(G, NAME, FIELDS): one test: FIELDS (field => bytes) equal
# the case NAME of the golden file (under TBBT_GOLDEN_WRITE=1: records it).
sub golden_check {
    my ($g, $name, $got) = @_;
    die "golden case '$name' twice" if $g->{seen}{$name}++;
    if ($g->{write}) {
        $g->{cases}{$name} = {%$got};
        push @{$g->{order}}, $name;
        return Test::More::pass("$name: recorded");
    }
    my $want = $g->{cases}{$name};
    return Test::More::fail("$name: not in $g->{path} (TBBT_GOLDEN_WRITE=1 records it)") unless $want;
    for my $k (sort keys %{{%$want, %$got}}) {
        my ($w, $h) = ($want->{$k} // '<none>', $got->{$k} // '<none>');
        next if $w eq $h;
        Test::More::fail("$name: $k differs from the golden file");
        Test::More::diag("got:  " . substr($h, 0, 400) . "\nwant: " . substr($w, 0, 400));
        return 0;
    }
    return Test::More::pass("$name: as the golden file (exit " . ($got->{rc} // '-') . ')');
}

# golden_finish(G, PROVENANCE): under TBBT_GOLDEN_WRITE=1, writes the
# recorded cases with the provenance line; else checks that every case of
# the file was run.
sub golden_finish {
    my ($g, $prov) = @_;
    if (!$g->{write}) {
        my @unrun = grep { !$g->{seen}{$_} } sort keys %{$g->{cases}};
        Test::More::is("@unrun", '', 'every case of the golden file was run');
        return;
    }
    my $text = "# $prov\n";
    for my $name (@{$g->{order}}) {
        my $c = $g->{cases}{$name};
        $text .= "\@case $name\n";
        $text .= "\@$_ " . length($c->{$_}) . "\n$c->{$_}\n" for sort keys %$c;
    }
    open my $fh, '|-:raw', 'zstd', '-19', '-q', '-f', '-o', $g->{path} or die "$g->{path}: cannot run zstd: $!";
    print $fh $text;
    close $fh or die "$g->{path}: zstd failed";
}

1;
