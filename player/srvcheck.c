/* srvcheck.c -- the server check before a replay (see engine_int.h).
 *
 * A wrong server or export fails at once, in one sentence, not as
 * thousands of failed requests; a step of its own, before the threads
 * start, using nothing of theirs. */
#include "engine_int.h"

#include <stdio.h>
#include <string.h>

/* The export part of "HOST:/EXPORT" or "[V6]:/EXPORT" (tbbt_nfs_server_name's
 * form, the manifest's "server"), or NULL. */
static const char *export_of(const char *name) {
    const char *p = name[0] == '[' ? strstr(name, "]:") : NULL;
    p = p ? p + 1 : strchr(name, ':');
    return p && p[1] == '/' ? p + 1 : NULL;
}

/* Whether two export paths name the same export: equal but for trailing
 * slashes ("/x/" is "/x"; "/" stays "/"). */
static int same_export(const char *a, const char *b) {
    size_t na = strlen(a), nb = strlen(b);
    while (na > 1 && a[na - 1] == '/')
        na--;
    while (nb > 1 && b[nb - 1] == '/')
        nb--;
    return na == nb && !memcmp(a, b, na);
}

/* Before the replay, so that a wrong server or export fails at once in one
 * sentence rather than as thousands of failed requests: the server answers
 * NFSv3 where the replay will send (a NULL call on a connection of its
 * own, conn.h); the export exists, when MOUNT can be asked (a MOUNT port
 * was given, or the NFS port too comes from the portmapper); and it is the
 * export the manifest's image was built on (the handles play there, on no
 * other). Returns 0, or -1 with the sentence in err, naming the server. */
int eng_check_server(struct engine *e, char *err, size_t errlen) {
    const struct tbbt_play_opts *o = e->o;
    char srv[1300], why[600];
    tbbt_nfs_server_name(&o->server, srv, sizeof(srv));
    struct tbbt_pconn c;
    int rc = tbbt_pconn_open(&c, &o->server, o->udp, why, sizeof(why));
    if (rc == 0) rc = tbbt_pconn_probe(&c, o->timeout_s, why, sizeof(why));
    tbbt_pconn_close(&c);
    if (rc < 0) {
        snprintf(err, errlen, "%s: %s", srv, why);
        return -1;
    }
    struct tbbt_fh root;
    if ((o->server.mountport || !o->server.nfsport) &&
        tbbt_nfs_mount(&o->server, o->timeout_s, &root, err, errlen) < 0)
        return -1;
    const char *built = e->mf_server ? export_of(e->mf_server) : NULL;
    if (built && !same_export(built, o->server.export)) {
        snprintf(err, errlen,
                 "%s: not the export the manifest %s was built on (%s): replay there, or run tbbt-init on "
                 "this one",
                 srv, o->manifest, e->mf_server);
        return -1;
    }
    return 0;
}
