package TBBT::Opts;

# TBBT::Opts -- a Perl command's options, declared once, in a table: the
# Perl side of the C commands' lib/opttab.h, with the same behaviour and
# the same words. Each command describes its options in one array of
# hashes:
#
#   name     the long name, without "--" ('dup-window')
#   short    its one-letter name ('o'), or none
#   type     flag     no value; 1 when given
#            negflag  no value; --NAME sets 1, --no-NAME sets 0
#            int      an integer in lo..hi (both given, or the C int's range)
#            num      a number in lo..hi; 'above' instead of lo: above that
#            str      a string; one of 'choices' when they are given
#            file     a file name, the bytes as given
#            list     repeatable: every value, in order, in an array
#   arg      the value's name in --help ('N', 'FILE')
#   default  the default as it would be typed (checked like a given value),
#            set into the options hash before parsing; none: not set
#   defhelp  --help's default when 'default' does not say it
#   lo, hi, above, choices   the bounds (see type)
#   check, allowed           any other rule: check(VALUE) true when VALUE
#            is allowed (of a list: each value), 'allowed' says what is
#   key      the hash key of the value (default: the name, or the name
#            with '_' for '-' when the command asks for underscores)
#   help     what it does, one line
#   neghelp  negflag: what --no-NAME does
#   hidden   accepted, not listed (--help, --list-options)
#
# Everything else comes from the table: Getopt::Long's specs, the
# defaults, range errors as usage errors (TBBT::Usage: "PROG: --window 0:
# must be an integer from 1 to 268435456", the synopsis, exit 2), --help
# (the synopsis, then one line per option with its default), --man (the
# whole POD), --version, and a hidden --list-options: one tab-separated
# line per option the command accepts (long name, short name, value name,
# default, allowed values, help), the C commands' format, which the man
# pages' test (tests/install/man.sh) compares with each page. The table is
# checked before parsing (a name used twice, a default not allowed): a
# programming error, so it dies.

use strict;
use warnings;

use Exporter qw(import);
use Getopt::Long qw(GetOptionsFromArray);
use Pod::Usage qw(pod2usage);
use TBBT::Usage ();

our @EXPORT_OK = qw(parse_opts allowed_text);

# The C int's range: an int option's bounds when the table gives none.
my ($INT_MIN, $INT_MAX) = (-2147483648, 2147483647);

# The built-in options every command has, after its own.
my @BUILTIN = (
    { name => 'help', short => 'h', type => 'flag', help => 'Show the options and exit' },
    { name => 'man', type => 'flag', help => 'Show the whole manual and exit' },
    { name => 'version', type => 'flag', help => 'Print the version and exit' },
);

# int_bounds(OPT): (lo, hi) of an int option: its own, or the C int's.
sub int_bounds {
    my ($o) = @_;
    return (defined $o->{lo} || defined $o->{hi}) ? ($o->{lo} // $INT_MIN, $o->{hi} // $INT_MAX) : ($INT_MIN, $INT_MAX);
}

# g15(X): X as C's %.15g writes it (the words of the C side's bounds).
sub g15 { return sprintf('%.15g', $_[0]) }

# allowed_text(OPT): what OPT allows, in words ("an integer from 1 to 64",
# "conservative or fsdep"); '' when anything goes.
sub allowed_text {
    my ($o) = @_;
    return $o->{allowed} if defined $o->{allowed};
    my $t = $o->{type};
    $t = $o->{of} // 'str' if $t eq 'list';
    if ($t eq 'int') {
        my ($lo, $hi) = int_bounds($o);
        return "an integer from $lo to $hi";
    }
    if ($t eq 'num') {
        return 'a number above ' . g15($o->{above}) . (defined $o->{hi} ? ', up to ' . g15($o->{hi}) : '')
          if defined $o->{above};
        return 'a number from ' . g15($o->{lo}) . ' to ' . g15($o->{hi}) if defined $o->{lo} && defined $o->{hi};
        return 'a number of at least ' . g15($o->{lo}) if defined $o->{lo};
        return 'a number';
    }
    if ($t eq 'str' && $o->{choices}) {
        my @c = @{ $o->{choices} };
        return @c == 1 ? $c[0] : join(', ', @c[0 .. $#c - 1]) . " or $c[-1]";
    }
    return '';
}

# is_int(V), is_num(V): V written as an integer; as a finite decimal
# number (what C's strtoll and strtod take, without the spaces or hex).
sub is_int { return defined $_[0] && $_[0] =~ /\A[+-]?\d+\z/ }
sub is_num { return defined $_[0] && $_[0] =~ /\A[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\z/ }

# value_ok(OPT, V): true when V is allowed for OPT (a list: one value).
sub value_ok {
    my ($o, $v) = @_;
    return 0 unless defined $v;
    return $o->{check}->($v) ? 1 : 0 if $o->{check};
    my $t = $o->{type};
    $t = $o->{of} // 'str' if $t eq 'list';
    if ($t eq 'int') {
        my ($lo, $hi) = int_bounds($o);
        return is_int($v) && $v >= $lo && $v <= $hi;
    }
    if ($t eq 'num') {
        return 0 unless is_num($v);
        return 0 if defined $o->{above} && !($v > $o->{above});
        return 0 if defined $o->{lo}    && $v < $o->{lo};
        return 0 if defined $o->{hi}    && $v > $o->{hi};
        return 1;
    }
    return !$o->{choices} || grep { $_ eq $v } @{ $o->{choices} } if $t eq 'str';
    return 1;
}

# key_of(OPT, CFG): the options hash's key of OPT's value.
sub key_of {
    my ($o, $cfg) = @_;
    return $o->{key} if defined $o->{key};
    return $cfg->{underscore} ? $o->{name} =~ tr/-/_/r : $o->{name};
}

# check_table(PROG, TABLE): dies on a bad table (its author's bug).
sub check_table {
    my ($prog, $table) = @_;
    my (%name, %short);
    for my $o (@$table, @BUILTIN) {
        die "$prog: option table: an entry without name, type or help\n" unless $o->{name} && $o->{type} && $o->{help};
        die "$prog: option table: --$o->{name}: unknown type $o->{type}\n"
          unless $o->{type} =~ /\A(?:flag|negflag|int|num|str|file|list)\z/;
        die "$prog: option table: --$o->{name} declared twice\n" if $name{ $o->{name} }++;
        die "$prog: option table: -$o->{short} declared twice\n" if defined $o->{short} && $short{ $o->{short} }++;
        die "$prog: option table: --$o->{name}: default $o->{default} not allowed\n"
          if defined $o->{default} && ($o->{type} =~ /flag|list/ || !value_ok($o, $o->{default}));
    }
}

# bad_value(PROG, OPT, V): the usage error of a value OPT does not allow.
sub bad_value {
    my ($prog, $o, $v) = @_;
    my $a = allowed_text($o);
    TBBT::Usage::usage_error($prog, "--$o->{name} $v: must be " . ($a ne '' ? $a : 'a value'));
}

# c_words(WARNING): Getopt::Long's complaint in the C commands' (GLib's)
# words: "Unknown option --x", "Missing argument for --x".
sub c_words {
    my ($w) = @_;
    my $dash = sub { length($_[0]) == 1 ? "-$_[0]" : "--$_[0]" };
    $w =~ s/\AUnknown option: (\S+)/'Unknown option ' . $dash->($1)/e;
    $w =~ s/\AOption (\S+) requires an argument/'Missing argument for ' . $dash->($1)/e;
    $w =~ s/\AOption (\S+) does not take an argument/'Option ' . $dash->($1) . ' does not take an argument'/e;
    return $w;
}

# forms(OPT): "-o, --output=OUT" as --help shows it (GLib's layout).
sub forms {
    my ($o) = @_;
    my $s = defined $o->{short} ? "-$o->{short}, " : '';
    $s .= "--$o->{name}";
    $s .= '=' . ($o->{arg} // 'VALUE') unless $o->{type} =~ /flag/;
    return $s;
}

# listed(TABLE): the entries --help and --list-options show, a negflag's
# --no-NAME as one more, the built-ins last.
sub listed {
    my ($table) = @_;
    my @l;
    for my $o (grep { !$_->{hidden} } @$table) {
        push @l, $o;
        push @l, { name => "no-$o->{name}", type => 'flag', help => $o->{neghelp} // "The opposite of --$o->{name}" }
          if $o->{type} eq 'negflag';
    }
    return (@l, @BUILTIN);
}

# help_text(OPT): its help and its default, as --help says them.
sub help_text {
    my ($o) = @_;
    return "$o->{help} (default: $o->{defhelp})" if defined $o->{defhelp};
    return "$o->{help} (default $o->{default})"  if defined $o->{default};
    return $o->{help};
}

# print_help(PROG, TABLE): the synopsis (the POD's SYNOPSIS), one line per
# option, where the whole manual is; exit 0.
sub print_help {
    my ($prog, $table) = @_;
    my $syn = '';
    open(my $fh, '>', \$syn) or die;
    pod2usage(-verbose => 99, -sections => ['SYNOPSIS'], -exitval => 'NOEXIT', -output => $fh);
    close $fh;
    $syn =~ s/\ASynopsis:/Usage:/;
    my @l = listed($table);
    my $w = 0;
    for (@l) { my $n = length forms($_); $w = $n if $n > $w }
    $w = 40 if $w > 40;
    print $syn =~ s/\s*\z/\n\n/r;
    print "Options:\n";
    for my $o (@l) {
        my $f = forms($o);
        printf "  %-*s  %s\n", $w, $f, help_text($o) if length $f <= $w;
        printf "  %s\n  %-*s  %s\n", $f, $w, '', help_text($o) if length $f > $w;
    }
    print "\nThe whole manual: man $prog (or $prog --man).\n";
    exit 0;
}

# print_list(TABLE): --list-options (the C commands' format); exit 0.
sub print_list {
    my ($table) = @_;
    for my $o (listed($table)) {
        printf "--%s\t%s\t%s\t%s\t%s\t%s\n", $o->{name}, defined $o->{short} ? "-$o->{short}" : '',
          $o->{type} =~ /flag/ ? '' : $o->{arg} // '', $o->{defhelp} // $o->{default} // '',
          $o->{type} =~ /flag/ ? '' : allowed_text($o), $o->{help};
    }
    exit 0;
}

# parse_opts(PROG, ARGV, TABLE, CFG): parses the array ARGV (left holding
# the operands) by TABLE; returns the options hash, every default set.
# Returns only on success: a bad option or value is a usage error (exit
# 2, the first one met), --help, --man, --version and --list-options
# print and exit 0. CFG: underscore => 1 keys the hash by the names with
# '_' for '-'.
sub parse_opts {
    my ($prog, $argv, $table, %cfg) = @_;
    check_table($prog, $table);
    my %o;
    for my $opt (@$table) {
        my $k = key_of($opt, \%cfg);
        $o{$k} = [] if $opt->{type} eq 'list';
        $o{$k} = $opt->{default} if defined $opt->{default};
    }
    my @spec;
    for my $opt (@$table) {
        my $k     = key_of($opt, \%cfg);
        my $names = $opt->{name} . (defined $opt->{short} ? "|$opt->{short}" : '');
        if ($opt->{type} eq 'flag') {
            push @spec, $names => sub { $o{$k} = 1 };
        } elsif ($opt->{type} eq 'negflag') {
            push @spec, "$names!" => sub { $o{$k} = $_[1] ? 1 : 0 };
        } else {
            push @spec, "$names=s" => sub {
                my (undef, $v) = @_;
                bad_value($prog, $opt, $v) unless value_ok($opt, $v);
                if ($opt->{type} eq 'list') { push @{ $o{$k} }, $v } else { $o{$k} = $v }
            };
        }
    }
    push @spec, 'help|h' => sub { print_help($prog, $table) }, 'man' => sub {
        pod2usage(-verbose => 2, -exitval => 0, -output => \*STDOUT, -noperldoc => 1);
      },
      'version' => sub { TBBT::Usage::print_version($prog) }, 'list-options' => sub { print_list($table) };
    my @why;
    my $p = Getopt::Long::Parser->new(config => [qw(no_ignore_case bundling no_auto_abbrev)]);
    my $ok = do {
        local $SIG{__WARN__} = sub { push @why, $_[0] };
        $p->getoptionsfromarray($argv, @spec);
    };
    TBBT::Usage::usage_error($prog, @why ? c_words($why[0]) : 'bad option') unless $ok;
    return \%o;
}

1;
