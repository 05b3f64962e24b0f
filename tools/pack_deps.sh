#!/bin/sh
# pack_deps.sh [--docs] [--have FILE] [--python X.Y] [--list] DIR
#
# Run by `./course pack-deps`, as root, on a connected Debian or Ubuntu machine of the GPU
# node's architecture. Packs into DIR what `./course test` needs on a GPU node that reaches no
# package registry:
#   DIR/debs/       the Debian packages (apt-get download: nothing is installed here), with
#                   their dependency closure less what the node already has
#   DIR/wheels/     the PyPI wheels of the Python modules the tests use, for --python
#   DIR/MANIFEST    one line per file: package, version, sha256
#   DIR/unpack      the script that unpacks them, for use without ./course
# Copy DIR to the node and run `COURSE_DEPS=DIR ./course test` (or put it at .deps/ in the
# checkout): ./course unpacks it into a prefix of its own, never into /.
#
# The packages come from ./course's missing_packages, run with every probe failing, in
# COURSE_PACKAGES (all it can ask for) and COURSE_DOCS_PACKAGES (the docs' share of them).
# Left out: the toolchain the node is assumed to have (nvcc needs gcc; ./course needs python3;
# pip serves only what ./course fetches from PyPI, which such a node cannot reach), and Debian's
# python3-* modules, which serve Debian's own python3 alone: wheels stand in.
#   --docs        also pack the docs set (pandoc, LaTeX beamer); without it only Doxygen, whose
#                 test fails rather than skips without it
#   --have FILE   the node's installed packages, one name a line (on the node:
#                 dpkg-query -W -f '${Package}\n' >FILE); by default the node is taken to have
#                 what every Debian or Ubuntu system has (the Essential and required packages
#                 installed here), build-essential and python3, with all they need. Never
#                 carry libc6 and the like: LD_LIBRARY_PATH would put them before the node's
#   --python X.Y  the node's python3 version, for the wheels (default: this python3's)
#   --list        print the Debian packages and Python modules asked for, and stop
set -eu

here=$(cd "$(dirname "$0")" && pwd)
: "${COURSE_PACKAGES:?run this through ./course pack-deps}"
: "${COURSE_DOCS_PACKAGES:?run this through ./course pack-deps}"
assumed_present="gcc g++ binutils python3 python3-pip"
docs=no have="" python="" list=no dest=""
while [ $# -gt 0 ]; do
    case $1 in
    --docs) docs=yes ;;
    --have) have=$2; shift ;;
    --python) python=$2; shift ;;
    --list) list=yes ;;
    -*) echo "pack_deps.sh: unknown option $1" >&2; exit 2 ;;
    *) dest=$1 ;;
    esac
    shift
done

# The Debian packages and the Python modules to carry, one a line, each list sorted.
debian_packages() {
    for p in $COURSE_PACKAGES; do
        case " $assumed_present " in *" $p "*) continue ;; esac
        case $p in python3-*) continue ;; esac
        if [ $docs = no ] && [ "$p" != doxygen ]; then
            case " $COURSE_DOCS_PACKAGES " in *" $p "*) continue ;; esac
        fi
        echo "$p"
    done | sort -u
}
python_modules() {
    for p in $COURSE_PACKAGES; do
        case $p in python3-*) echo "${p#python3-}" ;; esac
    done | sort -u
}

if [ $list = yes ]; then
    echo "debian: $(debian_packages | tr '\n' ' ')"
    echo "python: $(python_modules | tr '\n' ' ')"
    exit 0
fi
[ -n "$dest" ] || { echo "usage: ./course pack-deps [--docs] [--have FILE] [--python X.Y] DIR" >&2; exit 2; }
command -v apt-get >/dev/null 2>&1 || { echo "pack_deps.sh: no apt-get here: pack on a Debian or Ubuntu machine" >&2; exit 1; }

# The first-choice dependency edges ("PKG DEP" lines) below the packages named: of each group
# of alternatives the first, and of a virtual package its first provider, as apt would pick.
dependency_edges() {
    apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
        --no-replaces --no-enhances "$@" | awk '
        function flush() { if (split(group, c, " ") > 0) print cur, c[1]; group = "" }
        /^[^ ]/ { flush(); cur = $1; open = 0; next }
        /^    [^ ]/ { if (virtual) group = group " " $1; next }
        /Depends: / {
            if (!open) flush()
            dep = $2; sub(/:any$/, "", dep)
            virtual = dep ~ /^</
            if (!virtual) group = group " " dep
            open = substr($0, 2, 1) == "|"
        }
        END { flush() }'
}

# closure EDGES ROOTS...: the roots and everything they reach through EDGES.
closure() {
    edges=$1
    shift
    printf '%s\n' "$@" | awk -v edges="$edges" '
        BEGIN { while ((getline line < edges) > 0) { split(line, e, " "); next_of[e[1]] = next_of[e[1]] " " e[2] } }
        { todo[++n] = $1 }
        END {
            for (i = 1; i <= n; i++) {
                p = todo[i]
                if (p in seen) continue
                seen[p] = 1; print p
                m = split(next_of[p], d, " ")
                for (j = 1; j <= m; j++) if (!(d[j] in seen)) todo[++n] = d[j]
            }
        }' | sort -u
}

mkdir -p "$dest/debs" "$dest/wheels"
dest=$(cd "$dest" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
wanted=$(debian_packages)
if [ -n "$have" ]; then
    sort -u "$have" >"$work/present"
    # shellcheck disable=SC2086
    dependency_edges $wanted >"$work/edges"
else
    essential=$(dpkg-query -W -f '${Package} ${Essential} ${Priority}\n' |
        awk '$2 == "yes" || $3 == "required" { print $1 }')
    # shellcheck disable=SC2086
    dependency_edges $wanted build-essential $assumed_present $essential >"$work/edges"
    # shellcheck disable=SC2086
    closure "$work/edges" build-essential $assumed_present $essential >"$work/present"
fi
# shellcheck disable=SC2086
closure "$work/edges" $wanted | comm -23 - "$work/present" >"$work/carry"
echo "pack-deps: $(wc -l <"$work/carry") Debian packages (of $(echo $wanted | wc -w) asked for, with what they need)"
rm -f "$dest"/debs/*.deb "$dest"/wheels/*.whl
# shellcheck disable=SC2046
(cd "$dest/debs" && apt-get -q -o APT::Sandbox::User=root download $(cat "$work/carry") >/dev/null)

python=${python:-$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')}
set --
for n in 17 24 27 28 31 34; do set -- "$@" --platform "manylinux_2_${n}_x86_64"; done
echo "pack-deps: wheels of $(python_modules | tr '\n' ' ')for Python $python"
# shellcheck disable=SC2046
python3 -m pip download -q --only-binary=:all: --python-version "$python" --implementation cp \
    "$@" --platform manylinux2014_x86_64 --platform linux_x86_64 -d "$dest/wheels" $(python_modules)
python_modules >"$dest/wheels/MODULES"

{
    for f in "$dest"/debs/*.deb; do
        printf '%s %s %s\n' "$(dpkg-deb -f "$f" Package)" "$(dpkg-deb -f "$f" Version)" \
            "$(sha256sum <"$f" | cut -d' ' -f1)"
    done
    for f in "$dest"/wheels/*.whl; do
        name=$(basename "$f")
        printf '%s %s %s\n' "${name%%-*}" "$(echo "$name" | cut -d- -f2)" "$(sha256sum <"$f" | cut -d' ' -f1)"
    done
} >"$dest/MANIFEST"
cp "$here/unpack_deps.sh" "$dest/unpack"
echo "pack-deps: $dest holds $(ls "$dest"/debs/*.deb | wc -l) .deb and $(ls "$dest"/wheels/*.whl | wc -l) wheels, $(du -sh "$dest" | cut -f1) in all"
