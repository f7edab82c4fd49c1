/* fuzz_packets.c -- libFuzzer target: the bytes are a sequence of frames,
 * wrapped by this harness into a well-formed capture, so the fuzzer spends
 * its mutations on the packets (IP, fragments, TCP reassembly across
 * segments, RPC framing, NFS) rather than on the file format, which
 * fuzz_capture covers. Input: one byte choosing the link type, then
 * frames, each a 2-byte little-endian length, one byte of time step
 * (units of 100 ms, so reassembly timeouts and clock steps are reached;
 * 255 steps back a second) and the frame's bytes (cut at the input's
 * end). */
#include "fuzz_util.h"

#include <pcap/pcap.h>

#include "capture.h"
#include "pass1.h"

/* The link types the decoder reads (transform/linklayer.c). */
static const uint32_t links[] = {DLT_EN10MB,     DLT_LINUX_SLL,  276 /* SLL2 */, DLT_RAW,
                                 228 /* IPV4 */, 229 /* IPV6 */, DLT_NULL,       DLT_LOOP};

/* Appends a little-endian 32-bit value. */
static void put32(GByteArray *b, uint32_t v) {
    uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    g_byte_array_append(b, x, 4);
}

/* Builds the capture (classic pcap, nanosecond stamps, little-endian). */
static GByteArray *build(const uint8_t *data, size_t size) {
    GByteArray *b = g_byte_array_new();
    put32(b, 0xa1b23c4du);
    put32(b, 2u | 4u << 16);
    put32(b, 0);
    put32(b, 0);
    put32(b, 262144);
    put32(b, links[data[0] % (sizeof(links) / sizeof(links[0]))]);
    int64_t ts = 1000000000LL * 1000000000LL;
    size_t i = 1;
    while (i + 3 <= size) {
        size_t n = data[i] | (size_t)data[i + 1] << 8;
        ts += data[i + 2] == 255 ? -1000000000LL : data[i + 2] * 100000000LL;
        i += 3;
        if (n > size - i) n = size - i;
        put32(b, (uint32_t)(ts / 1000000000LL));
        put32(b, (uint32_t)(ts % 1000000000LL));
        put32(b, (uint32_t)n);
        put32(b, (uint32_t)n);
        g_byte_array_append(b, data + i, (guint)n);
        i += n;
    }
    return b;
}

/* Pass 1's sink: checks each record it emits. */
static int sink(void *ctx, const struct tbbt_rec *r) {
    (void)ctx;
    fuzz_check_record(r);
    return 0;
}

/* One input: the frames wrapped into a valid capture, through the capture
 * reader and pass 1 (a small max_pending, so forcing calls out is reached). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    GByteArray *b = build(data, size);
    char err[512];
    struct tbbt_capture *c = tbbt_capture_open(fuzz_memfile(b->data, b->len), err, sizeof(err));
    g_byte_array_free(b, TRUE);
    if (!c) abort(); /* the harness wrote a valid capture */
    struct tbbt_pass1_opts o;
    tbbt_pass1_opts_default(&o);
    o.max_pending = 64;
    struct tbbt_pass1 *p1 = tbbt_pass1_new(&o, sink, NULL);
    if (tbbt_capture_run(c, tbbt_pass1_msg, p1, err, sizeof(err)) == 0) tbbt_pass1_finish(p1);
    tbbt_pass1_free(p1);
    tbbt_capture_close(c);
    return 0;
}
