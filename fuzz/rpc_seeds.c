/* rpc_seeds.c -- writes the RPC messages of a capture in fuzz_rpc's input
 * form (see fuzz_rpc.c), for its seed corpus (dev/fuzz-seeds.sh):
 * the first client and server seen become client 0 and the server, other
 * clients 1-3 by order of appearance (then 3 for all the rest).
 * Usage: fuzz-rpc-seeds CAPTURE OUT   (exit 0, or 1 with a message) */
#include <stdio.h>
#include <string.h>

#include "capture.h"

struct seeds {
    FILE *out;
    struct tbbt_endpoint server, clients[4];
    unsigned nclients;
    int64_t last;
    size_t bytes;
};

/* Which client an endpoint is (0-3), learning new ones. */
static unsigned client_no(struct seeds *s, const struct tbbt_endpoint *e) {
    for (unsigned i = 0; i < s->nclients; i++)
        if (memcmp(&s->clients[i], e, sizeof(*e)) == 0) return i;
    if (s->nclients == 4) return 3;
    s->clients[s->nclients] = *e;
    return s->nclients++;
}

/* Writes one message with its 4-byte header; stops near 64 KiB. */
static void msg(void *ctx, const struct tbbt_msg *m) {
    struct seeds *s = ctx;
    if (m->caplen < 8 || s->bytes > 60000) return;
    uint32_t mtype = (uint32_t)m->data[4] << 24 | (uint32_t)m->data[5] << 16 | m->data[6] << 8 | m->data[7];
    int reply = mtype == 1;
    unsigned c = client_no(s, reply ? &m->dst : &m->src);
    size_t n = m->caplen > 65535 ? 65535 : m->caplen;
    int64_t step = s->last ? (m->ts_first - s->last) / 10000000LL : 0;
    if (step < 0 || step > 254) step = 0;
    s->last = m->ts_first;
    uint8_t h[4] = {(uint8_t)n, (uint8_t)(n >> 8),
                    (uint8_t)(reply | c << 1 | m->tcp << 3 | (m->len > m->caplen ? 16 : 0)), (uint8_t)step};
    fwrite(h, 1, 4, s->out);
    fwrite(m->data, 1, n, s->out);
    s->bytes += 4 + n;
}

/* Converts one capture into one fuzz_rpc seed (see the file's comment). */
int main(int argc, char **argv) {
    char err[512];
    if (argc != 3) {
        fprintf(stderr, "usage: fuzz-rpc-seeds CAPTURE OUT\n");
        return 2;
    }
    struct tbbt_capture *c = tbbt_capture_open(argv[1], err, sizeof(err));
    if (!c) {
        fprintf(stderr, "fuzz-rpc-seeds: %s\n", err);
        return 1;
    }
    struct seeds s = {.out = fopen(argv[2], "wb")};
    if (!s.out) {
        perror(argv[2]);
        return 1;
    }
    int rc = tbbt_capture_run(c, msg, &s, err, sizeof(err));
    tbbt_capture_close(c);
    if (fclose(s.out) != 0 || rc != 0) return 1;
    return 0;
}
