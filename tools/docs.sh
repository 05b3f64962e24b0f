#!/bin/sh
# Build the Doxygen HTML of reference/ and the lesson headers into DIR (default docs/html),
# failing on any warning. With --slides, also render slides/*.md to PDF when pandoc and a
# LaTeX beamer install are present.
set -eu
cd "$(dirname "$0")/.."
out=${1:-docs}
if ! command -v doxygen >/dev/null 2>&1; then
    echo "doxygen is not installed (apt-get install doxygen)" >&2
    exit 2
fi
mkdir -p "$out"
{ cat tools/Doxyfile; echo "OUTPUT_DIRECTORY = $out"; } | doxygen - 2>&1
echo "docs: $out/html/index.html"
if [ "${2:-}" = "--slides" ]; then
    if command -v pandoc >/dev/null 2>&1 && kpsewhich beamer.cls >/dev/null 2>&1; then
        mkdir -p "$out/slides"
        for s in slides/*.md; do
            pandoc -t beamer "$s" -o "$out/slides/$(basename "$s" .md).pdf"
        done
        echo "slides: $out/slides/"
    else
        echo "slides: skipped (needs pandoc and texlive-latex-recommended for beamer)"
    fi
fi
