/* pcapng_drops.h -- the packets the capturing kernel dropped, from a
 * pcapng file's interface statistics blocks.
 *
 * tcpdump tells the drops on its standard error and writes none into a
 * pcap file; dumpcap (Wireshark, tshark) writes them into pcapng as an
 * Interface Statistics Block per interface (isb_ifdrop, else isb_osdrop,
 * cumulative: the last block of an interface counts). libpcap does not
 * hand those blocks to a reader, so the file is walked once more for
 * them: block headers only, seeking over the rest where the file allows
 * (a compressed file is read through). */
#ifndef TBBT_PCAPNG_DROPS_H
#define TBBT_PCAPNG_DROPS_H

#include <stdint.h>

struct tbbt_pcapng_drops {
    int pcapng;        /* the file is pcapng */
    int known;         /* some interface recorded its drops */
    uint64_t dropped;  /* packets dropped, all interfaces and sections together */
    uint64_t received; /* packets the interfaces received (isb_ifrecv), where recorded */
};

/* Reads path's statistics into out. Returns 0 (out->pcapng 0 for any
 * other format), or -1 when the file cannot be opened again. */
int tbbt_pcapng_drops(const char *path, struct tbbt_pcapng_drops *out);

#endif
