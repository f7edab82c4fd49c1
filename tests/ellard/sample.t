#!/usr/bin/perl
# sample.t -- scripts/tbbt-ellard on the 176 real lines of the Harvard
# traces in shared/captures/public/ellard-raw-data.txt. What a user relies
# on: every record is accepted by the C parser, no call is lost or
# invented (records per procedure = call lines per procedure, counted here
# with a plain regex), every reply that has a call is paired with it (with
# the latency the trace shows) and the others are counted, and one handle
# is one TBBT-ID.
use strict;
use warnings;
use Test::More;
use File::Basename qw(dirname);
use File::Temp qw(tempdir);
use Cwd qw(abs_path);

my $src    = $ENV{TBBT_SRC} // abs_path(dirname(__FILE__) . '/../..');
my $build  = $ENV{TBBT_BUILD} // "$src/build";
my $tool   = "$src/scripts/tbbt-ellard";
my $dump   = "$build/tools/tbbt-dump";
my $sample = "$src/../shared/captures/public/ellard-raw-data.txt";
plan skip_all => "no $sample (../shared absent)" unless -r $sample;
my $tmp = tempdir(CLEANUP => 1);

my $out = `perl '$tool' '$sample' 2>'$tmp/err'`;
is($? >> 8, 0, 'imports (exit 0)');
my $err = do { open my $fh, '<', "$tmp/err" or die; local $/; <$fh> };
is_deeply([grep { / at \S+ line \d+/ } split /\n/, $err], [], 'no Perl warnings on stderr');
unlike($err, qr/malformed lines skipped: [1-9]/, 'no line of the sample is malformed');

# The records, by (client, xid).
my (@recs, %rec);
for my $line (split /\n/, $out) {
    my @c = split / /, $line;
    my %r;
    @r{qw(call reply client server xid vers proc status flags cred)} = splice @c, 0, 10;
    $r{f} = {map { /^([a-z_0-9]+)=(.*)$/ ? ($1, $2) : die "bad field $_" } @c};
    push @recs, \%r;
    $rec{"$r{client} " . hex $r{xid}} = \%r;
}

# The input, read with a plain regex: calls and replies by (client, xid).
my (%calls, @replies, %want);
open my $in, '<', $sample or die;
while (<$in>) {
    next if /SHORT PACKET/;
    my ($t, $s, $d, $cr, $xid, $proc, $rest) =
      /^(\d+\.\d+) (\S+) (\S+) [TU] ([CR])[23] +([0-9a-f]+) +[0-9a-f]+ +(\S+) ?(.*)$/
      or next;
    $proc = 'readdirplus' if $proc eq 'readdirp';
    if ($cr eq 'C') {
        $calls{ ep($s) . ' ' . hex $xid } = {t => $t, proc => $proc, rest => $rest};
        $want{$proc}++;
    } else {
        push @replies, {key => ep($d) . ' ' . hex $xid, t => $t};
    }
}
close $in;

# ep(HOST.PORT): the text form's endpoint, as lib/rectext.h defines it.
sub ep {
    my ($h, $p) = $_[0] =~ /^([0-9a-f]+)\.([0-9a-f]+)$/ or die "bad endpoint $_[0]";
    return join('.', map { hex } unpack '(A2)4', $h) . ':' . hex $p if length $h == 8;
    return '~' . ('0' x (32 - length $h)) . "$h:" . hex $p;
}

subtest 'every record is accepted by tbbt-dump --text-in' => sub {
    plan skip_all => "no tbbt-dump in $build" unless -x $dump;
    open my $fh, '>', "$tmp/s.txt" or die;
    print $fh $out;
    close $fh;
    is(system("'$dump' --text-in -o '$tmp/s.tbbt' '$tmp/s.txt'"), 0, 'accepted');
    is(scalar `'$dump' '$tmp/s.tbbt'`, $out, 'and written back identically (canonical form)');
};

subtest 'records per procedure = call lines per procedure' => sub {
    my %got;
    $got{ $_->{proc} }++ for @recs;
    is_deeply(\%got, \%want, 'same counts') or diag explain \%got;
    is(scalar @recs, scalar keys %calls, 'one record per call');
};

subtest 'every reply with a call is paired with it; the others are counted' => sub {
    my ($paired, $unpaired) = (0, 0);
    for my $r (@replies) {
        my $c = $calls{ $r->{key} };
        if (!$c) {
            $unpaired++;
            next;
        }
        $paired++;
        my $rec = $rec{ $r->{key} };
        ok($rec && $rec->{reply} ne '-', "$r->{key}: paired") or next;
        is(sprintf('%.6f', $rec->{reply} - $rec->{call}), sprintf('%.6f', $r->{t} - $c->{t}), "$r->{key}: latency as traced");
    }
    like($err, qr/ $unpaired replies without call /, "summary: $unpaired unmatched ($paired paired)");
    my %answered = map { $_->{key} => 1 } @replies;
    my @lost = grep { !$answered{$_} } keys %calls;
    is_deeply([sort grep { $rec{$_}{flags} =~ /L/ } keys %rec], [sort @lost], 'exactly the unanswered calls are flagged L');
};

# Pass 1 writes an answered call at once: the v2 read 0x8200eec5, stamped
# 38 ms before the setattr printed above it, comes out after it (counted
# as out of order; the Perl importer sorted it in).
subtest 'records sorted by call time, but one inversion' => sub {
    my @t = map { $_->{call} } grep { $_->{xid} ne '0x8200eec5' } @recs;
    is_deeply(\@t, [sort { $a <=> $b } @t], 'sorted, but the inverted call');
    like($err, qr/ 1 records out of call-time order/, 'the inversion counted');
    like($err, qr/ [1-9]\d* backward clock steps removed/, 'the excerpts jump back in time: repaired');
};

subtest 'one handle, one TBBT-ID' => sub {
    my (%id_of, %fh_of);
    for my $key (keys %calls) {
        my ($fh) = $calls{$key}{rest} =~ /\b(?:fh|file) ([0-9a-f]+)/ or next;
        my $f  = $rec{$key}{f};
        my $id = $f->{obj} // $f->{dir};
        $id_of{$fh}{$id}++;
        $fh_of{$id}{$fh}++;
    }
    is(scalar(grep { keys %{ $id_of{$_} } != 1 } keys %id_of), 0, 'each handle has one ID');
    is(scalar(grep { keys %{ $fh_of{$_} } != 1 } keys %fh_of), 0, 'each ID one handle');
    ok(keys %id_of > 10, scalar(keys %id_of) . ' handles checked');
};

done_testing();
