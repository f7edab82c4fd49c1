/* workspace.h -- what a directory remembers between tbbt's commands, so
 * that the quick start works as typed:
 *
 *   tbbt-prep trace.pcap
 *   tbbt-init --scope 8192 server:/export
 *   tbbt-play --order fsdep --speedup 6
 *   tbbt-report
 *
 * The workspace is the current directory. Its state is one text file,
 * TBBT_WS_FILE, written whole (lib/outfile: a temporary and a rename):
 *
 *   # tbbt-workspace 1
 *   trace <TAB> records=PATH <TAB> map=PATH
 *   server <TAB> trace=PATH <TAB> server=HOST:/EXPORT <TAB> run=NAME
 *          <TAB> manifest=PATH [<TAB> nfs-port=N] [<TAB> mount-port=N]
 *
 * one "trace" line per prepared trace (tbbt-prep adds it), one "server"
 * line per trace and server an image was built on (tbbt-init adds it).
 * Paths are as the commands were given them: relative ones are relative
 * to the workspace. Lines starting with '#' and blank lines are ignored;
 * anything else is an error naming the file and the line. The runs'
 * results are files of their own in TBBT_WS_RESULTS (one per run, named
 * by trace, server, order, speedup and time: tbbt_ws_result_name).
 * docs/workspace.md is the user's description. This module knows files
 * and names only; the commands decide what to record and when. */
#ifndef TBBT_WORKSPACE_H
#define TBBT_WORKSPACE_H

#include <glib.h>
#include <stddef.h>

#define TBBT_WS_FILE "tbbt-workspace"
#define TBBT_WS_RESULTS "tbbt-results"
#define TBBT_WS_VERSION 1

struct tbbt_ws_trace {
    char *records, *map;
    int line; /* in the file (0: added since it was read) */
};

struct tbbt_ws_server {
    char *trace;            /* the trace's records, as in its "trace" line */
    char *server;           /* HOST:/EXPORT */
    char *run;              /* tbbt-init's run directory in the export */
    char *manifest;         /* tbbt-init's local manifest */
    int nfsport, mountport; /* 0: the portmapper's */
    int line;
};

struct tbbt_ws {
    gboolean exists;   /* the file was there when read */
    GPtrArray *traces; /* struct tbbt_ws_trace *, in file order */
    GPtrArray *servers;
};

/* Reads TBBT_WS_FILE in the current directory: a workspace, empty (exists
 * false) when there is no such file; NULL with "tbbt-workspace:LINE: why"
 * in err when it cannot be read or is not a workspace file. Files it
 * names are not checked here (tbbt_ws_check). Free with tbbt_ws_free. */
struct tbbt_ws *tbbt_ws_load(char *err, size_t errlen);
void tbbt_ws_free(struct tbbt_ws *ws);

/* Writes ws to TBBT_WS_FILE (temporary file and rename). Returns 0, or -1
 * with "tbbt-workspace: why" in err. */
int tbbt_ws_save(const struct tbbt_ws *ws, char *err, size_t errlen);

/* True when paths a and b (relative ones to the current directory) name
 * the same file: the same canonical path. */
gboolean tbbt_ws_same_path(const char *a, const char *b);

/* Adds the trace (records, map), replacing a line with the same records.
 * Paths with a tab or a newline cannot be written: returns -1 with err. */
int tbbt_ws_add_trace(struct tbbt_ws *ws, const char *records, const char *map, char *err, size_t errlen);

/* Adds s (copied), replacing the line of the same trace and server. -1
 * with err as above. */
int tbbt_ws_add_server(struct tbbt_ws *ws, const struct tbbt_ws_server *s, char *err, size_t errlen);

/* The trace whose records or map is path, or NULL. */
const struct tbbt_ws_trace *tbbt_ws_find_trace(const struct tbbt_ws *ws, const char *path);

/* The one trace of the workspace, or NULL with a message for the user in
 * err: no workspace here, no trace yet, or several (named, with choose:
 * how the command takes another, "name it with --map FILE"). */
const struct tbbt_ws_trace *tbbt_ws_pick_trace(const struct tbbt_ws *ws, const char *choose, char *err,
                                               size_t errlen);

/* The servers of trace t (records path), in file order, into out (at most
 * max); returns how many there are (may exceed max). */
int tbbt_ws_servers_of(const struct tbbt_ws *ws, const char *records, const struct tbbt_ws_server **out,
                       int max);

/* The server line of trace records for server spec (HOST:/EXPORT or
 * nfs://..., compared by host and export, and by port when both give
 * one), or NULL. */
const struct tbbt_ws_server *tbbt_ws_find_server(const struct tbbt_ws *ws, const char *records,
                                                 const char *spec, int nfsport);

/* Checks that the files a trace line (records, map) or a server line
 * (manifest) names exist. Returns 0, or -1 with "tbbt-workspace:LINE:
 * PATH: no such file ..." in err. */
int tbbt_ws_check_trace(const struct tbbt_ws_trace *t, char *err, size_t errlen);
int tbbt_ws_check_server(const struct tbbt_ws_server *s, char *err, size_t errlen);

/* A server as a file-name part: HOST-EXPORT with '/' as '-' and anything
 * but letters, digits, '.', '_' and '-' as '_', and "-pPORT" when an NFS
 * port is given. Caller frees. */
char *tbbt_ws_server_tag(const char *spec, int nfsport);

/* The default local manifest of trace records on server spec:
 * NAME.TAG.manifest in the workspace (NAME: the records' base name
 * without .tbbt). Caller frees. */
char *tbbt_ws_manifest_name(const char *records, const char *spec, int nfsport);

/* A new result file's path: TBBT_WS_RESULTS/NAME.TAG.ORDER.xSPEEDUP.TIME.json
 * (speedup 0: "full"; TIME: local YYYYmmdd-HHMMSS; "-2", "-3", ... added
 * when the name is taken), the directory made. NULL with err when it
 * cannot be made. Caller frees. */
char *tbbt_ws_result_name(const char *records, const char *spec, int nfsport, const char *order,
                          double speedup, char *err, size_t errlen);

#endif
