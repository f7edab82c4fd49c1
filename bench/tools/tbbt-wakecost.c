/* tbbt-wakecost: what one thread hand-off costs on this machine, the
 * figure bench/play.sh prints beside the player's CPU per request.
 *
 *   tbbt-wakecost [--round-trips N] [--json FILE]
 *
 * A hand-off is what tbbt-play's receive thread does to its send thread,
 * and what a reply does to any client asleep in poll(): one thread wakes
 * the other (FUTEX_WAKE) and sleeps (FUTEX_WAIT) until woken back. Two
 * threads pass the turn N times each way, first both pinned to one CPU,
 * then pinned to two different CPUs (the first two this process may use;
 * skipped with one). Printed per hand-off: wall time and the process's
 * CPU time (getrusage: user + system of both threads), and the voluntary
 * context switches. Where a sleep that another CPU ends costs several
 * times one the same CPU ends (a virtual machine, whose idle CPU halts
 * and must be woken by an interrupt), a design with more sleeping threads
 * pays for each of them.
 *
 * --json writes {"same_cpu": FIG, "two_cpus": FIG or null} with FIG =
 * {"handoffs", "wall_us", "cpu_us", "vcsw"} (per hand-off but handoffs
 * and vcsw). Exit: 0, 1 (cannot pin or write FILE), 2 (bad usage). */
#define _GNU_SOURCE /* syscall, CPU_SET, pthread_setaffinity_np */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <glib.h>

#include "outfile.h"
#include "clock.h"

struct wc_opts {
    gint round_trips;
    gchar *json;
};

static struct wc_opts opt = {.round_trips = 100000};

/* The options, declared once: parsing and --help both come from here. */
static GOptionEntry wc_entries[] = {
    {"round-trips", 'n', 0, G_OPTION_ARG_INT, &opt.round_trips, "Turns passed each way (default 100000)",
     "N"},
    {"json", 'j', 0, G_OPTION_ARG_FILENAME, &opt.json, "Write the figures as one JSON document", "FILE"},
    {NULL, 0, 0, 0, NULL, NULL, NULL}};

/* One measurement: per hand-off but the counts. */
struct wc_fig {
    long handoffs, vcsw;
    double wall_us, cpu_us;
};

/* The turn: 1 the second thread's, 0 the first's; also the futex word
 * (its address goes to syscall as is: an _Atomic int is an int). */
static _Atomic int turn;

/* Gives the turn away and wakes its taker (one syscall, as the player's
 * tbbt_wake_sleeper when the sleeper is asleep). */
static void give(int to) {
    atomic_store(&turn, to);
    syscall(SYS_futex, &turn, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* Sleeps until the turn is mine (a futex wait returns at once when the
 * word changed already). */
static void await(int mine) {
    while (atomic_load(&turn) != mine)
        syscall(SYS_futex, &turn, FUTEX_WAIT_PRIVATE, !mine, NULL, NULL, 0);
}

static int pin(pthread_t t, int cpu) {
    cpu_set_t cs;
    CPU_ZERO(&cs);
    CPU_SET(cpu, &cs);
    return pthread_setaffinity_np(t, sizeof cs, &cs);
}

/* The partner thread's part: its CPU, the hand-offs, how its pinning went. */
struct partner {
    int cpu, round_trips, pin_rc;
};

/* The second thread: pins itself, gives the first the turn to say so,
 * then takes the turn and gives it back, round_trips times (none when it
 * could not be pinned). */
static void *partner(void *arg) {
    struct partner *p = arg;
    await(1);
    p->pin_rc = pin(pthread_self(), p->cpu);
    give(0);
    for (int i = 0; p->pin_rc == 0 && i < p->round_trips; i++) {
        await(1);
        give(0);
    }
    return NULL;
}

static double cpu_s(long *vcsw) {
    struct rusage r;
    getrusage(RUSAGE_SELF, &r);
    *vcsw = r.ru_nvcsw;
    return (double)r.ru_utime.tv_sec + r.ru_utime.tv_usec / 1e6 + r.ru_stime.tv_sec +
           r.ru_stime.tv_usec / 1e6;
}

/* Passes the turn n times each way, this thread on cpu a, its partner on
 * cpu b. Returns 0, or -1 (errno set) when a thread cannot be pinned or
 * started. The partner is pinned before the first hand-off counted, so
 * every one counted is between the two CPUs asked for. */
static int measure(int a, int b, int n, struct wc_fig *f) {
    pthread_t t;
    struct partner p = {.cpu = b, .round_trips = n};
    int rc = pin(pthread_self(), a);
    atomic_store(&turn, 0);
    if (rc == 0) rc = pthread_create(&t, NULL, partner, &p);
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    give(1);  /* pin yourself, */
    await(0); /* and say when */
    long v0, v1;
    double c0 = cpu_s(&v0), w0 = tbbt_now_s();
    for (int i = 0; p.pin_rc == 0 && i < n; i++) {
        give(1);
        await(0);
    }
    pthread_join(t, NULL);
    if (p.pin_rc != 0) {
        errno = p.pin_rc;
        return -1;
    }
    double c1 = cpu_s(&v1), w1 = tbbt_now_s();
    f->handoffs = 2L * n;
    f->wall_us = (w1 - w0) * 1e6 / (double)f->handoffs;
    f->cpu_us = (c1 - c0) * 1e6 / (double)f->handoffs;
    f->vcsw = v1 - v0;
    return 0;
}

static void print_fig(const char *what, const struct wc_fig *f) {
    printf("%-10s %9ld hand-offs  %7.2f us wall  %7.2f us CPU each  %9ld voluntary switches\n", what,
           f->handoffs, f->wall_us, f->cpu_us, f->vcsw);
}

static void json_fig(GString *j, const char *key, const struct wc_fig *f) {
    if (!f) {
        g_string_append_printf(j, "\"%s\":null", key);
        return;
    }
    g_string_append_printf(j, "\"%s\":{\"handoffs\":%ld,\"wall_us\":%.3f,\"cpu_us\":%.3f,\"vcsw\":%ld}", key,
                           f->handoffs, f->wall_us, f->cpu_us, f->vcsw);
}

/* The first two CPUs this process may run on (b = -1: only one). */
static void two_cpus(int *a, int *b) {
    cpu_set_t cs;
    *a = 0, *b = -1;
    if (sched_getaffinity(0, sizeof cs, &cs) != 0) return;
    int n = 0;
    for (int c = 0; c < CPU_SETSIZE && n < 2; c++)
        if (CPU_ISSET(c, &cs)) *(n++ ? b : a) = c;
}

int main(int argc, char **argv) {
    GError *gerr = NULL;
    GOptionContext *ctx = g_option_context_new("- what one thread hand-off (a wake and a sleep) costs here");
    g_option_context_add_main_entries(ctx, wc_entries, NULL);
    gboolean parsed = g_option_context_parse(ctx, &argc, &argv, &gerr);
    g_option_context_free(ctx);
    if (!parsed) {
        fprintf(stderr, "tbbt-wakecost: %s (see --help)\n", gerr->message);
        g_error_free(gerr);
        return 2;
    }
    if (argc != 1 || opt.round_trips < 1) {
        fprintf(stderr, "tbbt-wakecost: %s (see --help)\n",
                argc != 1 ? "no operands are taken" : "--round-trips must be 1 or more");
        return 2;
    }
    int a, b, n = opt.round_trips;
    two_cpus(&a, &b);
    struct wc_fig same, two;
    if (measure(a, a, n, &same) < 0) {
        fprintf(stderr, "tbbt-wakecost: cannot pin two threads to CPU %d: %s\n", a, strerror(errno));
        return 1;
    }
    print_fig("same CPU", &same);
    int have_two = b >= 0;
    if (have_two && measure(a, b, n, &two) < 0) {
        fprintf(stderr, "tbbt-wakecost: cannot pin threads to CPUs %d and %d: %s\n", a, b, strerror(errno));
        return 1;
    }
    if (have_two)
        print_fig("two CPUs", &two);
    else
        printf("two CPUs   n/a (this process may use one CPU)\n");
    if (opt.json) {
        GString *j = g_string_new("{");
        json_fig(j, "same_cpu", &same);
        g_string_append_c(j, ',');
        json_fig(j, "two_cpus", have_two ? &two : NULL);
        g_string_append(j, "}\n");
        if (tbbt_out_put("tbbt-wakecost", opt.json, j) < 0) return 1;
    }
    return 0;
}
