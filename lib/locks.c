/* locks.c -- the objects a record reads and writes (see locks.h). Moved
 * here from player/order.c so that tbbt-split uses the player's own
 * table without depending on the player. */
#include "locks.h"

#include <string.h>

/* Adds a lock on obj, merged with an earlier one on the same object. */
static unsigned add_lock(struct tbbt_lock *l, unsigned n, tbbt_id obj, int write, int until_reply,
                         int principal) {
    if (!obj) return n;
    for (unsigned i = 0; i < n; i++)
        if (l[i].obj == obj) {
            l[i].write |= (uint8_t)write;
            l[i].until_reply |= (uint8_t)until_reply;
            l[i].principal |= (uint8_t)principal;
            return n;
        }
    if (n == TBBT_MAX_LOCKS) return n;
    l[n] = (struct tbbt_lock){obj, (uint8_t)write, (uint8_t)until_reply, (uint8_t)principal, 0};
    return n + 1;
}

/* A record's field, 0 when absent. */
static tbbt_id fid(const struct tbbt_rec *r, enum tbbt_field f, tbbt_id v) {
    return tbbt_rec_has(r, f) ? v : 0;
}

unsigned tbbt_sched_locks(const struct tbbt_rec *r, int deps, int (*known)(void *ctx, tbbt_id id), void *ctx,
                          struct tbbt_lock *l) {
    unsigned n = 0;
    /* a lost reply's write locks last until the replay's reply: the
     * reader after it waits for it, whether or not the server runs one
     * connection's requests in order (locks.h) */
    int strict = deps == TBBT_DEPS_STRICT || tbbt_sched_reply_lost(r);
    tbbt_id obj = fid(r, TBBT_F_OBJ, r->obj), dir = fid(r, TBBT_F_DIR, r->dir),
            dir2 = fid(r, TBBT_F_DIR2, r->dir2);
    tbbt_id nobj = fid(r, TBBT_F_NEWOBJ, r->newobj), v = fid(r, TBBT_F_VICTIM, r->victim),
            v2 = fid(r, TBBT_F_VICTIM2, r->victim2);
    switch (r->op) {
    case TBBT_OP_GETATTR:
    case TBBT_OP_ACCESS:
    case TBBT_OP_READLINK:
    case TBBT_OP_READ:
    case TBBT_OP_READDIR:
    case TBBT_OP_READDIRPLUS:
    case TBBT_OP_STATFS:
    case TBBT_OP_FSSTAT:
    case TBBT_OP_FSINFO:
    case TBBT_OP_PATHCONF: n = add_lock(l, n, obj, 0, 0, 0); break;
    case TBBT_OP_SETATTR:
    case TBBT_OP_WRITE:
    case TBBT_OP_COMMIT: n = add_lock(l, n, obj, 1, strict, 1); break;
    case TBBT_OP_LOOKUP: {
        n = add_lock(l, n, dir, 0, 0, 0);
        int hidden = nobj && known && !known(ctx, nobj); /* the reply reveals its handle */
        n = add_lock(l, n, nobj, hidden, hidden, 0);
        break;
    }
    case TBBT_OP_CREATE:
    case TBBT_OP_MKDIR:
    case TBBT_OP_SYMLINK:
    case TBBT_OP_MKNOD:
        n = add_lock(l, n, dir, 1, strict, 0);
        n = add_lock(l, n, nobj, 1, 1, 1);
        for (unsigned i = 0; i < n; i++)
            if (nobj && l[i].obj == nobj && nobj != dir) l[i].creates = 1;
        break;
    case TBBT_OP_REMOVE:
    case TBBT_OP_RMDIR:
        n = add_lock(l, n, dir, 1, strict, 0);
        n = add_lock(l, n, v, 1, strict, 1);
        break;
    case TBBT_OP_RENAME:
        /* The renamed object keeps its contents and attributes whether or
         * not the rename went through: only names change, and the records
         * that use the new name go by it and fail by themselves. The object
         * it replaces would be gone: that one is principal. */
        n = add_lock(l, n, dir, 1, strict, 0);
        n = add_lock(l, n, dir2, 1, strict, 0);
        n = add_lock(l, n, v, 1, strict, 0);
        n = add_lock(l, n, v2, 1, strict, 1);
        break;
    case TBBT_OP_LINK: /* a new name for obj, which is otherwise unchanged */
        n = add_lock(l, n, obj, 1, strict, 0);
        n = add_lock(l, n, dir, 1, strict, 0);
        break;
    default: break; /* null, root, writecache: nothing shared */
    }
    if (deps == TBBT_DEPS_REPLY)
        for (unsigned i = 0; i < n; i++)
            l[i].until_reply = 1;
    return n;
}

int tbbt_sched_deps(const char *name) {
    if (!strcmp(name, "reply")) return TBBT_DEPS_REPLY;
    if (!strcmp(name, "send")) return TBBT_DEPS_SEND;
    if (!strcmp(name, "strict")) return TBBT_DEPS_STRICT;
    return -1;
}
