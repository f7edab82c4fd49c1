/* tbbt-failmalloc.so -- a fault-injecting allocator for the C commands,
 * the SQLite way (its test_malloc.c): fail the Nth allocation of a run,
 * for every N the run makes or a seeded sample of them
 * (tests/safety/alloc_faults.sh). Loaded with LD_PRELOAD; it interposes
 * malloc, calloc, realloc, reallocarray, posix_memalign, aligned_alloc
 * and memalign over glibc's (__libc_* underneath, so the heap stays
 * glibc's).
 *
 * Counted: only allocations made once main() has begun (it wraps
 * __libc_start_main), and only those called from tbbt's own code -- the
 * program itself (libtbbt is linked in statically) or GLib (g_malloc and
 * the containers tbbt's code grows through it). The other libraries'
 * (libc's stdio, zstd, libpcap, libtirpc, libnfs) are not counted: how
 * each of them fails is theirs, and counting them would make the Nth
 * allocation mean something else with each library version.
 *
 * Environment:
 *   TBBT_FAILMALLOC_N=N       N >= 1: the Nth counted allocation fails
 *                             (returns NULL, errno ENOMEM); the ones after
 *                             it succeed (one refusal, not exhaustion).
 *                             Unset or 0: nothing fails.
 *   TBBT_FAILMALLOC_COUNT=F   at exit, the number of counted allocations
 *                             is written to F (the sweep's range).
 *   TBBT_FAILMALLOC_LOG=1     the refused one is said on stderr
 *                             ("failmalloc: refused allocation N (SIZE
 *                             bytes)"), for a person reading a failure.
 * Threads: the count is atomic; which allocation is the Nth then depends
 * on the schedule (tbbt-prep's passes run in one thread). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <malloc.h> /* memalign's prototype */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

#define MAX_RANGES 16

static struct { uintptr_t lo, hi; } ranges[MAX_RANGES]; /* executable segments of the program and of GLib */
static int nranges;
static atomic_int armed;
static atomic_ulong count;
static unsigned long fail_at;
static int log_refusal;
static const char *count_file;

/* dl_iterate_phdr's callback: keeps the executable segments of the
 * program (the first object, name "") and of libglib-2.0. */
static int add_ranges(struct dl_phdr_info *info, size_t size, void *first) {
    (void)size;
    int ours = *(int *)first || strstr(info->dlpi_name, "libglib-2.0") != NULL;
    *(int *)first = 0;
    if (!ours) return 0;
    for (int i = 0; i < info->dlpi_phnum && nranges < MAX_RANGES; i++) {
        const ElfW(Phdr) *p = &info->dlpi_phdr[i];
        if (p->p_type == PT_LOAD && (p->p_flags & PF_X)) {
            ranges[nranges].lo = info->dlpi_addr + p->p_vaddr;
            ranges[nranges].hi = ranges[nranges].lo + p->p_memsz;
            nranges++;
        }
    }
    return 0;
}

/* Is this allocation (its caller's return address) one to count, and is
 * it the one to refuse? */
static int refuse(const void *caller, size_t size) {
    if (!atomic_load_explicit(&armed, memory_order_relaxed)) return 0;
    uintptr_t a = (uintptr_t)caller;
    int i;
    for (i = 0; i < nranges; i++)
        if (a >= ranges[i].lo && a < ranges[i].hi) break;
    if (i == nranges) return 0;
    unsigned long n = atomic_fetch_add(&count, 1) + 1;
    if (n != fail_at) return 0;
    if (log_refusal) {
        char line[96];
        int len = snprintf(line, sizeof(line), "failmalloc: refused allocation %lu (%zu bytes)\n", n, size);
        ssize_t w = write(STDERR_FILENO, line, (size_t)len);
        (void)w;
    }
    errno = ENOMEM;
    return 1;
}

void *malloc(size_t n) {
    if (refuse(__builtin_return_address(0), n)) return NULL;
    return __libc_malloc(n);
}

void *calloc(size_t k, size_t n) {
    if (refuse(__builtin_return_address(0), k * n)) return NULL;
    return __libc_calloc(k, n);
}

void *realloc(void *p, size_t n) {
    if (n && refuse(__builtin_return_address(0), n)) return NULL;
    return __libc_realloc(p, n);
}

void *reallocarray(void *p, size_t k, size_t n) {
    if (n && k > SIZE_MAX / n) {
        errno = ENOMEM;
        return NULL;
    }
    if (k != 0 && n != 0 && refuse(__builtin_return_address(0), k * n)) return NULL;
    return __libc_realloc(p, k * n);
}

int posix_memalign(void **out, size_t align, size_t n) {
    if (refuse(__builtin_return_address(0), n)) return ENOMEM;
    void *p = __libc_memalign(align, n);
    if (!p) return ENOMEM;
    *out = p;
    return 0;
}

void *aligned_alloc(size_t align, size_t n) {
    if (refuse(__builtin_return_address(0), n)) return NULL;
    return __libc_memalign(align, n);
}

void *memalign(size_t align, size_t n) {
    if (refuse(__builtin_return_address(0), n)) return NULL;
    return __libc_memalign(align, n);
}

/* At exit: the count, for the sweep. */
static void write_count(void) {
    FILE *f = fopen(count_file, "w");
    if (!f) return;
    fprintf(f, "%lu\n", atomic_load(&count));
    fclose(f);
}

typedef int (*main_fn)(int, char **, char **);
static main_fn real_main;

/* main, counted from its first line. */
static int counted_main(int argc, char **argv, char **envp) {
    int first = 1;
    dl_iterate_phdr(add_ranges, &first);
    const char *s = getenv("TBBT_FAILMALLOC_N");
    fail_at = s ? strtoul(s, NULL, 10) : 0;
    log_refusal = getenv("TBBT_FAILMALLOC_LOG") != NULL;
    count_file = getenv("TBBT_FAILMALLOC_COUNT");
    if (count_file) atexit(write_count);
    atomic_store(&armed, 1);
    return real_main(argc, argv, envp);
}

/* glibc's entry to main: wrapped, so that counting starts at main (no
 * header declares it). */
int __libc_start_main(main_fn main, int argc, char **argv, void (*init)(void), void (*fini)(void),
                      void (*rtld_fini)(void), void *stack_end);
int __libc_start_main(main_fn main, int argc, char **argv, void (*init)(void), void (*fini)(void),
                      void (*rtld_fini)(void), void *stack_end) {
    typedef int (*start_fn)(main_fn, int, char **, void (*)(void), void (*)(void), void (*)(void), void *);
    start_fn real = (start_fn)dlsym(RTLD_NEXT, "__libc_start_main");
    real_main = main;
    return real(counted_main, argc, argv, init, fini, rtld_fini, stack_end);
}
