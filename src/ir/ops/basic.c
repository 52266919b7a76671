/* Basic ops: Identity. */
#include "ir/op_table.h"

#include <string.h>

cairn_status_t op_identity_infer(ir_infer_ctx_t *c);
cairn_status_t op_identity_exec(const ir_node_t *n, const ktensor_t *in, int n_in, ktensor_t *out,
                                int n_out, void *ws, const kctx_t *k);

cairn_status_t op_identity_infer(ir_infer_ctx_t *c)
{
    c->out[0] = c->in[0];
    return CAIRN_OK;
}

cairn_status_t op_identity_exec(const ir_node_t *n, const ktensor_t *in, int n_in, ktensor_t *out,
                                int n_out, void *ws, const kctx_t *k)
{
    (void)n, (void)n_in, (void)n_out, (void)ws, (void)k;
    size_t bytes = (size_t)kt_numel(&in[0]) * cairn_dtype_size(in[0].dtype);
    if (bytes && out[0].data != in[0].data)
        memcpy(out[0].data, in[0].data, bytes);
    return CAIRN_OK;
}
