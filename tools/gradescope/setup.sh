#!/bin/sh
# setup.sh: Gradescope runs this once, as root, when it builds the autograder's image (Ubuntu),
# from the folder of autograder.zip (`./course gradescope OUT` wrote it: this script,
# run_autograder, lessons, and the course in course/).
#
# It grades the course's own untouched exercises once: that installs everything grading needs
# (Debian/Ubuntu packages with apt-get, the CUDA toolkit from PyPI when the image has none,
# CMake from PyPI when the image's is older than 3.24) and leaves a build in /autograder/work
# that each submission's grade reuses, rebuilding only the student's files. The solutions
# stay in the package for the grader alone (how much of a submission repeats them): readable
# by root only.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
chmod -R go= "$here/course/solutions"
lessons=$(cat "$here/lessons")
"$here/course/course" grade --work /autograder/work --out /autograder/setup-grade \
    ${lessons:+--lesson "$lessons"}
