/**
 * @file ckpt.c
 * @brief Lesson 13: checkpoints that survive a crash and refuse to load garbage.
 *
 * Layout (native byte order, so a checkpoint moves between machines of one
 * kind): the 8-byte magic "DPCKPT01", a fixed header (shape, optimizer, batch,
 * training-set size, epoch, batch in the epoch, step, the shuffle generator's
 * state, how many floats follow), the master weights, the optimizer state,
 * and last the FNV-1a 64 checksum of every byte before it.
 *
 * Writing is atomic: the bytes go to "FILE.tmp", which is flushed from stdio
 * (fflush), from the kernel to the disk (fsync) and only then renamed over
 * FILE; rename() replaces a name in one step, so a reader sees the old file or
 * the new one, never half of one. Loading checks the magic, the size, the
 * checksum and that the run's settings match, and never writes.
 */
#include "data_parallel.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mat.h"

static const char CKPT_MAGIC[8] = {'D', 'P', 'C', 'K', 'P', 'T', '0', '1'};

/* The fixed header, after the magic. Every field is 4 or 8 bytes, so there is no padding. */
struct ckpt_header {
    int32_t layers;
    int32_t dims[MLP_MAX_LAYERS + 2];
    int32_t opt_kind;
    int32_t batch;
    int32_t n_train;
    int32_t epoch;
    int32_t batch_in_epoch;
    int64_t step;
    uint64_t rng_epoch;
    uint64_t n_params;
    uint64_t n_state;
};

uint64_t ckpt_fnv64(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001b3ULL; /* the FNV-64 prime */
    }
    return h;
}

/* fwrite @p n bytes and fold them into the checksum. */
static int put(FILE *f, uint64_t *h, const void *p, size_t n)
{
    *h = ckpt_fnv64(*h, p, n);
    return fwrite(p, 1, n, f) == n ? 0 : -1;
}

int ckpt_save(const char *path, const struct ckpt *c, char *err, size_t err_size)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        snprintf(err, err_size, "%s: cannot create: %s", tmp, strerror(errno));
        return -1;
    }
    struct ckpt_header hd;
    memset(&hd, 0, sizeof hd);
    hd.layers = c->shape.layers;
    for (int i = 0; i < MLP_MAX_LAYERS + 2; i++)
        hd.dims[i] = c->shape.dims[i];
    hd.opt_kind = c->opt_kind;
    hd.batch = c->batch;
    hd.n_train = c->n_train;
    hd.epoch = c->epoch;
    hd.batch_in_epoch = c->batch_in_epoch;
    hd.step = c->step;
    hd.rng_epoch = c->rng_epoch;
    hd.n_params = c->n_params;
    hd.n_state = c->n_state;
    uint64_t h = CKPT_FNV64_INIT;
    int bad = put(f, &h, CKPT_MAGIC, sizeof CKPT_MAGIC) || put(f, &h, &hd, sizeof hd) ||
              put(f, &h, c->params, c->n_params * sizeof(float)) ||
              put(f, &h, c->state, c->n_state * sizeof(float));
    bad = bad || fwrite(&h, sizeof h, 1, f) != 1;
    /* fflush moves stdio's buffer into the kernel; fsync moves the kernel's to the disk. */
    bad = bad || fflush(f) != 0 || fsync(fileno(f)) != 0;
    int saved = errno;
    bad = fclose(f) != 0 || bad;
    if (bad) {
        snprintf(err, err_size, "%s: write failed: %s", tmp, strerror(saved ? saved : errno));
        unlink(tmp);
        return -1;
    }
    if (rename(tmp, path) != 0) {
        snprintf(err, err_size, "%s: cannot rename to %s: %s", tmp, path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    /* Make the rename itself durable: fsync the directory that holds the name. */
    char dir[4200];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *(slash == dir ? slash + 1 : slash) = '\0';
    else
        snprintf(dir, sizeof dir, ".");
    int fd = open(dir, O_RDONLY);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
    return 0;
}

int ckpt_load(const char *path, struct ckpt *c, char *err, size_t err_size)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, err_size, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    size_t cap = 1 << 20, len = 0, got;
    unsigned char *buf = mat_alloc(cap);
    while ((got = fread(buf + len, 1, cap - len, f)) > 0) {
        len += got;
        if (len == cap) {
            unsigned char *bigger = mat_alloc(cap * 2);
            memcpy(bigger, buf, len);
            free(buf);
            buf = bigger;
            cap *= 2;
        }
    }
    fclose(f);

    int rc = -1;
    struct ckpt_header hd;
    size_t head = sizeof CKPT_MAGIC + sizeof hd;
    if (len < head + sizeof(uint64_t)) {
        snprintf(err, err_size, "%s: truncated: %zu bytes, shorter than the header", path, len);
        goto done;
    }
    if (memcmp(buf, CKPT_MAGIC, sizeof CKPT_MAGIC)) {
        snprintf(err, err_size, "%s: not a checkpoint of this trainer (bad magic)", path);
        goto done;
    }
    memcpy(&hd, buf + sizeof CKPT_MAGIC, sizeof hd);
    size_t want = head + (hd.n_params + hd.n_state) * sizeof(float) + sizeof(uint64_t);
    if (hd.n_params > ((size_t)1 << 40) || hd.n_state > ((size_t)1 << 40) || len != want) {
        snprintf(err, err_size, "%s: %zu bytes, but its header promises %zu: truncated or corrupt",
                 path, len, want);
        goto done;
    }
    uint64_t stored;
    memcpy(&stored, buf + len - sizeof stored, sizeof stored);
    if (ckpt_fnv64(CKPT_FNV64_INIT, buf, len - sizeof stored) != stored) {
        snprintf(err, err_size, "%s: checksum mismatch: the file is corrupt", path);
        goto done;
    }
    int same_shape = hd.layers == c->shape.layers;
    for (int i = 0; same_shape && i <= c->shape.layers; i++)
        same_shape = hd.dims[i] == c->shape.dims[i];
    if (!same_shape || hd.n_params != c->n_params || hd.n_state != c->n_state ||
        hd.opt_kind != c->opt_kind || hd.batch != c->batch || hd.n_train != c->n_train) {
        snprintf(err, err_size,
                 "%s: written by a different run (model, optimizer, --batch or "
                 "--train-samples differ)",
                 path);
        goto done;
    }
    c->epoch = hd.epoch;
    c->batch_in_epoch = hd.batch_in_epoch;
    c->step = hd.step;
    c->rng_epoch = hd.rng_epoch;
    memcpy(c->params, buf + head, c->n_params * sizeof(float));
    memcpy(c->state, buf + head + c->n_params * sizeof(float), c->n_state * sizeof(float));
    rc = 0;
done:
    free(buf);
    return rc;
}
