#!/bin/sh
# Build the course's documents into DIR (default docs), failing on any warning:
#   figures  DIR/figures/       the lessons' and slides' figures, SVG and PNG (tools/figures.py,
#                               matplotlib; docs/figures is committed)
#   slides   DIR/slides/*.pdf   every deck of slides/ (tools/slides.py: pandoc + LaTeX beamer),
#                               with the figures drawn as PDF into DIR/slides/figures
#   api      DIR/html/          Doxygen HTML of reference/ and the lesson headers
# PARTS: any of figures, slides, api, in that order; none means all three.
set -eu
cd "$(dirname "$0")/.."
out=${1:-docs}
[ $# -gt 0 ] && shift
parts=${*:-figures slides api}
python=${PYTHON:-python3}
for part in $parts; do
    case $part in
    figures)
        "$python" tools/figures.py "$out/figures" >/dev/null
        echo "figures: $out/figures/"
        ;;
    slides)
        "$python" tools/figures.py --pdf "$out/slides/figures" >/dev/null
        "$python" tools/slides.py --figures "$out/slides/figures" --out "$out/slides" slides/*.md
        ;;
    api)
        if ! command -v doxygen >/dev/null 2>&1; then
            echo "doxygen is not installed (apt-get install doxygen)" >&2
            exit 2
        fi
        mkdir -p "$out"
        { cat tools/Doxyfile; echo "OUTPUT_DIRECTORY = $out"; } | doxygen - 2>&1
        echo "docs: $out/html/index.html"
        ;;
    *)
        echo "docs.sh: unknown part '$part' (figures, slides, api)" >&2
        exit 2
        ;;
    esac
done
