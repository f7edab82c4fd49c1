/* poller.c -- the receive thread's wait on every connection (see poller.h). */
#include "poller.h"

#include <errno.h>
#include <sys/epoll.h>
#include <unistd.h>

int tbbt_poller_init(struct tbbt_poller *p) {
    p->n = 0;
    p->fd = epoll_create1(EPOLL_CLOEXEC);
    return p->fd < 0 ? -1 : 0;
}

int tbbt_poller_add(struct tbbt_poller *p, int fd, uint32_t id) {
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = id};
    return epoll_ctl(p->fd, EPOLL_CTL_ADD, fd, &ev);
}

void tbbt_poller_del(struct tbbt_poller *p, int fd) {
    struct epoll_event ev = {0}; /* ignored, but kernels before 2.6.9 wanted one */
    epoll_ctl(p->fd, EPOLL_CTL_DEL, fd, &ev);
}

int tbbt_poller_wait(struct tbbt_poller *p, int timeout_ms) {
    struct epoll_event ev[TBBT_POLLER_BATCH];
    int n = epoll_wait(p->fd, ev, TBBT_POLLER_BATCH, timeout_ms);
    if (n < 0) {
        p->n = 0;
        return errno == EINTR ? 0 : -1;
    }
    for (int k = 0; k < n; k++)
        p->id[k] = (uint32_t)ev[k].data.u64;
    return p->n = n;
}

void tbbt_poller_free(struct tbbt_poller *p) {
    if (p->fd >= 0) close(p->fd);
    p->fd = -1;
}
