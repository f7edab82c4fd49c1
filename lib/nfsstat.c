/* nfsstat.c -- names of the NFS statuses, from the list in nfsstat.h. */
#include "nfsstat.h"

#include <stddef.h>
#include <string.h>

static const struct {
    int code;
    const char *name;
} stat_names[] = {
#define NAME_(name, num) {num, #name},
    TBBT_NFSSTAT_LIST(NAME_)
#undef NAME_
};

#define NSTAT (sizeof(stat_names) / sizeof(stat_names[0]))

/* Contract in nfsstat.h. A linear scan: 30 entries, called for reports. */
const char *tbbt_nfsstat_name(int status) {
    for (size_t i = 0; i < NSTAT; i++)
        if (stat_names[i].code == status) return stat_names[i].name;
    return NULL;
}

/* Contract in nfsstat.h. */
int tbbt_nfsstat_by_name(const char *name) {
    for (size_t i = 0; i < NSTAT; i++)
        if (strcmp(stat_names[i].name, name) == 0) return stat_names[i].code;
    return -1;
}
