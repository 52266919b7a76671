/*
 * The pass pipeline: which passes run, in which order, and the checks
 * between them. The QDQ form of statically quantised models onto the int8
 * kernels first (before folding turns its int8 weights into f32). Folding
 * then (so later passes see constants), then dead
 * code, then canonical forms (LayerNormalization, Gelu) that the GEMM
 * fusion can absorb as activations, BatchNormalization folded into the
 * Conv before it, Conv epilogues (activation, residual) fused, then
 * inverted-residual blocks (expand, depthwise, project) as one node, then
 * attention chains as one FusedAttention (before GEMM fusion, which would
 * take its MatMuls), then the elementwise chains no epilogue took as one
 * FusedElementwise each, then pre-packing of what remains a GEMM with a
 * constant B, and last the constants placed together on huge pages. After
 * each pass the graph must still verify; a
 * pass that breaks it is a cairn bug, reported as CAIRN_ERR_INTERNAL.
 */
#include "compiler/pass.h"

#include <stdlib.h>
#include <string.h>

static const pass_def_t pipeline[] = {
    {"fuse_qdq", pass_fuse_qdq},
    {"fold", pass_fold},         {"dce", pass_dce},         {"canonicalize", pass_canonicalize},
    {"fold_bn", pass_fold_bn},   {"fuse_conv", pass_fuse_conv},
    {"fuse_mbconv", pass_fuse_mbconv},
    {"fuse_attention", pass_fuse_attention},
    {"fuse_gemm", pass_fuse_gemm}, {"fuse_eltwise", pass_fuse_eltwise},
    {"prepack", pass_prepack},   {"place", pass_place},
};
#define N_PASSES ((int)(sizeof pipeline / sizeof pipeline[0]))

const pass_def_t *compiler_pipeline(int *n)
{
    *n = N_PASSES;
    return pipeline;
}

const pass_def_t *compiler_find_pass(const char *name)
{
    for (int i = 0; i < N_PASSES; i++)
        if (!strcmp(pipeline[i].name, name))
            return &pipeline[i];
    return NULL;
}

static const char *pass_list(void)
{
    return "fuse_qdq, fold, dce, canonicalize, fold_bn, fuse_conv, fuse_mbconv, fuse_attention, fuse_gemm, "
           "fuse_eltwise, "
           "prepack, place";
}

/* Marks in sel[] the passes the selection text names. */
static cairn_status_t parse_selection(const char *text, const char *what, unsigned char *sel)
{
    memset(sel, 0, N_PASSES);
    if (!text || !strcmp(text, "all") || !strcmp(text, "")) {
        memset(sel, 1, N_PASSES);
        return CAIRN_OK;
    }
    if (!strcmp(text, "none"))
        return CAIRN_OK;
    const char *p = text;
    while (*p) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        int found = 0;
        for (int i = 0; i < N_PASSES; i++)
            if (strlen(pipeline[i].name) == len && !strncmp(pipeline[i].name, p, len))
                sel[i] = 1, found = 1;
        if (!found)
            return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                              "%s: unknown pass '%.*s' (the passes are %s; or 'all', 'none')",
                              what, (int)len, p, pass_list());
        p = e ? e + 1 : p + len;
    }
    return CAIRN_OK;
}

cairn_status_t compiler_run(ir_graph_t *g, const pass_ctx_t *c, const char *passes,
                            const char *dump_after, FILE *dump)
{
    unsigned char sel[N_PASSES];
    const char *what = "passes";
    if (!passes) {
        passes = getenv("CAIRN_PASSES");
        what = "CAIRN_PASSES";
    }
    BASE_TRY(parse_selection(passes, what, sel));
    if (dump_after && !compiler_find_pass(dump_after))
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "--dump-after: unknown pass '%s' (the passes are %s)", dump_after,
                          pass_list());
    kctx_t k1 = {0};
    k1.threads = 1;
    pass_ctx_t ctx = c ? *c : (pass_ctx_t){NULL};
    if (!ctx.k)
        ctx.k = &k1;
    for (int i = 0; i < N_PASSES; i++) {
        if (!sel[i])
            continue;
        cairn_status_t s = pipeline[i].fn(g, &ctx);
        if (s != CAIRN_OK)
            return base_error_prefix(s, "compiler pass '%s': ", pipeline[i].name);
        if ((s = ir_verify(g)) != CAIRN_OK) {
            base_error_prefix(s, "compiler pass '%s' left an invalid graph (a cairn bug; "
                              "CAIRN_PASSES=none avoids it): ", pipeline[i].name);
            return CAIRN_ERR_INTERNAL;
        }
        if (dump_after && dump && !strcmp(dump_after, pipeline[i].name)) {
            char *text = NULL;
            if ((s = ir_print(g, &text)) != CAIRN_OK)
                return s;
            fprintf(dump, "# graph after pass '%s'\n%s", pipeline[i].name, text);
            free(text);
        }
    }
    return CAIRN_OK;
}
