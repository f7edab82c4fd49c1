package TBBT::Hist;

# TBBT::Hist -- the latency histograms of tbbt-play's result documents
# (lib/hist.h) read in Perl. The document says how its buckets are laid
# out ("hist_layout": {"scheme": "log-linear", "sub": S, ...}, written by
# tbbt_hist_layout_json): bucket i < S holds the value i; above, each
# power of two is cut into S equal buckets. hist_adopt reads that layout
# and marks every histogram of the document with it; the bounds are then
# computed from S, the same arithmetic as tbbt_hist_bounds and
# tbbt_hist_quantile, so a percentile computed here from merged buckets is
# the one the player would print.
#
# Documents written before hist_layout existed, and histograms never
# adopted (built by hand), have the layout of those documents: S = 128
# (LEGACY_SUB), the only one tbbt-play ever wrote.
#
# A merged histogram is {n, min, max, sum, sub, b => {index => count}}:
# the JSON histograms' buckets added up, sum the total of the values (from
# each histogram's mean times its count), sub their layout's S.

use strict;
use warnings;

use Exporter qw(import);

our @EXPORT_OK = qw(hist_adopt hist_bounds hist_merge hist_merge_m hist_quantile hist_mean hist_sd hist_cdf);

use constant LEGACY_SUB => 128;

# hist_adopt(DOC): reads DOC's "hist_layout" (LEGACY_SUB when it has
# none) and marks each histogram in DOC (an object with a "buckets" array,
# at any depth) with it. Returns undef, or a sentence saying what is wrong
# with the layout (for the caller to prefix with the file's name).
sub hist_adopt {
    my ($doc) = @_;
    my $l   = $doc->{hist_layout};
    my $sub = LEGACY_SUB;
    if (defined $l) {
        return '"hist_layout" is not an object' unless ref $l eq 'HASH';
        my $sch = $l->{scheme} // '';
        return "\"hist_layout\": unknown scheme \"$sch\" (this tool reads \"log-linear\")"
          unless !ref $sch && $sch eq 'log-linear';
        $sub = $l->{sub};
        return '"hist_layout": "sub" is not a power of two from 2 to 65536'
          unless defined $sub && !ref $sub && $sub =~ /\A\d+\z/ && $sub >= 2 && $sub <= 65536 && !($sub & ($sub - 1));
    }
    my @todo = ($doc);
    while (defined(my $x = pop @todo)) {
        if (ref $x eq 'ARRAY') {
            push @todo, @$x;
        } elsif (ref $x eq 'HASH') {
            $x->{_sub} = $sub if ref $x->{buckets} eq 'ARRAY';
            push @todo, grep { ref } values %$x;
        }
    }
    return undef;
}

# hist_bounds(I, SUB): the values [lo, hi] bucket I holds in the layout
# with SUB buckets per power of two (LEGACY_SUB when undef).
sub hist_bounds {
    my ($i, $sub) = @_;
    $sub //= LEGACY_SUB;
    my $k = 0;
    $k++ while (1 << $k) < $sub;
    return ($i, $i) if $i < $sub;
    my $e  = int($i / $sub) + $k - 1;
    my $lo = ($sub + $i % $sub) << ($e - $k);
    return ($lo, $lo + (1 << ($e - $k)) - 1);
}

# same_sub(M, SUB): records SUB as M's layout; dies when M already has
# another (two documents of different layouts merged).
sub same_sub {
    my ($m, $sub) = @_;
    $sub //= LEGACY_SUB;
    die "histograms of different layouts (hist_layout sub $m->{sub} and $sub) cannot be merged\n"
      if defined $m->{sub} && $m->{sub} != $sub;
    $m->{sub} = $sub;
}

# hist_merge(H...): one merged histogram holding every value of the JSON
# histograms H (undef and empty ones ignored).
sub hist_merge {
    my %m = (n => 0, min => undef, max => 0, sum => 0, b => {});
    for my $h (@_) {
        next unless $h && $h->{n};
        same_sub(\%m, $h->{_sub});
        $m{n} += $h->{n};
        $m{sum} += $h->{mean} * $h->{n};
        $m{min} = $h->{min} if !defined $m{min} || $h->{min} < $m{min};
        $m{max} = $h->{max} if $h->{max} > $m{max};
        $m{b}{ $_->[0] } += $_->[1] for @{ $h->{buckets} };
    }
    $m{min} //= 0;
    $m{sub} //= LEGACY_SUB;
    return \%m;
}

# hist_merge_m(M...): merged histograms merged again.
sub hist_merge_m {
    my %m = (n => 0, min => undef, max => 0, sum => 0, b => {});
    for my $h (@_) {
        next unless $h && $h->{n};
        same_sub(\%m, $h->{sub});
        $m{n} += $h->{n};
        $m{sum} += $h->{sum};
        $m{min} = $h->{min} if !defined $m{min} || $h->{min} < $m{min};
        $m{max} = $h->{max} if $h->{max} > $m{max};
        $m{b}{$_} += $h->{b}{$_} for keys %{ $h->{b} };
    }
    $m{min} //= 0;
    $m{sub} //= LEGACY_SUB;
    return \%m;
}

# hist_quantile(M, Q): the value at quantile Q of a merged histogram: the
# middle of the bucket holding rank floor(Q*n), kept within [min, max];
# 0 when empty.
sub hist_quantile {
    my ($m, $q) = @_;
    return 0 unless $m->{n};
    my $rank = int($q * $m->{n});
    $rank = $m->{n} - 1 if $rank >= $m->{n};
    my $seen = 0;
    for my $i (sort { $a <=> $b } keys %{ $m->{b} }) {
        $seen += $m->{b}{$i};
        next unless $seen > $rank;
        my ($lo, $hi) = hist_bounds($i, $m->{sub});
        my $mid = $lo + int(($hi - $lo) / 2);
        return $mid < $m->{min} ? $m->{min} : $mid > $m->{max} ? $m->{max} : $mid;
    }
    return $m->{max};
}

# hist_mean(M): the mean of a merged histogram (exact: from the sums); 0
# when empty.
sub hist_mean {
    my ($m) = @_;
    return $m->{n} ? $m->{sum} / $m->{n} : 0;
}

# hist_sd(M): the sample standard deviation of a merged histogram, each
# value taken at its bucket's middle (buckets are at most 1% wide, so
# within 1%); undef with fewer than two values.
sub hist_sd {
    my ($m) = @_;
    return undef unless $m->{n} > 1;
    my $mean = hist_mean($m);
    my $ss   = 0;
    for my $i (keys %{ $m->{b} }) {
        my ($lo, $hi) = hist_bounds($i, $m->{sub});
        $ss += $m->{b}{$i} * (($lo + $hi) / 2 - $mean)**2;
    }
    return sqrt($ss / ($m->{n} - 1));
}

# hist_cdf(M, SCALE): [[x, F(x)], ...] for a CDF plot: each non-empty
# bucket's upper bound divided by SCALE with the share of values at or
# below it, after a first point at the lowest bucket's lower bound (0).
sub hist_cdf {
    my ($m, $scale) = @_;
    return [] unless $m->{n};
    my @idx = sort { $a <=> $b } keys %{ $m->{b} };
    my ($lo0) = hist_bounds($idx[0], $m->{sub});
    my @pts = ([$lo0 / $scale, 0]);
    my $cum = 0;
    for my $i (@idx) {
        $cum += $m->{b}{$i};
        my (undef, $hi) = hist_bounds($i, $m->{sub});
        push @pts, [$hi / $scale, $cum / $m->{n}];
    }
    return \@pts;
}

1;
