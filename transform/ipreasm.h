/* ipreasm.h -- IPv4 and IPv6 fragment reassembly.
 *
 * UDP NFS sends 8 KiB (and larger) READ replies and WRITE calls as IP
 * fragments. A table of at most TBBT_IPR_SLOTS datagrams in progress, each
 * at most 64 KiB + header, keyed by (version, source, destination, id,
 * protocol); a datagram not completed within TBBT_IPR_TIMEOUT_NS of capture
 * time, or pushed out when the table is full, is dropped and counted.
 * Fragments cut by the snaplen still fill their sequence range: the rebuilt
 * datagram's captured length is its longest captured prefix. */
#ifndef TBBT_IPREASM_H
#define TBBT_IPREASM_H

#include <stddef.h>
#include <stdint.h>

#define TBBT_IPR_SLOTS 256
#define TBBT_IPR_TIMEOUT_NS (30LL * 1000000000LL)

struct tbbt_ipreasm;

/* One fragment, as read from its IP header. The addresses are 4 (IPv4) or
 * 16 (IPv6) bytes. */
struct tbbt_ipfrag {
    int version;
    const uint8_t *src, *dst;
    uint32_t id;
    uint8_t proto;       /* upper-layer protocol (v6: the fragment header's next header) */
    uint32_t offset;     /* byte offset of this fragment's data */
    int more;            /* more fragments follow */
    const uint8_t *data; /* the fragment's data */
    size_t caplen, len;  /* captured and wire length of data */
    int64_t ts;
    uint64_t pktno;
};

/* A rebuilt datagram's payload (valid until the next call). */
struct tbbt_ipdgram {
    uint8_t proto;
    const uint8_t *data;
    size_t caplen, len;
    int64_t ts_first; /* time of the fragment holding the first byte */
    uint64_t pktno;   /* its packet number */
};

/* Creates an empty table. Owned by the caller; free with tbbt_ipreasm_free. */
struct tbbt_ipreasm *tbbt_ipreasm_new(void);

/* Adds a fragment. Returns 1 and fills *out when it completes a datagram,
 * 0 when more are needed, -1 when the fragment is malformed (beyond 64 KiB,
 * inconsistent end). *dropped is increased by the datagrams abandoned
 * (timed out or evicted) during the call. */
int tbbt_ipreasm_add(struct tbbt_ipreasm *r, const struct tbbt_ipfrag *f, struct tbbt_ipdgram *out,
                     uint64_t *dropped);

/* Number of datagrams still in progress (counted as dropped by the caller
 * at the end). */
size_t tbbt_ipreasm_pending(const struct tbbt_ipreasm *r);

void tbbt_ipreasm_free(struct tbbt_ipreasm *r);

#endif
