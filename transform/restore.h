/* restore.h -- a call the snaplen cut, completed from its own reply.
 *
 * A short snaplen cuts the end of a call: for CREATE, MKDIR, MKNOD and
 * SYMLINK that is the attributes to set (and a symlink's target), after
 * the directory and name that were captured. The reply says what the
 * server made: its type and mode. Setting those (the mode as the server
 * kept it, the type a MKNOD asked for) makes the request the replay sends
 * make the same object; the encoder's defaults (nfsenc.h) fill the rest
 * (UNCHECKED, no owner change). A symlink's cut target is given a stable
 * stand-in: no status the replay checks depends on it. The record keeps
 * TBBT_RF_CALL_TRUNC, loses TBBT_RF_ARGS_CUT and gains TBBT_RF_RESTORED.
 * Names are not restored here: pass 2 knows the objects (correct/). */
#ifndef TBBT_RESTORE_H
#define TBBT_RESTORE_H

#include "record.h"

#define TBBT_RESTORE_TARGET "tbbt-cut-target"

/* Completes r (a paired record) from its reply where it can. Returns 1
 * when r became replayable, else 0 (left as it was). */
int tbbt_restore_from_reply(struct tbbt_rec *r);

#endif
