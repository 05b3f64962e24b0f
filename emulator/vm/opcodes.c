/**
 * @file opcodes.c
 * @brief Every opcode's instruction class and spelling, from opcodes.h: what the counters,
 *        the checks and the messages name an instruction by.
 */
#include "vm_impl.h"

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
