/* oom.c -- a failed GLib allocation ends the command with one line and
 * exit 1, its temporary files removed (see oom.h). GLib reports the
 * failure through its structured log (g_error in gmem.c); a log writer is
 * the one hook that can be set without allocating, and the handler
 * allocates nothing either: a fixed buffer, write(2), _exit(2). */
#include "oom.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>

#include "interrupt.h"

static char tool_name[64] = "tbbt";

/* GLib's fatal "failed to allocate" error: one line, temporaries gone,
 * exit 1. Every other message goes to GLib's default writer. */
static GLogWriterOutput writer(GLogLevelFlags level, const GLogField *fields, gsize n, gpointer data) {
    const char *msg = NULL;
    for (gsize i = 0; i < n; i++)
        if (!strcmp(fields[i].key, "MESSAGE") && fields[i].length < 0) msg = fields[i].value;
    if ((level & G_LOG_LEVEL_ERROR) && msg && strstr(msg, "failed to allocate")) {
        char line[256];
        const char *at = strstr(msg, "gmem.c");
        g_snprintf(line, sizeof(line), "%s: out of memory (%s)\n", tool_name, at ? at : msg);
        tbbt_interrupt_remove_all();
        ssize_t w = write(STDERR_FILENO, line, strlen(line));
        (void)w;
        _exit(1);
    }
    return g_log_writer_default(level, fields, n, data);
}

void tbbt_oom_on_failure(const char *tool) {
    static int done;
    g_strlcpy(tool_name, tool, sizeof(tool_name));
    if (done++) return; /* GLib takes a writer once */
    /* GLib before 2.76 hands small blocks out of GSlice, whose own
     * failure path aborts without a message through the log: plain malloc
     * instead (what GLib 2.76 and later always do), unless the user chose */
    setenv("G_SLICE", "always-malloc", 0);
    g_log_set_writer_func(writer, NULL, NULL);
}
