#!/usr/bin/perl
# tshark-compare.pl -- compare tbbt-prep's records with tshark's decode of
# the same capture, record by record.
use strict;
use warnings;
use Getopt::Long;
use Pod::Usage;
use JSON::PP;
use File::Temp qw(tempdir);

=head1 NAME

tshark-compare.pl - check tbbt-prep against an independent decoder

=head1 SYNOPSIS

tshark-compare.pl --build DIR [--port N]... [--report FILE] [--truth FULL.pcap] [--allow-missing]
[--complete] CAPTURE

Runs tbbt-prep and tbbt-dump --jsonl from the build directory and tshark
on CAPTURE, keys every NFS call by (client, server, xid), and compares
procedure, status, and where the procedure has them name, name2, offset
and count. Prints one line per category of difference and a last line

  tshark-compare: CAPTURE: N calls, M matched, K differ

Exits 0 when every call tshark decoded is a record with the same fields
and every record is a call tshark decoded, 1 otherwise.

With --truth FULL.pcap, tshark decodes FULL.pcap instead of CAPTURE: the
uncut, complete capture that CAPTURE was derived from (by cutting packets
with a short snaplen, or deleting some). With --allow-missing, calls and
replies that are in the truth but not in our records (lost with the
deleted packets) are counted but allowed; every record we do produce must
still equal the truth.

With --complete, the capture tshark decodes (FULL.pcap, or CAPTURE) is
said to hold every byte of every TCP stream, some of them out of order (a
segment the capture missed and a retransmission brought later), and tshark
reassembles out of order (tcp.reassemble_out_of_order), as tbbt-prep does.
Without it tshark does not: on a capture with holes, reassembling out of
order makes it wait on each hole and lose every record after it.

Differences that are explained, not failures:

=over

=item * reply-first: a reply captured before its call. tshark cannot know
its program and does not decode it as NFS; tbbt pairs it. Our record
has a status where tshark has none.

=item * cut-by-snaplen: a call cut short by the capture's snaplen (our
record's C flag) lacks a field that lay beyond the cut; tshark, given the
uncut capture as --truth, has it.

=item * retransmission: the same (client, server, xid) called twice;
both count it once.

=back

=cut

my ($build, @ports, $report, $truth, $allow_missing, $complete, $help);
GetOptions(
    'build=s'           => \$build,
    'port=i'            => \@ports,
    'report=s'          => \$report,
    'truth=s'           => \$truth,
    'allow-missing'     => \$allow_missing,
    'complete'          => \$complete,
    'help'              => \$help,
) or pod2usage(2);
pod2usage(-verbose => 1, -exitval => 0) if $help;
pod2usage(2) unless $build && @ARGV == 1;
my $cap = $ARGV[0];
-r $cap or die "tshark-compare.pl: $cap: cannot read\n";

my $tmp = tempdir(CLEANUP => 1);

# tshark reads .zst and .gz on its own only in newer versions: decompress.
my $plain = $truth // $cap;
if ($plain =~ /\.zst$/) {
    system("zstd -dcq '$plain' > '$tmp/cap.pcap'") == 0 or die "tshark-compare.pl: $plain: zstd failed\n";
    $plain = "$tmp/cap.pcap";
} elsif ($plain =~ /\.gz$/) {
    system("gzip -dc '$plain' > '$tmp/cap.pcap'") == 0 or die "tshark-compare.pl: $plain: gzip failed\n";
    $plain = "$tmp/cap.pcap";
}

my %tbbt = load_tbbt();
my %shark = load_tshark();
my %diff;
my ($matched, $n) = (0, 0);
my %keys = (%tbbt, %shark);
for my $k (sort keys %keys) {
    $n++;
    my ($t, $s) = ($tbbt{$k}, $shark{$k});
    if (!$s) { note('only-in-tbbt', $k, $t->{proc}); next; }
    if (!$t) { note('only-in-tshark', $k, $s->{proc}); next; }
    my @bad;
    push @bad, "proc $t->{proc}/$s->{proc}" if $t->{proc} ne $s->{proc};
    my $ts = defined $t->{status} ? $t->{status} : '-';
    my $ss = defined $s->{status} ? $s->{status} : '-';
    if ($ts ne $ss) {
        if ($ss eq '-' && $t->{reply_first}) { note('explained:reply-first', $k, $t->{proc}); }
        elsif ($ts eq '-') { note('reply-missing', $k, $t->{proc}); }
        else { push @bad, "status $ts/$ss"; }
    }
    for my $f (qw(name name2 offset count)) {
        next unless defined $s->{$f};
        if (!defined $t->{$f} && $t->{cut}) {
            note('explained:cut-by-snaplen', $k, "$t->{proc} $f");
            next;
        }
        my $tv = defined $t->{$f} ? $t->{$f} : '(none)';
        push @bad, "$f '$tv'/'$s->{$f}'" if $tv ne $s->{$f};
    }
    if (@bad) { note('field-mismatch', $k, join(', ', $t->{proc}, @bad)); }
    else { $matched++; }
}

my $failed = 0;
for my $cat (sort keys %diff) {
    my $c = $diff{$cat};
    my $fatal = $cat !~ /^explained:/ && !($allow_missing && $cat =~ /^(only-in-tshark|reply-missing)$/);
    $failed ||= $fatal;
    printf "  %-24s %6d%s  e.g. %s\n", $cat, $c->{n}, $fatal ? '' : ' (ok)', join(' | ', @{ $c->{ex} });
}
my $ndiff = 0;
$ndiff += $diff{$_}{n} for grep { !/^explained:/ } keys %diff;
my $line = sprintf "tshark-compare: %s: %d calls, %d matched, %d differ\n", $cap, $n, $matched, $ndiff;
print $line;
if ($report) {
    open my $fh, '>', $report or die "tshark-compare.pl: $report: $!\n";
    print $fh encode_json({ capture => $cap, calls => $n, matched => $matched, differ => $ndiff,
        tbbt => scalar(keys %tbbt), tshark => scalar(keys %shark),
        tshark_known => scalar(grep { $_->{proc} ne '?' } values %shark),
        categories => { map { $_ => $diff{$_}{n} } keys %diff } }), "\n";
    close $fh;
}
exit($failed ? 1 : 0);

# Remembers a difference under its category, with a few examples.
sub note {
    my ($cat, $key, $what) = @_;
    my $c = $diff{$cat} ||= { n => 0, ex => [] };
    $c->{n}++;
    push @{ $c->{ex} }, "$key $what" if @{ $c->{ex} } < 3;
}

# Runs tbbt-prep (pass 1 only: pass 2 fills in names the snaplen cut,
# through the objects they name or synthetic, which are not on the wire)
# and tbbt-dump; returns key -> {proc, status, name, ...}.
sub load_tbbt {
    my $out = "$tmp/out.tbbt";
    my $pargs = join ' ', map {"--port $_"} @ports;
    system("'$build/transform/tbbt-prep' -q --no-correct $pargs -o '$out' '$cap' 2>'$tmp/prep.err'") == 0
        or die "tshark-compare.pl: tbbt-prep failed on $cap: " . slurp("$tmp/prep.err");
    open my $fh, '-|', "'$build/tools/tbbt-dump' --jsonl '$out'" or die "tbbt-dump: $!\n";
    my %r;
    my $json = JSON::PP->new;
    while (my $l = <$fh>) {
        my $j = $json->decode($l);
        # Records pass 2 inserted are not in the capture; a status pass 2
        # inferred for a lost reply is not on the wire either.
        next if $j->{inserted};
        my $k = "$j->{client}>$j->{server}#$j->{xid}";
        my %rec = (proc => $j->{proc}, status => $j->{reply_lost} ? undef : $j->{status});
        $rec{cut} = 1 if $j->{flags} =~ /C/;
        $rec{reply_first} = 1 if defined $j->{reply_time} && $j->{reply_time} < $j->{call_time};
        $rec{name}  = $j->{name}  if defined $j->{name};
        $rec{name2} = $j->{name2} if defined $j->{name2};
        $rec{offset} = $j->{offset} if defined $j->{offset};
        $rec{count} = $j->{count} if defined $j->{count};
        $r{$k} = \%rec;
    }
    close $fh or die "tshark-compare.pl: tbbt-dump failed on $out\n";
    return %r;
}

my @F;
BEGIN {
    @F = qw(frame.number ip.src ipv6.src tcp.srcport udp.srcport ip.dst ipv6.dst tcp.dstport udp.dstport
        rpc.xid rpc.msgtyp rpc.program rpc.programversion nfs.procedure_v2 nfs.procedure_v3
        nfs.status nfs.name nfs.offset3 nfs.count3 nfs.read.offset nfs.read.count nfs.write.offset
        nfs.write.totalcount);
}

# Runs tshark; returns key -> {proc, status, name, ...} for NFSv2/v3 calls.
sub load_tshark {
    my @d = map { ("-d tcp.port==$_,rpc", "-d udp.port==$_,rpc") } @ports;
    # tshark at its best for the capture (see --complete)
    my @o = $complete ? ('-o tcp.reassemble_out_of_order:TRUE') : ();
    my $cmd = join ' ', 'tshark', '-n', '-r', "'$plain'", @o, @d, '-T fields', '-E separator=/t', '-E occurrence=a',
        "-E 'aggregator=\x01'", map {"-e $_"} @F;
    open my $fh, '-|', "$cmd 2>'$tmp/tshark.err'" or die "tshark: $!\n";
    my (%calls, %replies);
    while (my $l = <$fh>) {
        chomp $l;
        my @v = split /\t/, $l, -1;
        my %f;
        @f{@F} = map { [ split /\x01/, $_, -1 ] } @v;
        my @xid = @{ $f{'rpc.xid'} };
        next unless @xid;
        my @mt = @{ $f{'rpc.msgtyp'} };
        my $src = ep($f{'ip.src'}[0] // $f{'ipv6.src'}[0], $f{'tcp.srcport'}[0] // $f{'udp.srcport'}[0]);
        my $dst = ep($f{'ip.dst'}[0] // $f{'ipv6.dst'}[0], $f{'tcp.dstport'}[0] // $f{'udp.dstport'}[0]);
        # One frame can carry several RPC messages. Fields present in every
        # message align with rpc.xid; the optional ones only when the frame
        # holds one message.
        my $single = @xid == 1;
        for my $i (0 .. $#xid) {
            my $x = hex($xid[$i]);
            my $prog = aligned(\%f, 'rpc.program', $i, scalar @xid);
            if ($mt[$i] == 0) {
                next unless defined $prog && $prog == 100003;
                my $vers = aligned(\%f, 'rpc.programversion', $i, scalar @xid);
                next unless defined $vers && ($vers == 2 || $vers == 3);
                my $p = aligned(\%f, "nfs.procedure_v$vers", $i, scalar @xid);
                my $k = "$src>$dst#$x";
                next if $calls{$k};    # retransmission
                my %c = (proc => defined $p ? procname($vers, $p) : '?', vers => $vers);
                if ($single) {
                    my @names = @{ $f{'nfs.name'} };
                    $c{name}  = $names[0] if @names && $names[0] ne '';
                    $c{name2} = $names[1] if @names > 1 && $c{proc} eq 'rename';
                    if ($c{proc} =~ /^(read|write|commit)$/) {
                        my $off = first_of(\%f, 'nfs.offset3', 'nfs.read.offset', 'nfs.write.offset');
                        my $cnt = first_of(\%f, 'nfs.count3', 'nfs.read.count', 'nfs.write.totalcount');
                        $c{offset} = $off if defined $off;
                        $c{count}  = $cnt if defined $cnt && $vers == 3;
                    }
                }
                $calls{$k} = \%c;
            } else {
                my $k = "$dst>$src#$x";
                next if exists $replies{$k};
                my $st = aligned(\%f, 'nfs.status', $i, scalar @xid);
                $replies{$k} = defined $st ? $st : 'void';
            }
        }
    }
    close $fh;
    for my $k (keys %calls) {
        my $st = $replies{$k};
        next unless defined $st;
        # NULL (and v2 ROOT, WRITECACHE) replies carry no NFS status: a
        # reply with no status field is status 0 for them.
        $st = 0 if $st eq 'void' && $calls{$k}{proc} =~ /^(null|root|writecache)$/;
        $calls{$k}{status} = $st unless $st eq 'void';
    }
    return %calls;
}

# Value i of a field present the same number of times in each of the n
# messages of the frame (tshark repeats some, e.g. rpc.programversion).
sub aligned {
    my ($f, $name, $i, $n) = @_;
    my @v = grep { $_ ne '' } @{ $f->{$name} };
    return $v[0] if $n == 1;
    return undef unless @v && @v % $n == 0;
    return $v[ $i * (@v / $n) ];
}

sub first_of {
    my ($f, @names) = @_;
    for my $n (@names) {
        my @v = grep { $_ ne '' } @{ $f->{$n} };
        return $v[0] if @v;
    }
    return undef;
}

sub ep {
    my ($a, $p) = @_;
    $a //= '?';
    $p //= 0;
    return $a =~ /:/ ? "[$a]:$p" : "$a:$p";
}

my (@V2, @V3);
BEGIN {
    @V2 = qw(null getattr setattr root lookup readlink read writecache write create remove rename link symlink
        mkdir rmdir readdir statfs);
    @V3 = qw(null getattr setattr lookup access readlink read write create mkdir symlink mknod remove rmdir
        rename link readdir readdirplus fsstat fsinfo pathconf commit);
}

sub procname {
    my ($vers, $p) = @_;
    my $n = $vers == 2 ? $V2[$p] : $V3[$p];
    return $n // "proc$p";
}

sub slurp {
    my ($f) = @_;
    open my $fh, '<', $f or return '';
    local $/;
    return <$fh>;
}
