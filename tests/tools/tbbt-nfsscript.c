/* tbbt-nfsscript: a scripted NFSv3 client, for tests that need a real client
 * to do a known sequence of namespace and data operations on a server.
 *
 * Usage: tbbt-nfsscript [options] nfs://HOST/EXPORT?nfsport=N&mountport=M [SCRIPT]
 *
 * Reads commands, one a line, from SCRIPT (or stdin when SCRIPT is absent
 * or "-"), and runs each in order, synchronously, through libnfs's
 * high-level API (MOUNT on the mount port, NFS on the NFS port, no
 * portmapper). Paths are relative to the export root ("." is the root).
 *
 *   stat PATH               lstat; prints "PATH: TYPE size N mode 0NNN"
 *   read PATH               reads the whole file; prints "PATH: N bytes"
 *   write PATH OFFSET COUNT writes COUNT pattern bytes at OFFSET
 *   append PATH COUNT       writes COUNT pattern bytes at the file's end
 *   create PATH [MODE]      creates a regular file (mode octal, default 0644)
 *   mkdir PATH [MODE]       creates a directory (default 0755)
 *   rmdir PATH | remove PATH
 *   rename FROM TO | link EXISTING NEW | symlink TARGET PATH
 *   readlink PATH           prints "PATH -> TARGET"
 *   ls PATH                 lists the directory (READDIRPLUS); one name a line
 *   truncate PATH SIZE | chmod PATH MODE | sleep MS
 *
 * Tokens are separated by blanks; a token in double quotes may hold blanks,
 * with \" and \\ inside. Empty lines and lines starting with '#' are
 * skipped. A line starting with '-' may fail: its failure is printed and the
 * script goes on; any other failure stops the script with
 * "SCRIPT:LINE: COMMAND: what failed".
 *
 * Exit: 0 every command done, 1 a command or the mount failed, 2 bad usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <glib.h>
#include <nfsc/libnfs.h>

#include "opttab.h"
#include "usage.h"

#define NS_MAX_ARGS 4
#define NS_CHUNK 65536

/* ---- options: declared once, in a table (lib/opttab.h) ------------------- */

#define TOOL "tbbt-nfsscript"
#define SYNOPSIS "tbbt-nfsscript [options] nfs://HOST/EXPORT?nfsport=N&mountport=M [SCRIPT|-]"

struct ns_opts {
    gint uid, gid, timeout;
    gboolean quiet, dircache;
    const char *url, *script;
};

static struct ns_opts opt;

static const struct tbbt_opt ns_options[] = {
    {"uid", 0, TBBT_OPT_INT, &opt.uid, "N", "0", 0, 0x7fffffff, .help = "AUTH_SYS uid of every call"},
    {"gid", 0, TBBT_OPT_INT, &opt.gid, "N", "0", 0, 0x7fffffff, .help = "AUTH_SYS gid of every call"},
    {"timeout", 0, TBBT_OPT_INT, &opt.timeout, "N", "30000", 100, 3600000,
     .help = "milliseconds to wait for a reply"},
    {"dircache", 0, TBBT_OPT_FLAG, &opt.dircache,
     .help = "let libnfs cache directory listings (off: every path is looked up on the wire)"},
    {"quiet", 0, TBBT_OPT_FLAG, &opt.quiet, .help = "print nothing but errors"},
    TBBT_OPT_END};

static const struct tbbt_cmd ns_cmd = {
    TOOL, SYNOPSIS, "URL [SCRIPT|-] - run a script of NFSv3 calls with a real client",
    "Commands (one a line; a leading '-' lets the line fail):\n"
    "  stat PATH | read PATH | write PATH OFFSET COUNT | append PATH COUNT\n"
    "  create PATH [MODE] | mkdir PATH [MODE] | rmdir PATH | remove PATH\n"
    "  rename FROM TO | link EXISTING NEW | symlink TARGET PATH | readlink PATH\n"
    "  ls PATH | truncate PATH SIZE | chmod PATH MODE | sleep MS\n"
    "Exit: 0 every command done, 1 a command or the mount failed, 2 usage.",
    ns_options};

/* ---- script lines --------------------------------------------------------- */

/* One parsed line: the command and its arguments point into the line. */
struct ns_line {
    char *cmd;
    char *arg[NS_MAX_ARGS];
    int nargs;
    int may_fail;
};

/* Cuts the next token out of *p (in place: quotes and escapes removed).
 * Returns the token, NULL at the end of the line, or sets *bad on an
 * unterminated quote. */
static char *ns_token(char **p, int *bad) {
    char *s = *p;
    while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
        s++;
    if (*s == '\0') return NULL;
    char *tok = s, *out = s;
    if (*s == '"') {
        s++;
        while (*s && *s != '"') {
            if (*s == '\\' && (s[1] == '"' || s[1] == '\\')) s++;
            *out++ = *s++;
        }
        if (*s != '"') {
            *bad = 1;
            return NULL;
        }
        s++;
    } else {
        while (*s && *s != ' ' && *s != '\t' && *s != '\r' && *s != '\n')
            *out++ = *s++;
    }
    if (*s) s++; /* the separator (or nothing after a closing quote) */
    *out = '\0';
    *p = s;
    return tok;
}

/* Splits line into l. Returns 1 with a command, 0 for a blank or comment
 * line, -1 with a message in err. */
static int ns_split(char *line, struct ns_line *l, char *err, size_t errlen) {
    memset(l, 0, sizeof(*l));
    char *p = line;
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p == '\0' || *p == '\n' || *p == '\r' || *p == '#') return 0;
    if (*p == '-') {
        l->may_fail = 1;
        p++;
    }
    int bad = 0;
    l->cmd = ns_token(&p, &bad);
    char *t;
    while (!bad && (t = ns_token(&p, &bad)) != NULL) {
        if (l->nargs == NS_MAX_ARGS) {
            snprintf(err, errlen, "too many arguments");
            return -1;
        }
        l->arg[l->nargs++] = t;
    }
    if (bad || !l->cmd) {
        snprintf(err, errlen, bad ? "unterminated quote" : "no command");
        return -1;
    }
    return 1;
}

/* ---- commands ------------------------------------------------------------- */

/* What a command runs with: the context, options, and where its message
 * goes. */
struct ns_run {
    struct nfs_context *nfs;
    const struct ns_opts *opts;
    char path[2][4096]; /* the arguments made absolute (libnfs wants "/...") */
    char err[512];
};

/* Makes the absolute libnfs path of a script path in out ("." = "/"). */
static void ns_abs(const char *p, char *out, size_t outlen) {
    if (strcmp(p, ".") == 0 || *p == '\0')
        snprintf(out, outlen, "/");
    else
        snprintf(out, outlen, "%s%s", *p == '/' ? "" : "/", p);
}

/* Parses an unsigned number (base 0, or 8 when octal is set) into *v.
 * Returns 0, or -1 with a message in run->err. */
static int ns_num(struct ns_run *run, const char *s, int octal, uint64_t *v) {
    char *end;
    errno = 0;
    unsigned long long x = strtoull(s, &end, octal ? 8 : 0);
    if (errno || *s == '\0' || *end != '\0' || *s == '-') {
        snprintf(run->err, sizeof(run->err), "'%s' is not a%s number", s, octal ? "n octal" : "");
        return -1;
    }
    *v = x;
    return 0;
}

/* Records libnfs's error for a failed call (rc < 0) in run->err, after
 * "WHAT: " when what is not NULL (a step of a command: libnfs's message
 * already names the command's own call); returns -1. */
static int ns_fail(struct ns_run *run, const char *what, int rc) {
    const char *e = nfs_get_error(run->nfs);
    snprintf(run->err, sizeof(run->err), "%s%s%s (%s)", what ? what : "", what ? ": " : "",
             e && *e ? e : "failed", strerror(-rc));
    return -1;
}

/* Prints a result line unless --quiet. */
__attribute__((format(printf, 2, 3))) static void ns_say(const struct ns_run *run, const char *fmt, ...) {
    if (run->opts->quiet) return;
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
}

/* The name of a file type from st_mode. */
static const char *ns_type(uint64_t mode) {
    switch (mode & S_IFMT) {
    case S_IFREG: return "reg";
    case S_IFDIR: return "dir";
    case S_IFLNK: return "lnk";
    case S_IFBLK: return "blk";
    case S_IFCHR: return "chr";
    case S_IFSOCK: return "sock";
    case S_IFIFO: return "fifo";
    default: return "?";
    }
}

/* Fills buf with the pattern bytes of file offset off (a function of the
 * offset only, so reruns write the same data). */
static void ns_pattern(char *buf, size_t n, uint64_t off) {
    for (size_t i = 0; i < n; i++)
        buf[i] = (char)('a' + (off + i) % 26);
}

/* Writes count pattern bytes at off through fh. Returns 0 or -1. */
static int ns_write_at(struct ns_run *run, struct nfsfh *fh, uint64_t off, uint64_t count) {
    static char buf[NS_CHUNK];
    while (count > 0) {
        size_t n = count < NS_CHUNK ? (size_t)count : NS_CHUNK;
        ns_pattern(buf, n, off);
        int rc = nfs_pwrite(run->nfs, fh, off, n, buf);
        if (rc < 0) return ns_fail(run, "write", rc);
        if (rc == 0) {
            snprintf(run->err, sizeof(run->err), "write: server wrote 0 bytes");
            return -1;
        }
        off += (uint64_t)rc;
        count -= (uint64_t)rc;
    }
    return 0;
}

/* stat PATH: lstat, printing type, size and mode. 0 or -1 (run->err). */
static int ns_c_stat(struct ns_run *run, struct ns_line *l) {
    struct nfs_stat_64 st;
    int rc = nfs_lstat64(run->nfs, run->path[0], &st);
    if (rc < 0) return ns_fail(run, NULL, rc);
    ns_say(run, "%s: %s size %llu mode 0%03llo\n", l->arg[0], ns_type(st.nfs_mode),
           (unsigned long long)st.nfs_size, (unsigned long long)(st.nfs_mode & 07777));
    return 0;
}

/* read PATH: reads to the end in 64 KiB calls, printing the byte count. */
static int ns_c_read(struct ns_run *run, struct ns_line *l) {
    static char buf[NS_CHUNK];
    struct nfsfh *fh;
    int rc = nfs_open(run->nfs, run->path[0], O_RDONLY, &fh);
    if (rc < 0) return ns_fail(run, "open", rc);
    uint64_t off = 0;
    while ((rc = nfs_pread(run->nfs, fh, off, NS_CHUNK, buf)) > 0)
        off += (uint64_t)rc;
    nfs_close(run->nfs, fh);
    if (rc < 0) return ns_fail(run, "read", rc);
    ns_say(run, "%s: %llu bytes\n", l->arg[0], (unsigned long long)off);
    return 0;
}

/* write PATH OFFSET COUNT: pattern bytes at OFFSET. */
static int ns_c_write(struct ns_run *run, struct ns_line *l) {
    uint64_t off, count;
    if (ns_num(run, l->arg[1], 0, &off) < 0 || ns_num(run, l->arg[2], 0, &count) < 0) return -1;
    struct nfsfh *fh;
    int rc = nfs_open(run->nfs, run->path[0], O_WRONLY, &fh);
    if (rc < 0) return ns_fail(run, "open", rc);
    rc = ns_write_at(run, fh, off, count);
    nfs_close(run->nfs, fh);
    return rc;
}

/* append PATH COUNT: pattern bytes at the size the server gives now. */
static int ns_c_append(struct ns_run *run, struct ns_line *l) {
    uint64_t count;
    if (ns_num(run, l->arg[1], 0, &count) < 0) return -1;
    struct nfsfh *fh;
    int rc = nfs_open(run->nfs, run->path[0], O_WRONLY, &fh);
    if (rc < 0) return ns_fail(run, "open", rc);
    struct nfs_stat_64 st;
    rc = nfs_fstat64(run->nfs, fh, &st);
    if (rc < 0)
        ns_fail(run, "fstat", rc);
    else
        rc = ns_write_at(run, fh, st.nfs_size, count);
    nfs_close(run->nfs, fh);
    return rc < 0 ? -1 : 0;
}

/* The optional mode argument i of l, or def. Returns 0 or -1. */
static int ns_mode_arg(struct ns_run *run, struct ns_line *l, int i, uint64_t def, uint64_t *mode) {
    *mode = def;
    if (l->nargs <= i) return 0;
    if (ns_num(run, l->arg[i], 1, mode) < 0) return -1;
    if (*mode > 07777) {
        snprintf(run->err, sizeof(run->err), "mode %s is above 07777", l->arg[i]);
        return -1;
    }
    return 0;
}

/* create PATH [MODE]: a regular file (CREATE), closed at once. */
static int ns_c_create(struct ns_run *run, struct ns_line *l) {
    uint64_t mode;
    if (ns_mode_arg(run, l, 1, 0644, &mode) < 0) return -1;
    struct nfsfh *fh;
    int rc = nfs_creat(run->nfs, run->path[0], (int)mode, &fh);
    if (rc < 0) return ns_fail(run, NULL, rc);
    nfs_close(run->nfs, fh);
    return 0;
}

/* mkdir PATH [MODE]. */
static int ns_c_mkdir(struct ns_run *run, struct ns_line *l) {
    uint64_t mode;
    if (ns_mode_arg(run, l, 1, 0755, &mode) < 0) return -1;
    int rc = nfs_mkdir2(run->nfs, run->path[0], (int)mode);
    return rc < 0 ? ns_fail(run, NULL, rc) : 0;
}

/* rmdir PATH. */
static int ns_c_rmdir(struct ns_run *run, struct ns_line *l) {
    (void)l;
    int rc = nfs_rmdir(run->nfs, run->path[0]);
    return rc < 0 ? ns_fail(run, NULL, rc) : 0;
}

/* remove PATH (REMOVE). */
static int ns_c_remove(struct ns_run *run, struct ns_line *l) {
    (void)l;
    int rc = nfs_unlink(run->nfs, run->path[0]);
    return rc < 0 ? ns_fail(run, NULL, rc) : 0;
}

/* rename FROM TO. */
static int ns_c_rename(struct ns_run *run, struct ns_line *l) {
    (void)l;
    int rc = nfs_rename(run->nfs, run->path[0], run->path[1]);
    return rc < 0 ? ns_fail(run, NULL, rc) : 0;
}

/* link EXISTING NEW: a hard link. */
static int ns_c_link(struct ns_run *run, struct ns_line *l) {
    (void)l;
    int rc = nfs_link(run->nfs, run->path[0], run->path[1]);
    return rc < 0 ? ns_fail(run, NULL, rc) : 0;
}

/* symlink TARGET PATH: the target is stored as written, not made absolute. */
static int ns_c_symlink(struct ns_run *run, struct ns_line *l) {
    int rc = nfs_symlink(run->nfs, l->arg[0], run->path[1]);
    return rc < 0 ? ns_fail(run, NULL, rc) : 0;
}

/* readlink PATH, printing the target. */
static int ns_c_readlink(struct ns_run *run, struct ns_line *l) {
    char *target = NULL;
    int rc = nfs_readlink2(run->nfs, run->path[0], &target);
    if (rc < 0) return ns_fail(run, NULL, rc);
    ns_say(run, "%s -> %s\n", l->arg[0], target ? target : "");
    free(target);
    return 0;
}

/* ls PATH: the whole listing (READDIRPLUS), one name a line. */
static int ns_c_ls(struct ns_run *run, struct ns_line *l) {
    struct nfsdir *d;
    int rc = nfs_opendir(run->nfs, run->path[0], &d);
    if (rc < 0) return ns_fail(run, "opendir", rc);
    struct nfsdirent *e;
    while ((e = nfs_readdir(run->nfs, d)) != NULL)
        ns_say(run, "%s: %s\n", l->arg[0], e->name);
    nfs_closedir(run->nfs, d);
    return 0;
}

/* truncate PATH SIZE (SETATTR size). */
static int ns_c_truncate(struct ns_run *run, struct ns_line *l) {
    uint64_t size;
    if (ns_num(run, l->arg[1], 0, &size) < 0) return -1;
    int rc = nfs_truncate(run->nfs, run->path[0], size);
    return rc < 0 ? ns_fail(run, NULL, rc) : 0;
}

/* chmod PATH MODE (octal; SETATTR mode). */
static int ns_c_chmod(struct ns_run *run, struct ns_line *l) {
    uint64_t mode;
    if (ns_mode_arg(run, l, 1, 0, &mode) < 0) return -1;
    int rc = nfs_chmod(run->nfs, run->path[0], (int)mode);
    return rc < 0 ? ns_fail(run, NULL, rc) : 0;
}

/* sleep MS: waits, sending nothing. */
static int ns_c_sleep(struct ns_run *run, struct ns_line *l) {
    uint64_t ms;
    if (ns_num(run, l->arg[0], 0, &ms) < 0) return -1;
    struct timespec ts = {.tv_sec = (time_t)(ms / 1000), .tv_nsec = (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {
    }
    return 0;
}

/* The command table: name, argument counts, and which arguments are paths
 * (bit i: argument i is made absolute into run->path). */
struct ns_command {
    const char *name;
    int min, max;
    unsigned paths;
    int (*run)(struct ns_run *run, struct ns_line *l);
};

static const struct ns_command ns_commands[] = {
    {"stat", 1, 1, 1, ns_c_stat},       {"read", 1, 1, 1, ns_c_read},
    {"write", 3, 3, 1, ns_c_write},     {"append", 2, 2, 1, ns_c_append},
    {"create", 1, 2, 1, ns_c_create},   {"mkdir", 1, 2, 1, ns_c_mkdir},
    {"rmdir", 1, 1, 1, ns_c_rmdir},     {"remove", 1, 1, 1, ns_c_remove},
    {"rename", 2, 2, 3, ns_c_rename},   {"link", 2, 2, 3, ns_c_link},
    {"symlink", 2, 2, 2, ns_c_symlink}, {"readlink", 1, 1, 1, ns_c_readlink},
    {"ls", 1, 1, 1, ns_c_ls},           {"truncate", 2, 2, 1, ns_c_truncate},
    {"chmod", 2, 2, 1, ns_c_chmod},     {"sleep", 1, 1, 0, ns_c_sleep},
};
#define NS_NCOMMANDS (sizeof(ns_commands) / sizeof(ns_commands[0]))

/* Runs one split line. Returns 0, or -1 with a message in run->err. */
static int ns_exec(struct ns_run *run, struct ns_line *l) {
    const struct ns_command *c = NULL;
    for (size_t i = 0; i < NS_NCOMMANDS; i++)
        if (strcmp(ns_commands[i].name, l->cmd) == 0) c = &ns_commands[i];
    if (!c) {
        snprintf(run->err, sizeof(run->err), "unknown command");
        return -1;
    }
    if (l->nargs < c->min || l->nargs > c->max) {
        if (c->min == c->max)
            snprintf(run->err, sizeof(run->err), "takes %d argument%s, not %d", c->min,
                     c->min == 1 ? "" : "s", l->nargs);
        else
            snprintf(run->err, sizeof(run->err), "takes %d to %d arguments, not %d", c->min, c->max,
                     l->nargs);
        return -1;
    }
    for (int i = 0; i < 2; i++)
        if (c->paths & (1u << i)) ns_abs(l->arg[i], run->path[i], sizeof(run->path[i]));
    return c->run(run, l);
}

/* Runs every line of f (named name in messages). Returns 0, or -1 after
 * printing "NAME:LINE: ..." for the first failure not allowed to fail. */
static int ns_script(struct ns_run *run, FILE *f, const char *name) {
    char *line = NULL;
    size_t cap = 0;
    long lineno = 0;
    int rc = 0;
    while (getline(&line, &cap, f) >= 0) {
        lineno++;
        struct ns_line l;
        int s = ns_split(line, &l, run->err, sizeof(run->err));
        if (s == 0) continue;
        if (s > 0 && ns_exec(run, &l) == 0) continue;
        if (s > 0 && l.may_fail) {
            ns_say(run, "%s:%ld: %s: failed as allowed: %s\n", name, lineno, l.cmd, run->err);
            continue;
        }
        fprintf(stderr, "%s:%ld: %s%s%s\n", name, lineno, s > 0 ? l.cmd : "", s > 0 ? ": " : "", run->err);
        rc = -1;
        break;
    }
    if (rc == 0 && ferror(f)) {
        fprintf(stderr, "%s: read error: %s\n", name, strerror(errno));
        rc = -1;
    }
    free(line);
    return rc;
}

/* Connects and mounts per opts. Returns the context, or NULL after
 * printing why. */
static struct nfs_context *ns_connect(const struct ns_opts *opts) {
    struct nfs_context *nfs = nfs_init_context();
    if (!nfs) {
        fprintf(stderr, "tbbt-nfsscript: cannot create an NFS context\n");
        return NULL;
    }
    struct nfs_url *u = nfs_parse_url_dir(nfs, opts->url);
    if (!u) {
        fprintf(stderr, "tbbt-nfsscript: %s: %s\n", opts->url, nfs_get_error(nfs));
        nfs_destroy_context(nfs);
        return NULL;
    }
    nfs_set_uid(nfs, (int)opts->uid);
    nfs_set_gid(nfs, (int)opts->gid);
    nfs_set_timeout(nfs, (int)opts->timeout);
    nfs_set_dircache(nfs, (int)opts->dircache);
    int rc = nfs_mount(nfs, u->server, u->path);
    if (rc < 0) {
        fprintf(stderr, "tbbt-nfsscript: mount %s:%s: %s\n", u->server, u->path, nfs_get_error(nfs));
        nfs_destroy_url(u);
        nfs_destroy_context(nfs);
        return NULL;
    }
    nfs_destroy_url(u);
    return nfs;
}

int main(int argc, char **argv) {
    tbbt_opt_parse(&ns_cmd, &argc, &argv);
    if (argc < 2) tbbt_usage_error(TOOL, SYNOPSIS, "no server URL given");
    if (argc > 3) tbbt_usage_error(TOOL, SYNOPSIS, "unexpected argument '%s'", argv[3]);
    opt.url = argv[1], opt.script = argc > 2 ? argv[2] : NULL;
    const struct ns_opts opts = opt;
    const char *name = opts.script && strcmp(opts.script, "-") != 0 ? opts.script : "-";
    FILE *f = strcmp(name, "-") == 0 ? stdin : fopen(name, "r");
    if (!f) {
        fprintf(stderr, "tbbt-nfsscript: %s: %s\n", name, strerror(errno));
        return 2;
    }
    struct ns_run run = {.opts = &opts};
    run.nfs = ns_connect(&opts);
    int rc = 1;
    if (run.nfs) {
        rc = ns_script(&run, f, f == stdin ? "stdin" : name) < 0 ? 1 : 0;
        nfs_umount(run.nfs);
        nfs_destroy_context(run.nfs);
    }
    if (f != stdin) fclose(f);
    fflush(stdout);
    return rc;
}
