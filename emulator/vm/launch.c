/**
 * @file launch.c
 * @brief vm_launch(): a host launch's grid, then the grids its threads launched (dynamic
 *        parallelism), each after its parent's blocks, each with its own.
 *
 * The top of the VM: it runs a grid through exec.c and hands the device-side work the grid
 * queued to cdp.c, with itself as the way to run a child grid.
 */
#include "vm_impl.h"

enum vm_status vm_launch(const struct vm_launch *L, struct vm_result *r)
{
    if (!L->cdp) {
        struct vm_launch tree = *L; /* a host launch: the root of its device-side launches */
        tree.cdp = vm_cdp_begin();
        vm_launch(&tree, r);
        vm_cdp_end(tree.cdp, L->heap);
        return r->status;
    }
    struct cdp_grid *queued;
    vm_exec_grid(L, r, &queued);
    vm_cdp_finish(L, queued, r, vm_launch);
    return r->status;
}
