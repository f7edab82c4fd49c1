/* oom.h -- what a C command does when memory runs out.
 *
 * tbbt allocates through GLib, and GLib's g_malloc family does not return
 * NULL: by its design a failed allocation is a fatal error (g_error,
 * "failed to allocate N bytes"), which by default aborts the process --
 * a core dump, and the temporary files being written left behind. With
 * tbbt_oom_on_failure() installed, that fatal error instead removes the
 * registered temporary files (interrupt.h), prints one line,
 *   "TOOL: out of memory (gmem.c:136: failed to allocate N bytes)",
 * and exits 1. Nothing under an output's final name is touched: outputs
 * get their final name only by a rename once whole (outfile.h). The
 * cases g_try_malloc lets the code see (NULL) are each handled where they
 * happen.
 *
 * What this does not promise: when memory is exhausted for good (not one
 * request refused), GLib may need memory to format its own message before
 * it reaches this handler; then it aborts as GLib always did. Allocations
 * in the other libraries (zstd, libpcap, libtirpc, libnfs) fail the way
 * each library reports it (an error return tbbt checks, or their own
 * abort). docs/robustness.md says what is tested. */
#ifndef TBBT_OOM_H
#define TBBT_OOM_H

/* Installs the handler (GLib's log writer: installed once, before any
 * other message; it passes every other message to GLib's default
 * writer), and sets G_SLICE=always-malloc unless G_SLICE is set (GLib
 * before 2.76: GSlice's own failure path aborts). Then makes, at once,
 * the GLib thread primitives tbbt's code meets later (GPrivate, GRWLock:
 * they allocate on first use and abort on a refusal, with no hook); a
 * refusal while making them ends in the one line and exit 1 as well.
 * Call it first in main. */
void tbbt_oom_on_failure(const char *tool);

#endif
