/* fuzz_capture.c -- libFuzzer target: the bytes are a capture file, read
 * as tbbt-prep's pass 1 reads one: decompression (by magic), libpcap or
 * the plain-pcap fast path, link layer, IPv4/IPv6 and fragments, TCP
 * reassembly and RPC record marking, RPC and NFS decoding, call/reply
 * pairing and handle mapping. Every record pass 1 emits must also pass
 * the writers' round trip (fuzz_check_record). */
#include "fuzz_util.h"

#include "capture.h"
#include "pass1.h"

/* Pass 1's sink: checks each record. */
static int sink(void *ctx, const struct tbbt_rec *r) {
    (void)ctx;
    fuzz_check_record(r);
    return 0;
}

/* Warnings are formatted by the layers under test; drop them. */
static void warn(void *ctx, uint64_t pktno, const char *what) {
    (void)ctx;
    (void)pktno;
    (void)what;
}

/* One input: the bytes as a capture file through the capture reader and
 * pass 1, as tbbt-prep runs them; a file the reader refuses is no
 * finding, only a crash, a sanitizer report or a failed check is. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char err[512];
    struct tbbt_capture *c = tbbt_capture_open(fuzz_memfile(data, size), err, sizeof(err));
    if (!c) return 0;
    struct tbbt_pass1_opts o;
    tbbt_pass1_opts_default(&o);
    o.max_pending = 64; /* small, so forcing calls out is reached too */
    struct tbbt_pass1 *p1 = tbbt_pass1_new(&o, sink, NULL);
    tbbt_capture_set_warn(c, warn, NULL);
    tbbt_pass1_set_warn(p1, warn, NULL);
    tbbt_capture_add_port(c, 2049);
    if (tbbt_capture_run(c, tbbt_pass1_msg, p1, err, sizeof(err)) == 0) tbbt_pass1_finish(p1);
    tbbt_pass1_free(p1);
    tbbt_capture_close(c);
    return 0;
}
