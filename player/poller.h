/* poller.h -- the receive thread's wait on every connection (epoll).
 *
 * A replay of a site's trace holds a connection per traced client, up to
 * thousands, most of them idle at any moment: poll() over all of them
 * costs a pass over every socket per wake-up, epoll only the ready ones.
 * Level-triggered: a connection with bytes left unread is reported again.
 * Sockets are added by whichever thread opens them (epoll_ctl is safe
 * beside a thread in epoll_wait); a socket leaves the set when it is
 * closed, or when tbbt_poller_del takes it out. */
#ifndef TBBT_POLLER_H
#define TBBT_POLLER_H

#include <stdint.h>

#define TBBT_POLLER_BATCH 256 /* ready sockets taken in one wait at most */

struct tbbt_poller {
    int fd; /* the epoll instance, -1 when none */
    int n;  /* ready in the last wait */
    uint32_t id[TBBT_POLLER_BATCH];
};

/* Makes the set. Returns 0, or -1 with errno. */
int tbbt_poller_init(struct tbbt_poller *p);

/* Watches fd for reading (and hang-up, error), reporting it as id.
 * Returns 0, or -1 with errno. */
int tbbt_poller_add(struct tbbt_poller *p, int fd, uint32_t id);

/* Stops watching fd (still open). */
void tbbt_poller_del(struct tbbt_poller *p, int fd);

/* Waits up to timeout_ms for ready sockets; their ids are p->id[0..n-1].
 * Returns n (0: none in time, or a signal), or -1 with errno. */
int tbbt_poller_wait(struct tbbt_poller *p, int timeout_ms);

void tbbt_poller_free(struct tbbt_poller *p);

#endif
