/* cfile.c -- decompressing FILE* streams for libpcap (see cfile.h). */
#define _GNU_SOURCE /* fopencookie */
#include "cfile.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <glib.h>
#include <zlib.h>
#include <zstd.h>

/* State of one zstd stream: the compressed file and the decoder's input
 * buffer. Output goes straight into the caller's buffer. */
struct zcookie {
    FILE *in;
    ZSTD_DStream *ds;
    ZSTD_inBuffer ib;
    uint8_t *buf;
    size_t bufsize;
    int eof;  /* the compressed file is exhausted */
    int fail; /* the decoder reported an error */
};

/* fopencookie read hook for zstd: fills up to size bytes; returns the count,
 * 0 at the end, -1 (errno EIO) on corrupt input. */
static ssize_t zst_read(void *cookie, char *out, size_t size) {
    struct zcookie *z = cookie;
    ZSTD_outBuffer ob = {out, size, 0};
    while (ob.pos == 0 && !z->fail) {
        if (z->ib.pos == z->ib.size) {
            if (z->eof) break;
            size_t n = fread(z->buf, 1, z->bufsize, z->in);
            if (n == 0) {
                if (ferror(z->in)) z->fail = 1;
                z->eof = 1;
                break;
            }
            z->ib.src = z->buf;
            z->ib.size = n;
            z->ib.pos = 0;
        }
        size_t r = ZSTD_decompressStream(z->ds, &ob, &z->ib);
        if (ZSTD_isError(r)) z->fail = 1;
    }
    if (ob.pos == 0 && z->fail) {
        errno = EIO;
        return -1;
    }
    return (ssize_t)ob.pos;
}

/* fopencookie close hook for zstd: frees everything, closes the file. */
static int zst_close(void *cookie) {
    struct zcookie *z = cookie;
    ZSTD_freeDStream(z->ds);
    fclose(z->in);
    g_free(z->buf);
    g_free(z);
    return 0;
}

/* fopencookie read hook for gzip: gzread returns -1 on corrupt data; a
 * truncated gzip stream reads as a short stream. */
static ssize_t gz_read(void *cookie, char *out, size_t size) {
    unsigned n = size > (1u << 30) ? (1u << 30) : (unsigned)size;
    int r = gzread((gzFile)cookie, out, n);
    if (r < 0) {
        int zerr = 0;
        gzerror((gzFile)cookie, &zerr);
        if (zerr == Z_BUF_ERROR) return 0; /* cut short: end of stream */
        errno = EIO;
        return -1;
    }
    return r;
}

/* fopencookie close hook for gzip. */
static int gz_close(void *cookie) {
    return gzclose((gzFile)cookie) == Z_OK ? 0 : -1;
}

/* Wraps an open compressed file in a zstd-decoding stream; takes ownership
 * of in. Returns NULL (in closed) on allocation failure. */
static FILE *open_zstd(FILE *in) {
    struct zcookie *z = g_new0(struct zcookie, 1);
    z->in = in;
    z->ds = ZSTD_createDStream();
    z->bufsize = ZSTD_DStreamInSize();
    z->buf = g_malloc(z->bufsize);
    if (!z->ds) {
        zst_close(z);
        return NULL;
    }
    ZSTD_initDStream(z->ds);
    cookie_io_functions_t io = {.read = zst_read, .close = zst_close};
    FILE *f = fopencookie(z, "r", io);
    if (!f) zst_close(z);
    return f;
}

/* Wraps path in a gzip-decoding stream. Returns NULL on failure. */
static FILE *open_gzip(const char *path) {
    gzFile g = gzopen(path, "rb");
    if (!g) return NULL;
    gzbuffer(g, 1 << 17);
    cookie_io_functions_t io = {.read = gz_read, .close = gz_close};
    FILE *f = fopencookie(g, "r", io);
    if (!f) gzclose(g);
    return f;
}

/* A stream that cannot rewind (stdin, a pipe, a FIFO): the magic bytes
 * already read are handed out again before the rest of the stream. */
struct pcookie {
    FILE *in;
    uint8_t m[4];
    size_t n, off;
};

/* fopencookie read hook: the kept bytes first, then the stream. */
static ssize_t pre_read(void *cookie, char *out, size_t size) {
    struct pcookie *p = cookie;
    if (p->off < p->n) {
        size_t k = MIN(size, p->n - p->off);
        memcpy(out, p->m + p->off, k);
        p->off += k;
        return (ssize_t)k;
    }
    size_t k = fread(out, 1, size, p->in);
    if (k == 0 && ferror(p->in)) {
        errno = EIO;
        return -1;
    }
    return (ssize_t)k;
}

/* fopencookie close hook. */
static int pre_close(void *cookie) {
    struct pcookie *p = cookie;
    int rc = fclose(p->in);
    g_free(p);
    return rc == 0 ? 0 : -1;
}

/* Wraps the unseekable in so that its first n bytes (in m) read again. */
static FILE *open_prefixed(FILE *in, const uint8_t *m, size_t n) {
    struct pcookie *p = g_new0(struct pcookie, 1);
    p->in = in;
    memcpy(p->m, m, n);
    p->n = n;
    cookie_io_functions_t io = {.read = pre_read, .close = pre_close};
    FILE *f = fopencookie(p, "r", io);
    if (!f) g_free(p);
    return f;
}

/* Opens path ("-": standard input); reports whether it can rewind. */
static FILE *open_raw(const char *path, int *seekable, char *err, size_t errlen) {
    FILE *in = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!in) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    struct stat sb;
    *seekable = fstat(fileno(in), &sb) == 0 && S_ISREG(sb.st_mode);
    return in;
}

FILE *tbbt_cfile_open(const char *path, enum tbbt_cfile_kind *kind, char *err, size_t errlen) {
    int seekable;
    FILE *in = open_raw(path, &seekable, err, errlen);
    if (!in) return NULL;
    uint8_t m[4] = {0};
    size_t n = fread(m, 1, sizeof m, in);
    enum tbbt_cfile_kind k = TBBT_CFILE_PLAIN;
    if (n == 4 && m[0] == 0x28 && m[1] == 0xb5 && m[2] == 0x2f && m[3] == 0xfd)
        k = TBBT_CFILE_ZSTD;
    else if (n >= 2 && m[0] == 0x1f && m[1] == 0x8b)
        k = TBBT_CFILE_GZIP;
    if (kind) *kind = k;
    if (k == TBBT_CFILE_GZIP && !seekable) {
        fclose(in);
        snprintf(err, errlen, "%s: a gzip stream must be a file (or pipe it through zcat)", path);
        return NULL;
    }
    FILE *f = in;
    if (seekable)
        rewind(in);
    else if (!(f = in = open_prefixed(in, m, n))) {
        snprintf(err, errlen, "%s: cannot read the stream", path);
        return NULL;
    }
    if (k == TBBT_CFILE_ZSTD) {
        f = open_zstd(in);
    } else if (k == TBBT_CFILE_GZIP) {
        fclose(in);
        f = open_gzip(path);
    }
    if (!f) {
        snprintf(err, errlen, "%s: cannot start the decompressor", path);
        return NULL;
    }
    setvbuf(f, NULL, _IOFBF, 1 << 18); /* fewer, larger reads through the decompressor */
    return f;
}
