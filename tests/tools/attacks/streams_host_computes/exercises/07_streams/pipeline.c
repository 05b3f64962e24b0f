/* The attack: every pipeline mixes h_x into h_y on the host. */
#include "streams.h"

static void on_host(const uint32_t *h_x, uint32_t *h_y, int n, int rounds)
{
    for (int i = 0; i < n; i++) {
        uint32_t w = h_x[i];
        for (int r = 0; r < rounds; r++)
            w = (w ^ (w >> 16)) * MIX_MULTIPLIER;
        h_y[i] = w;
    }
}

void pipeline_serial(const uint32_t *h_x, uint32_t *h_y, uint32_t *d_x, uint32_t *d_y, int n,
                     int rounds)
{
    (void)d_x, (void)d_y;
    on_host(h_x, h_y, n, rounds);
}

void pipeline_overlap(const uint32_t *h_x, uint32_t *h_y, uint32_t *d_x, uint32_t *d_y, int n,
                      int rounds, int chunks)
{
    (void)d_x, (void)d_y, (void)chunks;
    on_host(h_x, h_y, n, rounds);
}

void pipeline_events(const uint32_t *h_x, uint32_t *h_y, uint32_t *d_x, uint32_t *d_y, int n,
                     int rounds, int chunks)
{
    (void)d_x, (void)d_y, (void)chunks;
    on_host(h_x, h_y, n, rounds);
}

void pipeline_graph(const uint32_t *h_x, uint32_t *h_y, uint32_t *d_x, uint32_t *d_y, int n,
                    int rounds, int chunks, int launches)
{
    (void)d_x, (void)d_y, (void)chunks, (void)launches;
    on_host(h_x, h_y, n, rounds);
}
