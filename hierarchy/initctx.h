/* initctx.h -- tbbt-init's state, shared by its steps (init.c: the image
 * and its data; rundir.c: the run directory). Not a public API. */
#ifndef TBBT_INITCTX_H
#define TBBT_INITCTX_H

#include <glib.h>
#include <stdint.h>

#include "init.h"
#include "initnfs.h"
#include "nfsconn.h"
#include "nfsq.h"
#include "version.h"

#define TBBT_INIT_MARKER ".tbbt-run"
#define TBBT_INIT_VERSION TBBT_VERSION /* lib/version.h */

struct init {
    const struct tbbt_init_opts *o;
    struct tbbt_init_stats *st;
    struct rpc_context **rpcs;
    struct tbbt_nfsq *q;
    struct tbbt_fh root; /* the export's root */
    struct tbbt_fh run;  /* RUN */
    int failed;          /* a callback failed: err holds why */
    char err[512];
};

/* Runs one call issued by issue(in, cb, priv) to completion (set-up
 * steps only). The reply's data is handed to take(ctx, data) before it is
 * freed. Returns the NFS status, or -1 with in->err set. */
int tbbt_init_sync(struct init *in, int (*issue)(struct init *in, tbbt_nfsq_cb cb, void *priv, void *ctx),
                   void (*take)(void *ctx, void *data), void *ctx, const char *what);

/* Services the queue once; -1 (with in->err) on a broken connection or
 * when nothing has answered for the timeout. */
int tbbt_init_pump(struct init *in);

/* Finds or makes RUN with its marker, as the rules of init.h say.
 * Returns 0, or -1 with in->err. */
int tbbt_init_rundir(struct init *in);

/* Rewrites the marker with state ("building", "complete"). */
int tbbt_init_marker(struct init *in, const char *state);

/* Makes a directory in dir with attr (NULL: 0755, the server's choice of
 * owner), or looks it up if it exists; *out its handle. */
int tbbt_init_mkdir(struct init *in, const struct tbbt_fh *dir, const char *name,
                    const struct tbbt_inf_attr *attr, struct tbbt_fh *out);

/* Writes a whole local file as name in dir (CREATE, WRITEs, COMMIT). */
int tbbt_init_upload(struct init *in, const struct tbbt_fh *dir, const char *name, const char *path);

#endif
