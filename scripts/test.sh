#!/bin/sh
# scripts/test.sh -- the README's second command, kept where the README has
# always given it: runs dev/test.sh (installs what is needed, builds, runs
# the whole suite; arguments are passed on). The developer scripts live in
# dev/; scripts/ holds the user commands.
exec "$(dirname "$0")/../dev/test.sh" "$@"
