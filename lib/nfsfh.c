/* nfsfh.c -- libnfs handles and a one-connection wait (nfsfh.h). */
#include "nfsfh.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

#include <nfsc/libnfs.h>
#include <nfsc/libnfs-raw.h>

#include "clock.h"
#include "unconst.h"

nfs_fh3 tbbt_nfs_fh3(const struct tbbt_fh *f) {
    nfs_fh3 h;
    h.data.data_len = f->len;
    h.data.data_val = tbbt_unconst(f->data);
    return h;
}

int tbbt_nfs_copy_fh(const nfs_fh3 *h, struct tbbt_fh *fh) {
    if (!h->data.data_val || h->data.data_len > TBBT_FH_MAX) return -1;
    fh->len = h->data.data_len;
    memcpy(fh->data, h->data.data_val, fh->len);
    return 0;
}

int tbbt_nfs_post_fh(const post_op_fh3 *p, struct tbbt_fh *fh) {
    return p->handle_follows ? tbbt_nfs_copy_fh(&p->post_op_fh3_u.handle, fh) : -1;
}

int tbbt_nfs_pump(struct rpc_context *rpc, const int *done, const int *inflight, int most, int timeout,
                  char *err, size_t errlen) {
    double last = tbbt_now_s();
    while (done ? !*done : *inflight > most) {
        struct pollfd p = {.fd = rpc_get_fd(rpc), .events = (short)rpc_which_events(rpc)};
        if (poll(&p, 1, 100) < 0 && errno != EINTR) {
            snprintf(err, errlen, "poll: %s", strerror(errno));
            return -1;
        }
        int before = *inflight;
        if (rpc_service(rpc, p.revents) < 0) {
            snprintf(err, errlen, "connection: %s", rpc_get_error(rpc));
            return -1;
        }
        if (*inflight != before) last = tbbt_now_s();
        if (tbbt_now_s() - last > timeout) {
            snprintf(err, errlen, "no reply for %d s", timeout);
            return -1;
        }
    }
    return 0;
}
