/* interrupt.h -- SIGINT and SIGTERM for the commands that have nothing
 * worth keeping when stopped half way (tbbt-prep, tbbt-map, tbbt-augment,
 * tbbt-check, tbbt-dump): the temporary files they were writing are
 * removed, one line says so, and the exit code is 3. A final name is only
 * ever given by renaming a whole file (recfile.h, linew.h), so nothing
 * left behind looks complete.
 *
 * The record and line writers register their temporary files here
 * whatever the command; only a command that calls
 * tbbt_interrupt_on_signal() exits from the handler (tbbt-play, tbbt-init
 * and tbbt-split stop at their own pace and write what they have). */
#ifndef TBBT_INTERRUPT_H
#define TBBT_INTERRUPT_H

/* Installs the handler of SIGINT and SIGTERM: removes every registered
 * temporary file, prints "TOOL: interrupted, nothing written" and exits 3.
 * Also installs oom.h's handler (a failed allocation: one line, exit 1). */
void tbbt_interrupt_on_signal(const char *tool);

/* Removes every registered temporary file now (no allocation: a last
 * act before exiting, oom.h). */
void tbbt_interrupt_remove_all(void);

/* A temporary file being written (path copied), and its end (renamed or
 * removed). */
void tbbt_interrupt_track(const char *path);
void tbbt_interrupt_untrack(const char *path);

#endif
