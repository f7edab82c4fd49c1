/* tbbt-pcapdrop: damage a capture the way a busy tap does, reproducibly.
 *
 * Usage: tbbt-pcapdrop [--seed S] [--drop-percent P] [--snaplen N] IN.pcap OUT.pcap
 *
 * Copies IN to OUT (libpcap read, pcap_dump write; pcap or pcapng in, pcap
 * out), deleting a seeded share P (0..100, decimals allowed) of the packets,
 * and, with --snaplen, cutting every kept packet to N bytes (tcpdump -r -s
 * does not cut when rewriting a file). The choice for packet i depends only on
 * the seed and i. Prints "dropped D of N packets, cut C" on stdout.
 * Exit: 0 done, 1 I/O error, 2 bad usage.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcap/pcap.h>

struct pd_opts {
    uint64_t seed;
    double percent;
    long snaplen; /* 0 = keep packets whole */
    const char *in, *out;
};

/* Prints usage to f. */
static void pd_usage(FILE *f) {
    fprintf(f, "usage: tbbt-pcapdrop [--seed S] [--drop-percent P] [--snaplen N] IN.pcap OUT.pcap\n"
               "  --seed S          seed of the choice (default 1)\n"
               "  --drop-percent P  share of packets to delete, 0..100 (default 0)\n"
               "  --snaplen N       cut kept packets to N bytes (default: keep whole)\n");
}

/* Parses argv into o. Returns 0, 1 for --help, -1 with a message on stderr. */
static int pd_parse(int argc, char **argv, struct pd_opts *o) {
    static const struct option table[] = {
        {"seed", required_argument, NULL, 's'},
        {"drop-percent", required_argument, NULL, 'p'},
        {"snaplen", required_argument, NULL, 'n'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    char *end;
    int c;
    memset(o, 0, sizeof(*o));
    o->seed = 1;
    while ((c = getopt_long(argc, argv, "h", table, NULL)) != -1) {
        errno = 0;
        switch (c) {
        case 's':
            o->seed = strtoull(optarg, &end, 0);
            if (errno || *end || !*optarg) goto bad;
            break;
        case 'p':
            o->percent = strtod(optarg, &end);
            if (errno || *end || !*optarg || !(o->percent >= 0 && o->percent <= 100)) goto bad;
            break;
        case 'n':
            o->snaplen = strtol(optarg, &end, 0);
            if (errno || *end || !*optarg || o->snaplen < 16 || o->snaplen > 262144) goto bad;
            break;
        case 'h': return 1;
        default: return -1;
        }
    }
    if (argc - optind != 2) {
        fprintf(stderr, "tbbt-pcapdrop: need IN.pcap and OUT.pcap\n");
        return -1;
    }
    o->in = argv[optind];
    o->out = argv[optind + 1];
    return 0;
bad:
    fprintf(stderr, "tbbt-pcapdrop: bad value '%s' for --%s\n", optarg,
            c == 's'   ? "seed"
            : c == 'p' ? "drop-percent (0..100)"
                       : "snaplen (16..262144)");
    return -1;
}

/* Returns a well-mixed 64-bit hash of (seed, i): splitmix64 of their sum. */
static uint64_t pd_mix(uint64_t seed, uint64_t i) {
    uint64_t z = seed * 0x9e3779b97f4a7c15ull + i * 0xd1b54a32d192ed03ull + 0x632be59bd9b4e019ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Copies o->in to o->out dropping and cutting packets. Returns 0, or -1
 * with a message naming the file on stderr. */
static int pd_copy(const struct pd_opts *o) {
    char err[PCAP_ERRBUF_SIZE];
    int rc = -1;
    pcap_t *in = pcap_open_offline(o->in, err); /* microsecond pcap out, like tcpdump */
    pcap_t *dead = NULL;
    pcap_dumper_t *out = NULL;
    uint64_t n = 0, dropped = 0, cut = 0;
    if (!in) {
        fprintf(stderr, "tbbt-pcapdrop: %s\n", err);
        return -1;
    }
    int snap = o->snaplen ? (int)o->snaplen : pcap_snapshot(in);
    dead = pcap_open_dead_with_tstamp_precision(pcap_datalink(in), snap, pcap_get_tstamp_precision(in));
    if (!dead || !(out = pcap_dump_open(dead, o->out))) {
        fprintf(stderr, "tbbt-pcapdrop: %s: %s\n", o->out, dead ? pcap_geterr(dead) : "out of memory");
        goto done;
    }
    /* threshold on the top 53 bits, so 100% drops everything and 0% nothing */
    double limit = o->percent / 100.0 * 9007199254740992.0;
    struct pcap_pkthdr *h;
    const u_char *data;
    int r;
    while ((r = pcap_next_ex(in, &h, &data)) == 1) {
        if ((double)(pd_mix(o->seed, n++) >> 11) < limit) {
            dropped++;
            continue;
        }
        struct pcap_pkthdr hc = *h;
        if (o->snaplen && hc.caplen > (bpf_u_int32)o->snaplen) {
            hc.caplen = (bpf_u_int32)o->snaplen;
            cut++;
        }
        pcap_dump((u_char *)out, &hc, data);
    }
    if (r == PCAP_ERROR) {
        fprintf(stderr, "tbbt-pcapdrop: %s: packet %" PRIu64 ": %s\n", o->in, n + 1, pcap_geterr(in));
        goto done;
    }
    if (pcap_dump_flush(out) < 0) {
        fprintf(stderr, "tbbt-pcapdrop: %s: write failed\n", o->out);
        goto done;
    }
    printf("dropped %" PRIu64 " of %" PRIu64 " packets, cut %" PRIu64 "\n", dropped, n, cut);
    rc = 0;
done:
    if (out) pcap_dump_close(out);
    if (dead) pcap_close(dead);
    pcap_close(in);
    return rc;
}

int main(int argc, char **argv) {
    struct pd_opts o;
    int p = pd_parse(argc, argv, &o);
    if (p == 1) {
        pd_usage(stdout);
        return 0;
    }
    if (p < 0) {
        pd_usage(stderr);
        return 2;
    }
    return pd_copy(&o) < 0 ? 1 : 0;
}
