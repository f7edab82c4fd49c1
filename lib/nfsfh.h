/* nfsfh.h -- for the programs that call NFS through libnfs's raw API
 * (tbbt-init, the benchmark peers): our handles as libnfs's, a reply's
 * handle as ours, and a one-connection client's wait for its calls.
 *
 * Apart from nfsconn.h because libnfs's XDR types clash with libtirpc's,
 * which the player and the decoders include. */
#ifndef TBBT_NFSFH_H
#define TBBT_NFSFH_H

#include <stddef.h>

#include <nfsc/libnfs-raw-nfs.h>

#include "nfsconn.h"

/* A libnfs handle pointing into f (valid while f lives): what libnfs's
 * calls take. */
nfs_fh3 tbbt_nfs_fh3(const struct tbbt_fh *f);

/* Copies a libnfs handle of a reply into fh; -1 when it is absent or does
 * not fit. */
int tbbt_nfs_copy_fh(const nfs_fh3 *h, struct tbbt_fh *fh);

/* The same for a post_op_fh3; -1 when no handle follows. */
int tbbt_nfs_post_fh(const post_op_fh3 *p, struct tbbt_fh *fh);

/* A one-connection client's wait: services rpc until *done is set (done
 * not NULL) or *inflight is at most `most`. Returns 0; -1 with a message
 * in err on a broken connection or when no call ended for timeout
 * seconds. */
int tbbt_nfs_pump(struct rpc_context *rpc, const int *done, const int *inflight, int most, int timeout,
                  char *err, size_t errlen);

#endif
