/* safename.c -- names a filer must never be sent (safename.h). */
#include "safename.h"

#include <string.h>

/* The one rule for every stage that sends names: a single component,
 * never the directory itself or its parent. */
const char *tbbt_name_unsafe(const char *name, size_t len) {
    if (len == 0) return "empty name";
    if (len == 1 && name[0] == '.') return "the name \".\"";
    if (len == 2 && name[0] == '.' && name[1] == '.') return "the name \"..\" (climbs out)";
    if (memchr(name, '/', len)) return "a name holding '/'";
    if (memchr(name, '\0', len)) return "a name holding a NUL byte";
    return NULL;
}
