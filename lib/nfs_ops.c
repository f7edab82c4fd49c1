/* nfs_ops.c -- the operation table: names, wire numbers and traits. */
#include "nfs_ops.h"

#include <stddef.h>
#include <string.h>

#define OBJ TBBT_OPF_OBJ
#define DN TBBT_OPF_DIRNAME
#define DN2 TBBT_OPF_DIRNAME2
#define NEW TBBT_OPF_NEWOBJ
#define CRE TBBT_OPF_CREATES
#define DEL TBBT_OPF_DELETES
#define MOD TBBT_OPF_MODIFIES
#define LST TBBT_OPF_LISTING

/* Indexed by enum tbbt_op. Wire numbers are those of RFC 1094 section 2.2
 * and RFC 1813 section 3.3; test_nfs_ops checks them against rpcgen's
 * constants from the .x files in lib/proto. */
static const struct tbbt_op_info op_table[TBBT_OP_COUNT] = {
    {TBBT_OP_NULL, "null", 0, 0, 0},
    {TBBT_OP_GETATTR, "getattr", 1, 1, OBJ},
    {TBBT_OP_SETATTR, "setattr", 2, 2, OBJ | MOD},
    {TBBT_OP_ROOT, "root", 3, -1, 0},
    {TBBT_OP_LOOKUP, "lookup", 4, 3, DN | NEW},
    {TBBT_OP_ACCESS, "access", -1, 4, OBJ},
    {TBBT_OP_READLINK, "readlink", 5, 5, OBJ},
    {TBBT_OP_READ, "read", 6, 6, OBJ},
    {TBBT_OP_WRITECACHE, "writecache", 7, -1, 0},
    {TBBT_OP_WRITE, "write", 8, 7, OBJ | MOD},
    {TBBT_OP_CREATE, "create", 9, 8, DN | NEW | CRE | MOD},
    {TBBT_OP_MKDIR, "mkdir", 14, 9, DN | NEW | CRE | MOD},
    {TBBT_OP_SYMLINK, "symlink", 13, 10, DN | NEW | CRE | MOD},
    {TBBT_OP_MKNOD, "mknod", -1, 11, DN | NEW | CRE | MOD},
    {TBBT_OP_REMOVE, "remove", 10, 12, DN | DEL | MOD},
    {TBBT_OP_RMDIR, "rmdir", 15, 13, DN | DEL | MOD},
    {TBBT_OP_RENAME, "rename", 11, 14, DN | DN2 | DEL | MOD},
    {TBBT_OP_LINK, "link", 12, 15, OBJ | DN | MOD},
    {TBBT_OP_READDIR, "readdir", 16, 16, OBJ | LST},
    {TBBT_OP_READDIRPLUS, "readdirplus", -1, 17, OBJ | LST},
    {TBBT_OP_STATFS, "statfs", 17, -1, OBJ},
    {TBBT_OP_FSSTAT, "fsstat", -1, 18, OBJ},
    {TBBT_OP_FSINFO, "fsinfo", -1, 19, OBJ},
    {TBBT_OP_PATHCONF, "pathconf", -1, 20, OBJ},
    {TBBT_OP_COMMIT, "commit", -1, 21, OBJ | MOD},
};

/* Wire number -> op, built from op_table so the numbers live once. */
static signed char wire_map[2][32];
static int wire_map_ready;

static void wire_map_init(void) {
    memset(wire_map, -1, sizeof(wire_map));
    for (int i = 0; i < TBBT_OP_COUNT; i++) {
        if (op_table[i].v2proc >= 0) wire_map[0][op_table[i].v2proc] = (signed char)i;
        if (op_table[i].v3proc >= 0) wire_map[1][op_table[i].v3proc] = (signed char)i;
    }
    wire_map_ready = 1;
}

const struct tbbt_op_info *tbbt_op_info(enum tbbt_op op) {
    return &op_table[op];
}

int tbbt_op_from_wire(unsigned vers, unsigned proc) {
    if (!wire_map_ready) wire_map_init();
    if ((vers != TBBT_NFS_V2 && vers != TBBT_NFS_V3) || proc >= 32) return -1;
    return wire_map[vers - 2][proc];
}

int tbbt_op_to_wire(enum tbbt_op op, unsigned vers) {
    if ((unsigned)op >= TBBT_OP_COUNT) return -1;
    if (vers == TBBT_NFS_V2) return op_table[op].v2proc;
    if (vers == TBBT_NFS_V3) return op_table[op].v3proc;
    return -1;
}

int tbbt_op_by_name(const char *name) {
    for (int i = 0; i < TBBT_OP_COUNT; i++)
        if (strcmp(op_table[i].name, name) == 0) return i;
    return -1;
}
