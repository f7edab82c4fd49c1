/* nfsstat.h -- the one table of NFS statuses every stage uses.
 *
 * RFC 1813 section 2.6 (nfsstat3) is a superset of RFC 1094's nfsstat
 * but for v2's WFLUSH (99); both use the same numbers, so one enum serves
 * both versions. The list below is the only place the numbers and names
 * are written: the enum, tbbt_nfsstat_name and tbbt_nfsstat_by_name come
 * from it, and test_nfs_ops checks it against rpcgen's constants from the
 * .x files in lib/proto. */
#ifndef TBBT_NFSSTAT_H
#define TBBT_NFSSTAT_H

/* X(name, number): every status of RFC 1813 and RFC 1094, in number order. */
#define TBBT_NFSSTAT_LIST(X)                                                                                 \
    X(OK, 0)                                                                                                 \
    X(PERM, 1)                                                                                               \
    X(NOENT, 2)                                                                                              \
    X(IO, 5)                                                                                                 \
    X(NXIO, 6)                                                                                               \
    X(ACCES, 13)                                                                                             \
    X(EXIST, 17)                                                                                             \
    X(XDEV, 18)                                                                                              \
    X(NODEV, 19)                                                                                             \
    X(NOTDIR, 20)                                                                                            \
    X(ISDIR, 21)                                                                                             \
    X(INVAL, 22)                                                                                             \
    X(FBIG, 27)                                                                                              \
    X(NOSPC, 28)                                                                                             \
    X(ROFS, 30)                                                                                              \
    X(MLINK, 31)                                                                                             \
    X(NAMETOOLONG, 63)                                                                                       \
    X(NOTEMPTY, 66)                                                                                          \
    X(DQUOT, 69)                                                                                             \
    X(STALE, 70)                                                                                             \
    X(REMOTE, 71)                                                                                            \
    X(WFLUSH, 99)       /* v2 only */                                                                        \
    X(BADHANDLE, 10001) /* v3 only from here on */                                                           \
    X(NOT_SYNC, 10002)                                                                                       \
    X(BAD_COOKIE, 10003)                                                                                     \
    X(NOTSUPP, 10004)                                                                                        \
    X(TOOSMALL, 10005)                                                                                       \
    X(SERVERFAULT, 10006)                                                                                    \
    X(BADTYPE, 10007)                                                                                        \
    X(JUKEBOX, 10008)

/* TBBT_NFSERR_NOENT = 2, ...; success is TBBT_NFS_OK (and TBBT_NFSERR_OK,
 * which nobody should write). */
enum tbbt_nfsstat {
#define TBBT_NFSSTAT_ENUM_(name, num) TBBT_NFSERR_##name = num,
    TBBT_NFSSTAT_LIST(TBBT_NFSSTAT_ENUM_)
#undef TBBT_NFSSTAT_ENUM_
        TBBT_NFS_OK = TBBT_NFSERR_OK
};

/* Name of an NFS status (TBBT_NFSERR_NOENT -> "NOENT"), or NULL if unknown. */
const char *tbbt_nfsstat_name(int status);

/* The status named name ("NOENT", as tbbt_nfsstat_name gives it), or -1 if
 * no status has that name. */
int tbbt_nfsstat_by_name(const char *name);

#endif
