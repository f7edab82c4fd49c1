/* fuzz_rpc.c -- libFuzzer target: the bytes are RPC messages handed
 * straight to pass 1, as the capture layer hands them, so the fuzzer
 * spends its mutations on RPC headers, credentials and every NFSv2/v3
 * procedure's arguments and results (lib/nfsdec.c), MOUNT replies, and
 * pairing, rather than on the packets around them (fuzz_packets,
 * fuzz_capture). Input: messages, each a 4-byte header -- a 2-byte
 * little-endian length, a byte of flags (bit 0: from the server; bits 1-2:
 * which of four clients; bit 3: TCP; bit 4: cut short, the wire length
 * twice the captured one) and a byte of time step (10 ms units; 255 steps
 * back two seconds) -- then the message's bytes (cut at the input's end).
 * fuzz/rpc_seeds.c writes captures in this form for the seed corpus. */
#include "fuzz_util.h"

#include "pass1.h"

/* Pass 1's sink: checks each record it emits. */
static int sink(void *ctx, const struct tbbt_rec *r) {
    (void)ctx;
    fuzz_check_record(r);
    return 0;
}

/* Fills the endpoints of a message of client c (0-3), either direction. */
static void endpoints(struct tbbt_msg *m, unsigned c, int from_server) {
    struct tbbt_endpoint cl = {.family = 4, .port = (uint16_t)(800 + c)}, sv = {.family = 4, .port = 2049};
    cl.addr[0] = 10, cl.addr[3] = (uint8_t)(1 + c);
    sv.addr[0] = 10, sv.addr[3] = 100;
    m->src = from_server ? sv : cl;
    m->dst = from_server ? cl : sv;
    m->conn = c;
}

/* One input: the messages it frames, fed to pass 1 as the capture layer
 * would (a small max_pending, so forcing calls out is reached). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    struct tbbt_pass1_opts o;
    tbbt_pass1_opts_default(&o);
    o.max_pending = 64;
    struct tbbt_pass1 *p = tbbt_pass1_new(&o, sink, NULL);
    int64_t ts = 1000000000LL * 1000000000LL;
    uint64_t pktno = 0;
    size_t i = 0;
    while (i + 4 <= size) {
        size_t n = data[i] | (size_t)data[i + 1] << 8;
        uint8_t fl = data[i + 2];
        ts += data[i + 3] == 255 ? -2000000000LL : data[i + 3] * 10000000LL;
        i += 4;
        if (n > size - i) n = size - i;
        struct tbbt_msg m = {.ts_first = ts,
                             .ts_last = ts,
                             .tcp = (fl >> 3) & 1,
                             .data = data + i,
                             .caplen = n,
                             .len = (fl & 16) ? 2 * n + 4 : n,
                             .pktno = ++pktno};
        endpoints(&m, (fl >> 1) & 3, fl & 1);
        tbbt_pass1_msg(p, &m);
        i += n;
    }
    tbbt_pass1_finish(p);
    tbbt_pass1_free(p);
    return 0;
}
