/**
 * @file idx.c
 * @brief Lesson 13: the Fashion-MNIST loader (IDX files, gzip-compressed or not).
 *
 * An IDX file is a big-endian header, then bytes: images are magic 2051, count,
 * rows, cols, then count x rows x cols pixels; labels are magic 2049, count,
 * then count labels. zlib's gzread reads .gz and plain files alike. Every
 * failure is one line that names the file, because "the data is wrong" is the
 * first thing to rule out when a training run misbehaves.
 */
#include "data_parallel.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "mat.h"

enum { IDX_IMAGES_MAGIC = 2051, IDX_LABELS_MAGIC = 2049, IDX_MAX_COUNT = 1 << 24 };

/* Read exactly @p n bytes; returns 0, or -1 with the reason in @p err. */
static int read_exact(gzFile f, const char *path, void *buf, size_t n, const char *what, char *err,
                      size_t err_size)
{
    unsigned char *p = buf;
    while (n > 0) {
        unsigned chunk = n > (1u << 30) ? (1u << 30) : (unsigned)n;
        int got = gzread(f, p, chunk);
        if (got < 0) {
            int code;
            const char *msg = gzerror(f, &code);
            snprintf(err, err_size, "%s: cannot read %s: %s", path, what, msg);
            return -1;
        }
        if (got == 0) {
            snprintf(err, err_size, "%s: truncated: the file ends inside the %s", path, what);
            return -1;
        }
        p += got;
        n -= (size_t)got;
    }
    return 0;
}

static uint32_t be32(const unsigned char *b)
{
    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

/*
 * Read one IDX file of @p dims dimensions (3: images, 1: labels). On success
 * *data holds the payload and shape[] the dimensions.
 */
static int read_idx(const char *path, uint32_t magic, int dims, uint8_t **data, int *shape,
                    char *err, size_t err_size)
{
    gzFile f = gzopen(path, "rb");
    if (!f) {
        snprintf(err, err_size, "%s: cannot open: %s", path, errno ? strerror(errno) : "zlib");
        return -1;
    }
    unsigned char head[16];
    int rc = -1;
    *data = NULL;
    /* The magic first, so that a wrong file is called wrong rather than short. */
    if (read_exact(f, path, head, 4, "header", err, err_size))
        goto done;
    if (be32(head) != magic) {
        snprintf(err, err_size, "%s: bad magic number %u, want %u (%s)", path, be32(head), magic,
                 magic == IDX_IMAGES_MAGIC ? "an IDX3 image file" : "an IDX1 label file");
        goto done;
    }
    if (read_exact(f, path, head + 4, 4 * (size_t)dims, "header", err, err_size))
        goto done;
    size_t total = 1;
    for (int d = 0; d < dims; d++) {
        uint32_t v = be32(head + 4 + 4 * d);
        if (v == 0 || v > IDX_MAX_COUNT) {
            snprintf(err, err_size, "%s: dimension %d is %u, outside [1, %d]", path, d, v,
                     IDX_MAX_COUNT);
            goto done;
        }
        shape[d] = (int)v;
        total *= v;
    }
    *data = mat_alloc(total);
    if (read_exact(f, path, *data, total, "data", err, err_size))
        goto done;
    unsigned char extra;
    if (gzread(f, &extra, 1) != 0) {
        snprintf(err, err_size, "%s: longer than its header says (%zu bytes of data)", path, total);
        goto done;
    }
    rc = 0;
done:
    gzclose(f);
    if (rc) {
        free(*data);
        *data = NULL;
    }
    return rc;
}

int idx_load(const char *images_path, const char *labels_path, struct idx_set *set, char *err,
             size_t err_size)
{
    memset(set, 0, sizeof *set);
    int ishape[3], lshape[1];
    if (read_idx(images_path, IDX_IMAGES_MAGIC, 3, &set->images, ishape, err, err_size))
        return -1;
    if (read_idx(labels_path, IDX_LABELS_MAGIC, 1, &set->labels, lshape, err, err_size)) {
        idx_free(set);
        return -1;
    }
    if (ishape[0] != lshape[0]) {
        snprintf(err, err_size, "%s: %d labels for %d images in %s", labels_path, lshape[0],
                 ishape[0], images_path);
        idx_free(set);
        return -1;
    }
    for (int i = 0; i < lshape[0]; i++) {
        if (set->labels[i] > 9) {
            snprintf(err, err_size, "%s: label %d of sample %d is not in 0..9", labels_path,
                     set->labels[i], i);
            idx_free(set);
            return -1;
        }
    }
    set->n = ishape[0];
    set->rows = ishape[1];
    set->cols = ishape[2];
    return 0;
}

int idx_load_split(const char *dir, const char *split, struct idx_set *set, char *err,
                   size_t err_size)
{
    char images[4096], labels[4096];
    snprintf(images, sizeof images, "%s/%s-images-idx3-ubyte.gz", dir, split);
    snprintf(labels, sizeof labels, "%s/%s-labels-idx1-ubyte.gz", dir, split);
    return idx_load(images, labels, set, err, err_size);
}

void idx_free(struct idx_set *set)
{
    free(set->images);
    free(set->labels);
    memset(set, 0, sizeof *set);
}
