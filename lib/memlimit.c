/* memlimit.c -- the memory bound of memlimit.h: the resident size read
 * from /proc/self/statm through a descriptor kept open, the machine's and
 * the cgroup's memory for the default, and the one-line stop. */
#include "memlimit.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>

#include "interrupt.h"

_Thread_local unsigned tbbt_memlimit_tick;

static uint64_t limit;                 /* bytes; 0: none */
static const char *tool_name = "tbbt"; /* named in the message */
static const char *option_name = "--max-memory";
static _Thread_local int statm_fd = -1; /* /proc/self/statm, opened on first use (per thread: no race) */

void tbbt_memlimit_set(const char *tool, const char *option, uint64_t bytes) {
    tool_name = tool;
    option_name = option;
    limit = bytes;
    tbbt_memlimit_tick = 0;
}

int tbbt_memlimit_option(const char *tool, const char *text) {
    uint64_t bytes = tbbt_memlimit_default();
    if (text && tbbt_memlimit_parse(text, &bytes) != 0) return -1;
    tbbt_memlimit_set(tool, "--max-memory", bytes);
    return 0;
}

uint64_t tbbt_memlimit_get(void) {
    return limit;
}

/* Reads a whole small file (procfs, cgroupfs) into buf; -1 if it cannot. */
static int read_small(const char *path, char *buf, size_t n) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t r = read(fd, buf, n - 1);
    close(fd);
    if (r <= 0) return -1;
    buf[r] = 0;
    return 0;
}

/* MemTotal from /proc/meminfo, in bytes; 0 if unknown. */
static uint64_t mem_total(void) {
    char buf[4096];
    if (read_small("/proc/meminfo", buf, sizeof(buf)) < 0) return 0;
    const char *s = strstr(buf, "MemTotal:");
    unsigned long long kb;
    return s && sscanf(s, "MemTotal: %llu kB", &kb) == 1 ? (uint64_t)kb * 1024 : 0;
}

/* A cgroup limit file's value in bytes; 0 for "max", absent or absurd
 * (v1 writes a huge number for no limit). */
static uint64_t limit_file(const char *path) {
    char buf[64];
    unsigned long long v;
    if (read_small(path, buf, sizeof(buf)) < 0 || sscanf(buf, "%llu", &v) != 1) return 0;
    return v >= (1ULL << 60) ? 0 : (uint64_t)v;
}

/* The process's cgroup memory limit (v2 first, then v1), 0 if none: the
 * limit of the cgroup named in /proc/self/cgroup, else of the mount's
 * root (a container sees its own cgroup there). */
static uint64_t cgroup_limit(void) {
    char buf[4096], path[4200];
    uint64_t v = 0;
    if (read_small("/proc/self/cgroup", buf, sizeof(buf)) == 0) {
        char *s = strstr(buf, "0::");
        if (s) {
            s += 3;
            s[strcspn(s, "\n")] = 0;
            g_snprintf(path, sizeof(path), "/sys/fs/cgroup%s/memory.max", s);
            v = limit_file(path);
        }
    }
    if (!v) v = limit_file("/sys/fs/cgroup/memory.max");
    if (!v) v = limit_file("/sys/fs/cgroup/memory/memory.limit_in_bytes");
    return v;
}

uint64_t tbbt_memlimit_default(void) {
    uint64_t m = mem_total(), c = cgroup_limit();
    if (c && (!m || c < m)) m = c;
    return m / 4 * 3;
}

int tbbt_memlimit_parse(const char *text, uint64_t *bytes) {
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || errno || !isfinite(v) || v <= 0 || strchr(text, 'x') || strchr(text, 'X')) return -1;
    double mul = 1;
    switch (*end) {
    case 'k':
    case 'K': mul = 1024.0; break;
    case 'm':
    case 'M': mul = 1048576.0; break;
    case 'g':
    case 'G': mul = 1073741824.0; break;
    case 't':
    case 'T': mul = 1099511627776.0; break;
    default: break;
    }
    if (mul > 1) end++;
    if (!strcmp(end, "iB") && mul > 1)
        end += 2;
    else if (!strcmp(end, "B"))
        end++;
    double b = v * mul;
    if (*end || b < 1048576.0 || b > 1024.0 * 1099511627776.0) return -1;
    *bytes = (uint64_t)b;
    return 0;
}

void tbbt_memlimit_format(uint64_t bytes, char *buf, size_t n) {
    static const char *unit[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB"};
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024 && u < 5)
        v /= 1024, u++;
    if (u == 0)
        g_snprintf(buf, n, "%llu bytes", (unsigned long long)bytes);
    else
        g_snprintf(buf, n, "%.1f %s", v, unit[u]);
}

uint64_t tbbt_memlimit_rss(void) {
    if (statm_fd < 0 && (statm_fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC)) < 0) return 0;
    char buf[128];
    ssize_t r = pread(statm_fd, buf, sizeof(buf) - 1, 0);
    if (r <= 0) return 0;
    buf[r] = 0;
    unsigned long long size, resident;
    if (sscanf(buf, "%llu %llu", &size, &resident) != 2) return 0;
    return (uint64_t)resident * (uint64_t)sysconf(_SC_PAGESIZE);
}

void tbbt_memlimit_slow(const char *where) {
    tbbt_memlimit_tick = 0;
    if (!limit) return;
    uint64_t rss = tbbt_memlimit_rss();
    if (rss <= limit) return;
    static atomic_flag ending = ATOMIC_FLAG_INIT;
    if (atomic_flag_test_and_set(&ending))
        for (;;)
            pause(); /* another pass's thread is saying it and ending the process: one line */
    char have[32], bound[32];
    tbbt_memlimit_format(rss, have, sizeof(have));
    tbbt_memlimit_format(limit, bound, sizeof(bound));
    if (!strcmp(have, bound)) /* just over: say it in KiB, where the two differ */
        g_snprintf(have, sizeof(have), "%llu KiB", (unsigned long long)(rss >> 10)),
            g_snprintf(bound, sizeof(bound), "%llu KiB", (unsigned long long)(limit >> 10));
    tbbt_interrupt_remove_all();
    fprintf(stderr,
            "%s: memory %s in %s, over %s %s; nothing written: raise %s, or prepare a shorter span of "
            "the capture\n",
            tool_name, have, where, option_name, bound, option_name);
    /* _exit, as a signal ends the command (interrupt.c): nothing the
     * passes hold is freed, and the other passes' threads may be mid-record;
     * exit()'s handlers would run beside them (and a leak checker count
     * all of it). Whatever the command printed is flushed first. */
    fflush(NULL);
    _exit(1);
}
