/*
 * What the quantised ops' steps run, for the plan's description of a step
 * (runtime/plan.c: `cairn run --explain`, the profiler's kernel column).
 */
#ifndef CAIRN_IR_OPS_QUANT_H
#define CAIRN_IR_OPS_QUANT_H

#include "ir/ir.h"
#include "kernels/ktensor.h"

/* QLinearConv / ConvInteger n on inputs `in`: the route its execution
 * takes ("int8 depthwise avx512, requantised", "int8 gemm (im2col)",
 * "exact f32 grouped convolution", "ref"), written into buf. */
void op_quant_conv_describe(const ir_node_t *n, const ktensor_t *in, char *buf, size_t cap);
/* The depthwise plane kernel an 8-bit convolution node (QLinearConv,
 * ConvInteger, FusedConvInteger: W its second 8-bit input) runs on, for
 * the plan's description (quant_dw_variant) */
const char *op_quant_dw_variant(const ir_node_t *n, const ktensor_t *in);

#endif
