/* interrupt.c -- stopping a command cleanly on SIGINT/SIGTERM (see
 * interrupt.h). The handler only calls unlink, write and _exit, which are
 * async-signal-safe; the list it reads is changed with the signals
 * blocked, so it never sees a half-made entry. */
#include "interrupt.h"
#include "oom.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>

#define MAX_TRACKED 64

static char *tracked[MAX_TRACKED];
static char line[160];
static size_t line_len;

void tbbt_interrupt_remove_all(void) {
    for (int i = 0; i < MAX_TRACKED; i++)
        if (tracked[i]) unlink(tracked[i]);
}

/* The handler: temporary files gone, one line, exit 3. */
static void on_signal(int sig) {
    (void)sig;
    tbbt_interrupt_remove_all();
    if (line_len) {
        ssize_t w = write(STDERR_FILENO, line, line_len);
        (void)w;
    }
    _exit(3);
}

void tbbt_interrupt_on_signal(const char *tool) {
    tbbt_oom_on_failure(tool); /* first: before anything allocates */
    g_snprintf(line, sizeof(line), "%s: interrupted, nothing written\n", tool);
    line_len = strlen(line);
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

/* Runs with SIGINT and SIGTERM blocked: puts path in a free slot (put),
 * or takes away the slot that holds it. */
static void edit(const char *path, int put) {
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigprocmask(SIG_BLOCK, &block, &old);
    for (int i = 0; i < MAX_TRACKED; i++) {
        if (put ? !tracked[i] : tracked[i] && !strcmp(tracked[i], path)) {
            g_free(tracked[i]);
            tracked[i] = put ? g_strdup(path) : NULL;
            break;
        }
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
}

void tbbt_interrupt_track(const char *path) {
    edit(path, 1);
}

void tbbt_interrupt_untrack(const char *path) {
    edit(path, 0);
}
