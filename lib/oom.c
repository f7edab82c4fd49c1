/* oom.c -- a failed GLib allocation ends the command with one line and
 * exit 1, its temporary files removed (see oom.h). GLib reports the
 * failure through its structured log (g_error in gmem.c); a log writer is
 * the one hook that can be set without allocating, and the handler
 * allocates nothing either: a fixed buffer, write(2), _exit(2). GLib's
 * thread primitives have no such hook (below): they are made at once,
 * where an abort can only be theirs. */
#include "oom.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>

#include "interrupt.h"

static char tool_name[64] = "tbbt";
static int err_fd = STDERR_FILENO;              /* where the line goes (the saved stderr while warming) */
static const char warm_msg[] = "tbbt-oom-warm"; /* the log messages warm() sends itself */

/* Writes "TOOL: out of memory (WHAT)", removes the temporaries, exits 1. */
static void die(const char *what) {
    char line[256];
    g_snprintf(line, sizeof(line), "%s: out of memory (%s)\n", tool_name, what);
    tbbt_interrupt_remove_all();
    ssize_t w = write(err_fd, line, strlen(line));
    (void)w;
    _exit(1);
}

/* GLib's fatal "failed to allocate" error: one line, temporaries gone,
 * exit 1. Every other message goes to GLib's default writer. */
static GLogWriterOutput writer(GLogLevelFlags level, const GLogField *fields, gsize n, gpointer data) {
    const char *msg = NULL;
    for (gsize i = 0; i < n; i++)
        if (!strcmp(fields[i].key, "MESSAGE") && fields[i].length < 0) msg = fields[i].value;
    if (msg && !strcmp(msg, warm_msg)) return G_LOG_WRITER_HANDLED;
    if ((level & G_LOG_LEVEL_ERROR) && msg && strstr(msg, "failed to allocate")) {
        const char *at = strstr(msg, "gmem.c");
        die(at ? at : msg);
    }
    return g_log_writer_default(level, fields, n, data);
}

/* SIGABRT while warming: only GLib's thread primitives abort there. */
static void warm_abort(int sig) {
    (void)sig;
    die("GLib's thread primitives");
}

/* GLib's thread primitives (GPrivate, GRWLock: gthread-posix.c) malloc
 * their pthread object on first use, and a refusal there aborts
 * (g_thread_abort: a message, abort()) with no hook. The ones tbbt meets
 * are made here, first thing in main, so that no refusal later can reach
 * them: the charset caches (option parsing, g_strerror, GError messages
 * naming a file), the thread table (g_thread_new), GError's domain lock,
 * and the log's own depth counters (the path of the out-of-memory error
 * itself, and g_log's). A refusal here is said in one line too: GLib's own message
 * goes to /dev/null, a SIGABRT handler says ours and exits 1. */
static void warm(void) {
    struct sigaction sa, old;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = warm_abort;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGABRT, &sa, &old);
    int saved = dup(STDERR_FILENO), null = open("/dev/null", O_WRONLY);
    if (saved >= 0 && null >= 0) {
        err_fd = saved;
        dup2(null, STDERR_FILENO);
    }
    g_get_charset(NULL);
    g_get_filename_charsets(NULL);
    g_thread_self();
    g_error_free(g_error_new_literal(G_FILE_ERROR, G_FILE_ERROR_FAILED, ""));
    GLogField f = {"MESSAGE", warm_msg, -1};
    g_log_structured_array(G_LOG_LEVEL_DEBUG, &f, 1);
    g_log(NULL, G_LOG_LEVEL_DEBUG, "%s", warm_msg);
    if (saved >= 0 && null >= 0) dup2(saved, STDERR_FILENO);
    if (saved >= 0) close(saved);
    if (null >= 0) close(null);
    err_fd = STDERR_FILENO;
    sigaction(SIGABRT, &old, NULL);
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
    warm();
}
