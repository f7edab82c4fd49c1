/* tbbt-timerloop: the bare timer loop that bench/play.sh sets beside
 * tbbt-play's issue error: deadlines at a fixed rate, no work at all,
 * only the waiting.
 *
 *   tbbt-timerloop --rate R --duration S [--method player|nanosleep] [--json FILE]
 *
 * Deadline i is t0 + i * 1e9 / R ns (CLOCK_MONOTONIC, t0 20 ms after the
 * start, as the player's). The lateness of each is the clock read when
 * the loop notices the deadline has passed, minus the deadline.
 *
 * --method player (default) waits exactly as tbbt-play's send thread does
 * (player/engine.c, play_loop/sleep_for): with more than 200 us to go it
 * waits on a futex (that nobody wakes) with a timeout of the time left
 * minus 100 us, to the nanosecond, at most 50 ms; with 200 us or less it
 * spins, reading the clock. --method nanosleep sleeps with
 * clock_nanosleep(TIMER_ABSTIME) until each deadline (a reference: the
 * best a sleeping thread gets from this kernel).
 *
 * Prints one line: method, rate, deadlines, lateness p50/p99/max in us,
 * CPU. --json writes {"method","rate","deadlines","cpu_s","wall_s",
 * "issue_error_ns":HIST} with HIST as tbbt-play's (lib/hist.h), so one
 * reader takes both. Exit: 0, 1 (cannot write FILE), 2 (bad usage). */
#define _GNU_SOURCE /* syscall */
#include <errno.h>
#include <linux/futex.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <glib.h>

#include "outfile.h"
#include "hist.h"
#include "clock.h"

struct tl_opts {
    gdouble rate, duration;
    gchar *method, *json;
};

static struct tl_opts opt = {.rate = 10000, .duration = 5};

/* The options, declared once: parsing and --help both come from here. */
static GOptionEntry tl_entries[] = {
    {"rate", 'r', 0, G_OPTION_ARG_DOUBLE, &opt.rate, "Deadlines a second (default 10000)", "R"},
    {"duration", 'd', 0, G_OPTION_ARG_DOUBLE, &opt.duration, "Seconds (default 5)", "S"},
    {"method", 'm', 0, G_OPTION_ARG_STRING, &opt.method,
     "player (tbbt-play's futex-then-spin; default) or nanosleep", "M"},
    {"json", 'j', 0, G_OPTION_ARG_FILENAME, &opt.json, "Write the figures as one JSON document", "FILE"},
    {NULL, 0, 0, 0, NULL, NULL, NULL}};

/* player/engine.c's sleep_for: a futex wait on a word that says "asleep"
 * for ns (at most 50 ms; ns < 0: 50 ms). */
static void sleep_for(int *word, int64_t ns) {
    if (ns < 0 || ns > 50000000) ns = 50000000;
    struct timespec ts = {ns / 1000000000, ns % 1000000000};
    *word = 1;
    syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, 1, &ts, NULL, 0);
    *word = 0;
}

/* Runs n deadlines of period ns from t0 the player's way, adding each
 * lateness to h. */
static void run_player(int64_t t0, double period, uint64_t n, struct tbbt_hist *h) {
    int word = 0;
    uint64_t i = 0;
    while (i < n) {
        int64_t now = tbbt_now_ns();
        int64_t due = t0 + (int64_t)((double)i * period);
        if (due <= now) { /* dispatch: every deadline passed is "sent" now */
            tbbt_hist_add(h, (uint64_t)(now - due));
            i++;
            continue;
        }
        int64_t wait = due - now;
        if (wait > 200000) sleep_for(&word, wait - 100000); /* the last 0.1 ms: spin */
    }
}

/* Runs n deadlines of period ns from t0 with absolute clock_nanosleep. */
static void run_nanosleep(int64_t t0, double period, uint64_t n, struct tbbt_hist *h) {
    for (uint64_t i = 0; i < n; i++) {
        int64_t due = t0 + (int64_t)((double)i * period);
        struct timespec ts = {.tv_sec = due / 1000000000, .tv_nsec = due % 1000000000};
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
            ;
        int64_t now = tbbt_now_ns();
        tbbt_hist_add(h, (uint64_t)(now > due ? now - due : 0));
    }
}

static double cpu_s(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec / 1e6;
}

int main(int argc, char **argv) {
    GOptionContext *ctx = g_option_context_new("- deadlines at a fixed rate, no work: the timer's own error");
    g_option_context_add_main_entries(ctx, tl_entries, NULL);
    GError *ge = NULL;
    int ok = g_option_context_parse(ctx, &argc, &argv, &ge);
    g_option_context_free(ctx);
    const char *method = opt.method ? opt.method : "player";
    if (!ok || argc != 1 || opt.rate <= 0 || opt.rate > 1e7 || opt.duration <= 0 ||
        (strcmp(method, "player") && strcmp(method, "nanosleep"))) {
        fprintf(stderr, "tbbt-timerloop: %s (try --help)\n",
                ge ? ge->message : "--rate 0..1e7 and --duration > 0; --method player or nanosleep");
        return 2;
    }
    static struct tbbt_hist h;
    tbbt_hist_init(&h);
    double period = 1e9 / opt.rate;
    uint64_t n = (uint64_t)(opt.duration * opt.rate);
    double c0 = cpu_s();
    int64_t t0 = tbbt_now_ns() + 20000000;
    if (!strcmp(method, "player"))
        run_player(t0, period, n, &h);
    else
        run_nanosleep(t0, period, n, &h);
    double wall = (double)(tbbt_now_ns() - t0) / 1e9, cpu = cpu_s() - c0;
    printf("tbbt-timerloop: %s, %.0f/s, %llu deadlines, lateness p50 %.1f us, p99 %.1f us, max %.1f us; "
           "CPU %.3f s of %.3f s\n",
           method, opt.rate, (unsigned long long)h.n, tbbt_hist_quantile(&h, 0.5) / 1e3,
           tbbt_hist_quantile(&h, 0.99) / 1e3, (double)h.max / 1e3, cpu, wall);
    if (opt.json) {
        GString *j = g_string_new(NULL);
        g_string_append_printf(
            j,
            "{\"method\":\"%s\",\"rate\":%.3f,\"deadlines\":%llu,\"cpu_s\":%.6f,\"wall_s\":%.6f,"
            "\"issue_error_ns\":",
            method, opt.rate, (unsigned long long)h.n, cpu, wall);
        tbbt_hist_json(&h, j);
        g_string_append(j, "}\n");
        if (tbbt_out_put("tbbt-timerloop", opt.json, j) < 0) return 1;
    }
    return 0;
}
