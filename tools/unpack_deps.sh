#!/bin/sh
# unpack_deps.sh [DIR [PREFIX]]: unpack the Debian packages and wheels that `./course pack-deps`
# carried into DIR under PREFIX (never into /), and write PREFIX/env.sh, which points a build
# at them. By hand (DIR: this script's folder, where pack-deps copies it as DIR/unpack; PREFIX:
# /opt/course-deps): `. "$(sh DIR/unpack)"` before building. ./course does both when COURSE_DEPS is
# set or .deps/ holds a pack. Carried tools and libraries come after the node's own on PATH
# and PKG_CONFIG_PATH; LD_LIBRARY_PATH cannot come after, so pack-deps leaves out what the node
# has. Unpacks once per pack: PREFIX/MANIFEST says which one is there.
set -eu
dir=$(cd "${1:-$(dirname "$0")}" && pwd)
mkdir -p "${2:-/opt/course-deps}"
prefix=$(cd "${2:-/opt/course-deps}" && pwd)
if ! cmp -s "$dir/MANIFEST" "$prefix/MANIFEST"; then
    echo "course: unpacking the packages carried in $dir into $prefix" >&2
    find "$prefix" -mindepth 1 -delete
    for deb in "$dir"/debs/*.deb; do dpkg-deb -x "$deb" "$prefix"; done
    # The .pc files name /usr: point them at the prefix (a sysroot would move the node's too).
    find "$prefix" -name '*.pc' -exec sed -i -e "s#=/usr#=$prefix/usr#" \
        -e "s#-\([IL]\)/usr/#-\1$prefix/usr/#g" {} +
    # What Debian's postinst scripts would have made with update-alternatives (mpicc, mpirun).
    for f in "$prefix"/usr/bin/*.openmpi; do
        [ -e "$f" ] && [ ! -e "${f%.openmpi}" ] && ln -s "$(basename "$f")" "${f%.openmpi}"
    done
    modules=""
    [ ! -f "$dir/wheels/MODULES" ] || for m in $(cat "$dir/wheels/MODULES"); do
        python3 -c "import $m" 2>/dev/null || modules="$modules $m"
    done
    # --prefix, not --target: pip then adds only what python3 lacks or has too old (numpy...).
    # shellcheck disable=SC2086
    [ -z "$modules" ] || python3 -m pip install --no-index --find-links "$dir/wheels" \
        --prefix "$prefix/python" $modules >"$prefix/pip.log" 2>&1 ||
        { echo "course: pip could not install the carried wheels of$modules (log: $prefix/pip.log)" >&2; exit 1; }
    site=$(find "$prefix/python" -type d -name '*-packages' 2>/dev/null | head -n 1)
    {
        add() { printf 'export %s="${%s:+$%s:}%s"\n' "$1" "$1" "$1" "$2"; }
        add PATH "$prefix/usr/bin"
        add PKG_CONFIG_PATH "$(find "$prefix" -type d -name pkgconfig | sort | paste -sd:)"
        add CMAKE_PREFIX_PATH "$prefix/usr"
        add CPATH "$prefix/usr/include:$prefix/usr/include/x86_64-linux-gnu"
        libs=$(find "$prefix" -name '*.so*' ! -path '*/python/*' -printf '%h\n' | sort -u | paste -sd:)
        add LIBRARY_PATH "$libs"
        printf 'export LD_LIBRARY_PATH="%s${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"\n' "$libs"
        [ -z "$site" ] || printf 'export PYTHONPATH="%s${PYTHONPATH:+:$PYTHONPATH}"\n' "$site"
        fashion=$prefix/usr/share/datasets/fashion-mnist
        [ ! -d "$fashion" ] || printf 'export FASHION_MNIST_DIR="${FASHION_MNIST_DIR:-%s}"\n' "$fashion"
        # OpenMPI finds its plugins and help files through OPAL_PREFIX, when it is the carried one.
        printf 'case $(command -v mpirun) in "%s"/*) export OPAL_PREFIX="%s/usr" ;; esac\n' \
            "$prefix" "$prefix"
    } >"$prefix/env.sh"
    cp "$dir/MANIFEST" "$prefix/MANIFEST"
fi
echo "$prefix/env.sh"
