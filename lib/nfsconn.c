/* nfsconn.c -- reaching an NFS export (see nfsconn.h). */
#include "nfsconn.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <nfsc/libnfs.h>
#include <nfsc/libnfs-raw.h>
#include <nfsc/libnfs-raw-mount.h>
#include <nfsc/libnfs-raw-nfs.h>

/* Reads a port number from s (all of it, or up to '&'). -1 if bad. */
static int port_of(const char *s) {
    char *end;
    long v = strtol(s, &end, 10);
    return end != s && (*end == 0 || *end == '&') && v > 0 && v <= 65535 ? (int)v : -1;
}

/* nfs://HOST/EXPORT[?key=value&...] */
static int parse_url(const char *spec, struct tbbt_nfs_server *s, char *err, size_t errlen) {
    const char *h = spec + 6, *slash = strchr(h, '/');
    if (!slash || slash == h || (size_t)(slash - h) >= sizeof(s->host)) goto bad;
    memcpy(s->host, h, (size_t)(slash - h));
    const char *q = strchr(slash, '?');
    size_t plen = q ? (size_t)(q - slash) : strlen(slash);
    if (plen >= sizeof(s->export)) goto bad;
    memcpy(s->export, slash, plen);
    for (const char *k = q ? q + 1 : NULL; k && *k; k = strchr(k, '&') ? strchr(k, '&') + 1 : NULL) {
        int *which = !strncmp(k, "nfsport=", 8)      ? &s->nfsport
                     : !strncmp(k, "mountport=", 10) ? &s->mountport
                                                     : NULL;
        if (!which) continue;
        if ((*which = port_of(strchr(k, '=') + 1)) < 0) {
            snprintf(err, errlen, "%s: bad port number", spec);
            return -1;
        }
    }
    return 0;
bad:
    snprintf(err, errlen, "%s: not nfs://HOST/EXPORT[?nfsport=N&mountport=M]", spec);
    return -1;
}

/* HOST:/EXPORT, HOST possibly [v6]. */
static int parse_colon(const char *spec, struct tbbt_nfs_server *s, char *err, size_t errlen) {
    const char *colon;
    if (spec[0] == '[') {
        const char *close = strchr(spec, ']');
        if (!close || close[1] != ':') goto bad;
        colon = close + 1;
        if ((size_t)(close - spec - 1) >= sizeof(s->host)) goto bad;
        memcpy(s->host, spec + 1, (size_t)(close - spec - 1));
    } else {
        colon = strchr(spec, ':');
        if (!colon || colon == spec || (size_t)(colon - spec) >= sizeof(s->host)) goto bad;
        memcpy(s->host, spec, (size_t)(colon - spec));
    }
    if (colon[1] != '/' || strlen(colon + 1) >= sizeof(s->export)) goto bad;
    strcpy(s->export, colon + 1);
    return 0;
bad:
    snprintf(err, errlen, "%s: not HOST:/EXPORT or nfs://HOST/EXPORT", spec);
    return -1;
}

int tbbt_nfs_server_parse(const char *spec, int nfsport, int mountport, struct tbbt_nfs_server *s, char *err,
                          size_t errlen) {
    memset(s, 0, sizeof(*s));
    s->nfsport = nfsport;
    s->mountport = mountport;
    return strncmp(spec, "nfs://", 6) == 0 ? parse_url(spec, s, err, errlen)
                                           : parse_colon(spec, s, err, errlen);
}

void tbbt_nfs_server_name(const struct tbbt_nfs_server *s, char *buf, size_t n) {
    snprintf(buf, n, strchr(s->host, ':') ? "[%s]:%s" : "%s:%s", s->host, s->export);
}

/* One set-up step's outcome, filled by its callback. */
struct step {
    int done, ok;
    struct tbbt_fh *fh;
    char msg[256];
};

static double mono(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Services rpc until st->done or timeout seconds. Returns 0 or -1. */
static int wait_step(struct rpc_context *rpc, struct step *st, int timeout) {
    double end = mono() + timeout;
    while (!st->done) {
        struct pollfd p = {.fd = rpc_get_fd(rpc), .events = (short)rpc_which_events(rpc)};
        if (poll(&p, 1, 100) < 0 && errno != EINTR) {
            snprintf(st->msg, sizeof(st->msg), "poll: %s", strerror(errno));
            return -1;
        }
        if (rpc_service(rpc, p.revents) < 0) {
            snprintf(st->msg, sizeof(st->msg), "%s", rpc_get_error(rpc));
            return -1;
        }
        if (mono() > end) {
            snprintf(st->msg, sizeof(st->msg), "no answer in %d s", timeout);
            return -1;
        }
    }
    return st->ok ? 0 : -1;
}

/* Connect callback. */
static void connect_cb(struct rpc_context *rpc, int status, void *data, void *priv) {
    struct step *st = priv;
    (void)rpc;
    st->done = 1;
    st->ok = status == RPC_STATUS_SUCCESS;
    if (!st->ok) snprintf(st->msg, sizeof(st->msg), "%s", data ? (char *)data : "cannot connect");
}

/* MNT callback: the root handle. */
static void mnt_cb(struct rpc_context *rpc, int status, void *data, void *priv) {
    struct step *st = priv;
    (void)rpc;
    st->done = 1;
    mountres3 *m = data;
    if (status != RPC_STATUS_SUCCESS) {
        snprintf(st->msg, sizeof(st->msg), "%s", data ? (char *)data : "MNT failed");
    } else if (m->fhs_status != MNT3_OK) {
        snprintf(st->msg, sizeof(st->msg), "the server refused the mount (MNT3 status %d)",
                 (int)m->fhs_status);
    } else if (m->mountres3_u.mountinfo.fhandle.fhandle3_len > TBBT_FH_MAX) {
        snprintf(st->msg, sizeof(st->msg), "root handle longer than %d bytes", TBBT_FH_MAX);
    } else {
        st->fh->len = m->mountres3_u.mountinfo.fhandle.fhandle3_len;
        memcpy(st->fh->data, m->mountres3_u.mountinfo.fhandle.fhandle3_val, st->fh->len);
        st->ok = 1;
    }
}

/* Starts a connection to program/version: on the given port, or through
 * the portmapper when port is 0. Returns the rpc_connect_* result. */
static int start_connect(struct rpc_context *rpc, const struct tbbt_nfs_server *s, int port, int prog,
                         int vers, struct step *st) {
    if (port) return rpc_connect_port_async(rpc, s->host, port, prog, vers, connect_cb, st);
    return rpc_connect_program_async(rpc, s->host, prog, vers, connect_cb, st);
}

int tbbt_nfs_mount(const struct tbbt_nfs_server *s, int timeout, struct tbbt_fh *root, char *err,
                   size_t errlen) {
    char name[1300];
    tbbt_nfs_server_name(s, name, sizeof(name));
    struct rpc_context *m = rpc_init_context();
    if (!m) {
        snprintf(err, errlen, "%s: cannot create an RPC context", name);
        return -1;
    }
    struct step st = {0};
    int rc = -1;
    /* a server that has just started may refuse the first connection: try
     * again until the timeout */
    double give_up = mono() + timeout;
    while (start_connect(m, s, s->mountport, MOUNT_PROGRAM, MOUNT_V3, &st) < 0 ||
           wait_step(m, &st, timeout) < 0) {
        if (mono() > give_up) {
            snprintf(err, errlen, "%s: cannot reach MOUNT: %s", name, st.msg[0] ? st.msg : rpc_get_error(m));
            goto out;
        }
        rpc_destroy_context(m);
        struct timespec pause = {0, 200000000};
        nanosleep(&pause, NULL);
        if (!(m = rpc_init_context())) {
            snprintf(err, errlen, "%s: cannot create an RPC context", name);
            return -1;
        }
        st = (struct step){0};
    }
    st = (struct step){.fh = root};
    if (rpc_mount3_mnt_async(m, mnt_cb, (char *)s->export, &st) < 0 || wait_step(m, &st, timeout) < 0) {
        snprintf(err, errlen, "%s: cannot mount: %s", name, st.msg[0] ? st.msg : rpc_get_error(m));
        goto out;
    }
    rc = 0;
out:
    rpc_destroy_context(m);
    return rc;
}

void tbbt_nfs_set_cred(struct rpc_context *rpc, uint32_t uid, uint32_t gid) {
    rpc_set_auth(rpc, libnfs_authunix_create("tbbt", uid, gid, 0, NULL));
}

struct rpc_context *tbbt_nfs_connect(const struct tbbt_nfs_server *s, int timeout, uint32_t uid, uint32_t gid,
                                     char *err, size_t errlen) {
    char name[1300];
    tbbt_nfs_server_name(s, name, sizeof(name));
    struct rpc_context *rpc = rpc_init_context();
    if (!rpc) {
        snprintf(err, errlen, "%s: cannot create an RPC context", name);
        return NULL;
    }
    struct step st = {0};
    if (start_connect(rpc, s, s->nfsport, NFS_PROGRAM, NFS_V3, &st) < 0 || wait_step(rpc, &st, timeout) < 0) {
        snprintf(err, errlen, "%s: cannot reach NFS: %s", name, st.msg[0] ? st.msg : rpc_get_error(rpc));
        rpc_destroy_context(rpc);
        return NULL;
    }
    tbbt_nfs_set_cred(rpc, uid, gid);
    return rpc;
}
