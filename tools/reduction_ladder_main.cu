/**
 * @file reduction_ladder_main.cu
 * @brief One launch per block size of one kernel of the parallel_reductions_cuda ladder
 *        (github.com/MasterSkepticista/parallel_reductions_cuda), for the time model's
 *        memory-bound validation. tools/reduction_ladder.sh builds it against a checkout of
 *        that repository, whose code this course does not hold.
 *
 *   reduction_ladder KERNEL   runs kernel KERNEL (1-6) once at each of the checkout's block
 *                             sizes (64, 128, 256, 512, 1024) on 2^25 floats, through the
 *                             checkout's reduce_sum() (its grid, block and shared memory)
 *
 * The checkout's main() is renamed when the script compiles it, so this one runs instead.
 */
#include <cstdio>
#include <cstdlib>

/* The checkout's launcher (reduce_sum.cu): memset *out, then one launch of kernel_num. */
void reduce_sum(int kernel_num, float *out, float *arr, int N, int block_size);

int main(int argc, char **argv)
{
    if (argc != 2 || atoi(argv[1]) < 1 || atoi(argv[1]) > 6) {
        fprintf(stderr, "usage: reduction_ladder KERNEL (1-6)\n");
        return 2;
    }
    const int n = 1 << 25; /* the checkout's SIZE, the README table's N */
    const int block_sizes[] = {64, 128, 256, 512, 1024};
    float *arr, *out;
    if (cudaMalloc(&arr, n * sizeof(float)) || cudaMalloc(&out, sizeof(float)) ||
        cudaMemset(arr, 0, n * sizeof(float))) {
        fprintf(stderr, "reduction_ladder: cannot allocate 2^25 floats\n");
        return 1;
    }
    for (int block : block_sizes)
        reduce_sum(atoi(argv[1]), out, arr, n, block);
    cudaError_t err = cudaDeviceSynchronize();
    if (err != cudaSuccess) {
        fprintf(stderr, "reduction_ladder: kernel %s: %s\n", argv[1], cudaGetErrorString(err));
        return 1;
    }
    return 0;
}
