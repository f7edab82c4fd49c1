package TBBT::Hist;

# TBBT::Hist -- the latency histograms of tbbt-play's result documents
# (lib/hist.h) read in Perl: bucket i < 128 holds the value i; above, each
# power of two 2^e (e = 7 .. 41) is cut into 128 equal buckets. The same
# arithmetic as tbbt_hist_bounds and tbbt_hist_quantile, so a percentile
# computed here from merged buckets is the one the player would print.
#
# A merged histogram is {n, min, max, sum, b => {index => count}}: the
# JSON histograms' buckets added up, sum the total of the values (from
# each histogram's mean times its count).

use strict;
use warnings;

use Exporter qw(import);

our @EXPORT_OK = qw(hist_bounds hist_merge hist_merge_m hist_quantile hist_mean hist_sd hist_cdf);

use constant HIST_SUB => 128;

# hist_bounds(I): the values [lo, hi] bucket I holds.
sub hist_bounds {
    my ($i) = @_;
    return ($i, $i) if $i < HIST_SUB;
    my $e   = int($i / HIST_SUB) + 6;
    my $sub = $i % HIST_SUB;
    my $lo  = (HIST_SUB + $sub) << ($e - 7);
    return ($lo, $lo + (1 << ($e - 7)) - 1);
}

# hist_merge(H...): one merged histogram holding every value of the JSON
# histograms H (undef and empty ones ignored).
sub hist_merge {
    my %m = (n => 0, min => undef, max => 0, sum => 0, b => {});
    for my $h (@_) {
        next unless $h && $h->{n};
        $m{n} += $h->{n};
        $m{sum} += $h->{mean} * $h->{n};
        $m{min} = $h->{min} if !defined $m{min} || $h->{min} < $m{min};
        $m{max} = $h->{max} if $h->{max} > $m{max};
        $m{b}{ $_->[0] } += $_->[1] for @{ $h->{buckets} };
    }
    $m{min} //= 0;
    return \%m;
}

# hist_merge_m(M...): merged histograms merged again.
sub hist_merge_m {
    my %m = (n => 0, min => undef, max => 0, sum => 0, b => {});
    for my $h (@_) {
        next unless $h && $h->{n};
        $m{n} += $h->{n};
        $m{sum} += $h->{sum};
        $m{min} = $h->{min} if !defined $m{min} || $h->{min} < $m{min};
        $m{max} = $h->{max} if $h->{max} > $m{max};
        $m{b}{$_} += $h->{b}{$_} for keys %{ $h->{b} };
    }
    $m{min} //= 0;
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
        my ($lo, $hi) = hist_bounds($i);
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
        my ($lo, $hi) = hist_bounds($i);
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
    my ($lo0) = hist_bounds($idx[0]);
    my @pts = ([$lo0 / $scale, 0]);
    my $cum = 0;
    for my $i (@idx) {
        $cum += $m->{b}{$i};
        my (undef, $hi) = hist_bounds($i);
        push @pts, [$hi / $scale, $cum / $m->{n}];
    }
    return \@pts;
}

1;
