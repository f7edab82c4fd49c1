#!/bin/sh
# tests/lib/netns_agent.sh -- Open MPI's remote-shell agent for "hosts" that
# are network namespaces of this machine (tests/lib/netns.sh makes them).
# mpirun runs it as it would run ssh (--mca plm_rsh_agent THIS):
#
#   netns_agent.sh HOST COMMAND...
#
# and it runs COMMAND (a shell command line: its words joined by spaces, as
# ssh joins them) in network namespace HOST, and in a UTS namespace of its
# own whose hostname is HOST, so that what runs there (Open MPI's orted and
# the ranks it starts) has HOST's address and calls itself HOST: a rank's
# MPI_Get_processor_name, the "rank R on HOST" of tbbt-play's report, names
# its namespace. Needs root (ip netns exec, unshare). Exit: COMMAND's status,
# or 255 (as ssh) when HOST is not a namespace here.
[ $# -ge 2 ] || { echo "usage: netns_agent.sh HOST COMMAND..." >&2; exit 255; }
host=$1
shift
ip netns list | awk '{ print $1 }' | grep -qx -- "$host" ||
    { echo "netns_agent.sh: no network namespace $host here" >&2; exit 255; }
exec ip netns exec "$host" unshare --uts /bin/sh -c 'hostname "$0" && exec /bin/sh -c "$1"' "$host" "$*"
