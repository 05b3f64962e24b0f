/**
 * @file mlp.c
 * @brief Lesson 13: the MLP and its optimizers on the CPU, the oracle of every other path.
 *
 * Layer l computes a_l = relu(a_{l-1} W_l^T + b_l) (no ReLU on the last layer,
 * whose outputs are the logits). The backward pass walks the layers in
 * reverse: with delta = dLoss/d(pre-activation) of layer l,
 *   dW_l = delta^T a_{l-1}      (out x in)
 *   db_l = column sums of delta
 *   delta_{l-1} = (delta W_l) * (a_{l-1} > 0)
 * Loops are ordered so the innermost runs along contiguous rows, and the dot
 * products keep 8 partial sums, so the compiler vectorises them; the order of
 * every sum is fixed, so two runs give bitwise-equal results.
 */
#include "data_parallel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mat.h"

int mlp_shape_parse(struct mlp_shape *s, int in, const char *hidden, int out)
{
    memset(s, 0, sizeof *s);
    s->dims[0] = in;
    int n = 0;
    const char *p = hidden;
    while (p && *p) {
        char *end;
        long w = strtol(p, &end, 10);
        if (end == p || w < 1 || w > 65536 || n >= MLP_MAX_LAYERS || (*end && *end != ','))
            return -1;
        s->dims[++n] = (int)w;
        p = *end ? end + 1 : end;
    }
    s->dims[n + 1] = out;
    s->layers = n + 1;
    return 0;
}

size_t mlp_weight_offset(const struct mlp_shape *s, int l)
{
    size_t off = 0;
    for (int i = 0; i < l; i++)
        off += (size_t)s->dims[i + 1] * s->dims[i] + s->dims[i + 1];
    return off;
}

size_t mlp_param_count(const struct mlp_shape *s)
{
    return mlp_weight_offset(s, s->layers);
}

size_t mlp_activation_count(const struct mlp_shape *s)
{
    size_t n = 0;
    for (int l = 1; l <= s->layers; l++)
        n += (size_t)s->dims[l];
    return n;
}

static int widest(const struct mlp_shape *s)
{
    int w = 0;
    for (int l = 0; l <= s->layers; l++)
        w = s->dims[l] > w ? s->dims[l] : w;
    return w;
}

size_t mlp_work_count(const struct mlp_shape *s, int B)
{
    return (size_t)B * (mlp_activation_count(s) + 2 * (size_t)widest(s));
}

void mlp_init(const struct mlp_shape *s, float *params, uint64_t seed)
{
    uint64_t st = seed * 0x9E3779B97F4A7C15ULL + 12345;
    for (int l = 0; l < s->layers; l++) {
        int in = s->dims[l], out = s->dims[l + 1];
        float *W = params + mlp_weight_offset(s, l), *b = W + (size_t)out * in;
        float bound = sqrtf(6.0f / (float)in);
        for (size_t i = 0; i < (size_t)out * in; i++) {
            double u = (double)(mat_rand_next(&st) >> 11) * (1.0 / 9007199254740992.0);
            W[i] = (float)((2.0 * u - 1.0) * bound);
        }
        memset(b, 0, (size_t)out * sizeof *b);
    }
}

/* y = w . x over n floats, with 8 partial sums in a fixed order. */
static float dot(const float *w, const float *x, int n)
{
    float acc[8] = {0};
    int i = 0;
    for (; i + 8 <= n; i += 8)
        for (int j = 0; j < 8; j++)
            acc[j] += w[i + j] * x[i + j];
    float sum = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
    for (; i < n; i++)
        sum += w[i] * x[i];
    return sum;
}

float *mlp_forward(const struct mlp_shape *s, const float *params, const float *x, int B,
                   float *acts)
{
    const float *in_act = x;
    float *out_act = acts;
    for (int l = 0; l < s->layers; l++) {
        int in = s->dims[l], out = s->dims[l + 1], relu = l + 1 < s->layers;
        const float *W = params + mlp_weight_offset(s, l), *bias = W + (size_t)out * in;
        for (int r = 0; r < B; r++) {
            const float *xr = in_act + (size_t)r * in; /* sample r's inputs */
            float *yr = out_act + (size_t)r * out;     /* and its outputs */
            for (int o = 0; o < out; o++) {
                float v = dot(W + (size_t)o * in, xr, in) + bias[o];
                yr[o] = relu && v < 0.0f ? 0.0f : v;
            }
        }
        in_act = out_act;
        out_act += (size_t)B * out;
    }
    return (float *)in_act;
}

float mlp_softmax_xent(const float *logits, const uint8_t *labels, int B, int C, float *dlogits,
                       int *correct)
{
    double loss = 0.0;
    int right = 0;
    for (int r = 0; r < B; r++) {
        const float *z = logits + (size_t)r * C; /* row r's logits */
        int best = 0;
        float zmax = z[0];
        for (int c = 1; c < C; c++)
            if (z[c] > zmax) {
                zmax = z[c];
                best = c;
            }
        right += best == labels[r];
        /* Subtract the max so exp() cannot overflow; the softmax is unchanged. */
        float sum = 0.0f;
        for (int c = 0; c < C; c++)
            sum += expf(z[c] - zmax);
        float logsum = logf(sum);
        loss += (double)(logsum - (z[labels[r]] - zmax));
        if (!dlogits)
            continue;
        float *d = dlogits + (size_t)r * C;
        // The gradient of the mean loss with respect to logit c of row r:
        // (softmax_c - [c == label]) / B, with softmax_c = exp(z_c - zmax) / sum.
        // BEGIN SOLUTION
        for (int c = 0; c < C; c++) {
            float p = expf(z[c] - zmax) / sum;
            d[c] = (p - (c == labels[r] ? 1.0f : 0.0f)) / (float)B;
        }
        // END SOLUTION
    }
    if (correct)
        *correct = right;
    return (float)(loss / B);
}

float mlp_loss_grad(const struct mlp_shape *s, const float *params, const float *x,
                    const uint8_t *labels, int B, float *grads, float *work, int *correct)
{
    int L = s->layers, wmax = widest(s);
    float *acts = work;
    float *delta = work + (size_t)B * mlp_activation_count(s); /* B x wmax */
    float *delta_prev = delta + (size_t)B * wmax;              /* B x wmax */
    float *logits = mlp_forward(s, params, x, B, acts);
    float loss = mlp_softmax_xent(logits, labels, B, s->dims[L], delta, correct);

    for (int l = L - 1; l >= 0; l--) {
        int in = s->dims[l], out = s->dims[l + 1];
        const float *W = params + mlp_weight_offset(s, l);
        float *dW = grads + mlp_weight_offset(s, l), *db = dW + (size_t)out * in;
        /* The layer's input: x, or the previous layer's output (after ReLU). */
        const float *a = x;
        if (l > 0) {
            size_t off = 0; /* layer l - 1's output follows layers 0 .. l - 2's */
            for (int k = 1; k < l; k++)
                off += (size_t)B * s->dims[k];
            a = acts + off;
        }
        /* dW[o][:] = sum over samples r of delta[r][o] * a[r][:]; db[o] = sum of delta[r][o]. */
        for (int o = 0; o < out; o++) {
            float *dw = dW + (size_t)o * in;
            memset(dw, 0, (size_t)in * sizeof *dw);
            float dbo = 0.0f;
            for (int r = 0; r < B; r++) {
                float g = delta[(size_t)r * out + o];
                const float *ar = a + (size_t)r * in;
                dbo += g;
                for (int i = 0; i < in; i++)
                    dw[i] += g * ar[i];
            }
            db[o] = dbo;
        }
        if (l == 0)
            break;
        /* delta_prev[r][:] = sum over o of delta[r][o] * W[o][:], masked by ReLU'. */
        for (int r = 0; r < B; r++) {
            float *dp = delta_prev + (size_t)r * in;
            const float *ar = a + (size_t)r * in;
            memset(dp, 0, (size_t)in * sizeof *dp);
            for (int o = 0; o < out; o++) {
                float g = delta[(size_t)r * out + o];
                const float *wo = W + (size_t)o * in;
                for (int i = 0; i < in; i++)
                    dp[i] += g * wo[i];
            }
            for (int i = 0; i < in; i++)
                dp[i] = ar[i] > 0.0f ? dp[i] : 0.0f;
        }
        float *t = delta;
        delta = delta_prev;
        delta_prev = t;
    }
    return loss;
}

int opt_state_per_param(enum opt_kind kind)
{
    return kind == OPT_ADAMW ? 2 : 1;
}

void opt_step(const struct opt_config *o, float *params, const float *grads, float *state, size_t n,
              long long step)
{
    if (o->kind == OPT_SGD) {
        /* PyTorch's SGD: v = mu v + (g + wd p); p -= lr v. */
        for (size_t i = 0; i < n; i++) {
            float g = grads[i] + o->weight_decay * params[i];
            state[i] = o->momentum * state[i] + g;
            params[i] -= o->lr * state[i];
        }
        return;
    }
    float *m = state, *v = state + n;
    float c1 = 1.0f - powf(o->beta1, (float)step), c2 = 1.0f - powf(o->beta2, (float)step);
    // AdamW: decay the weight first (decoupled from the gradient), then update
    // the moments m and v, correct their bias with c1 and c2, and step by
    // lr * mhat / (sqrt(vhat) + eps).
    // BEGIN SOLUTION
    for (size_t i = 0; i < n; i++) {
        float g = grads[i];
        params[i] -= o->lr * o->weight_decay * params[i];
        m[i] = o->beta1 * m[i] + (1.0f - o->beta1) * g;
        v[i] = o->beta2 * v[i] + (1.0f - o->beta2) * g * g;
        float mhat = m[i] / c1, vhat = v[i] / c2;
        params[i] -= o->lr * mhat / (sqrtf(vhat) + o->eps);
    }
    // END SOLUTION
}
