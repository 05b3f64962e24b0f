#!/bin/sh
# differential_smoke.sh SOURCE_DIR BUILD_DIR: CI's run of the differential harness
# (tools/differential.sh), the emulator against itself with forward and reverse warp schedules.
# Four of lesson 02's GPU cases (vector_add_host's timing is an exception the harness skips) and
# two of lesson 03's (shared-memory tiles and barriers) leave no mismatch; of diff_race.cu's
# kernels, the one without a race leaves none either, and the racy one leaves a line naming it.
# Exit 1 naming what went wrong.
set -u
src=$1
bin=$2/bin
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail() {
    echo "differential_smoke: $*"
    [ -f "$out/diff.txt" ] && sed 's/^/  /' "$out/diff.txt"
    exit 1
}
sh "$src/tools/differential.sh" "$bin/test_02_solution" "$out/lessons.txt" schedule \
    vector_add_edges vector_add_host_edges matmul_coalesced_edges vector_add_sector_efficiency ||
    fail "lesson 02 differs between warp schedules (above)"
sh "$src/tools/differential.sh" "$bin/test_03_solution" "$out/lessons.txt" schedule \
    matmul_tiled_edges transpose_shared_padded_edges ||
    fail "lesson 03 differs between warp schedules (above)"
sh "$src/tools/differential.sh" "$bin/test_diff_race" "$out/race.txt" schedule warp_sum_any_order ||
    fail "diff_warp_sum, which has no race, differs between warp schedules"
sh "$src/tools/differential.sh" "$bin/test_diff_race" "$out/diff.txt" schedule last_warp_is_a_race &&
    fail "diff_last_warp's race left no mismatch: the differential cannot fail"
grep -q '^mismatch case=last_warp_is_a_race call=diff_last_warp .*kernels=[^ ]*diff_last_warp_kernel.* first=0 .*differing=7 what=diff_last_warp at blocks=7$' \
    "$out/diff.txt" || fail "no mismatch line names diff_last_warp, its kernel, block 0 and all 7 blocks"
grep -q '^summary suite=test_diff_race mode=schedule cases=1 failed=0 mismatches=1$' "$out/diff.txt" ||
    fail "the summary line does not count one mismatch"
echo "differential_smoke: lessons 02 and 03 agree across warp schedules; diff_last_warp's race is caught"
