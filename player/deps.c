/* deps.c -- the player's lock-release policy (see deps.h): the locks of
 * lib/locks.h's table, held as the `--deps` mode says. Apart from the
 * table so that lib/ knows which objects a record locks, not how long a
 * stage holds them. */
#include "deps.h"

#include <string.h>

unsigned tbbt_sched_locks(const struct tbbt_rec *r, int deps, struct tbbt_lock *l) {
    unsigned n = tbbt_locks_of(r, l);
    /* a lost reply's locks, read and write, last until the replay's
     * reply: the record after it that conflicts waits for it, whether or
     * not the server runs one connection's requests in order (deps.h) */
    int lost = tbbt_sched_reply_lost(r), strict = deps == TBBT_SCHED_DEPS_STRICT;
    for (unsigned i = 0; i < n; i++)
        l[i].until_reply =
            (uint8_t)(deps == TBBT_SCHED_DEPS_REPLY || l[i].until_reply || lost || (l[i].write && strict));
    return n;
}

int tbbt_sched_deps(const char *name) {
    if (!strcmp(name, "reply")) return TBBT_SCHED_DEPS_REPLY;
    if (!strcmp(name, "send")) return TBBT_SCHED_DEPS_SEND;
    if (!strcmp(name, "strict")) return TBBT_SCHED_DEPS_STRICT;
    return -1;
}

void tbbt_sched_locks_print(FILE *f) {
    fputs("# fsdep's locks: the paper's Table 4, extended\n\n"
          "What each NFS procedure's request and reply read and write, as tbbt-play's fsdep order locks\n"
          "them (lib/locks.c; this is `tbbt-play --list-locks`). Objects are named by the record's fields:\n"
          "obj (the object a call names by handle), dir and dir2 (the directories of its names), newobj\n"
          "(the object the reply shows), victim (the object removed or renamed), victim2 (the object a\n"
          "rename replaces).\n\n",
          f);
    tbbt_locks_print(f);
    fputs("One object's locks are granted in trace order: a reader shares the object with other readers\n"
          "and never overtakes an earlier writer; a writer waits for every earlier lock. An object named\n"
          "twice by one record gets one lock, the stronger. When a request's locks are released is the\n"
          "`--deps` mode: `reply` (the default) at the record's reply; `send` (the paper's) at the send;\n"
          "`strict` its write locks at the reply and its read locks at the send. A reply's locks last\n"
          "until the reply in every mode, and so do all the locks of a record whose reply the capture\n"
          "lost. A record that failed (its replay status differs from the trace's, other than one error\n"
          "for another, or no reply came) poisons the objects in the last column: the later records that\n"
          "lock a poisoned object are skipped, except one that makes it anew (newobj of create, mkdir,\n"
          "symlink, mknod).\n",
          f);
}
