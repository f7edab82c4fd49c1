/* nfsconn.c -- reaching an NFS export (see nfsconn.h). */
#include "nfsconn.h"
#include "unconst.h"

#include <errno.h>
#include <poll.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <nfsc/libnfs.h>
#include <nfsc/libnfs-raw.h>
#include <nfsc/libnfs-raw-mount.h>
#include <nfsc/libnfs-raw-nfs.h>

#include "clock.h"
#include "nfs_ops.h"

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
    int mnt_status; /* MNT: the status of a refusal (MNT3ERR_*), 0 else */
    struct tbbt_fh *fh;
    char msg[256];
};

/* Services rpc until st->done or the time `end` (monotonic seconds).
 * Returns 0 when the step succeeded; -1 when it failed, the connection
 * broke or garbage came (st->msg says what), or time ran out (*late set). */
static int wait_until(struct rpc_context *rpc, struct step *st, double end, int *late) {
    *late = 0;
    while (!st->done) {
        int fd = rpc_get_fd(rpc);
        struct pollfd p = {.fd = fd, .events = (short)rpc_which_events(rpc)};
        if (poll(&p, 1, 100) < 0 && errno != EINTR) {
            snprintf(st->msg, sizeof(st->msg), "poll: %s", strerror(errno));
            return -1;
        }
        /* the socket's own reason (connection refused, reset), which libnfs words as "POLLHUP" */
        int soerr = 0;
        socklen_t len = sizeof(soerr);
        if (p.revents & (POLLERR | POLLHUP)) getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len);
        if (rpc_service(rpc, p.revents) < 0) {
            const char *e = rpc_get_error(rpc);
            snprintf(st->msg, sizeof(st->msg), "%s",
                     soerr                 ? strerror(soerr)
                     : p.revents & POLLHUP ? "the connection was closed"
                     : e && *e             ? e
                                           : "the connection was closed");
            return -1;
        }
        if (!st->done && tbbt_now_s() > end) {
            *late = 1;
            return -1;
        }
    }
    return st->ok ? 0 : -1;
}

/* Connect and NULL callbacks: success, or the error string. */
static void step_cb(struct rpc_context *rpc, int status, void *data, void *priv) {
    struct step *st = priv;
    (void)rpc;
    st->done = 1;
    st->ok = status == RPC_STATUS_SUCCESS;
    if (!st->ok)
        snprintf(st->msg, sizeof(st->msg), "%s",
                 status == RPC_STATUS_ERROR && data ? (char *)data : "no usable reply");
}

/* MNT callback: the root handle, or what the server said. */
static void mnt_cb(struct rpc_context *rpc, int status, void *data, void *priv) {
    struct step *st = priv;
    (void)rpc;
    st->done = 1;
    mountres3 *m = data;
    if (status != RPC_STATUS_SUCCESS) {
        snprintf(st->msg, sizeof(st->msg), "%s", data ? (char *)data : "MNT failed");
    } else if (m->fhs_status != MNT3_OK) {
        st->mnt_status = (int)m->fhs_status; /* the caller names it */
    } else if (m->mountres3_u.mountinfo.fhandle.fhandle3_len > TBBT_FH_MAX) {
        snprintf(st->msg, sizeof(st->msg), "root handle longer than %d bytes", TBBT_FH_MAX);
    } else {
        st->fh->len = m->mountres3_u.mountinfo.fhandle.fhandle3_len;
        memcpy(st->fh->data, m->mountres3_u.mountinfo.fhandle.fhandle3_val, st->fh->len);
        st->ok = 1;
    }
}

/* MOUNT v3 statuses (mountstat3, RFC 1813 appendix I): name and what it means
 * for the user, so that a refused mount says why in words. */
static const struct {
    int code;
    const char *name, *says;
} mnt3_status[] = {
    {MNT3ERR_PERM, "MNT3ERR_PERM", "the server does not let this client mount it"},
    {MNT3ERR_NOENT, "MNT3ERR_NOENT", "no such export on the server"},
    {MNT3ERR_IO, "MNT3ERR_IO", "the server had an I/O error mounting it"},
    {MNT3ERR_ACCES, "MNT3ERR_ACCES", "the server does not export it, or not to this client"},
    {MNT3ERR_NOTDIR, "MNT3ERR_NOTDIR", "not a directory on the server"},
    {MNT3ERR_INVAL, "MNT3ERR_INVAL", "the server finds the export path invalid"},
    {MNT3ERR_NAMETOOLONG, "MNT3ERR_NAMETOOLONG", "the export path is too long for the server"},
    {MNT3ERR_NOTSUPP, "MNT3ERR_NOTSUPP", "the server does not support mounting it"},
    {MNT3ERR_SERVERFAULT, "MNT3ERR_SERVERFAULT", "the server failed mounting it"},
};

/* Says in err that the MOUNT of the export was refused with status code. */
static void mnt3_refused(const char *name, int code, char *err, size_t errlen) {
    for (size_t i = 0; i < sizeof(mnt3_status) / sizeof(mnt3_status[0]); i++)
        if (mnt3_status[i].code == code) {
            snprintf(err, errlen, "%s: %s (MOUNT replied %s)", name, mnt3_status[i].says,
                     mnt3_status[i].name);
            return;
        }
    snprintf(err, errlen, "%s: the server refused the mount (MOUNT status %d)", name, code);
}

/* Connects rpc to program prog/vers of the server and checks that it
 * answers RPC there (a NULL call), so that a port held by something else
 * is told from a server that is not up yet. With a port: the TCP connect
 * is tried again while it fails (a server starting refuses connections)
 * until `timeout` seconds, then a NULL call must be answered within what
 * is left; anything else on a connected socket -- bytes that are not an
 * RPC reply, the connection closed, an RPC error -- fails at once, as "not
 * an NFS server". Without a port, libnfs asks the portmapper and makes the
 * NULL call itself. Returns the connected context, or NULL with one
 * sentence naming the server (name) and the port in err. */
static struct rpc_context *reach(const struct tbbt_nfs_server *s, const char *name, int port, int prog,
                                 int vers, const char *what, int timeout, char *err, size_t errlen) {
    double end = tbbt_now_s() + timeout;
    struct step st = {0};
    int late = 0;
    for (;;) {
        struct rpc_context *rpc = rpc_init_context();
        if (!rpc) {
            snprintf(err, errlen, "%s: cannot create an RPC context", name);
            return NULL;
        }
        st = (struct step){0};
        if (!port) {
            if (rpc_connect_program_async(rpc, s->host, prog, vers, step_cb, &st) == 0 &&
                wait_until(rpc, &st, end, &late) == 0)
                return rpc;
            if (late)
                snprintf(err, errlen, "%s: no answer from %s through %s's portmapper in %d s", name, what,
                         s->host, timeout);
            else
                snprintf(err, errlen, "%s: cannot reach %s through %s's portmapper: %s", name, what, s->host,
                         st.msg[0] ? st.msg : rpc_get_error(rpc));
            rpc_destroy_context(rpc);
            return NULL;
        }
        if (rpc_connect_async(rpc, s->host, port, step_cb, &st) == 0 &&
            wait_until(rpc, &st, end, &late) == 0) {
            st = (struct step){0};
            int rc = prog == TBBT_MOUNT_PROGRAM ? rpc_mount3_null_async(rpc, step_cb, &st)
                                                : rpc_nfs3_null_async(rpc, step_cb, &st);
            if (rc == 0 && wait_until(rpc, &st, end, &late) == 0) return rpc;
            if (late)
                snprintf(err, errlen,
                         "%s: no reply to a %s call from %s port %d in %d s (not an NFS server, or "
                         "not answering)",
                         name, what, s->host, port, timeout);
            else
                snprintf(err, errlen, "%s: not an NFS server: %s port %d does not answer %s calls (%s)", name,
                         s->host, port, what, st.msg[0] ? st.msg : rpc_get_error(rpc));
            rpc_destroy_context(rpc);
            return NULL;
        }
        if (tbbt_now_s() > end) {
            snprintf(err, errlen, "%s: cannot connect to %s at %s port %d: %s", name, what, s->host, port,
                     late        ? "no answer"
                     : st.msg[0] ? st.msg
                                 : rpc_get_error(rpc));
            rpc_destroy_context(rpc);
            return NULL;
        }
        rpc_destroy_context(rpc);
        struct timespec pause = {0, 200000000};
        nanosleep(&pause, NULL);
    }
}

int tbbt_nfs_mount(const struct tbbt_nfs_server *s, int timeout, struct tbbt_fh *root, char *err,
                   size_t errlen) {
    char name[1300];
    tbbt_nfs_server_name(s, name, sizeof(name));
    struct rpc_context *m =
        reach(s, name, s->mountport, TBBT_MOUNT_PROGRAM, TBBT_MOUNT_V3, "MOUNT", timeout, err, errlen);
    if (!m) return -1;
    struct step st = {.fh = root};
    int late = 0, rc = -1;
    if (rpc_mount3_mnt_async(m, mnt_cb, tbbt_unconst(s->export), &st) < 0 ||
        wait_until(m, &st, tbbt_now_s() + timeout, &late) < 0) {
        if (st.mnt_status)
            mnt3_refused(name, st.mnt_status, err, errlen);
        else if (late)
            snprintf(err, errlen, "%s: no reply to MOUNT of %s in %d s", name, s->export, timeout);
        else
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
    struct rpc_context *rpc =
        reach(s, name, s->nfsport, TBBT_NFS_PROGRAM, TBBT_NFS_V3, "NFS", timeout, err, errlen);
    if (rpc) tbbt_nfs_set_cred(rpc, uid, gid);
    return rpc;
}
