/**
 * @file model_env.h
 * @brief The device server's time model, set up from COURSE_EMU_MODEL* (model_env.c).
 */
#ifndef EMU_MODEL_ENV_H
#define EMU_MODEL_ENV_H

#include <stddef.h>
#include <stdio.h>

#include "vm.h"

struct model_env;

/** The model COURSE_EMU_MODEL asks for; NULL when unset, or with one line in @p err when it
 *  names no GPU row or readable file. */
struct model_env *model_env_open(char *err, size_t err_size);

/** Before launch @p L of @p kernel (mangled): the model to set in vm_launch::model. */
struct vm_model *model_env_begin(struct model_env *env, const struct vm_launch *L,
                                 const char *kernel, const struct vm_counters *live);

/** Where the "model ..." lines go (COURSE_EMU_MODEL_OUT, or stderr): the device server writes
 *  the stream record there too, for the timeline (tools/timeline.py). */
FILE *model_env_file(const struct model_env *env);

/** After it: print its "model ..." line, and put the counters scaled from the sample in @p c. */
void model_env_end(struct model_env *env, const struct vm_launch *L, const char *kernel,
                   struct vm_counters *c);

#endif /* EMU_MODEL_ENV_H */
