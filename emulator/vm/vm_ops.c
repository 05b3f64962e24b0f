/**
 * @file vm_ops.c
 * @brief The opcode table: every handler, class and spelling, from opcodes.h.
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

#define OP(name, klass, spelling) [OP_##name] = klass,
const uint8_t vm_op_class[OP_COUNT] = {
#include "opcodes.h"
};
#undef OP

#define OP(name, klass, spelling) [OP_##name] = spelling,
const char *const vm_op_names[OP_COUNT] = {
#include "opcodes.h"
};
#undef OP
