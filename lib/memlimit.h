/* memlimit.h -- a command's memory bound, checked as it works.
 *
 * A long capture makes the passes' models grow with every object the trace
 * touched. Left alone, the kernel's OOM killer ends the process with no
 * word, after minutes of work. With a bound set, the per-record paths call
 * tbbt_memlimit_check(): every TBBT_MEMLIMIT_EVERY calls it reads the
 * process's resident size (/proc/self/statm, one pread), and once that is
 * over the bound it removes the temporary files being written
 * (interrupt.h), prints one line,
 *   "TOOL: memory 6.2 GiB in pass 2, over --max-memory 6.0 GiB; ...",
 * and exits 1. Nothing under an output's final name is touched: outputs
 * get it only by a rename once whole (outfile.h).
 *
 * The bound is on what the process holds (its resident set), read at
 * record boundaries: a bound of B stops the command when it holds a little
 * over B (one record's worth), not before it asks for B. With no bound set
 * (--max-memory given as the machine's whole memory) the check is a
 * counter and a return. */
#ifndef TBBT_MEMLIMIT_H
#define TBBT_MEMLIMIT_H

#include <stddef.h>
#include <stdint.h>

#define TBBT_MEMLIMIT_EVERY 1024 /* calls of the check between two reads of the resident size */

/* Sets the bound (bytes; 0: none), the command's name and the option that
 * set it, both named in the message (kept, not copied). */
void tbbt_memlimit_set(const char *tool, const char *option, uint64_t bytes);

/* The --max-memory row of a command's option table (opttab.h), declared
 * once for every command that holds a model: var is its char * (NULL
 * when not given), what the thing that grows ("the passes", "pass 2"). */
#define TBBT_MEMLIMIT_OPTION(var, what)                                                                      \
    {                                                                                                        \
        "max-memory", 0, TBBT_OPT_STRING, &(var), "SIZE",                                                    \
            .defhelp = "75% of the machine's memory, or of the cgroup's limit when lower",                   \
            .help = "Stop with an error, nothing written, when " what " hold more than SIZE (K, M, G or T: " \
                    "1024-based; from 1M to 1024T), rather than meet the kernel's out-of-memory killer"      \
    }

/* Sets the bound from the --max-memory option's text (NULL: not given,
 * the default) for command tool. Returns -1 when the text is not a size
 * (the caller's usage error says TBBT_MEMLIMIT_ALLOWED). */
int tbbt_memlimit_option(const char *tool, const char *text);

/* The default bound: 75% of the machine's memory (MemTotal), or of the
 * process's cgroup limit (v2 memory.max, v1 memory.limit_in_bytes) when
 * that is lower; 0 when neither can be read. */
uint64_t tbbt_memlimit_default(void);

/* The bound set (bytes; 0: none). */
uint64_t tbbt_memlimit_get(void);

/* Parses a size: a number (a fraction allowed) with an optional suffix K,
 * M, G or T (1024-based; "B" or "iB" may follow), at least 1M and at most
 * 1024T. Returns 0 with *bytes set, or -1 (the caller says what is
 * allowed: TBBT_MEMLIMIT_ALLOWED). */
int tbbt_memlimit_parse(const char *text, uint64_t *bytes);
#define TBBT_MEMLIMIT_ALLOWED "a size from 1M to 1024T, a number with a suffix K, M, G or T (1024-based)"

/* Formats bytes as "6.2 GiB" (or MiB, KiB) into buf. */
void tbbt_memlimit_format(uint64_t bytes, char *buf, size_t n);

/* The process's resident size now, in bytes (0 when unknown). */
uint64_t tbbt_memlimit_rss(void);

/* The slow half of the check (below): reads the resident size and ends
 * the command when it is over the bound. */
void tbbt_memlimit_slow(const char *where);

extern _Thread_local unsigned tbbt_memlimit_tick; /* per thread: the passes may run on several */

/* The per-record check: where names the work ("pass 2") in the message.
 * Inline so that the common case is an increment and a compare. */
static inline void tbbt_memlimit_check(const char *where) {
    if (++tbbt_memlimit_tick >= TBBT_MEMLIMIT_EVERY) tbbt_memlimit_slow(where);
}

#endif
