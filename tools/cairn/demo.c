/*
 * The demo encoder block, written as an ONNX exporter would emit it at
 * opset 17 (plus Gelu, approximate="none"): MatMul against [in, out]
 * weights followed by a bias Add, Reshape with a [0, -1, heads, head_dim]
 * shape constant so the symbolic sequence length passes through, and
 * exporter-style node names ("layer0/attn/q_proj/MatMul").
 *
 * Only the public API (cairn.h) is used, so this doubles as an example of
 * building a model by hand. Weights follow PyTorch's default nn.Linear init
 * (uniform in +-1/sqrt(fan_in) for weight and bias) from a fixed-seed
 * xorshift generator; LayerNorm scales are 1 and biases 0, as PyTorch's.
 */
#include "demo.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

demo_config_t demo_config_default(void)
{
    demo_config_t c = {256, 4, 1024, 0x5eed};
    return c;
}

/* Build state: the first failure sticks, so every later call is a no-op
 * and cairn_last_error() still holds the message of the call that failed. */
typedef struct builder {
    cairn_graph_t *g;
    uint64_t rng;
    cairn_status_t s;
} builder_t;

static float next_uniform(builder_t *b, float bound)
{
    /* xorshift64*: plenty for weights; the top 24 bits make a float in [0,1) */
    b->rng ^= b->rng >> 12;
    b->rng ^= b->rng << 25;
    b->rng ^= b->rng >> 27;
    uint64_t r = b->rng * 2685821657736338717ull;
    float u = (float)(r >> 40) * (1.0f / 16777216.0f);
    return (2.0f * u - 1.0f) * bound;
}

static cairn_value_id constant(builder_t *b, const char *name, cairn_dtype_t dt, int rank,
                               const int64_t *shape, const void *data)
{
    if (b->s != CAIRN_OK)
        return -1;
    cairn_tensor_t t = {dt, rank, {0}, (void *)data};
    for (int i = 0; i < rank; i++)
        t.shape[i] = shape[i];
    cairn_value_id v = -1;
    b->s = cairn_graph_add_constant(b->g, name, &t, &v);
    return v;
}

/* A constant of uniform values in +-bound, or all `fill` when bound is 0. */
static cairn_value_id param(builder_t *b, const char *name, int rank, const int64_t *shape,
                            float bound, float fill)
{
    if (b->s != CAIRN_OK)
        return -1;
    int64_t n = 1;
    for (int i = 0; i < rank; i++)
        n *= shape[i];
    float *w = malloc((size_t)n * sizeof *w);
    if (!w) {
        b->s = CAIRN_ERR_OUT_OF_MEMORY;
        fprintf(stderr, "demo: out of memory for weight '%s'\n", name);
        return -1;
    }
    for (int64_t i = 0; i < n; i++)
        w[i] = bound > 0 ? next_uniform(b, bound) : fill;
    cairn_value_id v = constant(b, name, CAIRN_F32, rank, shape, w);
    free(w);
    return v;
}

static cairn_value_id node(builder_t *b, const char *op, const char *name,
                           const cairn_value_id *in, int n_in, const cairn_attr_t *attrs,
                           int n_attrs, const char *out_name)
{
    if (b->s != CAIRN_OK)
        return -1;
    cairn_value_id out = -1;
    const char *names[1] = {out_name};
    b->s = cairn_graph_add_node(b->g, op, name, in, n_in, attrs, n_attrs, &out, 1,
                                out_name ? names : NULL);
    return out;
}

static cairn_value_id node2(builder_t *b, const char *op, const char *name, cairn_value_id a,
                            cairn_value_id c)
{
    cairn_value_id in[2] = {a, c};
    return node(b, op, name, in, 2, NULL, 0, NULL);
}

/* x @ W + bias, W stored [in, out] as exporters transpose nn.Linear. */
static cairn_value_id linear(builder_t *b, const char *scope, cairn_value_id x, int in, int out)
{
    char nw[128], nb[128], nm[128], na[128];
    snprintf(nw, sizeof nw, "%s.weight", scope);
    snprintf(nb, sizeof nb, "%s.bias", scope);
    snprintf(nm, sizeof nm, "%s/MatMul", scope);
    snprintf(na, sizeof na, "%s/Add", scope);
    float bound = 1.0f / sqrtf((float)in);
    int64_t ws[2] = {in, out}, bs[1] = {out};
    cairn_value_id w = param(b, nw, 2, ws, bound, 0);
    cairn_value_id bias = param(b, nb, 1, bs, bound, 0);
    cairn_value_id m = node2(b, "MatMul", nm, x, w);
    return node2(b, "Add", na, m, bias);
}

static cairn_value_id layer_norm(builder_t *b, const char *scope, cairn_value_id x, int d)
{
    char ns[128], nb[128], nn[128];
    snprintf(ns, sizeof ns, "%s.weight", scope);
    snprintf(nb, sizeof nb, "%s.bias", scope);
    snprintf(nn, sizeof nn, "%s/LayerNormalization", scope);
    int64_t s1[1] = {d};
    cairn_value_id scale = param(b, ns, 1, s1, 0, 1.0f);
    cairn_value_id bias = param(b, nb, 1, s1, 0, 0.0f);
    cairn_value_id in[3] = {x, scale, bias};
    cairn_attr_t at[2] = {cairn_attr_int("axis", -1), cairn_attr_float("epsilon", 1e-5f)};
    return node(b, "LayerNormalization", nn, in, 3, at, 2, NULL);
}

static cairn_value_id transpose(builder_t *b, const char *name, cairn_value_id x,
                                const int64_t perm[4])
{
    cairn_attr_t at = cairn_attr_ints("perm", perm, 4);
    return node(b, "Transpose", name, &x, 1, &at, 1, NULL);
}

cairn_status_t demo_build(const demo_config_t *cfg, cairn_graph_t **out)
{
    demo_config_t c = cfg ? *cfg : demo_config_default();
    if (!out || c.d_model <= 0 || c.heads <= 0 || c.d_ff <= 0 || c.d_model % c.heads) {
        fprintf(stderr, "demo: bad configuration (d_model %d, heads %d, d_ff %d)\n", c.d_model,
                c.heads, c.d_ff);
        return CAIRN_ERR_INVALID_ARGUMENT;
    }
    const int d = c.d_model, h = c.heads, hd = c.d_model / c.heads;
    builder_t b = {NULL, c.seed ? c.seed : 1, CAIRN_OK};
    b.s = cairn_graph_create(&b.g);
    if (b.s != CAIRN_OK)
        return b.s;

    int64_t xdims[3] = {1, 0, d};
    const char *xnames[3] = {NULL, DEMO_SEQ_NAME, NULL};
    cairn_value_id x = -1;
    b.s = cairn_graph_add_input(b.g, "x", CAIRN_F32, 3, xdims, xnames, &x);

    /* shape constants: 0 copies the batch dim, -1 takes the symbolic seq */
    int64_t heads_shape[4] = {0, -1, h, hd}, model_shape[3] = {0, -1, d};
    int64_t s4[1] = {4}, s3[1] = {3};
    cairn_value_id heads_c = constant(&b, "layer0/attn/heads_shape", CAIRN_I64, 1, s4, heads_shape);
    cairn_value_id model_c = constant(&b, "layer0/attn/model_shape", CAIRN_I64, 1, s3, model_shape);
    float scale = 1.0f / sqrtf((float)hd);
    cairn_value_id scale_c = constant(&b, "layer0/attn/scale", CAIRN_F32, 0, NULL, &scale);

    /* attention */
    cairn_value_id ln1 = layer_norm(&b, "layer0/ln1", x, d);
    cairn_value_id q = linear(&b, "layer0/attn/q_proj", ln1, d, d);
    cairn_value_id k = linear(&b, "layer0/attn/k_proj", ln1, d, d);
    cairn_value_id v = linear(&b, "layer0/attn/v_proj", ln1, d, d);
    q = node2(&b, "Reshape", "layer0/attn/q_heads/Reshape", q, heads_c);
    k = node2(&b, "Reshape", "layer0/attn/k_heads/Reshape", k, heads_c);
    v = node2(&b, "Reshape", "layer0/attn/v_heads/Reshape", v, heads_c);
    static const int64_t to_heads[4] = {0, 2, 1, 3};  /* [1,seq,h,hd] -> [1,h,seq,hd] */
    static const int64_t to_keys_t[4] = {0, 2, 3, 1}; /* [1,seq,h,hd] -> [1,h,hd,seq] */
    q = transpose(&b, "layer0/attn/q_heads/Transpose", q, to_heads);
    k = transpose(&b, "layer0/attn/k_heads/Transpose", k, to_keys_t);
    v = transpose(&b, "layer0/attn/v_heads/Transpose", v, to_heads);
    cairn_value_id sc = node2(&b, "MatMul", "layer0/attn/scores/MatMul", q, k);
    sc = node2(&b, "Mul", "layer0/attn/scores/Mul", sc, scale_c);
    cairn_attr_t axis = cairn_attr_int("axis", -1);
    cairn_value_id p = node(&b, "Softmax", "layer0/attn/Softmax", &sc, 1, &axis, 1, NULL);
    cairn_value_id ctx = node2(&b, "MatMul", "layer0/attn/context/MatMul", p, v);
    ctx = transpose(&b, "layer0/attn/context/Transpose", ctx, to_heads); /* its own inverse */
    ctx = node2(&b, "Reshape", "layer0/attn/context/Reshape", ctx, model_c);
    cairn_value_id att = linear(&b, "layer0/attn/out_proj", ctx, d, d);
    cairn_value_id r1 = node2(&b, "Add", "layer0/attn/residual/Add", x, att);

    /* MLP */
    cairn_value_id ln2 = layer_norm(&b, "layer0/ln2", r1, d);
    cairn_value_id f = linear(&b, "layer0/mlp/fc1", ln2, d, c.d_ff);
    cairn_attr_t approx = cairn_attr_string("approximate", "none");
    f = node(&b, "Gelu", "layer0/mlp/Gelu", &f, 1, &approx, 1, NULL);
    f = linear(&b, "layer0/mlp/fc2", f, c.d_ff, d);
    cairn_value_id in2[2] = {r1, f};
    cairn_value_id y = node(&b, "Add", "layer0/mlp/residual/Add", in2, 2, NULL, 0, "y");

    if (b.s == CAIRN_OK)
        b.s = cairn_graph_mark_output(b.g, y);
    if (b.s != CAIRN_OK) {
        cairn_graph_destroy(b.g);
        return b.s;
    }
    *out = b.g;
    return CAIRN_OK;
}
