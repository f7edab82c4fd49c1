/* nfsconn.h -- reaching an NFS server's export: the server's name as the
 * user writes it, MOUNT for the export's root handle, and an NFSv3 RPC
 * connection through libnfs, ready for its asynchronous calls.
 *
 * Set-up only: connecting and mounting wait (bounded by a timeout) for
 * their replies, once, before any measured work. Everything after -- the
 * calls of tbbt-init and tbbt-play -- goes through the returned
 * rpc_context's asynchronous API and the caller's own poll loop
 * (rpc_get_fd, rpc_which_events, rpc_service), which never blocks.
 *
 * Server forms:
 *   HOST:/EXPORT                       ports from the portmapper, unless given
 *   nfs://HOST/EXPORT?nfsport=N&mountport=M   (either port optional)
 * HOST may be a name, an IPv4 address or a bracketed IPv6 address. */
#ifndef TBBT_NFSCONN_H
#define TBBT_NFSCONN_H

#include <stddef.h>
#include <stdint.h>

#include "nfsdec.h" /* TBBT_FH_MAX */

struct rpc_context;

struct tbbt_nfs_server {
    char host[256];
    char export[1024];
    int nfsport, mountport; /* 0: ask the portmapper */
};

/* A file handle, held by value. */
struct tbbt_fh {
    uint32_t len;
    uint8_t data[TBBT_FH_MAX];
};

/* Parses a server as written above; nfsport/mountport (0 = none) are
 * defaults that the URL's own keys override. Returns 0, or -1 with a
 * one-line message in err. */
int tbbt_nfs_server_parse(const char *spec, int nfsport, int mountport, struct tbbt_nfs_server *s, char *err,
                          size_t errlen);

/* Asks the server's MOUNT v3 for the export's root handle. Waits at most
 * timeout seconds. Returns 0, or -1 with "HOST:/EXPORT: ..." in err. */
int tbbt_nfs_mount(const struct tbbt_nfs_server *s, int timeout, struct tbbt_fh *root, char *err,
                   size_t errlen);

/* Opens an NFSv3 connection (TCP) to the server, authenticating as
 * uid/gid with AUTH_SYS. Waits at most timeout seconds for the
 * connection. Returns the context (the caller destroys it with
 * rpc_destroy_context), or NULL with a message in err. */
struct rpc_context *tbbt_nfs_connect(const struct tbbt_nfs_server *s, int timeout, uint32_t uid, uint32_t gid,
                                     char *err, size_t errlen);

/* Sets the AUTH_SYS credentials of later calls on rpc. */
void tbbt_nfs_set_cred(struct rpc_context *rpc, uint32_t uid, uint32_t gid);

/* Writes "HOST:/EXPORT" into buf, for messages. */
void tbbt_nfs_server_name(const struct tbbt_nfs_server *s, char *buf, size_t n);

#endif
