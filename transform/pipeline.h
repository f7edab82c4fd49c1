/* pipeline.h -- records handed from one thread to the next (tbbt-prep's
 * passes on both cores, issue 27).
 *
 * A pipe owns a consumer thread that calls sink(ctx, r) for every record
 * put, in the order put. The producer copies each record (deep:
 * tbbt_rec_copy, so a record may point into the producer's buffers) into
 * a batch; a full batch goes to the consumer as a whole, so the threads
 * meet once per batch, not per record (a cross-CPU wake costs tens of
 * microseconds). At most `depth` batches are queued: a slow consumer
 * holds the producer back, memory stays bounded.
 *
 * When the stream ends drained, the consumer calls end(ctx) (when not
 * NULL) after the last record: a stage's own end (pass 2's last records,
 * pass 3's map) runs on its thread while the producer frees its own
 * tables, not after them on the producer's.
 *
 * Errors: when sink or end returns non-zero, the consumer stops and the
 * next put (or tbbt_pipe_close) returns -1, so the producer stops cleanly, never
 * waiting on a consumer that is gone. The consumer thread blocks SIGINT
 * and SIGTERM: they reach the thread that handles them (interrupt.h).
 * Everything the sink touched may be read by the producer's thread once
 * tbbt_pipe_close has returned (it joins the thread). */
#ifndef TBBT_PIPELINE_H
#define TBBT_PIPELINE_H

#include "record.h"

#define TBBT_PIPE_BATCH 512 /* records a hand-off carries */
#define TBBT_PIPE_DEPTH 8   /* batches queued at most */

typedef int (*tbbt_pipe_sink)(void *ctx, const struct tbbt_rec *r);
typedef int (*tbbt_pipe_end_fn)(void *ctx);

struct tbbt_pipe;

/* Starts the consumer thread; end may be NULL. Returns NULL (err set) if
 * it cannot. */
struct tbbt_pipe *tbbt_pipe_new(tbbt_pipe_sink sink, tbbt_pipe_end_fn end, void *ctx, char *err,
                                size_t errlen);

/* Hands r to the consumer (copied). Returns 0, or -1 once the sink failed. */
int tbbt_pipe_put(struct tbbt_pipe *p, const struct tbbt_rec *r);

/* The tbbt_pipe_put as a record sink: ctx is the pipe. */
int tbbt_pipe_sink_put(void *ctx, const struct tbbt_rec *r);

/* Ends the stream without waiting for the consumer: with drain, the
 * records put are handed on, sunk, then end is called; without (the
 * producer failed), the consumer stops at its next batch and end is not
 * called. Returns 0, or -1 if the sink failed already. Put no more. */
int tbbt_pipe_end(struct tbbt_pipe *p, int drain);

/* Ends the stream (tbbt_pipe_end, if not ended yet) and joins the thread.
 * Returns 0, or -1 if the sink or end failed. */
int tbbt_pipe_close(struct tbbt_pipe *p, int drain);

/* Frees the pipe (closing it without draining if it is still open). */
void tbbt_pipe_free(struct tbbt_pipe *p);

#endif
