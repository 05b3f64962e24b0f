/**
 * @file vm_ops.c
 * @brief The dispatch table: every opcode's handler, from opcodes.h (opcodes.c has their
 *        classes and spellings).
 */
#include "vm_impl.h"

#define OP(name, klass, spelling)                                                                  \
    enum event h_##name(struct exec *x, struct warp *w, const struct insn *in, uint32_t m);
#include "opcodes.h"
#undef OP

#define OP(name, klass, spelling) [OP_##name] = h_##name,
const op_fn vm_ops[OP_COUNT] = {
#include "opcodes.h"
};
#undef OP
