/* rules.c -- the correction table and the builders of corrective records. */
#include "rules.h"

#include <string.h>

#include "pass2_obj.h"

#define H TBBT_RULE_ANY_HANDLE_OP

/* The table. Rows are looked up by (op, predicted, traced); the first
 * match wins. Predicted "ok" on a handle operation means "the model knows
 * the object and it is not gone". */
const struct tbbt_rule tbbt_rules[] = {
    /* lookup */
    {"lookup-ok-absent", TBBT_OP_LOOKUP, TBBT_OC_NOENT, TBBT_OC_OK, TBBT_FIX_MAKE_BY_REPLY,
     "lookup found a name the model had removed, or a file the trace made under a name never met: a "
     "create/mkdir/symlink/mknod or link was lost"},
    {"lookup-noent-present", TBBT_OP_LOOKUP, TBBT_OC_OK, TBBT_OC_NOENT, TBBT_FIX_REMOVE_NAME,
     "lookup missed a name the model holds: a remove was lost"},
    {"lookup-other-object", TBBT_OP_LOOKUP, TBBT_OC_OK_OTHER, TBBT_OC_OK, TBBT_FIX_MOVE_BY_REPLY,
     "lookup found another object under the name: a rename onto it (of the object's one other name), or a "
     "remove and a create, were lost"},
    /* listings */
    {"readdir-lists-absent", TBBT_OP_READDIR, TBBT_OC_OK_SHORT, TBBT_OC_OK, TBBT_FIX_MAKE_LISTED,
     "readdir listed a name that was not there at the start (in a directory or of a file the trace made): a "
     "create, mkdir or link was lost"},
    {"readdirplus-lists-absent", TBBT_OP_READDIRPLUS, TBBT_OC_OK_SHORT, TBBT_OC_OK, TBBT_FIX_MAKE_LISTED,
     "readdirplus listed a name that was not there at the start (in a directory or of a file the trace "
     "made): a create, mkdir or link was lost"},
    {"readdirplus-lists-other-object", TBBT_OP_READDIRPLUS, TBBT_OC_OK_OTHER, TBBT_OC_OK,
     TBBT_FIX_MOVE_LISTED,
     "readdirplus listed another object under a name than the model holds there: a rename onto the name, or "
     "a remove and a create, were lost"},
    /* create */
    {"create-exists", TBBT_OP_CREATE, TBBT_OC_EXIST, TBBT_OC_OK, TBBT_FIX_REMOVE_NAME,
     "exclusive create succeeded on an existing name: a remove was lost (removes outnumber renames)"},
    {"create-eexist-absent", TBBT_OP_CREATE, TBBT_OC_OK, TBBT_OC_EXIST, TBBT_FIX_MAKE_FILE,
     "create met an existing name the model had absent: a create was lost"},
    {"create-other-object", TBBT_OP_CREATE, TBBT_OC_OK_OTHER, TBBT_OC_OK, TBBT_FIX_REMOVE_NAME,
     "unchecked create made a new object over an existing name: a remove was lost"},
    /* mkdir, symlink, mknod */
    {"mkdir-exists", TBBT_OP_MKDIR, TBBT_OC_EXIST, TBBT_OC_OK, TBBT_FIX_REMOVE_NAME,
     "mkdir succeeded on an existing name: a remove was lost"},
    {"lost-mkdir-names-made", TBBT_OP_MKDIR, TBBT_OC_OK, TBBT_OC_OK, TBBT_FIX_MAKE_BY_REPLY,
     "a mkdir whose reply was lost turned out to have made a directory in which records had met names as "
     "there before the trace: a directory made in the trace began empty, so creates of them were lost (never "
     "looked up by outcome: counted when the lost mkdir is bound)"},
    {"mkdir-eexist-absent", TBBT_OP_MKDIR, TBBT_OC_OK, TBBT_OC_EXIST, TBBT_FIX_MAKE_FILE,
     "mkdir met an existing name the model had absent: a create was lost"},
    {"symlink-exists", TBBT_OP_SYMLINK, TBBT_OC_EXIST, TBBT_OC_OK, TBBT_FIX_REMOVE_NAME,
     "symlink succeeded on an existing name: a remove was lost"},
    {"symlink-eexist-absent", TBBT_OP_SYMLINK, TBBT_OC_OK, TBBT_OC_EXIST, TBBT_FIX_MAKE_FILE,
     "symlink met an existing name the model had absent: a create was lost"},
    {"mknod-exists", TBBT_OP_MKNOD, TBBT_OC_EXIST, TBBT_OC_OK, TBBT_FIX_REMOVE_NAME,
     "mknod succeeded on an existing name: a remove was lost"},
    {"mknod-eexist-absent", TBBT_OP_MKNOD, TBBT_OC_OK, TBBT_OC_EXIST, TBBT_FIX_MAKE_FILE,
     "mknod met an existing name the model had absent: a create was lost"},
    /* link */
    {"link-exists", TBBT_OP_LINK, TBBT_OC_EXIST, TBBT_OC_OK, TBBT_FIX_REMOVE_NAME,
     "link succeeded on an existing name: a remove was lost"},
    {"link-eexist-absent", TBBT_OP_LINK, TBBT_OC_OK, TBBT_OC_EXIST, TBBT_FIX_MAKE_FILE,
     "link met an existing name the model had absent: a create was lost"},
    /* remove */
    {"remove-missing", TBBT_OP_REMOVE, TBBT_OC_NOENT, TBBT_OC_OK, TBBT_FIX_MAKE_FILE,
     "remove of a name the model had absent succeeded: a create was lost"},
    {"remove-noent-present", TBBT_OP_REMOVE, TBBT_OC_OK, TBBT_OC_NOENT, TBBT_FIX_REMOVE_NAME,
     "remove missed a name the model holds: an earlier remove was lost"},
    {"remove-denied-missing", TBBT_OP_REMOVE, TBBT_OC_NOENT, TBBT_OC_ACCES, TBBT_FIX_MAKE_FILE,
     "remove of a name the model had absent was refused by a directory the caller may search: the server "
     "looks the name up first (a missing one is NOENT), so it was there: a create was lost"},
    /* rmdir */
    {"rmdir-missing", TBBT_OP_RMDIR, TBBT_OC_NOENT, TBBT_OC_OK, TBBT_FIX_MAKE_DIR,
     "rmdir of a name the model had absent succeeded: a mkdir was lost"},
    {"rmdir-not-empty", TBBT_OP_RMDIR, TBBT_OC_NOTEMPTY, TBBT_OC_OK, TBBT_FIX_EMPTY_DIR,
     "rmdir succeeded on a directory with entries: their removes were lost"},
    {"rmdir-noent-present", TBBT_OP_RMDIR, TBBT_OC_OK, TBBT_OC_NOENT, TBBT_FIX_REMOVE_NAME,
     "rmdir missed a directory the model holds: an earlier rmdir was lost"},
    {"rmdir-denied-missing", TBBT_OP_RMDIR, TBBT_OC_NOENT, TBBT_OC_ACCES, TBBT_FIX_MAKE_DIR,
     "rmdir of a name the model had absent was refused by a directory the caller may search: the server "
     "looks the name up first (a missing one is NOENT), so it was there: a mkdir was lost"},
    {"rmdir-noent-nonempty", TBBT_OP_RMDIR, TBBT_OC_NOTEMPTY, TBBT_OC_NOENT, TBBT_FIX_REMOVE_NAME,
     "rmdir missed a non-empty directory the model holds: its removes and rmdir were lost"},
    {"rmdir-unknown-entries", TBBT_OP_RMDIR, TBBT_OC_OK, TBBT_OC_NOTEMPTY, TBBT_FIX_AGREE,
     "rmdir found entries the trace never named: they existed before (teaches)"},
    {"rmdir-file-present", TBBT_OP_RMDIR, TBBT_OC_NOTDIR, TBBT_OC_OK, TBBT_FIX_REPLACE_DIR,
     "rmdir succeeded on a name the model holds a file under: the file's removal and a mkdir were lost "
     "(the server may have given the directory the file's inode)"},
    {"rmdir-file-noent", TBBT_OP_RMDIR, TBBT_OC_NOTDIR, TBBT_OC_NOENT, TBBT_FIX_REMOVE_NAME,
     "rmdir missed a name the model holds a file under: the file's removal was lost"},
    {"rmdir-file-nonempty", TBBT_OP_RMDIR, TBBT_OC_NOTDIR, TBBT_OC_NOTEMPTY, TBBT_FIX_REPLACE_DIR,
     "rmdir found a directory with entries where the model holds a file: the file's removal and a "
     "mkdir were lost (the entries stay unknown)"},
    /* rename */
    {"rename-missing-source", TBBT_OP_RENAME, TBBT_OC_NOENT, TBBT_OC_OK, TBBT_FIX_MAKE_FILE,
     "rename of a source the model had absent succeeded: a create was lost"},
    {"rename-denied-missing-source", TBBT_OP_RENAME, TBBT_OC_NOENT, TBBT_OC_ACCES, TBBT_FIX_MAKE_FILE,
     "rename of a source name the model had absent was refused by a directory the caller may search: the "
     "server looks the source up first (a missing one is NOENT), so it was there: a create was lost"},
    {"rename-noent-present", TBBT_OP_RENAME, TBBT_OC_OK, TBBT_OC_NOENT, TBBT_FIX_REMOVE_NAME,
     "rename missed a source the model holds: a remove was lost"},
    {"rename-target-not-empty", TBBT_OP_RENAME, TBBT_OC_NOTEMPTY, TBBT_OC_OK, TBBT_FIX_EMPTY_NAME2,
     "rename replaced a directory with entries: their removes were lost"},
    {"rename-unknown-entries", TBBT_OP_RENAME, TBBT_OC_OK, TBBT_OC_NOTEMPTY, TBBT_FIX_AGREE,
     "rename's target had entries the trace never named (teaches)"},
    {"rename-noent-nonempty", TBBT_OP_RENAME, TBBT_OC_NOTEMPTY, TBBT_OC_NOENT, TBBT_FIX_REMOVE_NAME,
     "rename missed a source the model holds: a remove was lost"},
    /* operations on a handle */
    {"handle-stale-live", H, TBBT_OC_OK, TBBT_OC_STALE, TBBT_FIX_REMOVE_OBJ,
     "an object the model holds was stale: the removes of its names were lost"},
    {"denied-stale-live", H, TBBT_OC_ACCES, TBBT_OC_STALE, TBBT_FIX_REMOVE_OBJ,
     "an object the model holds, whose mode denies the call, was stale (checked first): the removes of its "
     "names were lost"},
    {"handle-stale-unknown", H, TBBT_OC_ANY, TBBT_OC_STALE, TBBT_FIX_MAKE_GONE,
     "an object no record had shown was stale: it was made and removed where the capture lost it (the "
     "replay makes and removes one, to hold a stale handle of it)"},
    {"handle-denied-unknown", H, TBBT_OC_ANY, TBBT_OC_ACCES, TBBT_FIX_MAKE_DENIED,
     "a read, write or truncate of an object no record had shown was refused: it was made where the capture "
     "lost it (the replay makes one, under a name of its own, that refuses the caller)"},
    {"used-after-removal", TBBT_RULE_ANY_OP, TBBT_OC_STALE, TBBT_OC_OK, TBBT_FIX_KEEP_OBJ,
     "an object the model had removed was used: its name held another object (a rename away was lost)"},
    {"noent-after-removal", TBBT_RULE_ANY_OP, TBBT_OC_STALE, TBBT_OC_NOENT, TBBT_FIX_KEEP_OBJ,
     "a name was missing in a directory the model had removed: the directory lives (a rename away was lost)"},
    {"denied-after-removal", TBBT_RULE_ANY_OP, TBBT_OC_STALE, TBBT_OC_ACCES, TBBT_FIX_KEEP_OBJ,
     "a call on an object the model had removed was denied, not stale: the object lives"},
    {"exist-after-removal", TBBT_RULE_ANY_OP, TBBT_OC_STALE, TBBT_OC_EXIST, TBBT_FIX_KEEP_OBJ,
     "a name existed in a directory the model had removed: the directory lives (a rename away was lost)"},
    /* permissions (paper's Table 2: "permission denied: setattr") */
    {"read-allowed-denied", TBBT_OP_READ, TBBT_OC_ACCES, TBBT_OC_OK, TBBT_FIX_SET_MODE,
     "read succeeded where the mode denies it: a chmod was lost"},
    {"read-denied-allowed", TBBT_OP_READ, TBBT_OC_OK, TBBT_OC_ACCES, TBBT_FIX_SET_MODE,
     "read was denied where the mode allows it: a chmod was lost"},
    {"write-allowed-denied", TBBT_OP_WRITE, TBBT_OC_ACCES, TBBT_OC_OK, TBBT_FIX_SET_MODE,
     "write succeeded where the mode denies it: a chmod was lost"},
    {"write-denied-allowed", TBBT_OP_WRITE, TBBT_OC_OK, TBBT_OC_ACCES, TBBT_FIX_SET_MODE,
     "write was denied where the mode allows it: a chmod was lost"},
    {"truncate-allowed-denied", TBBT_OP_SETATTR, TBBT_OC_ACCES, TBBT_OC_OK, TBBT_FIX_SET_MODE,
     "a truncate succeeded where the mode denies it: a chmod was lost"},
    {"truncate-denied-allowed", TBBT_OP_SETATTR, TBBT_OC_OK, TBBT_OC_ACCES, TBBT_FIX_SET_MODE,
     "a truncate was denied where the mode allows it: a chmod was lost"},
    {"lookup-stale-live", TBBT_OP_LOOKUP, TBBT_OC_OK, TBBT_OC_STALE, TBBT_FIX_AGREE,
     "lookup in a directory the trace saw go stale (teaches)"},
    {"lookup-stale-absent", TBBT_OP_LOOKUP, TBBT_OC_NOENT, TBBT_OC_STALE, TBBT_FIX_AGREE,
     "lookup in a directory the trace saw go stale (teaches)"},
    {"dir-write-allowed-denied", TBBT_RULE_ANY_OP, TBBT_OC_ACCES, TBBT_OC_OK, TBBT_FIX_SET_DIR_MODE,
     "a name was made, removed or renamed in a directory whose mode denies it: a chmod of the directory was "
     "lost"},
    /* state changes a later reply reveals (issue 21) */
    {"reply-shows-other-mode", TBBT_RULE_ANY_OP, TBBT_OC_OK, TBBT_OC_OK_MODE, TBBT_FIX_SET_ATTRS,
     "a reply showed a mode no record of the trace set: a chmod was lost"},
    {"reply-shows-other-owner", TBBT_RULE_ANY_OP, TBBT_OC_OK, TBBT_OC_OK_OWNER, TBBT_FIX_SET_ATTRS,
     "a reply showed an owner or group no record of the trace set: a chown was lost"},
    {"listing-shows-smaller-size", TBBT_OP_READDIRPLUS, TBBT_OC_OK, TBBT_OC_OK_SIZE, TBBT_FIX_SET_ATTRS,
     "a readdirplus entry showed a file smaller than the trace left it: a truncate was lost"},
    {"reply-shows-more-links", TBBT_RULE_ANY_OP, TBBT_OC_OK, TBBT_OC_OK_LINKS, TBBT_FIX_LINK_SYNTH,
     "a reply showed more links to a file the trace made than the names the trace gave it: a link was lost "
     "(its name is made up until a record shows it)"},
    {"reply-shows-smaller-size", TBBT_RULE_ANY_OP, TBBT_OC_OK, TBBT_OC_OK_SIZE, TBBT_FIX_SET_ATTRS,
     "a reply showed a file smaller than the trace left it: a truncate was lost (a larger one is left "
     "to the writes the trace has or lost)"},
};

const unsigned tbbt_nrules = G_N_ELEMENTS(tbbt_rules);

/* Contract in rules.h. */
enum tbbt_oc tbbt_oc_of_status(int status) {
    switch (status) {
    case TBBT_NFS_OK: return TBBT_OC_OK;
    case TBBT_NFSERR_NOENT: return TBBT_OC_NOENT;
    case TBBT_NFSERR_EXIST: return TBBT_OC_EXIST;
    case TBBT_NFSERR_NOTEMPTY: return TBBT_OC_NOTEMPTY;
    case TBBT_NFSERR_STALE:
    case TBBT_NFSERR_BADHANDLE: return TBBT_OC_STALE;
    case TBBT_NFSERR_NOTDIR: return TBBT_OC_NOTDIR;
    case TBBT_NFSERR_ACCES:
    case TBBT_NFSERR_PERM: return TBBT_OC_ACCES;
    case TBBT_PREDICT_ANY: return TBBT_OC_ANY;
    default: return TBBT_OC_OTHER;
    }
}

/* Does remove, rmdir or rename r, refused (ACCES, PERM), show that its
 * (source) name was there although the model has it absent? nfs-ganesha looks the name up
 * before it asks the file system to unlink it as the caller, so a missing
 * name is NOENT to anyone who may search the directory (the model
 * predicts so: existence errors first), and a refusal by a directory the
 * caller may search names a present name. (A server that checks the
 * directory's write permission first refuses either way: a name made for
 * the refusal changes nothing there.) */
static int denied_shows_name(const struct tbbt_fsmodel *m, const struct tbbt_rec *r) {
    const unsigned known = TBBT_FSO_RMODE | TBBT_FSO_ATTRS;
    if (r->op != TBBT_OP_REMOVE && r->op != TBBT_OP_RMDIR && r->op != TBBT_OP_RENAME) return 0;
    if (r->cred.flavor != TBBT_AUTH_SYS || r->cred.uid == 0) return 0;
    const struct tbbt_fsobj *d = r->dir ? tbbt_fsmodel_obj(m, r->dir) : NULL;
    if (!d || (d->flags & known) != known || d->attr.type != TBBT_FT_DIR) return 0;
    if (!((d->rmode >> tbbt_fsmodel_mode_shift(&d->attr, &r->cred)) & 1)) return 0;
    return tbbt_fsmodel_predict(m, r) == TBBT_NFSERR_NOENT;
}

/* Contract in rules.h. */
enum tbbt_oc tbbt_oc_traced(const struct tbbt_fsmodel *m, const struct tbbt_rec *r) {
    enum tbbt_oc c = tbbt_oc_of_status(r->status);
    if (c == TBBT_OC_ACCES && denied_shows_name(m, r)) return c;
    /* a denied change of names in one directory: its mode is the say (a
     * denied rename may have more reasons: moving a directory needs write
     * on it, a sticky bit...) */
    if (c == TBBT_OC_ACCES && tbbt_fsmodel_predict_access(m, r) == TBBT_PREDICT_ANY) return TBBT_OC_OTHER;
    return c;
}

/* Contract in rules.h. */
int tbbt_listing_entry_other(const struct tbbt_fsmodel *m, const struct tbbt_rec *r,
                             const struct tbbt_dirent *e) {
    const char *n = tbbt_rec_str(r, e->name);
    if (r->op != TBBT_OP_READDIRPLUS || !e->id || tbbt_dot_name(n, e->name.len)) return 0;
    tbbt_id cur = 0;
    if (tbbt_fsmodel_name(m, r->obj, n, e->name.len, &cur) != TBBT_NAME_PRESENT || !cur || cur == e->id)
        return 0;
    const struct tbbt_fsobj *o = tbbt_fsmodel_obj(m, cur);
    return o && !(o->flags & TBBT_FSO_GONE);
}

/* OK_SHORT when a successful listing shows a name that cannot have been
 * in the directory at the start and that the model has no entry for
 * (tbbt_fsmodel_entry_unmet); else OK_OTHER when a readdirplus entry
 * shows another object under a name than the model holds
 * (tbbt_listing_entry_other); else c. */
static enum tbbt_oc listing_class(const struct tbbt_fsmodel *m, const struct tbbt_rec *r, enum tbbt_oc c) {
    if (c != TBBT_OC_OK || r->status != TBBT_NFS_OK || !r->nentries) return c;
    if (tbbt_fsmodel_listing_unmet(m, r)) return TBBT_OC_OK_SHORT;
    for (uint32_t i = 0; r->op == TBBT_OP_READDIRPLUS && i < r->nentries; i++)
        if (tbbt_listing_entry_other(m, r, &r->entries[i])) return TBBT_OC_OK_OTHER;
    return c;
}

/* Contract in rules.h. */
enum tbbt_oc tbbt_oc_predict(const struct tbbt_fsmodel *m, const struct tbbt_rec *r) {
    int p = tbbt_fsmodel_predict(m, r);
    /* a change of names the directories' modes deny (existence errors
     * come first) */
    if (p == TBBT_NFS_OK && tbbt_fsmodel_predict_dir_access(m, r) == TBBT_NFSERR_ACCES) p = TBBT_NFSERR_ACCES;
    enum tbbt_oc c = tbbt_oc_of_status(p);
    if (r->op == TBBT_OP_READDIR || r->op == TBBT_OP_READDIRPLUS) return listing_class(m, r, c);
    if (c != TBBT_OC_OK || (r->op != TBBT_OP_LOOKUP && r->op != TBBT_OP_CREATE)) return c;
    if (!tbbt_rec_has(r, TBBT_F_NEWOBJ) || !r->newobj) return c;
    tbbt_id cur;
    if (tbbt_fsmodel_name(m, r->dir, tbbt_rec_str(r, r->name), r->name.len, &cur) != TBBT_NAME_PRESENT)
        return c;
    return cur && cur != r->newobj ? TBBT_OC_OK_OTHER : c;
}

const char *tbbt_oc_name(enum tbbt_oc c) {
    static const char *const n[TBBT_OC_COUNT_] = {"any",
                                                  "ok",
                                                  "ok-other-object",
                                                  "ok-short-listing",
                                                  "noent",
                                                  "exist",
                                                  "notempty",
                                                  "stale",
                                                  "notdir",
                                                  "acces",
                                                  "other",
                                                  "ok-other-mode",
                                                  "ok-other-owner",
                                                  "ok-smaller-size",
                                                  "ok-more-links"};
    return c < TBBT_OC_COUNT_ ? n[c] : "?";
}

const char *tbbt_fix_name(enum tbbt_fix_act a) {
    static const char *const n[TBBT_FIX_COUNT_] = {
        "none",           "remove-name", "make-by-reply", "replace",          "make-file",
        "make-dir",       "empty-dir",   "empty-name2",   "remove-object",    "set-mode",
        "keep-object",    "make-listed", "set-attrs",     "move-by-reply",    "move-listed",
        "link-synthetic", "make-gone",   "set-dir-mode",  "replace-with-dir", "make-denied"};
    return a < TBBT_FIX_COUNT_ ? n[a] : "?";
}

/* Does row w's op cover operation op? */
static int rule_op_matches(int w, int op) {
    if (w == TBBT_RULE_ANY_OP) return 1;
    if (w != TBBT_RULE_ANY_HANDLE_OP) return w == op;
    unsigned f = op >= 0 && op < TBBT_OP_COUNT ? tbbt_op_info(op)->flags : 0;
    return (f & TBBT_OPF_OBJ) && !(f & TBBT_OPF_DIRNAME);
}

/* Contract in rules.h. */
int tbbt_rule_find(int op, enum tbbt_oc predicted, enum tbbt_oc traced) {
    for (unsigned i = 0; i < tbbt_nrules; i++) {
        const struct tbbt_rule *w = &tbbt_rules[i];
        if (w->predicted == predicted && w->traced == traced && rule_op_matches(w->op, op)) return (int)i;
    }
    return -1;
}

/* Starts a corrective record in out->scratch: the failing record's
 * client, server and version, operation op on (dir, name), as root (the
 * directory may be anyone's; a made object gets its owner through
 * make_name's attributes). */
static struct tbbt_rec *fix_begin(struct tbbt_fix_out *out, const struct tbbt_rec *r, enum tbbt_op op,
                                  tbbt_id dir, const char *name, size_t len) {
    struct tbbt_rec *x = out->scratch;
    tbbt_rec_clear(x);
    x->client = r->client;
    x->server = r->server;
    x->vers = r->vers;
    x->cred = (struct tbbt_cred){.flavor = TBBT_AUTH_SYS};
    x->op = (uint8_t)op;
    x->flags = TBBT_RF_INSERTED | (r->flags & TBBT_RF_TCP);
    x->status = TBBT_NFS_OK;
    tbbt_rec_set_u64(x, TBBT_F_DIR, dir);
    tbbt_rec_set_str(x, TBBT_F_NAME, name, len);
    return x;
}

/* Emits the removal of what (dir, name) holds, emptying a directory
 * first (depth-first). Returns the records emitted. */
static int remove_name(struct tbbt_fix_out *out, const struct tbbt_rec *r, tbbt_id dir, const char *name,
                       size_t len, unsigned depth) {
    tbbt_id cur;
    if (tbbt_fsmodel_name(out->m, dir, name, len, &cur) != TBBT_NAME_PRESENT || depth > 64) return 0;
    const struct tbbt_fsobj *o = cur ? tbbt_fsmodel_obj(out->m, cur) : NULL;
    int isdir = o && (o->attr.type == TBBT_FT_DIR || o->nchildren);
    int n = 0;
    if (o && o->nchildren) {
        GPtrArray *kids = g_ptr_array_new_with_free_func(g_free);
        for (const struct tbbt_fsdent *d = o->children; d; d = d->child_next)
            g_ptr_array_add(kids, g_strndup(d->name, d->len));
        for (guint i = 0; i < kids->len; i++)
            n += remove_name(out, r, cur, kids->pdata[i], strlen(kids->pdata[i]), depth + 1);
        g_ptr_array_free(kids, TRUE);
    }
    fix_begin(out, r, isdir ? TBBT_OP_RMDIR : TBBT_OP_REMOVE, dir, name, len);
    out->emit(out->ctx, out->scratch);
    return n + 1;
}

/* Emits the removal of every entry of the directory (dir, name) holds. */
static int empty_dir(struct tbbt_fix_out *out, const struct tbbt_rec *r, tbbt_id dir, const char *name,
                     size_t len) {
    tbbt_id cur;
    if (tbbt_fsmodel_name(out->m, dir, name, len, &cur) != TBBT_NAME_PRESENT || !cur) return -1;
    const struct tbbt_fsobj *o = tbbt_fsmodel_obj(out->m, cur);
    if (!o || !o->nchildren) return -1;
    GPtrArray *kids = g_ptr_array_new_with_free_func(g_free);
    for (const struct tbbt_fsdent *d = o->children; d; d = d->child_next)
        g_ptr_array_add(kids, g_strndup(d->name, d->len));
    int n = 0;
    for (guint i = 0; i < kids->len; i++)
        n += remove_name(out, r, cur, kids->pdata[i], strlen(kids->pdata[i]), 1);
    g_ptr_array_free(kids, TRUE);
    return n;
}

#define SYNTH_LINK ".tbbt-link-"
#define SYNTH_DENIED ".tbbt-denied-"

/* Does dent d begin with prefix (a string literal's sizeof)? */
static int has_prefix(const struct tbbt_fsdent *d, const char *prefix, size_t size) {
    return d->len > size - 1 && !memcmp(d->name, prefix, size - 1);
}

/* A name of o that pass 2 made up -- a link it inserted (link_synth), or
 * the name of a file it made because a refused call showed the object
 * and nothing its name (TBBT_FIX_MAKE_DENIED) -- or NULL. */
static const struct tbbt_fsdent *synth_link(const struct tbbt_fsobj *o) {
    for (const struct tbbt_fsdent *d = o->links; d; d = d->link_next)
        if (has_prefix(d, SYNTH_LINK, sizeof(SYNTH_LINK)) ||
            has_prefix(d, SYNTH_DENIED, sizeof(SYNTH_DENIED)))
            return d;
    return NULL;
}

/* Emits the links (as root) of r->obj, a file the trace made, under
 * made-up names ".tbbt-link-ID-K" in the directory of one of its names,
 * until the model holds r->nlink names of it (a later record that shows
 * one of the real names has make_name rename it). Returns the records
 * emitted, or -1. */
static int link_synth(struct tbbt_fix_out *out, const struct tbbt_rec *r) {
    const struct tbbt_fsobj *o = tbbt_rec_has(r, TBBT_F_OBJ) ? tbbt_fsmodel_obj(out->m, r->obj) : NULL;
    if (!o || !o->links || !tbbt_rec_has(r, TBBT_F_NLINK) || (o->flags & TBBT_FSO_GONE)) return -1;
    tbbt_id dir = o->links->dir;
    uint32_t have = 0;
    for (const struct tbbt_fsdent *d = o->links; d; d = d->link_next)
        have++;
    int n = 0;
    for (uint32_t k = have; k < r->nlink && n < 16; k++) {
        char name[64];
        int len = g_snprintf(name, sizeof(name), SYNTH_LINK "%" G_GUINT64_FORMAT "-%u", (guint64)r->obj, k);
        tbbt_id cur = 0;
        if (tbbt_fsmodel_name(out->m, dir, name, (size_t)len, &cur) == TBBT_NAME_PRESENT) continue;
        struct tbbt_rec *x = fix_begin(out, r, TBBT_OP_LINK, dir, name, (size_t)len);
        tbbt_rec_set_u64(x, TBBT_F_OBJ, r->obj);
        out->emit(out->ctx, x);
        n++;
    }
    return n ? n : -1;
}

/* Emits the making of (dir, name) as an object of the given type (NF3
 * type), as newobj (0 = an object the trace never showed); a link when
 * newobj is a file the model holds under another name. */
static int make_name(struct tbbt_fix_out *out, const struct tbbt_rec *r, tbbt_id dir, const char *name,
                     size_t len, uint32_t type, tbbt_id newobj, uint32_t mode) {
    enum tbbt_op op = type == TBBT_FT_DIR                                                    ? TBBT_OP_MKDIR
                      : type == TBBT_FT_LNK                                                  ? TBBT_OP_SYMLINK
                      : (type >= TBBT_FT_BLK && type <= TBBT_FT_FIFO && type != TBBT_FT_LNK) ? TBBT_OP_MKNOD
                                                                                             : TBBT_OP_CREATE;
    if (!type) type = TBBT_FT_REG;
    const struct tbbt_fsobj *o = newobj ? tbbt_fsmodel_obj(out->m, newobj) : NULL;
    const struct tbbt_fsdent *synth = o && !(o->flags & TBBT_FSO_GONE) ? synth_link(o) : NULL;
    if (synth) {
        /* a link the capture lost made up its name: this is the name */
        struct tbbt_rec *x = fix_begin(out, r, TBBT_OP_RENAME, synth->dir, synth->name, synth->len);
        tbbt_rec_set_u64(x, TBBT_F_DIR2, dir);
        tbbt_rec_set_str(x, TBBT_F_NAME2, name, len);
        out->emit(out->ctx, x);
        return 1;
    }
    if (o && o->links && !(o->flags & TBBT_FSO_GONE) && o->attr.type != TBBT_FT_DIR) {
        /* the object lives under another name: this name is a hard link */
        struct tbbt_rec *x = fix_begin(out, r, TBBT_OP_LINK, dir, name, len);
        tbbt_rec_set_u64(x, TBBT_F_OBJ, newobj);
        out->emit(out->ctx, x);
        return 1;
    }
    struct tbbt_rec *x = fix_begin(out, r, op, dir, name, len);
    if (op == TBBT_OP_CREATE) tbbt_rec_set_u64(x, TBBT_F_CREATEHOW, 0);
    if (op == TBBT_OP_SYMLINK) tbbt_rec_set_str(x, TBBT_F_TARGET, "tbbt-inserted", 13);
    if (op == TBBT_OP_MKNOD) tbbt_rec_set_u64(x, TBBT_F_NODETYPE, type);
    /* the mode: the first one a reply showed the model (a make placed
     * before the object's first use has its mode then, not the one a later
     * chmod gave, which r may show), else the one r's reply shows, else the
     * usual one (a symlink's is 0777 on every server) */
    if (o && o->init.type && (o->init.mode & 07777)) mode = o->init.mode & 07777;
    if (!mode) mode = type == TBBT_FT_DIR ? 0755 : type == TBBT_FT_LNK ? 0777 : 0644;
    tbbt_rec_set_u64(x, TBBT_F_SET_MODE, mode);
    if (newobj) tbbt_rec_set_u64(x, TBBT_F_NEWOBJ, newobj);
    tbbt_rec_set_u64(x, TBBT_F_TYPE, type);
    /* the owner: the one r's reply shows for the object, else the one the
     * model knows, else r's caller (a guess pass 2 mends when a later
     * reply shows the owner) */
    int shown = newobj && tbbt_rec_has(r, TBBT_F_UID) && tbbt_rec_has(r, TBBT_F_GID);
    int known = !shown && o && (o->flags & TBBT_FSO_ATTRS);
    if (shown || known || r->cred.flavor == TBBT_AUTH_SYS) {
        tbbt_rec_set_u64(x, TBBT_F_SET_UID, shown ? r->uid : known ? o->attr.uid : r->cred.uid);
        tbbt_rec_set_u64(x, TBBT_F_SET_GID, shown ? r->gid : known ? o->attr.gid : r->cred.gid);
        if (!shown && !known && newobj)
            tbbt_pass2_obj(tbbt_fsmodel_obj_get(out->m, newobj))->flags |= TBBT_PASS2_OWNER_GUESSED;
    }
    out->emit(out->ctx, x);
    return 1;
}

/* Emits the rename (as root) that put r->newobj at (r->dir, r->name),
 * replacing what the model holds there: from a name link_synth made up
 * for it, else from the one other name the model holds the object under
 * -- when it is alive, is no directory where a non-directory is (or the
 * other way round) and what it replaces holds no names. Returns 1, or 0
 * when there is no such name. */
static int move_name(struct tbbt_fix_out *out, const struct tbbt_rec *r) {
    const char *n = tbbt_rec_str(r, r->name);
    const struct tbbt_fsobj *o =
        tbbt_rec_has(r, TBBT_F_NEWOBJ) && r->newobj ? tbbt_fsmodel_obj(out->m, r->newobj) : NULL;
    if (!o || (o->flags & TBBT_FSO_GONE)) return 0;
    const struct tbbt_fsdent *from = synth_link(o); /* a made-up name first */
    if (!from && (!o->links || o->links->link_next)) return 0;
    if (!from) from = o->links;
    if (from->dir == r->dir && from->len == r->name.len && !memcmp(from->name, n, from->len)) return 0;
    tbbt_id cur = 0;
    tbbt_fsmodel_name(out->m, r->dir, n, r->name.len, &cur);
    const struct tbbt_fsobj *c = cur ? tbbt_fsmodel_obj(out->m, cur) : NULL;
    if (c && (c->nchildren || (c->attr.type && o->attr.type &&
                               (c->attr.type == TBBT_FT_DIR) != (o->attr.type == TBBT_FT_DIR))))
        return 0;
    struct tbbt_rec *x = fix_begin(out, r, TBBT_OP_RENAME, from->dir, from->name, from->len);
    tbbt_rec_set_u64(x, TBBT_F_DIR2, r->dir);
    tbbt_rec_set_str(x, TBBT_F_NAME2, n, r->name.len);
    out->emit(out->ctx, x);
    return 1;
}

/* out's scratch record cleared for a setattr beside r, inserted: r's
 * client, server and version, as root (the owner may be anyone). */
static struct tbbt_rec *root_setattr(struct tbbt_fix_out *out, const struct tbbt_rec *r) {
    struct tbbt_rec *x = out->scratch;
    tbbt_rec_clear(x);
    x->client = r->client;
    x->server = r->server;
    x->vers = r->vers;
    x->cred.flavor = TBBT_AUTH_SYS;
    x->op = TBBT_OP_SETATTR;
    x->flags = TBBT_RF_INSERTED | (r->flags & TBBT_RF_TCP);
    x->status = TBBT_NFS_OK;
    return x;
}

/* Emits a setattr (as root) of obj's mode that gives r its traced
 * outcome: the mode r's reply shows if it does, else the model's mode
 * with the bit r needs set (success) or cleared (denied) in the class
 * that applies to r's caller; and the owner and group r's reply shows,
 * where they differ from the model's. */
static int set_mode(struct tbbt_fix_out *out, const struct tbbt_rec *r) {
    struct tbbt_fsobj *o = r->obj ? tbbt_fsmodel_obj(out->m, r->obj) : NULL;
    if (!o) return -1;
    int want_ok = r->status == TBBT_NFS_OK;
    uint32_t need = tbbt_fsmodel_access_need(r);
    if (!need) return -1;
    /* the class of the caller by the owner the reply shows, if it shows
     * one: the model's may be guessed (a lost create) or out of date (a
     * lost chown, which this setattr restores too) */
    struct tbbt_fsattr a = o->attr;
    if (tbbt_rec_has(r, TBBT_F_UID)) a.uid = r->uid;
    if (tbbt_rec_has(r, TBBT_F_GID)) a.gid = r->gid;
    uint32_t bit = need << tbbt_fsmodel_mode_shift(&a, &r->cred);
    uint32_t mode = want_ok ? (o->rmode | bit) : (o->rmode & ~bit);
    if (tbbt_rec_has(r, TBBT_F_MODE) && (((r->mode & bit) != 0) == want_ok)) mode = r->mode & 07777;
    struct tbbt_rec *x = root_setattr(out, r);
    tbbt_rec_set_u64(x, TBBT_F_OBJ, r->obj);
    tbbt_rec_set_u64(x, TBBT_F_SET_MODE, mode);
    /* an owner the reply shows and the model does not: a chown was lost */
    if (tbbt_rec_has(r, TBBT_F_UID) && r->uid != o->attr.uid) tbbt_rec_set_u64(x, TBBT_F_SET_UID, r->uid);
    if (tbbt_rec_has(r, TBBT_F_GID) && r->gid != o->attr.gid) tbbt_rec_set_u64(x, TBBT_F_SET_GID, r->gid);
    out->emit(out->ctx, x);
    return 1;
}

/* Emits a setattr (as root) of the mode of r's directory (the second
 * one of a rename, when the model's mode of the first allows r already)
 * that gives r, a successful change of names in it, its traced outcome:
 * write and search set for the class that applies to r's caller. (A
 * denied one is not judged: which bit a lost chmod took away, and that
 * a later reply shows no other, is a guess; tbbt_oc_traced.) */
static int set_dir_mode(struct tbbt_fix_out *out, const struct tbbt_rec *r) {
    int want_ok = r->status == TBBT_NFS_OK;
    tbbt_id dirs[2] = {tbbt_rec_has(r, TBBT_F_DIR) ? r->dir : 0, tbbt_rec_has(r, TBBT_F_DIR2) ? r->dir2 : 0};
    for (int i = 0; i < 2; i++) {
        const struct tbbt_fsobj *o = dirs[i] ? tbbt_fsmodel_obj(out->m, dirs[i]) : NULL;
        if (!o || !(o->flags & TBBT_FSO_RMODE) || o->attr.type != TBBT_FT_DIR) continue;
        unsigned shift = tbbt_fsmodel_mode_shift(&o->attr, &r->cred);
        int allowed = ((o->rmode >> shift) & 3) == 3;
        if (allowed == want_ok) continue;
        uint32_t mode = want_ok ? o->rmode | (3u << shift) : o->rmode & ~(2u << shift);
        struct tbbt_rec *x = root_setattr(out, r);
        tbbt_rec_set_u64(x, TBBT_F_OBJ, dirs[i]);
        tbbt_rec_set_u64(x, TBBT_F_SET_MODE, mode & 07777);
        out->emit(out->ctx, x);
        return 1;
    }
    return -1;
}

/* Emits a setattr (as root: the object may be anyone's) of r's object to
 * the mode, owner, group and size r's reply attributes carry, whichever
 * are present. */
static int set_attrs(struct tbbt_fix_out *out, const struct tbbt_rec *r) {
    if (!tbbt_rec_has(r, TBBT_F_OBJ) || !r->obj) return -1;
    struct tbbt_rec *x = root_setattr(out, r);
    tbbt_rec_set_u64(x, TBBT_F_OBJ, r->obj);
    if (tbbt_rec_has(r, TBBT_F_MODE)) tbbt_rec_set_u64(x, TBBT_F_SET_MODE, r->mode & 07777);
    if (tbbt_rec_has(r, TBBT_F_UID)) tbbt_rec_set_u64(x, TBBT_F_SET_UID, r->uid);
    if (tbbt_rec_has(r, TBBT_F_GID)) tbbt_rec_set_u64(x, TBBT_F_SET_GID, r->gid);
    if (tbbt_rec_has(r, TBBT_F_SIZE)) tbbt_rec_set_u64(x, TBBT_F_SET_SIZE, r->size);
    if (!(x->has & ~(1ull << TBBT_F_OBJ))) return -1;
    out->emit(out->ctx, x);
    return 1;
}

/* Contract in rules.h. */
int tbbt_fix_run(enum tbbt_fix_act a, const struct tbbt_rec *r, struct tbbt_fix_out *out) {
    const char *n = tbbt_rec_str(r, r->name);
    uint32_t mode = tbbt_rec_has(r, TBBT_F_MODE) ? (r->mode & 07777) : 0;
    int k;
    switch (a) {
    case TBBT_FIX_AGREE: return 0;
    case TBBT_FIX_REMOVE_NAME: k = remove_name(out, r, r->dir, n, r->name.len, 0); return k ? k : -1;
    case TBBT_FIX_MAKE_BY_REPLY: return make_name(out, r, r->dir, n, r->name.len, r->type, r->newobj, mode);
    case TBBT_FIX_REPLACE:
        k = remove_name(out, r, r->dir, n, r->name.len, 0);
        if (k <= 0) return -1;
        return k + make_name(out, r, r->dir, n, r->name.len, r->type, r->newobj, mode);
    case TBBT_FIX_MOVE_BY_REPLY:
        if (move_name(out, r)) return 1;
        k = remove_name(out, r, r->dir, n, r->name.len, 0);
        if (k <= 0) return -1;
        return k + make_name(out, r, r->dir, n, r->name.len, r->type, r->newobj, mode);
    case TBBT_FIX_MAKE_FILE: return make_name(out, r, r->dir, n, r->name.len, TBBT_FT_REG, 0, 0);
    case TBBT_FIX_MAKE_DIR: return make_name(out, r, r->dir, n, r->name.len, TBBT_FT_DIR, 0, 0);
    case TBBT_FIX_REPLACE_DIR:
        k = remove_name(out, r, r->dir, n, r->name.len, 0);
        if (k <= 0) return -1;
        return k + make_name(out, r, r->dir, n, r->name.len, TBBT_FT_DIR, 0, 0);
    case TBBT_FIX_EMPTY_DIR: return empty_dir(out, r, r->dir, n, r->name.len);
    case TBBT_FIX_EMPTY_NAME2: return empty_dir(out, r, r->dir2, tbbt_rec_str(r, r->name2), r->name2.len);
    case TBBT_FIX_SET_MODE: return set_mode(out, r);
    case TBBT_FIX_SET_ATTRS: return set_attrs(out, r);
    case TBBT_FIX_LINK_SYNTH: return link_synth(out, r);
    case TBBT_FIX_SET_DIR_MODE: return set_dir_mode(out, r);
    case TBBT_FIX_MAKE_GONE: {
        const struct tbbt_fsobj *o = r->obj ? tbbt_fsmodel_obj(out->m, r->obj) : NULL;
        if (!r->obj || !tbbt_rec_has(r, TBBT_F_DIR) || (o && (o->links || (o->flags & TBBT_FSO_GONE))))
            return -1;
        char gone[48];
        int len = g_snprintf(gone, sizeof(gone), ".tbbt-gone-%" G_GUINT64_FORMAT, (guint64)r->obj);
        k = make_name(out, r, r->dir, gone, (size_t)len, TBBT_FT_REG, r->obj, 0644);
        return k + remove_name(out, r, r->dir, gone, (size_t)len, 0);
    }
    case TBBT_FIX_MAKE_DENIED: {
        const struct tbbt_fsobj *o = r->obj ? tbbt_fsmodel_obj(out->m, r->obj) : NULL;
        if (!r->obj || !tbbt_rec_has(r, TBBT_F_DIR) || !tbbt_rec_has(r, TBBT_F_UID) ||
            !tbbt_rec_has(r, TBBT_F_GID) || !mode || (o && (o->links || (o->flags & TBBT_FSO_GONE))))
            return -1;
        char denied[48];
        int len = g_snprintf(denied, sizeof(denied), SYNTH_DENIED "%" G_GUINT64_FORMAT, (guint64)r->obj);
        return make_name(out, r, r->dir, denied, (size_t)len, TBBT_FT_REG, r->obj, mode);
    }
    case TBBT_FIX_REMOVE_OBJ: {
        const struct tbbt_fsobj *o = r->obj ? tbbt_fsmodel_obj(out->m, r->obj) : NULL;
        if (!o || !o->links) return -1;
        GArray *dirs = g_array_new(FALSE, FALSE, sizeof(tbbt_id));
        GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
        for (const struct tbbt_fsdent *d = o->links; d; d = d->link_next) {
            g_array_append_val(dirs, d->dir);
            g_ptr_array_add(names, g_strndup(d->name, d->len));
        }
        k = 0;
        for (guint i = 0; i < names->len; i++)
            k += remove_name(out, r, g_array_index(dirs, tbbt_id, i), names->pdata[i],
                             strlen(names->pdata[i]), 0);
        g_array_free(dirs, TRUE);
        g_ptr_array_free(names, TRUE);
        return k ? k : -1;
    }
    default: return -1;
    }
}
