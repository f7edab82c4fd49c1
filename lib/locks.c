/* locks.c -- the objects a record reads and writes (see locks.h): the
 * table, a record's locks from it, and the table printed. Here, not in
 * player/, because tbbt-split groups records by the same locks; when a
 * stage releases them is the stage's (player/deps.c). */
#include "locks.h"

#include <string.h>

#include "nfs_ops.h"

/* ---- the table: the paper's Table 4, extended ---- */

struct op_rules {
    uint8_t n;
    struct tbbt_lock_rule r[TBBT_LOCK_RULES_MAX];
};

/* A request's read, write, write of what it changes (principal). */
#define RD(a)                                                                                                \
    { TBBT_LA_##a, TBBT_LK_READ, 0, 0, 0 }
#define WR(a)                                                                                                \
    { TBBT_LA_##a, TBBT_LK_WRITE, 0, 0, 0 }
#define WRP(a)                                                                                               \
    { TBBT_LA_##a, TBBT_LK_WRITE, 0, 1, 0 }
/* The reply's write of the object a create, mkdir, symlink, mknod makes. */
#define MADE                                                                                                 \
    { TBBT_LA_NEWOBJ, TBBT_LK_WRITE, 1, 1, 1 }
/* A lookup's object: read, or written by the reply that reveals it. */
#define SEEN                                                                                                 \
    { TBBT_LA_NEWOBJ, TBBT_LK_REVEAL, 0, 0, 0 }

/* Indexed by enum tbbt_op. Null, root and writecache share nothing. A
 * rename keeps the renamed object's contents and attributes whether or
 * not it went through: only names change, and the records that use the
 * new name go by it and fail by themselves; the object it replaces would
 * be gone: that one is principal. A link is a new name for obj, which is
 * otherwise unchanged. */
static const struct op_rules table[TBBT_OP_COUNT] = {
    [TBBT_OP_GETATTR] = {1, {RD(OBJ)}},
    [TBBT_OP_SETATTR] = {1, {WRP(OBJ)}},
    [TBBT_OP_LOOKUP] = {2, {RD(DIR), SEEN}},
    [TBBT_OP_ACCESS] = {1, {RD(OBJ)}},
    [TBBT_OP_READLINK] = {1, {RD(OBJ)}},
    [TBBT_OP_READ] = {1, {RD(OBJ)}},
    [TBBT_OP_WRITE] = {1, {WRP(OBJ)}},
    [TBBT_OP_CREATE] = {2, {WR(DIR), MADE}},
    [TBBT_OP_MKDIR] = {2, {WR(DIR), MADE}},
    [TBBT_OP_SYMLINK] = {2, {WR(DIR), MADE}},
    [TBBT_OP_MKNOD] = {2, {WR(DIR), MADE}},
    [TBBT_OP_REMOVE] = {2, {WR(DIR), WRP(VICTIM)}},
    [TBBT_OP_RMDIR] = {2, {WR(DIR), WRP(VICTIM)}},
    [TBBT_OP_RENAME] = {4, {WR(DIR), WR(DIR2), WR(VICTIM), WRP(VICTIM2)}},
    [TBBT_OP_LINK] = {2, {WR(OBJ), WR(DIR)}},
    [TBBT_OP_READDIR] = {1, {RD(OBJ)}},
    [TBBT_OP_READDIRPLUS] = {1, {RD(OBJ)}},
    [TBBT_OP_STATFS] = {1, {RD(OBJ)}},
    [TBBT_OP_FSSTAT] = {1, {RD(OBJ)}},
    [TBBT_OP_FSINFO] = {1, {RD(OBJ)}},
    [TBBT_OP_PATHCONF] = {1, {RD(OBJ)}},
    [TBBT_OP_COMMIT] = {1, {WRP(OBJ)}},
};

const struct tbbt_lock_rule *tbbt_lock_rules(int op, unsigned *n) {
    static const struct op_rules none;
    const struct op_rules *t = op >= 0 && op < TBBT_OP_COUNT ? &table[op] : &none;
    *n = t->n;
    return t->r;
}

/* ---- a record's locks ---- */

/* The object a rule's field names in r, 0 when absent. */
static tbbt_id arg_id(const struct tbbt_rec *r, uint8_t arg) {
    static const enum tbbt_field field[] = {
        [TBBT_LA_OBJ] = TBBT_F_OBJ,       [TBBT_LA_DIR] = TBBT_F_DIR,
        [TBBT_LA_DIR2] = TBBT_F_DIR2,     [TBBT_LA_NEWOBJ] = TBBT_F_NEWOBJ,
        [TBBT_LA_VICTIM] = TBBT_F_VICTIM, [TBBT_LA_VICTIM2] = TBBT_F_VICTIM2,
    };
    static const size_t off[] = {
        [TBBT_LA_OBJ] = offsetof(struct tbbt_rec, obj),
        [TBBT_LA_DIR] = offsetof(struct tbbt_rec, dir),
        [TBBT_LA_DIR2] = offsetof(struct tbbt_rec, dir2),
        [TBBT_LA_NEWOBJ] = offsetof(struct tbbt_rec, newobj),
        [TBBT_LA_VICTIM] = offsetof(struct tbbt_rec, victim),
        [TBBT_LA_VICTIM2] = offsetof(struct tbbt_rec, victim2),
    };
    if (!tbbt_rec_has(r, field[arg])) return 0;
    tbbt_id v;
    memcpy(&v, (const char *)r + off[arg], sizeof(v));
    return v;
}

/* Adds lock k on its object, merged with an earlier one on the same
 * object: the stronger kind; an object the record names twice is made
 * anew by neither name. */
static unsigned add_lock(struct tbbt_lock *l, unsigned n, const struct tbbt_lock *k) {
    if (!k->obj) return n;
    for (unsigned i = 0; i < n; i++)
        if (l[i].obj == k->obj) {
            l[i].write |= k->write;
            l[i].until_reply |= k->until_reply;
            l[i].principal |= k->principal;
            l[i].reveal |= k->reveal;
            l[i].creates = 0;
            if (l[i].write) l[i].reveal = 0;
            return n;
        }
    if (n == TBBT_MAX_LOCKS) return n;
    l[n] = *k;
    return n + 1;
}

unsigned tbbt_locks_of(const struct tbbt_rec *r, struct tbbt_lock *l) {
    unsigned nr, n = 0;
    const struct tbbt_lock_rule *rule = tbbt_lock_rules(r->op, &nr);
    for (unsigned i = 0; i < nr; i++) {
        const struct tbbt_lock_rule *u = &rule[i];
        struct tbbt_lock k = {.obj = arg_id(r, u->arg),
                              .write = (uint8_t)(u->how == TBBT_LK_WRITE),
                              .until_reply = u->reply,
                              .principal = u->principal,
                              .creates = u->creates,
                              .reveal = u->how == TBBT_LK_REVEAL};
        n = add_lock(l, n, &k);
    }
    return n;
}

/* ---- the table for people ---- */

static const char *const arg_name[] = {"obj", "dir", "dir2", "newobj", "victim", "victim2"};

/* Prints, comma-separated, the fields of op's rules that pass keep(), or "-". */
static void print_args(FILE *f, const struct tbbt_lock_rule *rule, unsigned n,
                       int (*keep)(const struct tbbt_lock_rule *u)) {
    int any = 0;
    for (unsigned i = 0; i < n; i++)
        if (keep(&rule[i])) {
            fprintf(f, "%s%s%s", any ? ", " : " ", arg_name[rule[i].arg],
                    rule[i].how == TBBT_LK_REVEAL ? " (1)" : "");
            any = 1;
        }
    fputs(any ? " |" : " - |", f);
}

static int req_read(const struct tbbt_lock_rule *u) {
    return !u->reply && u->how != TBBT_LK_WRITE;
}
static int req_write(const struct tbbt_lock_rule *u) {
    return !u->reply && u->how == TBBT_LK_WRITE;
}
static int reply_write(const struct tbbt_lock_rule *u) {
    return u->reply || u->how == TBBT_LK_REVEAL;
}
static int poisons(const struct tbbt_lock_rule *u) {
    return u->principal;
}

void tbbt_locks_print(FILE *f) {
    fputs("| procedure | request reads | request writes | reply writes | a failure poisons |\n"
          "| --- | --- | --- | --- | --- |\n",
          f);
    for (int op = 0; op < TBBT_OP_COUNT; op++) {
        unsigned n;
        const struct tbbt_lock_rule *rule = tbbt_lock_rules(op, &n);
        fprintf(f, "| %s |", tbbt_op_info((enum tbbt_op)op)->name);
        print_args(f, rule, n, req_read);
        print_args(f, rule, n, req_write);
        print_args(f, rule, n, reply_write);
        print_args(f, rule, n, poisons);
        fputc('\n', f);
    }
    fputs("\n(1) A lookup reads its object, unless the object's handle is unknown when the lock is granted\n"
          "(not in the manifest, and no earlier reply showed it): then the lookup's reply reveals it, and\n"
          "the lock is a write lock held until that reply, so that the records using the handle wait for\n"
          "it. A lookup queued behind the create of its object is granted after the create's reply, which\n"
          "showed the handle: it reads.\n\n",
          f);
}
