/**
 * @file model_env.c
 * @brief The time model as the device server starts it, from its environment:
 *
 *   COURSE_EMU_MODEL=GPU|FILE   a row of gpus.c (t4, a6000, rtx3090, a100, l4, h100) or a GPU file
 *   COURSE_EMU_MODEL_REGS=FILE  "KERNEL REGISTERS" lines (mangled names, as cuobjdump
 *                               --dump-resource-usage prints them); 32 assumed without
 *   COURSE_EMU_MODEL_OUT=FILE   where each launch's "model ..." line is appended (stderr without)
 *   COURSE_EMU_MODEL_SAMPLE=0   run every block (default: the first wave and the tail)
 */
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "model_env.h"

struct model_env {
    struct vm_model *model;
    FILE *out;
    char **names;
    unsigned *regs;
    size_t n;
};

/* The registers file's lines, kept by kernel name; -1 when it cannot be read. */
static int read_regs(struct model_env *env, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char name[1024];
    unsigned regs;
    while (fscanf(f, "%1023s %u", name, &regs) == 2) {
        env->names = realloc(env->names, (env->n + 1) * sizeof *env->names);
        env->regs = realloc(env->regs, (env->n + 1) * sizeof *env->regs);
        if (!env->names || !env->regs || !(env->names[env->n] = strdup(name)))
            abort();
        env->regs[env->n++] = regs;
    }
    fclose(f);
    return 0;
}

struct model_env *model_env_open(char *err, size_t err_size)
{
    const char *gpu = getenv("COURSE_EMU_MODEL");
    if (!gpu || !*gpu)
        return NULL;
    static struct model_gpu from_file;
    const struct model_gpu *g = gpus_find(gpu);
    if (!g && gpus_load(gpu, &from_file, err, err_size))
        return NULL;
    struct model_env *env = calloc(1, sizeof *env);
    if (!env)
        abort();
    const char *sample = getenv("COURSE_EMU_MODEL_SAMPLE"), *regs = getenv("COURSE_EMU_MODEL_REGS");
    const char *out = getenv("COURSE_EMU_MODEL_OUT");
    env->model = model_new(g ? g : &from_file, !sample || strcmp(sample, "0"));
    env->out = out && *out ? fopen(out, "a") : stderr;
    if (!env->out || (regs && *regs && read_regs(env, regs))) {
        snprintf(err, err_size, "cannot open %s", env->out ? regs : out);
        return NULL;
    }
    setvbuf(env->out, NULL, _IOLBF, 0);
    return env;
}

FILE *model_env_file(const struct model_env *env)
{
    return env->out;
}

struct vm_model *model_env_begin(struct model_env *env, const struct vm_launch *L,
                                 const char *kernel, const struct vm_counters *live)
{
    unsigned regs = 0;
    for (size_t i = 0; i < env->n && !regs; i++)
        if (!strcmp(env->names[i], kernel))
            regs = env->regs[i];
    model_begin(env->model, L, regs, live);
    return env->model;
}

void model_env_end(struct model_env *env, const struct vm_launch *L, const char *kernel,
                   struct vm_counters *c)
{
    struct model_estimate e;
    model_finish(env->model, c, &e);
    if (!e.blocks)
        return;
    model_print(env->out, env->model, kernel, L, &e);
    *c = e.counters;
}
