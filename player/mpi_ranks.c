/* mpi_ranks.c -- tbbt-play as the ranks of an MPI job (see mpi_ranks.h). */
#include "mpi_ranks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#ifdef TBBT_HAVE_MPI
#include <mpi.h>

#include "stats_wire.h"

static char host[64];      /* MPI's processor name */
static char *rank_logs[2]; /* this rank's --send-log and --fail-log names */
#endif

static int my_rank, my_size = 1, in_job; /* in_job: MPI_Init was called */
static int share_count = 1;              /* clones this rank plays */
static char tag[128];                    /* tbbt_mpi_tag */

int tbbt_mpi_share(int rank, int n, int first, int clones, int *start, int *count) {
    if (n < 1 || clones < n || rank < 0 || rank >= n) return -1;
    int lo = (int)((long long)rank * clones / n), hi = (int)((long long)(rank + 1) * clones / n);
    *start = first + lo, *count = hi - lo;
    return 0;
}

const char *tbbt_mpi_tag(void) {
    return tag;
}

int tbbt_mpi_rank(void) {
    return my_rank;
}

int tbbt_mpi_size(void) {
    return my_size;
}

/* The number of ranks the launcher's environment announces (Open MPI's
 * mpirun, or a PMI launcher such as MPICH's or Slurm's); 0 when none. */
static int launched_ranks(void) {
    const char *v = getenv("OMPI_COMM_WORLD_SIZE");
    if (!v) v = getenv("PMI_SIZE");
    if (!v) v = getenv("PMIX_SIZE");
    return v ? atoi(v) : 0;
}

#ifdef TBBT_HAVE_MPI

const char *tbbt_mpi_built(void) {
    static char v[MPI_MAX_LIBRARY_VERSION_STRING + 16];
    int n = 0;
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    if (MPI_Get_library_version(lib, &n) != MPI_SUCCESS) n = 0;
    lib[n] = 0;
    lib[strcspn(lib, ",\n")] = 0; /* "Open MPI v4.1.4, package: ..." */
    snprintf(v, sizeof(v), "built (%s)", lib);
    return v;
}

/* At exit: leave the job (every rank exits through here, errors too). */
static void finalize(void) {
    int done = 0;
    MPI_Finalized(&done);
    if (!done) MPI_Finalize();
    g_free(rank_logs[0]), g_free(rank_logs[1]);
}

/* FILE -> FILE.RANK, kept in *keep: every rank writes its own log, as
 * --json-rank does, so that ranks sharing a directory (one host, or a
 * shared file system) do not write over each other's. NULL stays NULL. */
static const char *rank_log(const char *file, char **keep) {
    if (!file) return NULL;
    return *keep = g_strdup_printf("%s.%d", file, my_rank);
}

int tbbt_mpi_init(int *argc, char ***argv, char *err, size_t errlen) {
    (void)err, (void)errlen;
    if (!launched_ranks() && !getenv("PMIX_RANK")) return 0; /* not under mpirun: a single player */
    int provided;
    MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
    in_job = 1;
    atexit(finalize);
    MPI_Comm_rank(MPI_COMM_WORLD, &my_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &my_size);
    int n = 0;
    char name[MPI_MAX_PROCESSOR_NAME];
    MPI_Get_processor_name(name, &n);
    name[n] = 0;
    g_strlcpy(host, name, sizeof(host));
    snprintf(tag, sizeof(tag), "rank %d on %s: ", my_rank, host);
    return 0;
}

/* engine.h's ready callback: the start barrier. Every rank says whether
 * it set up; all go on only if all did. */
static int ready(void *ctx, int setup_rc, char *err, size_t errlen) {
    (void)ctx;
    int ok = setup_rc == 0, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (setup_rc < 0) return -1;
    if (!all) {
        snprintf(err, errlen, "another rank could not start (its message says why)");
        return -1;
    }
    return 0;
}

/* This rank's form: rc, share, host, then its figures. */
static GByteArray *pack_rank(const struct tbbt_play_stats *st, int rc) {
    GByteArray *b = g_byte_array_new();
    int32_t head[2] = {rc, share_count};
    g_byte_array_append(b, (const guint8 *)head, sizeof(head));
    g_byte_array_append(b, (const guint8 *)host, sizeof(host));
    tbbt_pstats_pack(st, b);
    return b;
}

/* Rank 0: adds rank r's form into st. Returns its rc, or -1 with err. */
static int merge_rank(struct tbbt_play_stats *st, int r, const uint8_t *p, int len, char *err,
                      size_t errlen) {
    int32_t head[2];
    char h[sizeof(host)];
    if (len < (int)(sizeof(head) + sizeof(h))) {
        snprintf(err, errlen, "rank %d sent %d bytes, not its figures", r, len);
        return -1;
    }
    memcpy(head, p, sizeof(head));
    memcpy(h, p + sizeof(head), sizeof(h));
    h[sizeof(h) - 1] = 0;
    struct tbbt_play_stats one;
    tbbt_pstats_init(&one);
    size_t off = sizeof(head) + sizeof(h);
    char why[256];
    int rc = head[0];
    if (tbbt_pstats_unpack(&one, p + off, (size_t)len - off, why, sizeof(why)) < 0) {
        snprintf(err, errlen, "rank %d: %s", r, why);
        rc = -1;
    } else {
        tbbt_pstats_add_rank(st, &one, r, rc, head[1], h);
        tbbt_pstats_merge(st, &one);
    }
    tbbt_pstats_free(&one);
    return rc;
}

/* The worse of two results: failed, then interrupted, then done. */
static int worse(int a, int b) {
    if (a < 0 || b < 0) return -1;
    return a == 3 || b == 3 ? 3 : a;
}

int tbbt_mpi_gather(struct tbbt_play_stats *st, int rc, char *err, size_t errlen) {
    if (!in_job) return rc;
    GByteArray *b = pack_rank(st, rc);
    int len = (int)b->len, *lens = NULL, *displs = NULL;
    uint8_t *all = NULL;
    if (my_rank == 0) lens = g_new0(int, my_size), displs = g_new0(int, my_size);
    MPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (my_rank == 0) {
        for (int r = 1; r < my_size; r++)
            displs[r] = displs[r - 1] + lens[r - 1];
        all = g_malloc((size_t)displs[my_size - 1] + (size_t)lens[my_size - 1] + 1);
    }
    MPI_Gatherv(b->data, len, MPI_BYTE, all, lens, displs, MPI_BYTE, 0, MPI_COMM_WORLD);
    g_byte_array_free(b, TRUE);
    if (my_rank != 0) return rc;
    st->ranks = my_size;
    tbbt_pstats_add_rank(st, st, 0, rc, share_count, host);
    int job = rc;
    for (int r = 1; r < my_size; r++) {
        char why[512] = "";
        int rrc = merge_rank(st, r, all + displs[r], lens[r], why, sizeof(why));
        if (rrc < 0 && job >= 0) {
            if (why[0])
                snprintf(err, errlen, "%s", why);
            else
                snprintf(err, errlen, "rank %d failed (its message says why)", r);
        }
        job = worse(job, rrc);
    }
    g_free(lens), g_free(displs), g_free(all);
    return job;
}

#else /* no MPI: one player, and a clear refusal under mpirun */

const char *tbbt_mpi_built(void) {
    return "not built";
}

int tbbt_mpi_init(int *argc, char ***argv, char *err, size_t errlen) {
    (void)argc, (void)argv;
    int n = launched_ranks();
    if (n > 1) {
        snprintf(err, errlen,
                 "started by mpirun as one of %d ranks, but this tbbt-play was built without MPI support "
                 "(install libopenmpi-dev and build again)",
                 n);
        return -1;
    }
    return 0;
}

int tbbt_mpi_gather(struct tbbt_play_stats *st, int rc, char *err, size_t errlen) {
    (void)st, (void)err, (void)errlen;
    return rc;
}

#endif

int tbbt_mpi_setup(struct tbbt_play_opts *o, char *err, size_t errlen) {
    if (!in_job) {
        if (!o->clones) o->clones = 1;
        return 0;
    }
    int clones = o->clones ? o->clones : my_size, start, count;
    if (tbbt_mpi_share(my_rank, my_size, o->clone, clones, &start, &count) < 0) {
        snprintf(err, errlen, "--clones %d cannot be shared among %d ranks (at least one clone per rank)",
                 clones, my_size);
        return -1;
    }
    o->clone = start, o->clones = count, share_count = count;
#ifdef TBBT_HAVE_MPI
    o->ready = ready, o->ready_ctx = NULL;
    o->send_log = rank_log(o->send_log, &rank_logs[0]);
    o->fail_log = rank_log(o->fail_log, &rank_logs[1]);
#endif
    if (my_rank) o->live = 0;
    return 0;
}
