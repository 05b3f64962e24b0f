/**
 * @file model_env.c
 * @brief The time model as the device server starts it, from its environment:
 *
 *   COURSE_EMU_MODEL=GPU|FILE   a row of gpus.c (t4, a6000, rtx3090, a100, l4, h100) or a GPU file
 *   COURSE_EMU_MODEL_REGS=FILE  "KERNEL REGISTERS" lines (mangled names, as cuobjdump
 *                               --dump-resource-usage prints them); 32 assumed without
 *   COURSE_EMU_MODEL_SASS=FILE  "KERNEL FILE LINE COUNT ANCHORS [IMADS [LOADS WAITS]]" lines:
 *                               the SASS instructions ptxas made of each source line
 *                               (tools/sass.py --lines); without, the issue bound counts PTX
 *                               instructions
 *   COURSE_EMU_MODEL_OUT=FILE   where each launch's "model ..." line is appended (stderr without)
 *   COURSE_EMU_MODEL_SAMPLE=0   run every block (default: the first wave and the tail)
 */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "model.h"
#include "model_env.h"

struct model_env {
    struct vm_model *model;
    FILE *out;
    char **names;
    unsigned *regs;
    size_t n;
    char **sass_kernel; /* per SASS line: its kernel (mangled) */
    struct model_sass_line *sass;
    size_t nsass;
    struct model_sass_line *pick; /* the launched kernel's lines */
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
        env->names = emu_realloc(env->names, (env->n + 1) * sizeof *env->names);
        env->regs = emu_realloc(env->regs, (env->n + 1) * sizeof *env->regs);
        env->names[env->n] = emu_strdup(name);
        env->regs[env->n++] = regs;
    }
    fclose(f);
    return 0;
}

/* The SASS lines file's entries; -1 when it cannot be read. */
static int read_sass(struct model_env *env, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char text[2200], kernel[1024], file[1024];
    unsigned line, count, anchors, imads, loads;
    double waits;
    while (fgets(text, sizeof text, f)) {
        int fields = sscanf(text, "%1023s %1023s %u %u %u %u %u %lf", kernel, file, &line, &count,
                            &anchors, &imads, &loads, &waits);
        if (fields < 5) /* a blank line; IMADS, LOADS and WAITS may be left out (0) */
            continue;
        size_t n = env->nsass + 1;
        env->sass_kernel = emu_realloc(env->sass_kernel, n * sizeof *env->sass_kernel);
        env->sass = emu_realloc(env->sass, n * sizeof *env->sass);
        env->sass_kernel[env->nsass] = emu_strdup(kernel);
        env->sass[env->nsass].file = emu_strdup(file);
        env->sass[env->nsass].line = line;
        env->sass[env->nsass].count = count;
        env->sass[env->nsass].anchors = anchors;
        env->sass[env->nsass].imads = fields >= 6 ? imads : 0;
        env->sass[env->nsass].loads = fields == 8 ? loads : 0;
        env->sass[env->nsass].waits = fields == 8 ? waits : 0;
        env->nsass = n;
    }
    fclose(f);
    env->pick = emu_calloc(env->nsass + 1, sizeof *env->pick);
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
    struct model_env *env = emu_calloc(1, sizeof *env);
    const char *sample = getenv("COURSE_EMU_MODEL_SAMPLE"), *regs = getenv("COURSE_EMU_MODEL_REGS");
    const char *out = getenv("COURSE_EMU_MODEL_OUT"), *sass = getenv("COURSE_EMU_MODEL_SASS");
    env->model = model_new(g ? g : &from_file, !sample || strcmp(sample, "0"));
    env->out = out && *out ? fopen(out, "a") : stderr;
    if (!env->out || (regs && *regs && read_regs(env, regs))) {
        snprintf(err, err_size, "cannot open %s", env->out ? regs : out);
        return NULL;
    }
    if (sass && *sass && read_sass(env, sass)) {
        snprintf(err, err_size, "cannot open %s", sass);
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
    size_t n = 0;
    for (size_t i = 0; i < env->nsass; i++)
        if (!strcmp(env->sass_kernel[i], kernel))
            env->pick[n++] = env->sass[i];
    model_begin(env->model, L, regs, env->pick, n, live);
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
