/* linklayer.h -- find the IP header inside a captured frame.
 *
 * Knows the link types NFS captures come in: Ethernet (with any number of
 * 802.1Q / 802.1ad / QinQ tags), Linux cooked SLL and SLL2, raw IP
 * (DLT_RAW, LINKTYPE_IPV4, LINKTYPE_IPV6) and BSD loopback (DLT_NULL, whose
 * 4-byte family is in the capturing host's byte order, and DLT_LOOP). */
#ifndef TBBT_LINKLAYER_H
#define TBBT_LINKLAYER_H

#include <stddef.h>
#include <stdint.h>

/* Returns 1 when the capture's link type (pcap_datalink()) is one we read. */
int tbbt_link_supported(int dlt);

/* Peels the link header of one frame of caplen captured bytes. Returns the
 * IP version (4 or 6) and sets *off to the IP header's offset; 0 when the
 * frame carries no IP (ARP, other ethertypes); -1 when the header is cut
 * short or malformed. Never reads past caplen. */
int tbbt_link_ip(int dlt, const uint8_t *p, size_t caplen, size_t *off);

#endif
