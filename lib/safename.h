/* safename.h -- which names from a trace may be sent to a filer.
 *
 * A trace comes from somewhere else and may name anything: "..", a name
 * holding '/', an empty name. tbbt-init and tbbt-play work only inside
 * their run directory on the export, so a name that could climb out of
 * it, or that no server could take as one component, is refused before
 * it reaches the wire and counted; whatever the trace says, nothing
 * outside the run directory is created, changed or removed. */
#ifndef TBBT_SAFENAME_H
#define TBBT_SAFENAME_H

#include <stddef.h>

/* Why name (len bytes) must not be sent as one path component, or NULL
 * when it may: empty, ".", "..", holding '/' or a NUL byte. */
const char *tbbt_name_unsafe(const char *name, size_t len);

#endif
