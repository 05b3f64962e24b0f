#!/bin/sh
# The time model (emulator/vm/model.c), on a copy whose traffic is known by hand:
#
#   test_model.sh TEST_MODEL_BINARY EMULATOR_LIB_DIR
#
# 1. 2^24 floats copied on the h100 row: 2^24 * 8 bytes of DRAM traffic (every sector read
#    and written once, nothing reused) at 0.88 of 3350 GB/s (DRAM_COPY_SHARE) is 45.529 us,
#    plus the 3 us launch overhead: 0.04853 ms, bound by DRAM. The test fails outside
#    [0.0484, 0.0486] ms.
# 2. Shared memory: 256 threads each store 4 floats, then load them, one 4-byte access at a
#    time, lanes 16 bytes apart: 4 wavefronts per access (4-way conflicts) in the PTX counts,
#    16 per warp for the loads (lds_wavefronts 128 over 8 warps); merged as ptxas merges them,
#    one conflict-free 16-byte access of 4 wavefronts for the stores and one for the loads:
#    smem_wavefronts 8 per warp, 64.
# 3. Memory-level parallelism: 2^22 threads each load 4 floats, all four in flight together
#    (one batch, emulator/vm/model_code.c), then the same addresses chained (each address waits
#    for the previous value: four batches of one): the latency bound 4 times as long. A batch
#    waits for its slowest load: x[t] four times in one batch (a miss to DRAM, every launch
#    starting with empty caches, and three L1 hits) takes the four misses' latency bound
#    (within 1%), not their mean. With a SASS file in which ptxas unrolled each of the
#    chained loads' lines 4 times (4 loads where the PTX has 1), a warp has 4 of them in
#    flight at once (ptxas hoists the loads of the steps it unrolls): the batched loads'
#    latency bound (within 1%).
# 4. Same-address atomics: 2^24 fp32 adds to one float at 3 clocks each (gpus.c's
#    ATOM_F32_CLOCKS, at 1980 MHz): 25.42 ms, bound atomic; 2^24 integer adds to one counter,
#    its address read from memory, at one a clock: 8.4733 ms; 2^24 integer adds to a
#    parameter's address, which ptxas sums a warp at a time: 2^19 updates, 0.26479 ms; 2^24
#    integer adds over 256 counters, half of them to one: the busiest address's 2^23 updates at
#    one a clock, 4.2367 ms (the average of the 256 addresses would be 0.033 ms).
# 5. Asynchronous copies: a loop of 64 tiles, each loaded and then used (its load latency
#    exposed at every tile: 4 blocks, one per SM), against its twin that copies the next tile
#    with cp.async while it works on this one (256 multiply-adds a thread, more issue time than
#    the load's latency): its exposed latency only the 64 tiles' shared reads (an L1 hit each, 33
#    clocks at 1980 MHz: item 20), and faster. Copied with cp.async but waited for
#    whole before it is used (one stage), each tile exposes as much as the first loop's. With
#    two blocks on each SM (264 blocks, 16 tiles), both reach each tile's load together and wait
#    for it together: the time is at least the launch, the exposed latency and both blocks'
#    issue time one after the other.
# 6. SASS per source line (COURSE_EMU_MODEL_SASS): 3 instructions on the copy's line y[i] = x[i]
#    and none elsewhere, for 4096 floats (128 warps): sass_insts 384; the same line of another
#    file matches nothing, and PTX is counted (sass_insts=0).
# 8. TMA and wgmma (test_model_hopper_kernels.cu): 2 blocks, 32 tiles of bulk copies and four
#    wgmma m64n64k16 each: 2^24 flops a block on its own SM at 96% of 989.4 TFLOP/s over 132
#    SMs (wgmma's rate): tensor_ms 0.002332. In one stage each tile waits its copies (exposed
#    latency > 0); in 6 stages the five tiles ahead hide it (exposed 0, faster); warp-specialised,
#    the producer warp's instructions are left out of the issue bound (producer_insts > 0) and
#    it is no slower than the 6 stages. A stage's round trip (tma_round_trip) is its copy's
#    latency (at least the L2's 260 cycles), its transfer (the block's bytes a tile at its SM's
#    share of the DRAM or L2 bandwidth: max(dram_ms, l2_ms) * 132 / 2 blocks / 32 tiles) and
#    the tile's math (tensor_ms / 32), in series; one stage exposes all of it but its own work
#    at each tile: its time less the launch and its barriers is 32 round trips at 1980 MHz (within 1%). The bound
#    column says latency for the one stage (the chain of round trips sets its time), not for 6.
#    The 6 stages once more on the same bytes as e4m3 (wgmma m64n64k32): twice the flops at
#    twice the rate (gpus.h's WGMMA_8BIT_SPEEDUP, the H100 datasheet's FP8 rate), the same
#    tensor_ms.
# 10. Rows read a column at a time (test_model_kernels.cu's model_rows): one warp's 32 scalar
#    loads of 8 rows of 4 floats, k outer and row inner, every lane one address: ptxas reads
#    each row as one 16-byte load, and a 16-byte load whose lanes share one address takes 2
#    wavefronts (emulator/vm/count.c): 8 x 2 and the tile's store, 17.
# 9. Pipes shared by few warps (mean value analysis, emulator/vm/model.c): one block of one warp
#    overlaps nothing, so its time is the launch and the sum of its SM pipes' bounds (fp32,
#    issue, lsu; tensor 4 times over: a warp has one sub-partition's Tensor Core, a quarter of
#    the SM's) and its latency (within 1%); a copy of 2^24 floats (64 warps an SM) is its DRAM
#    bound (1. above).
# 11. Warps that wait for the same fill (test_model_kernels.cu's model_convoy): one block of 32
#    warps on each SM, every warp reading the same 32 floats at each step. One warp's miss
#    fetches what all of them wait for (they hit the L1 while it is on its way), so they leave
#    together: one customer of the SM's pipes, whose time is at least its latency and its
#    busiest pipe's work one after the other (within 1%), where 32 warps that waited apart
#    would overlap them.
# 12. Tiles that take longer to arrive than their latency (test_model_kernels.cu's
#    model_big_tiles): one block of 1024 threads on each SM, 8 tiles of 32 KiB staged in shared
#    memory. Each tile waits for its bytes at its SM's share of the DRAM bandwidth after their
#    latency, less the work of its own phase (the copy's few instructions): exposed at least
#    0.85 times the tiles' DRAM time. Loaded into registers
#    while the tile before is worked on (1024 clocks of issue a tile), the same tiles arrive
#    meanwhile: exposed less than a tenth of that.
# 13. f64 (test_model_kernels.cu's model_f64, model_dmma): 132 blocks of 256 threads, 512
#    fma.rn.f64 a thread, are 2^16 lanes an SM over the h100's 64 FP64 units: 2048 clocks at 1980
#    MHz, fp64_ms 0.0010343, bound fp64, and nothing on the fp32 pipe; on the rtx3090 row (2 FP64
#    units an SM, 82 SMs: 2 blocks on the busiest) 131072 clocks at 1695 MHz, 0.077329 ms. 132
#    warps' 64 mma.sync m8n8k4 in f64 (512 flops each) are 4325376 flops at the h100's 67 TFLOP/s
#    of f64 Tensor Cores: tensor_ms 6.4558e-05; the rtx3090 has none, and its 2 blocks an SM run
#    them on the FP64 units, 4 flops a clock: 16384 clocks, 0.0096661 ms (each within 1%).
# 14. Special functions (model_sfu): the same grid, 512 ex2.approx.f32 a thread, 2^17 lanes an SM
#    at the 16 results a clock of the Programming Guide's table: 8192 clocks, sfu_ms 0.0041374
#    on the h100 row, bound sfu, nothing on the fp32 pipe; 0.0096661 ms on the rtx3090's busiest
#    SM (2 blocks).
# 15. Barriers (model_barrier): 132 blocks of 1024 threads, 64 __syncthreads() a thread and an add:
#    65536 threads an SM through its barrier at 16 a clock (gpus.h's BAR_THREADS_CLK), 4096
#    clocks, barrier_ms 0.0020687 on the h100 row, bound barrier; the block waits for them and
#    its issue one after the other (ms at least the launch, barrier_ms and issue_ms); 0.0048330 ms
#    on the rtx3090's busiest SM (2 blocks of 1024 threads, one at a time, at 1695 MHz).
# 16. The L2's sets (model_reread, on a GPU file: the h100's row with a 64 MiB L2, 2^15 sets of
#    16 ways, and one block an SM, so that a wave is 132 blocks): 192 blocks sum 48 MiB of x, 256
#    KiB each, and the next 192, in later waves, read the same chunks again (every block run).
#    The L2 holds them: 48 MiB of DRAM reads and the 384 KiB of y's stores (within 2%), where a
#    set index that left most of 2^15 sets unused brought them from DRAM twice. On the
#    h100 row (50 MiB of L2, full enough that some lines evict others), the same launch in two
#    processes, whose device memory lies elsewhere in each one's address space, gives the same
#    line, every field the same.
# 7. Sampling: 2^22 + 33 floats (16385 blocks, a partial last block) with the sample and
#    without: the first wave's blocks (1056) all run the same instructions, so the tail is the
#    grid's last block (1057 sampled); each count within 2%, and the time within 2%. 4000 blocks
#    whose work differs (block b loops b % 7 times) keep the whole tail (832 blocks past the
#    last whole wave: 1888 sampled), their counts and time within 2% of the full run's too; and
#    the copy in clusters of two (item 21), sampled in whole clusters.
# 17. Sub-partitions (model_mma): each warp's 64 mma.sync m16n8k16 in fp16, one warp an SM, then
#    16. A warp's mma runs on its own sub-partition's Tensor Core, a quarter of the SM's: the
#    lone warp takes 4 times the tensor bound, with its other pipes and latency added (within
#    1%); 16 warps, 4 on each sub-partition, keep all four busy: within 5% of the tensor bound
#    (and the launch).
# 18. Rounds of loads (COURSE_EMU_MODEL_SASS's LOADS and WAITS): model_tiles' first loop (4 blocks,
#    one an SM, 64 tiles, each thread loading one float a tile) with a SASS line for its load
#    saying it waits 1/4, 1, 2 and 3 times: a tile waits at least once (1/4 as 1), and each more
#    wait adds the same, one mean latency a tile, between the L2's 260 and DRAM's 600 clocks.
# 19. Rounds of short blocks (model_rounds): 2^24 floats in blocks that each load one float a
#    thread into shared memory, wait at the barrier and store, then exit. 1024 threads, 2 blocks
#    an SM: each round of an SM's blocks waits its loads' latency before their transfer, and the
#    DRAM idles meanwhile: at least 1.15 times their DRAM time (an exact mean value analysis of
#    the 2 blocks as customers gives about 1.6 with each round's start and end, item 28). 256
#    threads, 8 blocks an SM: within 1.25 of it, one block's transfer overlapping the others'
#    waits (gpu-benches' H100 PCIe copies doubles, 8 KiB read in flight an SM, at 1.11 times a
#    copy's DRAM time, with less DRAM bandwidth an SM than the h100 row's).
# 20. Shared loads waited for (model_tree): 2^24 floats in blocks of 256 threads (8 an SM), each a
#    tree reduction of 8 steps, each step after a barrier and reading shared memory, against
#    model_rounds' blocks of 256 (one interval that reads it): the resident blocks reach each
#    step together and the last warp's shared load's latency comes before the barrier, so the
#    tree's exposed latency is at least 7 more L1 hits a round (33 clocks at 1980 MHz).
# 21. Blocks that run in resident groups (test_model_hopper_kernels.cu's model_resident_copies):
#    the VM runs a group's blocks by turns, and the model follows the first of each group, which
#    stands for the group; the sample takes whole groups. The copy of 1. in clusters of two
#    blocks: 529 of its 65536 blocks followed (the first wave's 528 groups and the last), its time
#    and DRAM bytes those of the plain copy (within 1%); a grid-stride copy as a cooperative grid
#    of 264 blocks, one followed: those of the same grid launched plainly.
# 22. Strided loads (model_strided): 2^18 threads each read 4 floats and store their sum. A warp's
#    load whose lanes are 12 floats apart touches 12 lines in 8 banks (4 words each): 4 L1
#    wavefronts, its data's, where its tag stage takes 1 + 11 / 4; 33 floats apart, 32 lines in
#    32 banks: 1 + 31 / 4 = 8.75, its tag stage's. Against the lanes 1 float apart (a wavefront a
#    load), with the store's wavefront: lsu_ms 17 / 5 and 36 / 5 times theirs (within 1%).
# 23. Reads and writes (model_strided): 2^19 threads each read 32 floats and write one, 64 MiB
#    read and 2 MiB written: DRAM's time every byte at DRAM_STREAM_SHARE (0.964) of 3350 GB/s
#    and the written bytes again at what a copy loses besides (2 (1 / 0.88 - 1 / 0.964) each),
#    within 1%; the copy of 1. stays at 0.88.
# 24. The L2's rate (model_reread on the h100 row, item 16): its 96 MiB through the L2 at the
#    10028 GB/s gpu-benches' gpu-l2-cache read from an H200's L2 (gpus.c; the same GH100 chip as
#    the H100 SXM5, its clock), within 1%, where the A100 whitepaper's 5120 bytes a clock taken
#    per SM gave 12.4 TB/s.
# 25. Load phases that are not a loop's (model_norm): 2^24 floats in blocks of 256 threads (8 an
#    SM), each reading its row, reducing it (warp shuffles, one barrier) and reading it again as
#    it writes, an RMSNorm's two phases of different code. Their blocks are rounds of short blocks
#    (item 19), not a tile loop whose blocks wait for each phase's transfer in step: the exposed
#    wait is at most two of model_rounds' (the same blocks of 256 with one load phase: a round's
#    latency each), no transfer in it.
# 26. Shared atomics (model_shared_atomics): 64 atomicAdds a thread into a shared array, a
#    warp's lanes on one address (from a load, so not summed by ptxas first), on 32 banks, or on
#    one bank. An increment by the immediate 1 whose result is unused is ptxas's ATOMS.POPC.INC,
#    which counts each address's lanes and adds them at once: lanes on one address cost what
#    lanes on 32 banks cost (lsu_ms within 1%: the H200's histogram_shared takes as long with
#    half its bytes in one bin, emulator/MODEL.md); 32 addresses in one bank are 32 wavefronts,
#    at least 16 times that (a thread's atomics on consecutive counters are not merged into
#    16-byte accesses as its stores are: ptxas merges no atomics); and an increment loaded from
#    memory (ATOMS.ADD) on one address, its lanes one after another, at least 16 times too. One
#    warp's ldmatrix.x4 (model_ldmatrix_kernel), whose shared pieces come with no instruction of
#    their own, is estimated: 4 wavefronts or more.
# 27. Blocks started (model_small_blocks): the copy of 1. in blocks of 32 threads, 524288 of them,
#    bound by the GPU's start of blocks (gpus.c: 1.65 G blocks a second on the h100 row, gpu-benches'
#    gpu-small-kernels on an H200), 0.31775 ms and the launch, within 1%, where its DRAM bound is
#    the copy's.
# 28. Blocks' start and end (model_held_blocks): 16896 blocks of 32 threads that each store 32
#    floats, held to two an SM by 80 KiB of shared memory each: 64 rounds of an SM's two blocks,
#    each waiting for them to start and end (gpus.c: 450 clocks on the h100 row, gpu-benches'
#    gpu-stream on an H200), 0.014545 ms (starts_ms, within 1%) and the launch, bound latency,
#    within 5% (their few instructions).
# 29. A wave's blocks share the L2 (model_reread, on a GPU file: the h100's row with a 512 KiB
#    L2): 132 blocks, one wave, each sum the same 1 MiB of x. They run together, each step of
#    every block before the next step of any, so one block's misses bring each tile into the L2
#    and the others find it there: 1 MiB of DRAM reads and the 132 KiB of y's stores (within
#    2%), where blocks fed to the caches one after another stream 1 MiB each through an L2 half
#    its size and read 132 MiB.
set -eu
bin=$1
lib=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run() { # N SAMPLE FILE
    LD_LIBRARY_PATH=$lib COURSE_EMU_MODEL=h100 COURSE_EMU_MODEL_SAMPLE=$2 COURSE_EMU_MODEL_OUT=$3 "$bin" "$1"
}
of() { # FILE KERNEL KEY: from the kernel's line
    grep "kernel=[^ ]*$2" "$1" | tr ' ' '\n' | sed -n "s/^$3=//p"
}
nth() { # FILE KERNEL N KEY: from the kernel's Nth line
    grep "kernel=[^ ]*$2" "$1" | sed -n "$3p" | tr ' ' '\n' | sed -n "s/^$4=//p"
}
field() { # FILE KEY: from the copy's line
    of "$1" model_copy "$2"
}
run 16777216 1 "$out/copy"
ms=$(field "$out/copy" ms)
bound=$(field "$out/copy" bound)
awk -v ms="$ms" -v b="$bound" 'BEGIN { if (ms < 0.0484 || ms > 0.0486 || b != "dram") {
    printf "test_model.sh:%d: copy of 2^24 floats on h100: model %s ms bound %s, want 0.04853 ms (DRAM bytes / (0.88 x 3350 GB/s) + 3 us) bound dram\n", 202, ms, b; exit 1 } }'
smem=$(grep 'kernel=[^ ]*model_smem' "$out/copy" | tr ' ' '\n' | grep -E '^(smem|lds)_wavefronts=' | tr '\n' ' ')
[ "$smem" = "smem_wavefronts=64 lds_wavefronts=128 " ] || {
    echo "test_model.sh:205: shared round trip of 4 x 4-byte pieces: got $smem, want smem_wavefronts=64 lds_wavefronts=128"
    exit 1
}
lat() { # FILE N: the latency bound of the Nth model_loads line of FILE
    nth "$1" model_loads "$2" latency_ms
}
awk -v one="$(lat "$out/copy" 1)" -v four="$(lat "$out/copy" 2)" 'BEGIN { if (four < 3.99 * one || four > 4.01 * one) {
    printf "test_model.sh:%d: 4 loads in flight together: latency %s ms; chained: %s ms, want 4 times as long\n", 212, one, four; exit 1 } }'
awk -v one="$(lat "$out/copy" 1)" -v same="$(lat "$out/copy" 3)" 'BEGIN { if (same < 0.99 * one || same > 1.01 * one) {
    printf "test_model.sh:%d: x[t] 4 times in one batch (a miss, 3 hits): latency %s ms, want the 4 misses of one batch (%s ms): a batch waits for its slowest load\n", 214, same, one; exit 1 } }'
ams=$(of "$out/copy" model_atomic atomic_ms)
abound=$(of "$out/copy" model_atomic bound)
awk -v ms="$ams" -v b="$abound" 'BEGIN { if (ms < 25.41 || ms > 25.43 || b != "atomic") {
    printf "test_model.sh:%d: 2^24 fp32 atomics on one address: atomic_ms %s bound %s, want 25.42 (3 clocks each at 1980 MHz) bound atomic\n", 218, ms, b; exit 1 } }'
cms=$(of "$out/copy" model_counter atomic_ms)
awk -v ms="$cms" 'BEGIN { if (ms < 8.47 || ms > 8.477) {
    printf "test_model.sh:%d: 2^24 integer atomics on one address: atomic_ms %s, want 8.4733 (one a clock at 1980 MHz)\n", 221, ms; exit 1 } }'
wms=$(of "$out/copy" model_warp_total atomic_ms)
awk -v ms="$wms" 'BEGIN { if (ms < 0.2645 || ms > 0.2651) {
    printf "test_model.sh:%d: 2^24 integer atomics on a parameter address: atomic_ms %s, want 0.26479 (ptxas sums each warp first: 2^19 updates at 1980 MHz)\n", 224, ms; exit 1 } }'
hms=$(of "$out/copy" model_hot_bin atomic_ms)
awk -v ms="$hms" 'BEGIN { if (ms < 4.235 || ms > 4.239) {
    printf "test_model.sh:%d: 2^24 integer atomics, half of them on one of 256 addresses: atomic_ms %s, want 4.2367 (the busiest address: 2^23 updates, one a clock at 1980 MHz)\n", 227, ms; exit 1 } }'
tile() { # N KEY: from the Nth model_tiles line
    nth "$out/copy" model_tiles "$1" "$2"
}
awk -v e1="$(tile 1 exposed_ms)" -v e2="$(tile 2 exposed_ms)" -v m1="$(tile 1 ms)" -v m2="$(tile 2 ms)" 'BEGIN {
    w = 64 * 33 / 1980e3
    if (!(e1 > w) || e2 < 0.99 * w || e2 > 1.01 * w || !(m2 < m1)) {
        printf "test_model.sh:%d: tile loop: exposed %s ms, %s ms in all; as a cp.async pipeline: exposed %s ms, %s ms: want the pipeline to hide its copies, leaving the shared reads of its 64 tiles (%.6f ms), and be faster\n", 234, e1, m1, e2, m2, w; exit 1 } }'
awk -v e="$(tile 3 exposed_ms)" -v e1="$(tile 1 exposed_ms)" 'BEGIN { if (!(e > 0) || e < 0.99 * e1) {
    printf "test_model.sh:%d: tile loop copied with cp.async and waited for whole (one stage): exposed %s ms, want what the loop that loads each tile exposes (%s ms): nothing copied ahead\n", 236, e, e1; exit 1 } }'
awk -v e="$(tile 4 exposed_ms)" -v i="$(tile 4 issue_ms)" -v ms="$(tile 4 ms)" 'BEGIN {
    if (!(e > 0) || ms - 0.003 < 0.99 * (e + i)) {
        printf "test_model.sh:%d: tile loop, two blocks an SM: %s ms, exposed %s ms, issue %s ms: want the launch (0.003 ms), the waits and the work of both blocks one after the other (they wait together)\n", 239, ms, e, i; exit 1 } }'
gemm() { # TEMPLATE KEY: from the TMA GEMM's line, TEMPLATE 1ELi0ELi0 (one stage), 6ELi0ELi0,
    # 6ELi1ELi0 (warp-specialised), 6ELi0ELi1 (fp8)
    of "$out/copy" "model_tma_gemm_kernelILi$1E" "$2"
}
awk -v t="$(gemm 1ELi0ELi0 tensor_ms)" -v e1="$(gemm 1ELi0ELi0 exposed_ms)" -v m1="$(gemm 1ELi0ELi0 ms)" \
    -v s1="$(gemm 1ELi0ELi0 tma_stages)" -v e6="$(gemm 6ELi0ELi0 exposed_ms)" -v m6="$(gemm 6ELi0ELi0 ms)" \
    -v s6="$(gemm 6ELi0ELi0 tma_stages)" -v p="$(gemm 6ELi1ELi0 producer_insts)" -v mw="$(gemm 6ELi1ELi0 ms)" 'BEGIN {
    if (t < 0.002330 || t > 0.002334 || !(e1 > 0) || s1 != 1 || e6 != 0 || s6 != 6 || !(m6 < m1) ||
        !(p > 0) || mw > m6) {
        printf "test_model.sh:%d: TMA + wgmma loop: tensor %s ms (want 0.002332), one stage: stages %s exposed %s ms, %s ms; 6 stages: stages %s exposed %s ms (want 0), %s ms (want less); warp-specialised: producer instructions %s (want > 0), %s ms (want at most the 6 stages)\n", 249, t, s1, e1, m1, s6, e6, m6, p, mw; exit 1 } }'
awk -v t="$(gemm 1ELi0ELi0 tensor_ms)" -v l2="$(gemm 1ELi0ELi0 l2_ms)" -v dr="$(gemm 1ELi0ELi0 dram_ms)" \
    -v r="$(gemm 1ELi0ELi0 tma_round_trip)" -v ms="$(gemm 1ELi0ELi0 ms)" -v b="$(gemm 1ELi0ELi0 barrier_ms)" -v st="$(gemm 1ELi0ELi0 starts_ms)" 'BEGIN {
    cyc = 1e3 / 1980e6; least = 260 + ((l2 > dr ? l2 : dr) * 132 / 2 + t) / 32 / cyc; one = ms - 0.003 - b - st
    if (!(r >= least) || one < 0.99 * 32 * r * cyc || one > 1.01 * 32 * r * cyc) {
        printf "test_model.sh:%d: TMA + wgmma loop in one stage: round trip %s cycles (want at least latency 260 + copy + math = %.0f), %s ms less the launch (0.003 ms), barriers (%s ms) and the start of its blocks (%s ms), want 32 round trips (%.6f ms): the copy and the math of one stage in series\n", 254, r, least, ms, b, st, 32 * r * cyc; exit 1 } }'
awk -v b1="$(gemm 1ELi0ELi0 bound)" -v b6="$(gemm 6ELi0ELi0 bound)" 'BEGIN {
    if (b1 != "latency" || b6 == "latency") {
        printf "test_model.sh:%d: TMA + wgmma loop: bound %s in one stage (want latency: its exposed round trips set the time), %s in 6 stages (want the largest bound, not latency)\n", 257, b1, b6; exit 1 } }'
awk -v t8="$(gemm 6ELi0ELi1 tensor_ms)" -v t="$(gemm 6ELi0ELi0 tensor_ms)" \
    -v f8="$(gemm 6ELi0ELi1 flops)" -v f="$(gemm 6ELi0ELi0 flops)" 'BEGIN {
    if (t8 != t || !(f8 > 1.99 * f)) {
        printf "test_model.sh:%d: the TMA + wgmma loop in fp8: tensor %s ms and %s flops, want the bf16 loop'"'"'s %s ms for twice its %s flops (8-bit wgmma at twice the rate)\n", 261, t8, f8, t, f; exit 1 } }'
big() { # N KEY: from the Nth model_big_tiles line
    nth "$out/copy" model_big_tiles "$1" "$2"
}
awk -v e="$(big 1 exposed_ms)" -v d="$(big 1 dram_ms)" -v p="$(big 2 exposed_ms)" 'BEGIN {
    if (!(e >= 0.85 * d) || !(p < 0.1 * d)) {
        printf "test_model.sh:%d: 32 KiB tiles, one block an SM: exposed %s ms, want at least 0.85 x their DRAM time %s ms (each tile waits for its bytes); prefetched into registers: exposed %s ms, want less than a tenth of it\n", 267, e, d, p; exit 1 } }'
copy=_Z17model_copy_kerneliPKfPf
line=$(grep -n 'y\[i\] = x\[i\];' "$(dirname "$0")/test_model_kernels.cu" | cut -d: -f1)
echo "$copy another_file.cu $line 3 0" >"$out/other.txt"
echo "$copy test_model_kernels.cu $line 3 0" >"$out/lines.txt"
for f in other lines; do
    LD_LIBRARY_PATH=$lib COURSE_EMU_MODEL=h100 COURSE_EMU_MODEL_SASS=$out/$f.txt COURSE_EMU_MODEL_OUT=$out/sass_$f "$bin" 4096
done
other=$(field "$out/sass_other" sass_insts)
lines=$(field "$out/sass_lines" sass_insts)
[ "$other" = 0 ] && [ "$lines" = 384 ] || {
    echo "test_model.sh:278: 3 SASS instructions on the copy's line $line of another file: sass_insts $other, want 0 (PTX counted); of the kernel's file: $lines, want 384 (3 for each of 128 warps)"
    exit 1
}
loads=$(grep -o 'kernel=[^ ]*model_loads[^ ]*' "$out/copy" | head -n 1 | cut -d= -f2)
grep -n 'asm volatile("ld.global.f32 %0, \[%1\];"' "$(dirname "$0")/test_model_kernels.cu" |
    cut -d: -f1 | sed "s/^/$loads test_model_kernels.cu /; s/$/ 4 4/" >"$out/unrolled.txt"
LD_LIBRARY_PATH=$lib COURSE_EMU_MODEL=h100 COURSE_EMU_MODEL_SASS=$out/unrolled.txt COURSE_EMU_MODEL_OUT=$out/unrolled "$bin" 4096
awk -v one="$(lat "$out/unrolled" 1)" -v four="$(lat "$out/unrolled" 2)" -v n="$(wc -l <"$out/unrolled.txt")" 'BEGIN {
    if (n != 4 || four < 0.99 * one || four > 1.01 * one) {
        printf "test_model.sh:%d: chained loads on %d lines ptxas unrolled 4 times (4 SASS loads a line): latency %s ms, want the 4 loads of one batch (%s ms)\n", 287, n, four, one; exit 1 } }'
run 4194337 1 "$out/sampled"
run 4194337 0 "$out/full"
[ "$(field "$out/sampled" sampled)" = 1057/16385 ] && [ "$(of "$out/sampled" model_ragged sampled)" = 1888/4000 ] || {
    echo "test_model.sh:291: want the first wave (1056 blocks) and the last block of 2^22+33 floats' like blocks (1057 sampled), and the whole tail of 4000 unlike blocks (1888), got: $(field "$out/sampled" sampled) and $(of "$out/sampled" model_ragged sampled)"
    exit 1
}
for kernel in model_copy model_ragged model_cluster_copy; do
    for key in ms warp_insts gld_sectors gst_sectors dram_bytes; do
        awk -v k="$key" -v n="$kernel" -v s="$(of "$out/sampled" "$kernel" "$key")" -v f="$(of "$out/full" "$kernel" "$key")" 'BEGIN {
            if (s < 0.98 * f || s > 1.02 * f) {
                printf "test_model.sh:284: %s: %s sampled %s, full run %s: more than 2%% apart\n", n, k, s, f; exit 1 } }'
    done
done
lone() { # KEY: from the lone warp's line
    of "$out/copy" model_lone_warp "$1"
}
awk -v ms="$(lone ms)" -v f="$(lone fp32_ms)" -v t="$(lone tensor_ms)" -v i="$(lone issue_ms)" \
    -v l="$(lone lsu_ms)" -v lat="$(lone latency_ms)" -v d="$(lone fp64_ms)" -v st="$(lone starts_ms)" 'BEGIN {
    sum = f + d + 4 * t + i + l + lat + st
    if (ms - 0.003 < 0.99 * sum || ms - 0.003 > 1.01 * sum) {
        printf "test_model.sh:%d: one warp alone: %s ms, want the launch (0.003 ms) and the sum of the bounds of its SM pipes (the Tensor Core'"'"'s 4 times: it has one sub-partition'"'"'s) its latency and its block'"'"'s start and end (%.6g ms): nothing overlaps a lone warp'"'"'s pipes\n", 308, ms, sum; exit 1 } }'
rows=$(of "$out/copy" model_rows smem_wavefronts)
[ "$rows" = 17 ] || {
    echo "test_model.sh:311: 8 rows of 4 floats read a column at a time, every lane one address: smem_wavefronts $rows, want 17 (the store 1; each row one 16-byte load, as ptxas reads it, whose lanes share one address: 2 each)"
    exit 1
}
convoy() { # KEY: from the convoy's line
    of "$out/copy" model_convoy "$1"
}
awk -v ms="$(convoy ms)" -v f="$(convoy fp32_ms)" -v t="$(convoy tensor_ms)" -v i="$(convoy issue_ms)" \
    -v l="$(convoy lsu_ms)" -v lat="$(convoy latency_ms)" 'BEGIN {
    most = f; most = t > most ? t : most; most = i > most ? i : most; most = l > most ? l : most
    if (!(lat > 0) || ms - 0.003 < 0.99 * (lat + most)) {
        printf "test_model.sh:%d: 32 warps an SM reading one row at each step: %s ms, want at least the launch (0.003 ms), the latency (%s ms) and the busiest pipe (%s ms) one after the other: they wait for the same fills and leave together\n", 321, ms, lat, most; exit 1 } }'
LD_LIBRARY_PATH=$lib COURSE_EMU_MODEL=rtx3090 COURSE_EMU_MODEL_OUT=$out/ga102 "$bin" 4096
near() { # LINE WHAT GOT WANT: within 1%
    awk -v g="$3" -v w="$4" -v l="$1" -v what="$2" 'BEGIN { if (!(g >= 0.99 * w && g <= 1.01 * w)) {
        printf "test_model.sh:%d: %s: %s, want %s (within 1%%)\n", l, what, g, w; exit 1 } }'
}
near 327 "512 fma.f64 a thread on the h100: fp64_ms" "$(of "$out/copy" model_f64 fp64_ms)" 0.0010343
[ "$(of "$out/copy" model_f64 bound)" = fp64 ] && [ "$(of "$out/copy" model_f64 fp32_ms)" = 0 ] || {
    echo "test_model.sh:329: f64 arithmetic on the h100: bound $(of "$out/copy" model_f64 bound), fp32_ms $(of "$out/copy" model_f64 fp32_ms); want fp64 and 0 (f64 is not the fp32 pipe's work)"
    exit 1
}
near 332 "the same on the rtx3090 row (2 FP64 units an SM): fp64_ms" "$(of "$out/ga102" model_f64 fp64_ms)" 0.077329
near 333 "64 mma.sync m8n8k4 f64 a warp on the h100 (67 TFLOP/s): tensor_ms" "$(of "$out/copy" model_dmma tensor_ms)" 6.4558e-05
near 334 "the same on the rtx3090 row (no f64 Tensor Cores: its FP64 units): tensor_ms" "$(of "$out/ga102" model_dmma tensor_ms)" 0.0096661
near 335 "512 ex2.approx.f32 a thread on the h100: sfu_ms" "$(of "$out/copy" model_sfu sfu_ms)" 0.0041374
[ "$(of "$out/copy" model_sfu bound)" = sfu ] && [ "$(of "$out/copy" model_sfu fp32_ms)" = 0 ] || {
    echo "test_model.sh:337: ex2 on the h100: bound $(of "$out/copy" model_sfu bound), fp32_ms $(of "$out/copy" model_sfu fp32_ms); want sfu and 0 (special functions are not the fp32 pipe's work)"
    exit 1
}
near 340 "the same on the rtx3090 row: sfu_ms" "$(of "$out/ga102" model_sfu sfu_ms)" 0.0096661
near 341 "64 barriers a thread, 1024 threads an SM, on the h100: barrier_ms" "$(of "$out/copy" model_barrier barrier_ms)" 0.0020687
near 342 "the same on the rtx3090 row: barrier_ms" "$(of "$out/ga102" model_barrier barrier_ms)" 0.0048330
awk -v ms="$(of "$out/copy" model_barrier ms)" -v b="$(of "$out/copy" model_barrier barrier_ms)" \
    -v i="$(of "$out/copy" model_barrier issue_ms)" -v bound="$(of "$out/copy" model_barrier bound)" -v line=344 'BEGIN {
    if (bound != "barrier" || ms - 0.003 < 0.99 * (b + i)) {
        printf "test_model.sh:%d: 64 barriers a thread: %s ms bound %s, want at least the launch (0.003 ms), barrier_ms (%s) and issue_ms (%s) one after the other, bound barrier: the block waits at each barrier\n", line, ms, bound, b, i; exit 1 } }'
mma() { # N KEY: from the Nth model_mma line
    nth "$out/copy" model_mma_kernel "$1" "$2"
}
awk -v ms="$(mma 1 ms)" -v t="$(mma 1 tensor_ms)" -v i="$(mma 1 issue_ms)" -v l="$(mma 1 lsu_ms)" \
    -v f="$(mma 1 fp32_ms)" -v lat="$(mma 1 latency_ms)" -v st="$(mma 1 starts_ms)" -v ms16="$(mma 2 ms)" -v t16="$(mma 2 tensor_ms)" 'BEGIN {
    one = 4 * t + i + l + f + lat + st; w16 = ms16 - 0.003 - st
    if (!(t > 0) || ms - 0.003 < 0.99 * one || ms - 0.003 > 1.01 * one || w16 < t16 || w16 > 1.05 * t16) {
        printf "test_model.sh:%d: mma.sync, one warp an SM: %s ms, want the launch (0.003 ms), 4 times tensor_ms (%s) and its other pipes, latency and block'"'"'s start and end (%.6g ms in all): a warp has one sub-partition'"'"'s Tensor Core; 16 warps: %s ms, want within 5%% of the launch, their block'"'"'s start and end and tensor_ms (%s)\n", 354, ms, t, one, ms16, t16; exit 1 } }'
cat >"$out/l2.gpu" <<'EOT'
name = h100-l2-64m
sms = 132
clock_mhz = 1980
fp32_lanes = 128
tensor_tflops = 989.4
schedulers = 4
regs_per_sm = 65536
smem_per_sm = 233472
l1_per_sm = 262144
l2_bytes = 67108864
l2_bytes_per_clk = 5064.6
dram_gbs = 3350
max_warps = 64
max_blocks = 1
lat_l1 = 33
lat_l2 = 260
lat_dram = 600
launch_us = 3.0
EOT
LD_LIBRARY_PATH=$lib COURSE_EMU_MODEL=$out/l2.gpu COURSE_EMU_MODEL_SAMPLE=0 COURSE_EMU_MODEL_OUT=$out/reread "$bin" 12582912 reread
near 376 "48 MiB read twice through a 64 MiB L2 of 2^15 sets: dram_bytes" "$(of "$out/reread" model_reread dram_bytes)" 50724864
for k in 1 2; do
    LD_LIBRARY_PATH=$lib COURSE_EMU_MODEL=h100 COURSE_EMU_MODEL_OUT=$out/reread$k "$bin" 12582912 reread
done
[ "$(grep '^model ' "$out/reread1")" = "$(grep '^model ' "$out/reread2")" ] || {
    echo "test_model.sh:381: the same launch in two processes: $(grep '^model ' "$out/reread1" | cut -c1-200) ... and $(grep '^model ' "$out/reread2" | cut -c1-200) ...: want the same line (sectors counted from the device memory's base)"
    exit 1
}
awk -v l="$(of "$out/reread1" model_reread l2_ms)" -v b="$(of "$out/reread1" model_reread l2_bytes)" 'BEGIN {
    want = b / 10028e6
    if (!(b > 0) || !(l >= 0.99 * want && l <= 1.01 * want)) {
        printf "test_model.sh:%d: %s bytes through the L2 on h100: l2_ms %s, want %.6f (10028 GB/s, gpu-benches gpu-l2-cache on an H200, the same GH100 chip)\n", 387, b, l, want; exit 1 } }'
tiles=$(grep -o 'kernel=[^ ]*model_tiles[^ ]*' "$out/copy" | head -n 1 | cut -d= -f2)
line=$(grep -n 's\[0\]\[tid\] = \*src;' "$(dirname "$0")/test_model_kernels.cu" | cut -d: -f1)
for w in 0.25 1 2 3; do
    echo "$tiles test_model_kernels.cu $line 3 1 0 1 $w" >"$out/waits$w.txt"
    LD_LIBRARY_PATH=$lib COURSE_EMU_MODEL=h100 COURSE_EMU_MODEL_SASS=$out/waits$w.txt COURSE_EMU_MODEL_OUT=$out/waits$w "$bin" 65536
done
awk -v q="$(nth "$out/waits0.25" model_tiles 1 exposed_ms)" -v e1="$(nth "$out/waits1" model_tiles 1 exposed_ms)" -v e2="$(nth "$out/waits2" model_tiles 1 exposed_ms)" -v e3="$(nth "$out/waits3" model_tiles 1 exposed_ms)" 'BEGIN {
    d = e2 - e1; lo = 0.99 * 64 * 260 / 1980e3; hi = 1.01 * 64 * 600 / 1980e3
    if (!(e1 > 0) || q != e1 || d < lo || d > hi || e3 - e2 < 0.99 * d || e3 - e2 > 1.01 * d) {
        printf "test_model.sh:%d: a tile loop whose load waits 1/4, 1, 2 and 3 times a tile in its SASS: exposed %s, %s, %s, %s ms: want at least one wait a tile (the first two equal), and each more wait one mean latency more, 64 tiles of 260 to 600 clocks at 1980 MHz, within 1%% (%.4f to %.4f ms)\n", 397, q, e1, e2, e3, lo, hi; exit 1 } }'
awk -v m2="$(nth "$out/copy" model_rounds 1 ms)" -v d2="$(nth "$out/copy" model_rounds 1 dram_ms)" -v m8="$(nth "$out/copy" model_rounds 2 ms)" -v d8="$(nth "$out/copy" model_rounds 2 dram_ms)" 'BEGIN {
    if (!(m2 - 0.003 >= 1.15 * d2) || !(m8 - 0.003 <= 1.25 * d8)) {
        printf "test_model.sh:%d: short blocks that copy one tile and exit, 2 an SM: %s ms, want at least 1.15 x their DRAM time %s ms and the launch (a round waits its latency, then its transfer); 8 an SM: %s ms, want within 1.25 x theirs %s ms and the launch\n", 400, m2, d2, m8, d8; exit 1 } }'
awk -v t="$(nth "$out/copy" model_tree 1 exposed_ms)" -v r="$(nth "$out/copy" model_rounds 2 exposed_ms)" -v w="$(nth "$out/copy" model_tree 1 waves)" 'BEGIN {
    if (!(t - r >= 0.99 * 7 * 33 * w / 1980e3)) {
        printf "test_model.sh:%d: a tree reduction of 8 steps, 8 blocks an SM: exposed %s ms, the same blocks with one shared read %s ms: want at least 7 more L1 hits (33 clocks) a round of %s, %.5f ms\n", 403, t, r, w, 7 * 33 * w / 1980e3; exit 1 } }'
awk -v c="$(of "$out/copy" model_cluster_copy ms)" -v p="$ms" -v cb="$(of "$out/copy" model_cluster_copy dram_bytes)" -v pb="$(field "$out/copy" dram_bytes)" -v cs="$(of "$out/copy" model_cluster_copy sampled)" \
    -v g="$(nth "$out/copy" model_cooperative_copy 1 ms)" -v q="$(nth "$out/copy" model_cooperative_copy 2 ms)" -v gs="$(nth "$out/copy" model_cooperative_copy 1 sampled)" 'BEGIN {
    if (cs != "529/65536" || !(c >= 0.99 * p && c <= 1.01 * p) || !(cb >= 0.99 * pb && cb <= 1.01 * pb) || gs != "1/264" || !(g >= 0.99 * q && g <= 1.01 * q)) {
        printf "test_model.sh:%d: the copy in clusters of two: %s ms, %s DRAM bytes, %s blocks followed, want the plain copy: %s ms and %s bytes (within 1%%), from 529/65536; the cooperative grid-stride copy: %s ms from %s blocks, want the plain launch: %s ms (within 1%%), from 1/264\n", 407, c, cb, cs, p, pb, g, gs, q; exit 1 } }'
awk -v e="$(of "$out/copy" model_norm exposed_ms)" -v r="$(nth "$out/copy" model_rounds 2 exposed_ms)" 'BEGIN {
    if (!(r > 0) || !(e <= 2.02 * r)) {
        printf "test_model.sh:%d: rows of 256 read, reduced and read again, 8 blocks an SM: exposed %s ms, want at most twice the exposed wait of the same blocks with one load phase, %s ms (two load phases of different code are rounds of short blocks, not a tile loop waiting for its transfer)\n", 410, e, r; exit 1 } }'
strided() { # N KEY: from the Nth model_strided line
    nth "$out/copy" model_strided_kernel "$1" "$2"
}
awk -v c="$(strided 1 lsu_ms)" -v s12="$(strided 2 lsu_ms)" -v s33="$(strided 3 lsu_ms)" 'BEGIN {
    if (!(s12 >= 0.99 * 17 / 5 * c && s12 <= 1.01 * 17 / 5 * c && s33 >= 0.99 * 36 / 5 * c && s33 <= 1.01 * 36 / 5 * c)) {
        printf "test_model.sh:%d: 4 loads a thread, lanes 12 and 33 floats apart: lsu_ms %s and %s, want 17/5 and 36/5 of the coalesced loads %s (4 and 8.75 L1 wavefronts a load, not 12 and 32: the banks of its data or its tag stage, whichever take longer)\n", 416, s12, s33, c; exit 1 } }'
awk -v d="$(strided 4 dram_ms)" -v b="$(strided 4 dram_bytes)" 'BEGIN {
    w = 2 * 1048576; want = (b / 0.964 + 2 * (1 / 0.88 - 1 / 0.964) * w) / 3350e6
    if (!(d >= 0.99 * want && d <= 1.01 * want)) {
        printf "test_model.sh:%d: 64 MiB read and 2 MiB written: dram_ms %s, want %.6f (%s bytes at 0.964 of 3350 GB/s, the 2 MiB written again at what a copy loses besides)\n", 420, d, want, b; exit 1 } }'
awk -v a="$(nth "$out/copy" model_shared_atomics 1 lsu_ms)" -v b="$(nth "$out/copy" model_shared_atomics 2 lsu_ms)" -v c="$(nth "$out/copy" model_shared_atomics 3 lsu_ms)" -v d="$(nth "$out/copy" model_shared_atomics 4 lsu_ms)" 'BEGIN {
    if (!(b > 0) || !(a >= 0.99 * b && a <= 1.01 * b) || !(c >= 16 * b) || !(d >= 16 * b)) {
        printf "test_model.sh:%d: shared atomics adding the immediate 1, a warp on one address: lsu_ms %s, want that of lanes on 32 banks %s (within 1%%: ATOMS.POPC.INC, one bank access); on one bank %s and adding a loaded 1 on one address %s, want at least 16 times it (32 wavefronts an atomic, none merged; lanes one after another)\n", 423, a, b, c, d; exit 1 } }'
awk -v w="$(of "$out/copy" model_ldmatrix_kernel smem_wavefronts)" 'BEGIN {
    if (!(w >= 4)) {
        printf "test_model.sh:%d: an ldmatrix.x4 of one warp: smem_wavefronts %s, want an estimate with the 4 tiles wavefronts or more\n", 426, w; exit 1 } }'
awk -v ms="$(of "$out/copy" model_small_blocks ms)" -v b="$(of "$out/copy" model_small_blocks bound)" 'BEGIN {
    want = 0.003 + 524288 / 1.65e6
    if (b != "blocks" || !(ms >= 0.99 * want && ms <= 1.01 * want)) {
        printf "test_model.sh:%d: the copy of 2^24 floats in blocks of 32 threads on h100: %s ms bound %s, want %.5f ms (524288 blocks at 1.65 G a second, and the launch) bound blocks\n", 430, ms, b, want; exit 1 } }'
awk -v ms="$(of "$out/copy" model_held_blocks ms)" -v st="$(of "$out/copy" model_held_blocks starts_ms)" -v b="$(of "$out/copy" model_held_blocks bound)" 'BEGIN {
    want = 64 * 450 / 1980e3
    if (b != "latency" || !(st >= 0.99 * want && st <= 1.01 * want) || !(ms >= 0.003 + want && ms <= 0.003 + 1.05 * want)) {
        printf "test_model.sh:%d: 64 rounds of 2 blocks an SM that each store 32 floats on h100: %s ms bound %s, starts_ms %s, want %.6f ms (64 rounds of 450 clocks at 1980 MHz: their start and end) within 1%% and the launch and that within 5%%, bound latency\n", 434, ms, b, st, want; exit 1 } }'
sed -e 's/^name = .*/name = h100-l2-512k/' -e 's/^l2_bytes = .*/l2_bytes = 524288/' \
    -e 's/^max_blocks = .*/max_blocks = 32/' "$out/l2.gpu" >"$out/l2small.gpu"
LD_LIBRARY_PATH=$lib COURSE_EMU_MODEL=$out/l2small.gpu COURSE_EMU_MODEL_OUT=$out/shared "$bin" 262144 shared
awk -v d="$(of "$out/shared" model_reread dram_bytes)" 'BEGIN {
    want = 1048576 + 132 * 256 * 4
    if (!(d >= 0.98 * want && d <= 1.02 * want)) {
        printf "test_model.sh:%d: 132 blocks of one wave each reading the same 1 MiB through a 512 KiB L2: dram_bytes %s, want %d (the MiB once and the stores, within 2%%: the blocks run together and find in the L2 what one of them brought)\n", 441, d, want; exit 1 } }'
echo "test_model.sh: copy estimate $ms ms (dram); shared accesses merged; 4 loads in flight 4 times faster than chained, a batch as slow as its slowest load, ptxas's unrolled loads in flight together; fp32 atomics on one address 3 clocks each, integer ones one, a warp's summed first one a warp, the busiest address's; a cp.async pipeline hides its tile loads, one stage does not, two blocks an SM wait together; TMA stages hide theirs, one stage leaves copy and math in series; SASS lines read, a tile's waits as many as its loads' rounds; short blocks two an SM leave DRAM idle while they wait, eight keep it busy, and so do rows read twice; a tree reduction waits for each step's shared loads; sample within 2% of the full run; a lone warp's pipes and latency add up; rows read a column at a time merged, broadcasts 2 wavefronts; warps waiting for one fill leave together; f64 at the FP64 units' and f64 Tensor Cores' rates, special functions at the SFUs'; barriers at 16 threads a clock, waited for; a lone warp's mma on one sub-partition's Tensor Core, 16 warps on all four; an L2 of 2^15 sets holds what fits, the same estimate in every process, its rate an H200's measured; a cluster's or a cooperative grid's blocks followed one a group, as the plain launches; strided loads at their banks' or their tag stage's wavefronts; reads at a stream's DRAM share, writes paired with reads at a copy's; shared atomics on one address one bank access; blocks of one warp at the rate the GPU starts blocks; two an SM waiting for each round to start and end; a wave's blocks reading one MiB together read it from DRAM once"
