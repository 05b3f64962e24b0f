#!/bin/sh
# pack_deps_list.sh SOURCE_DIR: every package that ./course's missing_packages and
# docs_packages name, read from their text, is carried by `./course pack-deps` (a .deb, or a
# wheel for a python3-* module) or is in the toolchain the packer assumes the node has; the
# docs set only with --docs, bar Doxygen. No network: --list only prints what it would pack.
set -eu
cd "$1"
fail=0

# The names in the two functions' text: pkgs="$pkgs NAME...", printf ' NAME', for x in a:NAME...
named=$(sed -n '/^missing_packages() {/,/^}/p; /^docs_packages() {/,/^}/p' course |
    sed -n -e 's/.*pkgs="\$pkgs \([^"]*\)".*/\1/p' -e "s/.*printf ' \([a-z0-9.+-]*\)'.*/\1/p" \
        -e 's/.*for [a-z]* in \(.*\); do/\1/p' | tr ' ' '\n' | sed 's/.*://' | grep . | sort -u)
docs=$(sed -n '/^docs_packages() {/,/^}/p' course |
    sed -n -e "s/.*printf ' \([a-z0-9.+-]*\)'.*/\1/p" -e 's/.*for [a-z]* in \(.*\); do/\1/p' |
    tr ' ' '\n' | sed 's/.*://' | grep . | sort -u)
assumed=$(sed -n 's/^assumed_present="\(.*\)"/\1/p' tools/pack_deps.sh)
[ "$(echo "$named" | wc -l)" -ge 20 ] || { echo "pack_deps_list.sh: read only $(echo "$named" | wc -w) names from course: its functions changed shape"; exit 1; }

# check FLAGS: each name in the package lists of `./course pack-deps FLAGS --list`, or left out
# for a reason.
check() {
    list=$(./course pack-deps "$@" --list)
    debian=" $(echo "$list" | sed -n 's/^debian: //p') "
    python=" $(echo "$list" | sed -n 's/^python: //p') "
    for p in $named; do
        case " $assumed " in *" $p "*) continue ;; esac
        case $p in python3-*) carried=$python; name=${p#python3-} ;; *) carried=$debian; name=$p ;; esac
        case $carried in *" $name "*) continue ;; esac
        if [ $# = 0 ] && [ "$p" != doxygen ] && echo "$docs" | grep -qx "$p"; then continue; fi
        echo "course:missing_packages asks for $p, which ./course pack-deps${*:+ $*} does not carry"
        fail=1
    done
}
check --docs
check
[ $fail = 0 ] && echo "pack-deps carries all $(echo "$named" | wc -l) packages ./course can ask for (bar: $assumed)"
exit $fail
