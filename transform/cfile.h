/* cfile.h -- open a capture file that may be compressed.
 *
 * libpcap reads from a FILE*. A .zst or .gz capture is decompressed on the
 * fly behind a glibc fopencookie() stream, so memory stays bounded whatever
 * the file's size. The compression is found from the file's first bytes
 * (zstd magic 28 b5 2f fd, gzip magic 1f 8b), never from its name.
 * The capture may also be a stream that cannot rewind -- "-" (standard
 * input), a pipe or a FIFO: `xzcat big.pcap.xz | tbbt-prep -o t.tbbt -`,
 * or tcpdump -w - -- plain or zstd; a gzip stream must be a file. */
#ifndef TBBT_CFILE_H
#define TBBT_CFILE_H

#include <stddef.h>
#include <stdio.h>

enum tbbt_cfile_kind { TBBT_CFILE_PLAIN, TBBT_CFILE_GZIP, TBBT_CFILE_ZSTD };

/* Opens path for reading and returns a FILE* that yields the decompressed
 * bytes; *kind (may be NULL) tells which decompressor is behind it. The
 * caller owns the stream and closes it with fclose(), which frees the
 * decompressor. A read error inside the decompressor (corrupt data) makes
 * the stream's ferror() true; a compressed file cut short reads as a short
 * stream (EOF). Returns NULL with a one-line message naming the file in err
 * when the file cannot be opened. */
FILE *tbbt_cfile_open(const char *path, enum tbbt_cfile_kind *kind, char *err, size_t errlen);

#endif
