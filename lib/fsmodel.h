/* fsmodel.h -- the in-memory file-system model: objects by TBBT-ID, and
 * what is known of every name in every directory.
 *
 * One model serves pass 2 (the pre-play that predicts replay statuses),
 * pass 3 (the hierarchy map: initial objects, their names and paths) and
 * the player's simulator. It holds:
 *   - objects keyed by TBBT-ID: type, mode, uid, gid, size, link count,
 *     symlink target, whether the object existed before the trace started
 *     (and its attributes then) or was made by the trace, and whether it
 *     is gone (its last name removed);
 *   - directory entries keyed by (directory ID, name), each in one of three
 *     states: present (naming a known object, or an object not yet known),
 *     absent, or -- when there is no entry -- unknown. Every entry also
 *     remembers what the trace taught about it before the trace changed
 *     it: its initial state (present with which object, absent, unknown).
 *
 * Learning versus changing. A record that reads a name the model does not
 * know teaches the initial state (tbbt_fsmodel_learn_*): the name existed
 * (or did not) before the trace started. A record whose operation the
 * server performed changes the state (tbbt_fsmodel_apply): the model is
 * updated exactly as the server was. tbbt_fsmodel_predict() says which
 * status a replay of a record will get from the state the model knows.
 *
 * Memory: one object per TBBT-ID the trace names and one entry per name it
 * names, never per record; each object and entry also carries the bytes
 * of its caller's extension (tbbt_fsmodel_new_ext): the stage that owns
 * the model keeps its own per-object state there, which the model stores
 * and copies but never reads. Ownership: the model owns every object and
 * entry; pointers it returns stay valid until the next call that changes
 * the model (apply, learn, link, unlink) or tbbt_fsmodel_free(). */
#ifndef TBBT_FSMODEL_H
#define TBBT_FSMODEL_H

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

#include "nfsstat.h"
#include "record.h"
#include "unconst.h"

/* Permission prediction: read, write and truncate on a regular file by a
 * caller who is neither root nor the owner are judged by the group or
 * other bits of rmode; every other case is left to the server
 * (TBBT_PREDICT_ANY). */

/* Prediction "the model does not know": any status is consistent. */
#define TBBT_PREDICT_ANY (-2)

/* What the model knows of one name. */
enum tbbt_name_state {
    TBBT_NAME_UNKNOWN = 0,
    TBBT_NAME_PRESENT = 1,
    TBBT_NAME_ABSENT = 2,
};

/* Object flags. */
enum {
    TBBT_FSO_INITIAL = 1u << 0,    /* existed before the trace started */
    TBBT_FSO_CREATED = 1u << 1,    /* made by a record of the trace */
    TBBT_FSO_GONE = 1u << 2,       /* its last name was removed: a replay gets STALE */
    TBBT_FSO_ATTRS = 1u << 3,      /* current attributes known (type, mode, uid, gid, size) */
    TBBT_FSO_INIT_ATTRS = 1u << 4, /* init holds the attributes before the trace changed them */
    TBBT_FSO_CHANGED = 1u << 5,    /* a record changed its size or attributes */
    TBBT_FSO_RMODE = 1u << 6,      /* rmode known */
    TBBT_FSO_MADE_EMPTY = 1u << 8, /* a mkdir of the trace made it (empty), seen by no record before */
    TBBT_FSO_INIT_NAMES = 1u << 9, /* directories: a name in it was learnt as there before the trace */
};

/* Attributes of an object. 28 bytes, 4-aligned: every model object holds
 * two, and 8-alignment would pad each by 4 (issue 27: memory per object). */
struct tbbt_fsattr {
    uint32_t type, mode, uid, gid, nlink;
    uint64_t size;
} __attribute__((packed, aligned(4)));

struct tbbt_fsdent;

/* One file-system object. */
struct tbbt_fsobj {
    tbbt_id id;
    uint32_t flags; /* TBBT_FSO_* */
    /* Permission bits as a replay has them (valid if TBBT_FSO_RMODE): the
     * mode first seen, then only what records set (setattr, create). The
     * traced attr.mode follows every reply instead, so a lost chmod shows
     * as a difference between the two. */
    uint32_t rmode;
    struct tbbt_fsattr attr;      /* current (valid if TBBT_FSO_ATTRS; type may be known alone) */
    struct tbbt_fsattr init;      /* before the trace (valid if TBBT_FSO_INIT_ATTRS) */
    uint32_t nchildren;           /* directories: number of present entries in it */
    char *target;                 /* symlink target (NUL-terminated, owned), or NULL */
    struct tbbt_fsdent *links;    /* present entries naming it (through link_next) */
    struct tbbt_fsdent *children; /* directories: present entries in it (through child_next) */
    tbbt_id parent;               /* the directory of its latest name (kept when the name goes) */
    /* The caller's extension (tbbt_fsobj_ext): obj_ext bytes of
     * tbbt_fsmodel_new_ext, zeroed when the object is made, copied by
     * tbbt_fsmodel_clone, never read by the model. */
    uint64_t ext[];
};

/* One (directory, name) entry the model knows. */
struct tbbt_fsdent {
    tbbt_id dir;
    uint8_t state;                               /* TBBT_NAME_PRESENT or TBBT_NAME_ABSENT */
    uint8_t init;                                /* initial state: TBBT_NAME_UNKNOWN, _PRESENT, _ABSENT */
    uint8_t made_dir;                            /* a mkdir made it, its object not known yet */
    uint32_t len;                                /* of name (here, in the padding after the flags) */
    tbbt_id obj;                                 /* present: the object it names, 0 = not known yet */
    tbbt_id init_obj;                            /* init present: the object it named, 0 = not known */
    struct tbbt_fsdent *link_prev, *link_next;   /* entries naming the same object */
    struct tbbt_fsdent *child_prev, *child_next; /* present entries of the same directory */
    char name[]; /* len bytes, then a NUL; then, 8-aligned, the caller's extension (tbbt_fsdent_ext) */
};

/* The caller's extension of object o: the obj_ext bytes the model was made
 * with (tbbt_fsmodel_new_ext), 8-aligned. The model keeps them for the
 * stage that owns the model (pass 2, pass 3), which gives them its own
 * type; the model never reads them, so they are writable even through a
 * const object. */
static inline void *tbbt_fsobj_ext(const struct tbbt_fsobj *o) {
    return tbbt_unconst(o->ext);
}

/* The caller's extension of entry d (dent_ext bytes, 8-aligned, after the
 * name): as tbbt_fsobj_ext. */
static inline void *tbbt_fsdent_ext(const struct tbbt_fsdent *d) {
    size_t at = (offsetof(struct tbbt_fsdent, name) + d->len + 1 + 7) & ~(size_t)7;
    return (char *)tbbt_unconst(d) + at;
}

struct tbbt_fsmodel;

/* Model-wide counts. */
struct tbbt_fsmodel_stats {
    uint64_t objects;      /* objects held */
    uint64_t initial;      /* of which existed before the trace */
    uint64_t created;      /* of which made by the trace */
    uint64_t gone;         /* of which removed */
    uint64_t entries;      /* entries held (present and absent) */
    uint64_t present;      /* of which present */
    uint64_t init_present; /* entries known to have existed before the trace */
};

/* Creates an empty model (every name unknown) whose objects carry obj_ext
 * bytes and whose entries dent_ext bytes of the caller's extension
 * (tbbt_fsobj_ext, tbbt_fsdent_ext), zeroed. Free with tbbt_fsmodel_free. */
struct tbbt_fsmodel *tbbt_fsmodel_new_ext(size_t obj_ext, size_t dent_ext);

/* Creates an empty model with no caller's extension. */
struct tbbt_fsmodel *tbbt_fsmodel_new(void);

/* Frees the model, its objects and entries. NULL is allowed. */
void tbbt_fsmodel_free(struct tbbt_fsmodel *m);

/* Returns a copy of m (objects, entries, their lists), owned by the
 * caller (free with tbbt_fsmodel_free): a trial that must not change m
 * applies records to the copy. Costs a pass over the whole model. */
struct tbbt_fsmodel *tbbt_fsmodel_clone(const struct tbbt_fsmodel *m);

/* Returns the object with this ID, or NULL if the model has never seen it. */
struct tbbt_fsobj *tbbt_fsmodel_obj(const struct tbbt_fsmodel *m, tbbt_id id);

/* Returns the object with this ID, adding it (nothing known, not initial)
 * if it is new. id must not be 0. */
struct tbbt_fsobj *tbbt_fsmodel_obj_get(struct tbbt_fsmodel *m, tbbt_id id);

/* Was directory dir made by a mkdir of the trace (and not seen before
 * it; a name a rename or a late-bound entry gave it does not count)?
 * Such a directory began empty, so a name in it the model has no
 * entry for is absent, not unknown: tbbt_fsmodel_name() says so, and a
 * name first met in it was made during the trace (by a call the capture
 * lost, when no record made it), never there at the start. */
int tbbt_fsmodel_dir_fresh(const struct tbbt_fsmodel *m, tbbt_id dir);

/* Can a mkdir that makes object id now have made it empty: it was not
 * there before the trace, and no name in it was learnt as there before
 * the trace? (An id the model never met: yes.) Asked of the mkdirs whose
 * object comes late: pass 2's corrective and lost-reply ones, and the
 * model's own binding of a lost-reply mkdir's entry. */
int tbbt_fsmodel_may_begin_empty(const struct tbbt_fsmodel *m, tbbt_id id);

/* Is entry e of listing r (entries of directory r->obj) a name, other than
 * "." and "..", that the model has no entry for, and that cannot have
 * been there at the start: the directory is fresh, or the entry shows a
 * non-directory object the trace made? Such a name was made by a call the
 * capture lost. */
int tbbt_fsmodel_entry_unmet(const struct tbbt_fsmodel *m, const struct tbbt_rec *r,
                             const struct tbbt_dirent *e);

/* Does listing r show any such name (tbbt_fsmodel_entry_unmet)? */
int tbbt_fsmodel_listing_unmet(const struct tbbt_fsmodel *m, const struct tbbt_rec *r);

/* Returns the entry for (dir, name), or NULL when the name is unknown. */
struct tbbt_fsdent *tbbt_fsmodel_dent(const struct tbbt_fsmodel *m, tbbt_id dir, const char *name,
                                      size_t len);

/* Does rename r say where to: a target directory (not 0) and a name?
 * One without (a hand-edited record) removes its source name and links
 * the object nowhere. */
static inline int tbbt_fsmodel_rename_whole(const struct tbbt_rec *r) {
    return tbbt_rec_has(r, TBBT_F_DIR2) && tbbt_rec_has(r, TBBT_F_NAME2) && r->dir2 != 0;
}

/* What the model knows of (dir, name); *obj (may be NULL) gets the object
 * it names when present (0 when not known). */
enum tbbt_name_state tbbt_fsmodel_name(const struct tbbt_fsmodel *m, tbbt_id dir, const char *name,
                                       size_t len, tbbt_id *obj);

/* Learns that (dir, name) names obj (0 = an object not known yet). On an
 * unknown name this is the initial state (the name existed before the
 * trace, and so did obj unless the trace created it); on a present name
 * with no known object it binds obj. Returns the entry. */
struct tbbt_fsdent *tbbt_fsmodel_learn_present(struct tbbt_fsmodel *m, tbbt_id dir, const char *name,
                                               size_t len, tbbt_id obj);

/* Learns that (dir, name) does not exist; on an unknown name this is the
 * initial state. Returns the entry. */
struct tbbt_fsdent *tbbt_fsmodel_learn_absent(struct tbbt_fsmodel *m, tbbt_id dir, const char *name,
                                              size_t len);

/* Learns the attributes a reply showed for an object (rec's type, mode,
 * uid, gid, nlink, size, whichever are present). An object the trace did
 * not create and has not changed gets them as its initial attributes too
 * (it is then initial). Current attributes are overwritten: they are what
 * the server said. */
void tbbt_fsmodel_learn_attrs(struct tbbt_fsmodel *m, tbbt_id id, const struct tbbt_rec *r);

/* The trace made a new name: (dir, name) now names obj (0 = unknown
 * object), whatever it named before (that object loses a link). obj, if
 * known, is marked created when it has no links yet and is not initial.
 * Returns the entry. */
struct tbbt_fsdent *tbbt_fsmodel_link(struct tbbt_fsmodel *m, tbbt_id dir, const char *name, size_t len,
                                      tbbt_id obj, uint32_t type);

/* The trace removed (dir, name): the entry becomes absent; the object it
 * named loses a link and is gone when it has none left (a directory is
 * gone at once). Returns the object removed (0 if unknown). */
tbbt_id tbbt_fsmodel_unlink(struct tbbt_fsmodel *m, tbbt_id dir, const char *name, size_t len);

/* The status a replay of r will get from the state the model knows:
 * TBBT_NFS_OK, an NFS error (TBBT_NFSERR_*), or TBBT_PREDICT_ANY when the
 * model does not know enough (an unknown name, an object never seen). A
 * lookup of an unknown name whose reply shows a non-directory object the
 * trace made is NOENT: that name cannot have existed before the trace.
 * Does not change the model. */
int tbbt_fsmodel_predict(const struct tbbt_fsmodel *m, const struct tbbt_rec *r);

/* Where the permission bits of caller c on an object with attributes a
 * stand in its mode: 6 (owner), 3 (group: its gid or one of its
 * supplementary gids), 0 (other). */
unsigned tbbt_fsmodel_mode_shift(const struct tbbt_fsattr *a, const struct tbbt_cred *c);

/* The permission bit (4 read, 2 write) that r needs on its object from a
 * caller who is not its owner, or 0 when r is not judged by the mode
 * bits: a read, a write, and a setattr that only truncates or extends
 * (its times, if any, set to the server's clock). */
uint32_t tbbt_fsmodel_access_need(const struct tbbt_rec *r);

/* Permission part of the prediction for r: TBBT_NFS_OK or
 * TBBT_NFSERR_ACCES when the model judges the caller's read or write
 * permission (see above), TBBT_PREDICT_ANY otherwise. */
int tbbt_fsmodel_predict_access(const struct tbbt_fsmodel *m, const struct tbbt_rec *r);

/* Directory permission for r, an operation that changes the entries of
 * its directory (create, mkdir, symlink, mknod, link, remove, rmdir,
 * rename: both directories): TBBT_NFSERR_ACCES when the mode bits the
 * model knows deny its caller (not root) write and search permission on
 * one of them, TBBT_NFS_OK when they allow it, TBBT_PREDICT_ANY
 * otherwise. Existence errors come first on a server, so this only
 * turns a predicted success into ACCES. */
int tbbt_fsmodel_predict_dir_access(const struct tbbt_fsmodel *m, const struct tbbt_rec *r);

/* Ownership for r, a SETATTR: TBBT_NFSERR_PERM when it changes what only
 * the owner may (the mode, the group, times set to a given value) or only
 * root may (the owner) and its caller (AUTH_SYS, not root) is not the
 * owner the model knows for the object, or gives it a group the caller is
 * not a member of (by its credential); TBBT_NFS_OK when the caller may;
 * TBBT_PREDICT_ANY otherwise (not a SETATTR of those, owner unknown). */
int tbbt_fsmodel_predict_owner(const struct tbbt_fsmodel *m, const struct tbbt_rec *r);

/* Applies r to the model as the server did when r got status (the traced
 * one, or the one assumed for a lost reply): on success the names, links,
 * sizes and attributes change as the operation changes them; on failure
 * the failure teaches what it implies (a lookup's NOENT: the name is
 * absent; STALE: the object is gone). Unknown names the record reads are
 * learnt as initial state. Reply attributes are learnt. */
void tbbt_fsmodel_apply(struct tbbt_fsmodel *m, const struct tbbt_rec *r, int status);

/* Starts loading the table slots r's name and objects will be looked
 * up in (a hint for a caller that applies r a little later). */
void tbbt_fsmodel_prefetch(const struct tbbt_fsmodel *m, const struct tbbt_rec *r);

/* Calls cb for every object the model holds (any order). */
void tbbt_fsmodel_foreach_obj(const struct tbbt_fsmodel *m, void (*cb)(void *ctx, const struct tbbt_fsobj *o),
                              void *ctx);

/* Calls cb for every name known to have existed before the trace started,
 * with the object it named then (0 when not known): the initial image. */
void tbbt_fsmodel_foreach_initial_name(const struct tbbt_fsmodel *m,
                                       void (*cb)(void *ctx, const struct tbbt_fsdent *d), void *ctx);

/* Appends to out the current path of id: its names up the chain of
 * directories the model knows ("a/b/c"), from the topmost directory it
 * knows, whose ID is returned (id itself when it has no known name). The
 * first link of each object is followed; a cycle stops the walk. */
tbbt_id tbbt_fsmodel_path(const struct tbbt_fsmodel *m, tbbt_id id, GString *out);

/* Current counts. */
void tbbt_fsmodel_stats(const struct tbbt_fsmodel *m, struct tbbt_fsmodel_stats *s);

/* Name of a type ("reg", "dir", "lnk", ...), "none" for 0. */
const char *tbbt_fstype_name(uint32_t type);

#endif
