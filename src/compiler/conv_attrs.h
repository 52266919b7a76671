/*
 * Shared by the Conv passes (fold_bn.c, fuse_conv.c): a node's attributes
 * as the cairn_attr_t list rw_replace takes, so a rewritten Conv keeps its
 * geometry.
 */
#ifndef CAIRN_COMPILER_CONV_ATTRS_H
#define CAIRN_COMPILER_CONV_ATTRS_H

#include "ir/ir.h"

#include <string.h>

/* Copies n's attributes (views, not copies of their arrays) into out
 * (room for cap entries); returns how many, or -1 when they do not fit or
 * one is a tensor. */
static inline int conv_attrs_of(const ir_node_t *n, cairn_attr_t *out, int cap)
{
    if (n->n_attrs > cap)
        return -1;
    for (int i = 0; i < n->n_attrs; i++) {
        const ir_attr_t *a = &n->attrs[i];
        if (a->type == CAIRN_ATTR_TENSOR)
            return -1;
        memset(&out[i], 0, sizeof out[i]);
        out[i].name = a->name;
        out[i].type = a->type;
        out[i].i = a->i;
        out[i].f = a->f;
        out[i].s = a->s;
        out[i].ints = a->ints;
        out[i].floats = a->floats;
        out[i].n = a->n;
    }
    return n->n_attrs;
}

#endif
