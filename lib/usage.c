/* usage.c -- the usage error every tbbt command prints (see usage.h). */
#include "usage.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Message, synopsis, pointer to --help; exit 2. Written as one block with
 * one fputs so that concurrent writers (MPI ranks sharing a terminal)
 * do not interleave their lines. */
void tbbt_usage_error(const char *tool, const char *synopsis, const char *fmt, ...) {
    GString *s = g_string_new(NULL);
    g_string_append_printf(s, "%s: ", tool);
    va_list ap;
    va_start(ap, fmt);
    g_string_append_vprintf(s, fmt, ap);
    va_end(ap);
    while (s->len && s->str[s->len - 1] == '\n') /* one line, whatever the caller's message ended with */
        g_string_truncate(s, s->len - 1);
    g_string_append_c(s, '\n');
    const char *p = synopsis;
    for (int first = 1; p && *p; first = 0) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        g_string_append_printf(s, "%s%.*s\n", first ? "Usage: " : "   or: ", (int)n, p);
        p = nl ? nl + 1 : NULL;
    }
    g_string_append_printf(s, "Try '%s --help' for the options.\n", tool);
    fflush(stdout);
    fputs(s->str, stderr);
    fflush(stderr);
    g_string_free(s, TRUE);
    exit(TBBT_EXIT_USAGE);
}

/* GLib's parse, its error made a usage error. GLib prints --help itself
 * and exits 0, so only the errors come back here. */
void tbbt_usage_parse(GOptionContext *ctx, const char *tool, const char *synopsis, int *argc, char ***argv) {
    GError *e = NULL;
    gboolean ok = g_option_context_parse(ctx, argc, argv, &e);
    g_option_context_free(ctx);
    if (ok) return;
    char *msg = g_strdup(e ? e->message : "cannot parse the command line");
    if (e) g_error_free(e);
    tbbt_usage_error(tool, synopsis, "%s", msg); /* exits; msg goes with the process */
}
