/* fhmap.h -- file handles to TBBT-IDs.
 *
 * Every handle seen in a capture becomes a stable integer naming one file
 * system object. One object can appear under several handles (NFSv2 and v3
 * handles of the same file, a server that changed its handle format): two
 * handles whose attributes carry the same fsid and fileid are the same
 * object, but only while it lives. The map follows names (dir, name) ->
 * object from lookups, creates, links, renames and removes, so that when
 * the last name of an object goes away the object is retired: its handles
 * and fileid are forgotten, and a fileid the server reuses later names a
 * new object. Memory is in proportion to the objects, not the trace. */
#ifndef TBBT_FHMAP_H
#define TBBT_FHMAP_H

#include <stddef.h>
#include <stdint.h>

#include "record.h"

struct tbbt_fhmap_stats {
    uint64_t objects;   /* IDs handed out */
    uint64_t live;      /* objects currently known */
    uint64_t handles;   /* distinct live handles */
    uint64_t aliases;   /* handles joined to an existing object by fileid */
    uint64_t conflicts; /* two IDs already in use found to share a fileid */
    uint64_t retired;   /* objects whose last name was removed */
    uint64_t reborn;    /* live objects found dead: a new object took their handle or fileid */
};

struct tbbt_fhmap;

struct tbbt_fhmap *tbbt_fhmap_new(void);
void tbbt_fhmap_free(struct tbbt_fhmap *m);

/* Returns the ID of handle fh[0..len). A handle never seen (or seen only
 * before its object was retired) gets a new ID and *fresh is set to 1, else
 * *fresh is 0. */
tbbt_id tbbt_fhmap_lookup(struct tbbt_fhmap *m, const uint8_t *fh, size_t len, int *fresh);

/* For a run of lookups (a listing's entries): the hash of handle fh, to
 * give to tbbt_fhmap_prefetch and tbbt_fhmap_lookup_hashed. */
uint64_t tbbt_fhmap_hash(const uint8_t *fh, size_t len);

/* A hint, without effect on results: starts loading what a lookup of a
 * handle of hash h will read. Stage 1 loads its table slot; stage 2, once
 * that slot has had time to arrive, loads the object it points to. */
void tbbt_fhmap_prefetch(const struct tbbt_fhmap *m, uint64_t h, int stage);

/* tbbt_fhmap_lookup with h = tbbt_fhmap_hash(fh, len) already computed. */
tbbt_id tbbt_fhmap_lookup_hashed(struct tbbt_fhmap *m, const uint8_t *fh, size_t len, uint64_t h, int *fresh);

/* What a reply's attributes show of an object that tells it from another
 * object holding its inode later: its type and its owner. */
struct tbbt_fhmap_shown {
    uint32_t type; /* NF3 type, 0: not shown */
    int has_owner; /* then uid and gid were shown */
    uint32_t uid, gid;
};

/* Teaches that the object behind handle fh, currently mapped to id, has
 * (fsid, fileid) and the type and owner in s. If another live ID already
 * has that identity and id was fresh (used by no record yet but the
 * current one), the handle is re-pointed to that ID, which is returned;
 * otherwise id is returned and the identity recorded. A live ID with the
 * identity but another type or another owner than s shows is dead (its
 * inode was reused and the removal not seen): it is retired and id takes
 * the identity. The type s shows is kept for the object that has the
 * identity, when it had none. */
tbbt_id tbbt_fhmap_identify(struct tbbt_fhmap *m, const uint8_t *fh, size_t len, tbbt_id id, int fresh,
                            uint64_t fsid, uint64_t fileid, const struct tbbt_fhmap_shown *s);

/* The live object with identity (fsid, fileid), or 0. */
tbbt_id tbbt_fhmap_by_fileid(struct tbbt_fhmap *m, uint64_t fsid, uint64_t fileid);

/* Sets the capture time of the message whose handles are mapped next: a
 * new object remembers when it was first shown. */
void tbbt_fhmap_set_clock(struct tbbt_fhmap *m, int64_t ns);

/* A successful create-type reply showed a brand-new object under handle fh
 * (looked up as id, fresh as lookup said) with (fsid, fileid) when has_fid.
 * Any live object holding that handle or that identity is dead -- the
 * server reused its inode, and the reply that removed it may come later
 * (another client's remove answered after this create) -- and is retired;
 * except an object the handle names that was first shown by a message
 * sent after this reply (the clock is the reply's time): a gap in the
 * reply's TCP stream held the reply back while the client went on using
 * the handle, so that object is the one made.
 * Returns the new object's ID. */
tbbt_id tbbt_fhmap_born(struct tbbt_fhmap *m, const uint8_t *fh, size_t len, tbbt_id id, int fresh,
                        int has_fid, uint64_t fsid, uint64_t fileid);

/* 1 when live object id has a single link (as its attributes last said)
 * and that link is known to be a name other than (dir, name). */
int tbbt_fhmap_named_elsewhere(struct tbbt_fhmap *m, tbbt_id id, tbbt_id dir, const char *name, size_t len);

/* The owner last seen for live object id (*uid, *gid); 0 when not known. */
int tbbt_fhmap_owner(struct tbbt_fhmap *m, tbbt_id id, uint32_t *uid, uint32_t *gid);

/* The NF3 type last seen for a live object, 0 when unknown or not live. */
uint32_t tbbt_fhmap_type(struct tbbt_fhmap *m, tbbt_id id);

/* Records the object's type, owner (when s has one) and link count as the
 * latest attributes showed them. */
void tbbt_fhmap_set_attr(struct tbbt_fhmap *m, tbbt_id id, const struct tbbt_fhmap_shown *s, uint32_t nlink);

/* Binds (dir, name) to obj, replacing any previous binding. */
void tbbt_fhmap_bind(struct tbbt_fhmap *m, tbbt_id dir, const char *name, size_t len, tbbt_id obj);

/* Returns the object bound to (dir, name), or 0 if unknown. */
tbbt_id tbbt_fhmap_resolve(struct tbbt_fhmap *m, tbbt_id dir, const char *name, size_t len);

/* Removes the binding (dir, name); when it was the object's last link (a
 * directory, or a file whose link count last seen was 1 or unknown),
 * retires the object. Returns the object that was bound, or 0. */
tbbt_id tbbt_fhmap_unlink(struct tbbt_fhmap *m, tbbt_id dir, const char *name, size_t len);

/* Moves the binding (dir, name) to (dir2, name2), retiring an object that
 * the move replaced when that was its last link. */
void tbbt_fhmap_rename(struct tbbt_fhmap *m, tbbt_id dir, const char *name, size_t len, tbbt_id dir2,
                       const char *name2, size_t len2);

/* The ID handle fh named when its object was retired, among the handles
 * of the last TBBT_FHMAP_GRAVES retired (a ring: memory is fixed), or 0.
 * A call that still uses such a handle and is answered STALE names that
 * dead object, not a new one. */
#define TBBT_FHMAP_GRAVES 65536
tbbt_id tbbt_fhmap_dead(const struct tbbt_fhmap *m, const uint8_t *fh, size_t len);

/* The same, only for an object retired by a message (the clock then) at
 * or after time t: a reply to a call sent at t, before the remove that
 * retired the object was answered, may show it alive (the server ran the
 * call first), and names that dead object, not a new one. */
tbbt_id tbbt_fhmap_dead_since(const struct tbbt_fhmap *m, const uint8_t *fh, size_t len, int64_t t);

/* 1 when id names a live object (not retired, nor forgotten by
 * tbbt_fhmap_unborn: pipelined calls that used a dead handle share the
 * object the first one's lookup made, which its STALE reply forgot). */
int tbbt_fhmap_live(const struct tbbt_fhmap *m, tbbt_id id);

/* Forgets live object id, which a lookup made fresh for a handle that
 * turned out dead (tbbt_fhmap_dead): it names nothing, and its ID is not
 * handed out again. */
void tbbt_fhmap_unborn(struct tbbt_fhmap *m, tbbt_id id);

const struct tbbt_fhmap_stats *tbbt_fhmap_stats(const struct tbbt_fhmap *m);

#endif
