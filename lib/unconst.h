/* unconst.h -- handing a const pointer to a library that only reads it.
 *
 * libtirpc's and libnfs's argument structures (char *name, char *data_val,
 * iovec's void *), glib's containers (gpointer) and g_spawn's argv take
 * pointers without const although they only read through them. This is the
 * one place where const is dropped for them, so that -Wcast-qual keeps
 * guarding every other cast. Never write through the result; code of ours
 * that writes takes a non-const pointer instead. */
#ifndef TBBT_UNCONST_H
#define TBBT_UNCONST_H

/* p without its const (through a union: a cast would warn). */
static inline void *tbbt_unconst(const void *p) {
    union {
        const void *c;
        void *m;
    } u = {.c = p};
    return u.m;
}

#endif
