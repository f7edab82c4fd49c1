#!/bin/sh
# scripts/demo.sh -- the README's first command, kept where the README has
# always given it: runs dev/demo.sh (installs what is needed, builds, and
# runs the main job on a private nfs-ganesha). The developer scripts live in
# dev/; scripts/ holds the user commands.
exec "$(dirname "$0")/../dev/demo.sh" "$@"
