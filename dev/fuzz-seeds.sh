#!/usr/bin/env bash
# dev/fuzz-seeds.sh -- builds the fuzz targets' seed corpora into a
# build directory (never into the sources): BUILD/fuzz-corpus/TARGET/.
# Inputs: the captures of tests/data and, when present, ../shared/captures
# (skipped quietly when absent), cut into small pieces (a fuzzer explores a
# 16-packet capture thousands of times faster than a 100 MB one); record
# files, text forms, hierarchy maps and RPC messages made from those
# pieces by the build's own tbbt-prep, tbbt-dump and fuzz-rpc-seeds; the
# text fixtures of tests/data; the committed seeds of fuzz/seeds/TARGET.
# Needs editcap (wireshark-common).
# Usage: dev/fuzz-seeds.sh BUILD_DIR
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
[ $# -eq 1 ] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
build=$(cd "$1" && pwd)
out=$build/fuzz-corpus
prep=$build/transform/tbbt-prep
dump=$build/tools/tbbt-dump
rpcseeds=$build/fuzz/fuzz-rpc-seeds
[ -x "$prep" ] && [ -x "$dump" ] && [ -x "$rpcseeds" ] ||
    { echo "fuzz-seeds: build tbbt-prep, tbbt-dump and fuzz-rpc-seeds in $build first" >&2; exit 1; }
command -v editcap >/dev/null || { echo "fuzz-seeds: editcap not found (dev/install-deps.sh)" >&2; exit 1; }
rm -rf "$out"
mkdir -p "$out"/{capture,packets,rpc,recfile,rectext,hmap,pass2,pass3,play,ellard}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

PIECE=16     # packets per capture piece
PIECES=24    # pieces kept per capture (the first ones, then every k-th)
LINES=24     # records per piece of a record stream (pass2, pass3, play)

# captures: every capture we can read, decompressed
caps=("$top"/tests/data/*.zst)
shared=$top/../shared/captures
[ -d "$shared" ] && caps+=("$shared"/public/*.pcap.zst "$shared"/public/*.cap.zst "$shared"/real/*.pcap.zst)
n=0
for c in "${caps[@]}"; do
    [ -f "$c" ] || continue
    n=$((n + 1))
    base=$(basename "$c" .zst)
    zstd -dqc "$c" >"$tmp/whole" || continue
    # the record stream: pass 1's records of the whole capture, as text, in pieces
    if "$prep" -q --max-warnings 0 --no-correct --no-map -o "$tmp/s.tbbt" "$tmp/whole" >/dev/null 2>&1; then
        mkdir -p "$tmp/s$n"
        "$dump" "$tmp/s.tbbt" 2>/dev/null | split -l "$LINES" -a 4 - "$tmp/s$n/r-" || true
        mapfile -t pieces < <(ls "$tmp/s$n" | sort)
        step=$(( (${#pieces[@]} + PIECES - 1) / PIECES ))
        for ((i = 0; i < ${#pieces[@]}; i += step)); do
            for t in pass2 pass3 play; do cp "$tmp/s$n/${pieces[$i]}" "$out/$t/$n-$i-$base.txt"; done
        done
        rm -rf "$tmp/s$n" "$tmp/s.tbbt"
    fi
    mkdir -p "$tmp/p$n"
    editcap -F pcap -c "$PIECE" "$tmp/whole" "$tmp/p$n/piece.pcap" >/dev/null 2>&1 || continue
    mapfile -t pieces < <(ls "$tmp/p$n" | sort)
    step=$(( (${#pieces[@]} + PIECES - 1) / PIECES ))
    for ((i = 0; i < ${#pieces[@]}; i += step)); do
        cp "$tmp/p$n/${pieces[$i]}" "$out/capture/$n-$i-$base"
    done
    # one piece as pcapng and one compressed, for those readers
    editcap -F pcapng "$out/capture/$n-0-$base" "$out/capture/$n-0-$base.pcapng" >/dev/null 2>&1 || true
    zstd -qc "$out/capture/$n-0-$base" >"$out/capture/$n-0-$base.zst"
    gzip -c "$out/capture/$n-0-$base" >"$out/capture/$n-0-$base.gz"
    rm -rf "$tmp/p$n" "$tmp/whole"
done

# packets: the classic pcap pieces in fuzz_packets' form (link byte, then
# per frame: u16le length, u8 time step in 100 ms, bytes)
perl -e '
    my %link = (1 => 0, 113 => 1, 276 => 2, 12 => 3, 228 => 4, 229 => 5, 0 => 6, 108 => 7);
    my ($in, $out) = @ARGV;
    opendir my $d, $in or die;
    for my $f (sort grep { !/\.(pcapng|zst|gz)$/ && !/^\./ } readdir $d) {
        open my $fh, "<:raw", "$in/$f" or die;
        local $/;
        my $b = <$fh>;
        next if length $b < 24;
        my ($magic) = unpack "V", $b;
        my $e = $magic == 0xa1b2c3d4 || $magic == 0xa1b23c4d ? "V" : "N";
        my $div = ($magic == 0xa1b23c4d || $magic == 0x4d3cb2a1) ? 1e8 : 1e5;
        my $lt = unpack $e, substr $b, 20, 4;
        next unless exists $link{$lt};
        my $o = chr $link{$lt};
        my ($pos, $prev) = (24, undef);
        while ($pos + 16 <= length $b) {
            my ($s, $frac, $cap) = unpack "$e$e$e", substr $b, $pos, 12;
            my $t = $s * 10 + int($frac / $div);
            my $step = defined $prev ? $t - $prev : 0;
            $step = 0 if $step < 0 || $step > 254;
            $prev = $t;
            $cap = 65535 if $cap > 65535;
            $o .= pack("vC", $cap, $step) . substr $b, $pos + 16, $cap;
            $pos += 16 + (unpack "$e", substr $b, $pos + 8, 4);
        }
        open my $w, ">:raw", "$out/$f.pkts" or die;
        print $w $o;
    }
' "$out/capture" "$out/packets"

# record files, their text and maps: tbbt-prep and tbbt-dump on the pieces;
# their RPC messages in fuzz_rpc's form
for p in "$out"/capture/*; do
    b=$(basename "$p")
    case $b in *.pcapng | *.zst | *.gz) ;; *)
        "$rpcseeds" "$p" "$out/rpc/$b.rpc" 2>/dev/null || true
        [ -s "$out/rpc/$b.rpc" ] || rm -f "$out/rpc/$b.rpc" ;;
    esac
    "$prep" -q --max-warnings 0 -o "$tmp/r.tbbt" -m "$tmp/r.hmap" "$p" >/dev/null 2>&1 || continue
    [ -s "$tmp/r.tbbt" ] && cp "$tmp/r.tbbt" "$out/recfile/$b.tbbt"
    [ -s "$tmp/r.hmap" ] && cp "$tmp/r.hmap" "$out/hmap/$b.hmap"
    "$dump" "$tmp/r.tbbt" 2>/dev/null | head -c 16384 >"$out/rectext/$b.txt" || true
    [ -s "$out/rectext/$b.txt" ] || rm -f "$out/rectext/$b.txt"
    rm -f "$tmp"/r.*
done
# the text fixtures, in pieces of 16 lines
for f in "$top"/tests/data/*.txt; do
    case $(basename "$f") in ellard*) continue ;; esac
    split -l 16 -a 3 "$f" "$out/rectext/$(basename "$f" .txt)-"
done
for f in "$top"/tests/data/*.hmap; do cp "$f" "$out/hmap/"; done
for f in "$top"/tests/data/*.txt; do
    case $(basename "$f") in ellard*) continue ;; esac
    for t in pass2 pass3 play; do head -n "$LINES" "$f" >"$out/$t/$(basename "$f")"; done
done
for t in capture packets rpc recfile rectext hmap pass2 pass3 play ellard; do
    [ -d "$top/fuzz/seeds/$t" ] && cp "$top/fuzz/seeds/$t"/* "$out/$t/" 2>/dev/null
    echo "fuzz-seeds: $t: $(ls "$out/$t" | wc -l) seeds, $(du -sk "$out/$t" | cut -f1) KB"
done
