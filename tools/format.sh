#!/bin/sh
# clang-format over every C and CUDA source of the course.
#   tools/format.sh          rewrite the files in place
#   tools/format.sh --check  list the files that differ and exit 1
set -eu
cd "$(dirname "$0")/.."
files=$(git ls-files -co --exclude-standard -- '*.c' '*.h' '*.cu' '*.cuh' 2>/dev/null ||
        find reference lessons solutions exercises tests tools -name '*.[ch]' -o -name '*.cu' -o -name '*.cuh')
if [ "${1:-}" = "--check" ]; then
    bad=0
    for f in $files; do
        [ -f "$f" ] || continue
        if ! clang-format --dry-run --Werror "$f" >/dev/null 2>&1; then
            echo "needs clang-format: $f"
            bad=1
        fi
    done
    [ "$bad" = 0 ] && echo "clang-format: all files formatted"
    exit "$bad"
fi
for f in $files; do
    [ -f "$f" ] && clang-format -i "$f"
done
echo "clang-format: formatted"
