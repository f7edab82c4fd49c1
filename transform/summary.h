/* summary.h -- per-procedure counts of a record stream, for the report.
 *
 * Calls, statuses and server response times (call to reply) per NFS
 * version and procedure: the shape of `tshark -z rpc,srt`, plus the status
 * breakdown. Fed one record at a time; constant memory. */
#ifndef TBBT_SUMMARY_H
#define TBBT_SUMMARY_H

#include <stdint.h>
#include <stdio.h>

#include <glib.h>

#include "record.h"

#define TBBT_SUM_NSTAT 110 /* 0..99 direct, 10001..10008 at 100..107, 108 other */

struct tbbt_sum_op {
    uint64_t calls;    /* records */
    uint64_t replied;  /* with an NFS status */
    uint64_t lost;     /* reply lost */
    uint64_t rpc_err;  /* RPC-level error replies */
    uint64_t inserted; /* corrective records */
    uint64_t status[TBBT_SUM_NSTAT];
    int64_t srt_min, srt_max; /* ns */
    double srt_sum;
};

struct tbbt_summary {
    struct tbbt_sum_op op[2][TBBT_OP_COUNT]; /* [vers - 2][op] */
    uint64_t records;
    int64_t first_call, last_call;
};

void tbbt_summary_init(struct tbbt_summary *s);
void tbbt_summary_add(struct tbbt_summary *s, const struct tbbt_rec *r);

/* Status code of a status slot (inverse of the slot mapping), or -1 for the
 * "other" slot. */
int tbbt_summary_slot_status(int slot);

/* Prints the per-procedure table (calls, SRT min/max/avg in ms, statuses). */
void tbbt_summary_print(const struct tbbt_summary *s, FILE *out);

/* Appends the table as a JSON object member list (no braces):
 * "procedures":[{"vers":3,"proc":"lookup","calls":N,...},...] */
void tbbt_summary_json(const struct tbbt_summary *s, GString *out);

#endif
