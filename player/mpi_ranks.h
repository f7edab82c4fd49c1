/* mpi_ranks.h -- many load hosts: tbbt-play as the ranks of an MPI job.
 *
 *   mpirun -np N tbbt-play [options] TRACE.tbbt SERVER:/EXPORT
 *
 * Each rank is a whole player (engine.h) on its own host, playing its
 * share of the image clones (tbbt-init --clones): of --clones C starting
 * at --clone I (C defaults to N, one clone per rank), rank r plays clones
 * I + floor(r*C/N) up to I + floor((r+1)*C/N) - 1, so the shares are equal
 * when N divides C and differ by at most one clone otherwise; C below N is
 * refused. All ranks start together: once each has opened the trace,
 * loaded its manifest and made its fixed connections, they meet (an
 * MPI_Allreduce of "set up?", which is also the barrier: a rank that could
 * not start stops them all instead of leaving them waiting). At the end
 * every rank sends its figures (stats_wire.h) to rank 0, which merges them
 * (tbbt_pstats_merge) into one report of a single player's form, with the
 * number of ranks and each rank's own counters added.
 *
 * Built only where CMake finds MPI (TBBT_HAVE_MPI). Without it, and always
 * when not started by mpirun, the process is rank 0 of 1 and nothing here
 * changes a replay; a tbbt-play without MPI started by mpirun as one of
 * several ranks refuses to run (N players on clone 0 would spoil each
 * other's replay). MPI calls are made from the main thread only (the
 * engine's send thread is the caller's; its I/O and receive threads never
 * call MPI). Named mpi_ranks, not mpi: a player/mpi.h would hide MPI's own
 * <mpi.h> from this directory's sources. */
#ifndef TBBT_MPI_RANKS_H
#define TBBT_MPI_RANKS_H

#include <stddef.h>

#include "engine.h"
#include "stats.h"

/* Rank r of n's share of `clones` clones from `first`: *start and *count.
 * Returns 0, or -1 when clones < n or n < 1 (someone would get none). */
int tbbt_mpi_share(int rank, int n, int first, int clones, int *start, int *count);

/* "built (Open MPI v4.1.4)" or "not built": for --help and the tests. */
const char *tbbt_mpi_built(void);

/* Joins the MPI job when started by mpirun (its environment says so), and
 * has MPI_Finalize run at exit. Returns 0, or -1 with a one-line message in
 * err when started as one of several ranks without MPI support built. */
int tbbt_mpi_init(int *argc, char ***argv, char *err, size_t errlen);

/* This process's rank and the job's size: 0 and 1 when not in a job. */
int tbbt_mpi_rank(void);
int tbbt_mpi_size(void);

/* "" alone; "rank R on HOST: " in a job, to begin a rank's messages. */
const char *tbbt_mpi_tag(void);

/* Fits o to this rank: o->clone and o->clones become its share of the
 * clones asked (o->clones 0: one per rank; alone: 1), the start barrier
 * becomes o->ready, o->send_log and o->fail_log FILE become FILE.RANK (as
 * --json-rank: ranks sharing a directory keep their own; the names live
 * until exit), and only rank 0 keeps the live line. Returns 0, or -1 with
 * err when the clones cannot be shared out. */
int tbbt_mpi_setup(struct tbbt_play_opts *o, char *err, size_t errlen);

/* Collective, at the end of every rank's run (rc: its tbbt_play_run
 * result): rank 0 merges every rank's figures into st (its metadata kept,
 * st->ranks and st->rank_rows set) and returns the job's result (-1 with
 * err if a rank failed, else 3 if one was interrupted, else 0); other
 * ranks return rc. Alone: returns rc and leaves st. */
int tbbt_mpi_gather(struct tbbt_play_stats *st, int rc, char *err, size_t errlen);

#endif
