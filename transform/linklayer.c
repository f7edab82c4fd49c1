/* linklayer.c -- link-layer headers (see linklayer.h). */
#include "linklayer.h"

#include <pcap/dlt.h>

#include "cursor.h"

#ifndef DLT_LINUX_SLL2
#define DLT_LINUX_SLL2 276
#endif
#ifndef DLT_IPV4
#define DLT_IPV4 228
#endif
#ifndef DLT_IPV6
#define DLT_IPV6 229
#endif

enum { ETH_IPV4 = 0x0800, ETH_IPV6 = 0x86dd };

/* See linklayer.h: the link types tbbt_link_ip() reads. */
int tbbt_link_supported(int dlt) {
    switch (dlt) {
    case DLT_EN10MB:
    case DLT_LINUX_SLL:
    case DLT_LINUX_SLL2:
    case DLT_RAW:
    case 14:  /* DLT_RAW on OpenBSD */
    case 101: /* LINKTYPE_RAW, should libpcap pass it through */
    case DLT_IPV4:
    case DLT_IPV6:
    case DLT_NULL:
    case DLT_LOOP: return 1;
    default: return 0;
    }
}

/* Maps an ethertype to an IP version (0 = not IP). */
static int ethertype_ip(uint16_t t) {
    return t == ETH_IPV4 ? 4 : t == ETH_IPV6 ? 6 : 0;
}

/* Reads the IP version nibble at the cursor's position without consuming
 * it; returns 4, 6, or -1 when absent or neither. */
static int version_nibble(const struct tbbt_cursor *c) {
    if (tbbt_cur_left(c) < 1) return -1;
    int v = c->p[c->pos] >> 4;
    return v == 4 || v == 6 ? v : -1;
}

/* Ethernet: skips every VLAN tag (802.1Q 0x8100, 802.1ad 0x88a8, old QinQ
 * 0x9100/0x9200). */
static int eth(struct tbbt_cursor *c) {
    tbbt_cur_skip(c, 12);
    uint16_t t = tbbt_cur_u16(c);
    for (int tags = 0; tags < 8 && (t == 0x8100 || t == 0x88a8 || t == 0x9100 || t == 0x9200); tags++) {
        tbbt_cur_skip(c, 2);
        t = tbbt_cur_u16(c);
    }
    if (c->trunc) return -1;
    return ethertype_ip(t);
}

/* Loopback family word: AF_INET is 2 everywhere; AF_INET6 is 10 (Linux),
 * 24, 28 or 30 (BSDs, macOS). Either byte order is accepted. */
static int loop_family(uint32_t f) {
    if (f > 0xffff) f = __builtin_bswap32(f);
    if (f == 2) return 4;
    if (f == 10 || f == 24 || f == 28 || f == 30) return 6;
    return 0;
}

/* See linklayer.h: IP version and header offset of one frame. */
int tbbt_link_ip(int dlt, const uint8_t *p, size_t caplen, size_t *off) {
    struct tbbt_cursor c;
    tbbt_cur_init(&c, p, caplen);
    int v;
    switch (dlt) {
    case DLT_EN10MB: v = eth(&c); break;
    case DLT_LINUX_SLL:
        tbbt_cur_skip(&c, 14);
        v = ethertype_ip(tbbt_cur_u16(&c));
        break;
    case DLT_LINUX_SLL2:
        v = ethertype_ip(tbbt_cur_u16(&c));
        tbbt_cur_skip(&c, 18);
        break;
    case DLT_NULL:
    case DLT_LOOP:
        v = loop_family(tbbt_cur_u32(&c));
        if (v == 0 && !c.trunc && version_nibble(&c) > 0) v = version_nibble(&c);
        break;
    case DLT_IPV4:
    case DLT_IPV6:
    case DLT_RAW:
    case 14:
    case 101: v = version_nibble(&c); break;
    default: return 0;
    }
    if (c.trunc || v < 0) return -1;
    *off = c.pos;
    return v;
}
