/* usage.h -- what every tbbt command does with a wrong argument.
 *
 * An unknown option, a bad option value, a missing or an extra operand:
 * the command prints, on standard error only (nothing on standard output),
 *
 *   TOOL: WHAT IS WRONG
 *   Usage: TOOL FORM
 *      or: TOOL OTHER FORM
 *   Try 'TOOL --help' for the options.
 *
 * and exits 2 (TBBT_EXIT_USAGE), before it opens, creates or connects to
 * anything. The synopsis is short -- the forms of the command line, not
 * the options, which --help lists from the command's option table. */
#ifndef TBBT_USAGE_H
#define TBBT_USAGE_H

#include <glib.h>

#define TBBT_EXIT_USAGE 2 /* every tbbt command: 0 done, 1 failed, 2 bad usage, 3 interrupted */

/* Prints the usage error above -- the message (printf-style, one line,
 * no trailing newline), then synopsis, one form per '\n'-separated line,
 * each a whole command line without "Usage: " ("tbbt-prep [OPTION...]
 * INPUT") -- and exits 2. One function so that every command says it the
 * same way and none forgets the synopsis or the exit code. */
G_GNUC_NORETURN G_GNUC_PRINTF(3, 4) void tbbt_usage_error(const char *tool, const char *synopsis,
                                                          const char *fmt, ...);

/* Parses the command line with ctx (g_option_context_parse) and frees
 * ctx. Returns only when the parse succeeded; GLib's own complaints (an
 * unknown option, a value that is not a number, a missing value) go out
 * through tbbt_usage_error. Every command parses with a GOptionContext,
 * so this is where all of them turn GLib's error into the usage error. */
void tbbt_usage_parse(GOptionContext *ctx, const char *tool, const char *synopsis, int *argc, char ***argv);

#endif
