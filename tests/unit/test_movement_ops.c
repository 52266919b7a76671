/* Movement ops on small hand-computed cases with literal expected values,
 * and their error paths (statuses and messages). */
#include "test_movement_util.h"

#define SHAPE(...) ((const int64_t[]){__VA_ARGS__})
#define A(...) ((const mt_arg_t[]){__VA_ARGS__})

static void test_transpose(void)
{
    const float x[6] = {1, 2, 3, 4, 5, 6};
    const float want[6] = {1, 4, 2, 5, 3, 6};
    mt_expect("transpose default", "Transpose", A(MT_IN(CAIRN_F32, x, 2, 2, 3)), 1, NULL, 0,
              CAIRN_F32, 2, SHAPE(3, 2), want);
    const int64_t y[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    const int64_t want2[8] = {0, 1, 4, 5, 2, 3, 6, 7};
    int64_t perm[3] = {1, 0, 2};
    cairn_attr_t ap = cairn_attr_ints("perm", perm, 3);
    mt_expect("transpose perm", "Transpose", A(MT_IN(CAIRN_I64, y, 3, 2, 2, 2)), 1, &ap, 1,
              CAIRN_I64, 3, SHAPE(2, 2, 2), want2);
    int64_t bad[3] = {0, 0, 2};
    cairn_attr_t ab = cairn_attr_ints("perm", bad, 3);
    mt_out_t o;
    CHECK_FAILS(mt_run("Transpose", A(MT_IN(CAIRN_I64, y, 3, 2, 2, 2)), 1, &ab, 1, &o, 1),
                CAIRN_ERR_INVALID_ARGUMENT, "permutation");
    cairn_attr_t as = cairn_attr_ints("perm", perm, 2);
    CHECK_FAILS(mt_run("Transpose", A(MT_IN(CAIRN_I64, y, 3, 2, 2, 2)), 1, &as, 1, &o, 1),
                CAIRN_ERR_SHAPE, "rank 3");
}

static void test_reshape_family(void)
{
    const int16_t x[6] = {1, 2, 3, 4, 5, 6};
    const int64_t s1[2] = {3, -1};
    mt_expect("reshape -1", "Reshape",
              A(MT_IN(CAIRN_I16, x, 2, 2, 3), MT_CONST(CAIRN_I64, s1, 1, 2)), 2, NULL, 0,
              CAIRN_I16, 2, SHAPE(3, 2), x);
    const int64_t s2[3] = {0, -1, 1};
    mt_expect("reshape 0", "Reshape",
              A(MT_IN(CAIRN_I16, x, 2, 2, 3), MT_CONST(CAIRN_I64, s2, 1, 3)), 2, NULL, 0,
              CAIRN_I16, 3, SHAPE(2, 3, 1), x);
    /* allowzero: a 0 is a real zero-size dim */
    const int64_t s3[2] = {0, 3};
    cairn_attr_t az = cairn_attr_int("allowzero", 1);
    mt_expect("reshape allowzero", "Reshape",
              A(MT_IN(CAIRN_I16, x, 2, 3, 0), MT_CONST(CAIRN_I64, s3, 1, 2)), 2, &az, 1,
              CAIRN_I16, 2, SHAPE(0, 3), x);
    mt_out_t o;
    /* without allowzero the same shape copies dim 0 (3): 0 elements vs 9 */
    CHECK_FAILS(mt_run("Reshape", A(MT_IN(CAIRN_I16, x, 2, 3, 0), MT_CONST(CAIRN_I64, s3, 1, 2)),
                       2, NULL, 0, &o, 1),
                CAIRN_ERR_SHAPE, "[3,0]");
    const int64_t s4[2] = {4, 2};
    CHECK_FAILS(mt_run("Reshape", A(MT_IN(CAIRN_I16, x, 2, 2, 3), MT_CONST(CAIRN_I64, s4, 1, 2)),
                       2, NULL, 0, &o, 1),
                CAIRN_ERR_SHAPE, "cannot reshape [2,3] (6 elements) to [4,2] (8 elements)");
    const int64_t s5[2] = {-1, -1};
    CHECK_FAILS(mt_run("Reshape", A(MT_IN(CAIRN_I16, x, 2, 2, 3), MT_CONST(CAIRN_I64, s5, 1, 2)),
                       2, NULL, 0, &o, 1),
                CAIRN_ERR_SHAPE, "more than one -1");
    const int64_t s6[3] = {0, -1, 2};
    CHECK_FAILS(mt_run("Reshape", A(MT_IN(CAIRN_I16, x, 2, 2, 3), MT_CONST(CAIRN_I64, s6, 1, 3)),
                       2, &az, 1, &o, 1),
                CAIRN_ERR_SHAPE, "both");
    const int64_t s7[2] = {4, -1};
    CHECK_FAILS(mt_run("Reshape", A(MT_IN(CAIRN_I16, x, 2, 2, 3), MT_CONST(CAIRN_I64, s7, 1, 2)),
                       2, NULL, 0, &o, 1),
                CAIRN_ERR_SHAPE, "[4,-1]");
    const int32_t s8[2] = {3, 2};
    CHECK_FAILS(mt_run("Reshape", A(MT_IN(CAIRN_I16, x, 2, 2, 3), MT_CONST(CAIRN_I32, s8, 1, 2)),
                       2, NULL, 0, &o, 1),
                CAIRN_ERR_DTYPE, "i32");
    /* a shape fed at run time: the plan is specialised on its value, which
     * is checked like a constant's */
    CHECK_FAILS(mt_run("Reshape", A(MT_IN(CAIRN_I16, x, 2, 2, 3), MT_IN(CAIRN_I64, s4, 1, 2)), 2,
                       NULL, 0, &o, 1),
                CAIRN_ERR_SHAPE, "cannot reshape");

    cairn_attr_t ax0 = cairn_attr_int("axis", 0), axm = cairn_attr_int("axis", -1);
    mt_expect("flatten 0", "Flatten", A(MT_IN(CAIRN_I16, x, 2, 2, 3)), 1, &ax0, 1, CAIRN_I16, 2,
              SHAPE(1, 6), x);
    mt_expect("flatten -1", "Flatten", A(MT_IN(CAIRN_I16, x, 3, 1, 2, 3)), 1, &axm, 1, CAIRN_I16,
              2, SHAPE(2, 3), x);
    cairn_attr_t ax9 = cairn_attr_int("axis", 4);
    CHECK_FAILS(mt_run("Flatten", A(MT_IN(CAIRN_I16, x, 2, 2, 3)), 1, &ax9, 1, &o, 1),
                CAIRN_ERR_SHAPE, "axis 4");

    mt_expect("squeeze all", "Squeeze", A(MT_IN(CAIRN_I16, x, 4, 1, 6, 1, 1)), 1, NULL, 0,
              CAIRN_I16, 1, SHAPE(6), x);
    const int64_t sq[1] = {-1};
    mt_expect("squeeze -1", "Squeeze",
              A(MT_IN(CAIRN_I16, x, 3, 1, 6, 1), MT_CONST(CAIRN_I64, sq, 1, 1)), 2, NULL, 0,
              CAIRN_I16, 2, SHAPE(1, 6), x);
    const int64_t sq1[1] = {1};
    CHECK_FAILS(mt_run("Squeeze", A(MT_IN(CAIRN_I16, x, 3, 1, 6, 1), MT_CONST(CAIRN_I64, sq1, 1, 1)),
                       2, NULL, 0, &o, 1),
                CAIRN_ERR_SHAPE, "size 6");
    const int64_t us[2] = {0, -1};
    mt_expect("unsqueeze", "Unsqueeze",
              A(MT_IN(CAIRN_I16, x, 2, 2, 3), MT_CONST(CAIRN_I64, us, 1, 2)), 2, NULL, 0,
              CAIRN_I16, 4, SHAPE(1, 2, 3, 1), x);
    const int64_t us2[2] = {1, 1};
    CHECK_FAILS(mt_run("Unsqueeze", A(MT_IN(CAIRN_I16, x, 2, 2, 3), MT_CONST(CAIRN_I64, us2, 1, 2)),
                       2, NULL, 0, &o, 1),
                CAIRN_ERR_SHAPE, "twice");
    const int64_t us3[1] = {4};
    CHECK_FAILS(mt_run("Unsqueeze", A(MT_IN(CAIRN_I16, x, 2, 2, 3), MT_CONST(CAIRN_I64, us3, 1, 1)),
                       2, NULL, 0, &o, 1),
                CAIRN_ERR_SHAPE, "out of range");
}

static void test_concat_split(void)
{
    const int16_t a[2] = {1, 2}, b[4] = {3, 4, 5, 6};
    const int16_t want[6] = {1, 3, 4, 2, 5, 6};
    cairn_attr_t axm = cairn_attr_int("axis", -1);
    mt_expect("concat", "Concat", A(MT_IN(CAIRN_I16, a, 2, 2, 1), MT_IN(CAIRN_I16, b, 2, 2, 2)),
              2, &axm, 1, CAIRN_I16, 2, SHAPE(2, 3), want);
    mt_out_t o[4];
    cairn_attr_t ax0 = cairn_attr_int("axis", 0);
    CHECK_FAILS(mt_run("Concat", A(MT_IN(CAIRN_I16, a, 2, 2, 1), MT_IN(CAIRN_I16, b, 2, 1, 4)),
                       2, &axm, 1, o, 1),
                CAIRN_ERR_SHAPE, "[1,4]");
    CHECK_FAILS(mt_run("Concat", A(MT_IN(CAIRN_I16, a, 2, 2, 1), MT_IN(CAIRN_I32, b, 2, 2, 1)),
                       2, &ax0, 1, o, 1),
                CAIRN_ERR_DTYPE, NULL);
    CHECK_FAILS(mt_run("Concat", A(MT_IN(CAIRN_I16, a, 2, 2, 1)), 1, NULL, 0, o, 1),
                CAIRN_ERR_INVALID_ARGUMENT, "axis");

    const double x[6] = {0, 1, 2, 3, 4, 5};
    const int64_t sp[2] = {2, 4};
    CHECK_OK(mt_run("Split", A(MT_IN(CAIRN_F64, x, 1, 6), MT_CONST(CAIRN_I64, sp, 1, 2)), 2, NULL,
                    0, o, 2));
    if (o[0].data) {
        CHECK(o[0].shape[0] == 2 && o[1].shape[0] == 4);
        CHECK(((double *)o[0].data)[1] == 1 && ((double *)o[1].data)[0] == 2 &&
              ((double *)o[1].data)[3] == 5);
        mt_free(o, 2);
    }
    cairn_attr_t ax1 = cairn_attr_int("axis", 1);
    CHECK_OK(mt_run("Split", A(MT_IN(CAIRN_F64, x, 2, 2, 3)), 1, &ax1, 1, o, 3));
    if (o[0].data) {
        CHECK(o[2].rank == 2 && o[2].shape[0] == 2 && o[2].shape[1] == 1);
        CHECK(((double *)o[2].data)[0] == 2 && ((double *)o[2].data)[1] == 5);
        CHECK(((double *)o[0].data)[1] == 3);
        mt_free(o, 3);
    }
    CHECK_FAILS(mt_run("Split", A(MT_IN(CAIRN_F64, x, 1, 6)), 1, NULL, 0, o, 4), CAIRN_ERR_SHAPE,
                "equal parts");
    const int64_t sp2[2] = {2, 3};
    CHECK_FAILS(mt_run("Split", A(MT_IN(CAIRN_F64, x, 1, 6), MT_CONST(CAIRN_I64, sp2, 1, 2)), 2,
                       NULL, 0, o, 2),
                CAIRN_ERR_SHAPE, "add up to 5");
    CHECK_FAILS(mt_run("Split", A(MT_IN(CAIRN_F64, x, 1, 6), MT_CONST(CAIRN_I64, sp2, 1, 2)), 2,
                       NULL, 0, o, 3),
                CAIRN_ERR_SHAPE, "3 outputs");
}

static void test_slice(void)
{
    const int32_t x[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    const int32_t rev[10] = {9, 8, 7, 6, 5, 4, 3, 2, 1, 0};
    const int64_t s1[1] = {-1}, e1[1] = {INT64_MIN}, st1[1] = {-1};
    mt_expect("slice reverse", "Slice",
              A(MT_IN(CAIRN_I32, x, 1, 10), MT_CONST(CAIRN_I64, s1, 1, 1),
                MT_CONST(CAIRN_I64, e1, 1, 1), MT_NONE, MT_CONST(CAIRN_I64, st1, 1, 1)),
              5, NULL, 0, CAIRN_I32, 1, SHAPE(10), rev);
    const int32_t s2[1] = {8}, e2[1] = {1}, st2[1] = {-3};
    const int32_t w2[3] = {8, 5, 2};
    mt_expect("slice step -3", "Slice",
              A(MT_IN(CAIRN_I32, x, 1, 10), MT_CONST(CAIRN_I32, s2, 1, 1),
                MT_CONST(CAIRN_I32, e2, 1, 1), MT_NONE, MT_CONST(CAIRN_I32, st2, 1, 1)),
              5, NULL, 0, CAIRN_I32, 1, SHAPE(3), w2);
    const int64_t s3[1] = {-3}, e3[1] = {INT64_MAX};
    mt_expect("slice clamp end", "Slice",
              A(MT_IN(CAIRN_I32, x, 1, 10), MT_CONST(CAIRN_I64, s3, 1, 1),
                MT_CONST(CAIRN_I64, e3, 1, 1)),
              3, NULL, 0, CAIRN_I32, 1, SHAPE(3), x + 7);
    const int64_t s4[1] = {100}, e4[1] = {-100}, st4[1] = {-4};
    const int32_t w4[3] = {9, 5, 1};
    mt_expect("slice clamp start", "Slice",
              A(MT_IN(CAIRN_I32, x, 1, 10), MT_CONST(CAIRN_I64, s4, 1, 1),
                MT_CONST(CAIRN_I64, e4, 1, 1), MT_NONE, MT_CONST(CAIRN_I64, st4, 1, 1)),
              5, NULL, 0, CAIRN_I32, 1, SHAPE(3), w4);
    const int64_t s5[1] = {5}, e5[1] = {2};
    mt_expect("slice empty", "Slice",
              A(MT_IN(CAIRN_I32, x, 1, 10), MT_CONST(CAIRN_I64, s5, 1, 1),
                MT_CONST(CAIRN_I64, e5, 1, 1)),
              3, NULL, 0, CAIRN_I32, 1, SHAPE(0), x);
    /* 2-D, axes [-1], step 2: columns 0 and 2 of a 2x5 */
    const int64_t s6[1] = {0}, e6[1] = {4}, ax6[1] = {-1}, st6[1] = {2};
    const int32_t w6[4] = {0, 2, 5, 7};
    mt_expect("slice axes", "Slice",
              A(MT_IN(CAIRN_I32, x, 2, 2, 5), MT_CONST(CAIRN_I64, s6, 1, 1),
                MT_CONST(CAIRN_I64, e6, 1, 1), MT_CONST(CAIRN_I64, ax6, 1, 1),
                MT_CONST(CAIRN_I64, st6, 1, 1)),
              5, NULL, 0, CAIRN_I32, 2, SHAPE(2, 2), w6);
    /* INT64_MIN step: one element */
    const int64_t s7[1] = {9}, e7[1] = {INT64_MIN}, st7[1] = {INT64_MIN};
    mt_expect("slice min step", "Slice",
              A(MT_IN(CAIRN_I32, x, 1, 10), MT_CONST(CAIRN_I64, s7, 1, 1),
                MT_CONST(CAIRN_I64, e7, 1, 1), MT_NONE, MT_CONST(CAIRN_I64, st7, 1, 1)),
              5, NULL, 0, CAIRN_I32, 1, SHAPE(1), x + 9);
    mt_out_t o;
    const int64_t z[1] = {0};
    CHECK_FAILS(mt_run("Slice", A(MT_IN(CAIRN_I32, x, 1, 10), MT_CONST(CAIRN_I64, s6, 1, 1),
                                  MT_CONST(CAIRN_I64, e6, 1, 1), MT_NONE,
                                  MT_CONST(CAIRN_I64, z, 1, 1)),
                       5, NULL, 0, &o, 1),
                CAIRN_ERR_SHAPE, "non-zero");
    const int64_t ax2[1] = {1};
    CHECK_FAILS(mt_run("Slice", A(MT_IN(CAIRN_I32, x, 1, 10), MT_CONST(CAIRN_I64, s6, 1, 1),
                                  MT_CONST(CAIRN_I64, e6, 1, 1), MT_CONST(CAIRN_I64, ax2, 1, 1)),
                       4, NULL, 0, &o, 1),
                CAIRN_ERR_SHAPE, "out of range");
    const int64_t e2x[2] = {1, 2};
    CHECK_FAILS(mt_run("Slice", A(MT_IN(CAIRN_I32, x, 1, 10), MT_CONST(CAIRN_I64, s6, 1, 1),
                                  MT_CONST(CAIRN_I64, e2x, 1, 2)),
                       3, NULL, 0, &o, 1),
                CAIRN_ERR_SHAPE, "same length");
}

static void test_gather(void)
{
    const float d[6] = {1, 2, 3, 4, 5, 6}; /* [3,2] */
    const int32_t i1[2] = {2, -3};
    const float w1[4] = {5, 6, 1, 2};
    mt_expect("gather axis 0", "Gather",
              A(MT_IN(CAIRN_F32, d, 2, 3, 2), MT_IN(CAIRN_I32, i1, 2, 1, 2)), 2, NULL, 0,
              CAIRN_F32, 3, SHAPE(1, 2, 2), w1);
    const int64_t i2[1] = {-1};
    const float w2[3] = {2, 4, 6};
    cairn_attr_t ax1 = cairn_attr_int("axis", -1);
    mt_expect("gather scalar index", "Gather",
              A(MT_IN(CAIRN_F32, d, 2, 3, 2), MT_IN(CAIRN_I64, i2, 0)), 2, &ax1, 1, CAIRN_F32, 1,
              SHAPE(3), w2);
    mt_out_t o;
    const int64_t bad[3] = {0, 3, 1};
    CHECK_FAILS(mt_run("Gather", A(MT_IN(CAIRN_F32, d, 2, 3, 2), MT_IN(CAIRN_I64, bad, 1, 3)), 2,
                       NULL, 0, &o, 1),
                CAIRN_ERR_RUNTIME, "index 3 (indices element 1) is out of range for axis 0 of size 3");
    const int32_t bad2[1] = {-4};
    CHECK_FAILS(mt_run("Gather", A(MT_IN(CAIRN_F32, d, 2, 3, 2), MT_IN(CAIRN_I32, bad2, 1, 1)), 2,
                       NULL, 0, &o, 1),
                CAIRN_ERR_RUNTIME, "-4");
    /* constant data and indices fold at plan time: the error still comes out */
    CHECK_FAILS(mt_run("Gather", A(MT_CONST(CAIRN_F32, d, 2, 3, 2), MT_CONST(CAIRN_I32, bad2, 1, 1)),
                       2, NULL, 0, &o, 1),
                CAIRN_ERR_RUNTIME, "valid indices are -3..2");
    const float fi[1] = {0};
    CHECK_FAILS(mt_run("Gather", A(MT_IN(CAIRN_F32, d, 2, 3, 2), MT_IN(CAIRN_F32, fi, 1, 1)), 2,
                       NULL, 0, &o, 1),
                CAIRN_ERR_DTYPE, "i32, i64");
    cairn_attr_t ax5 = cairn_attr_int("axis", 2);
    CHECK_FAILS(mt_run("Gather", A(MT_IN(CAIRN_F32, d, 2, 3, 2), MT_IN(CAIRN_I32, i1, 1, 2)), 2,
                       &ax5, 1, &o, 1),
                CAIRN_ERR_SHAPE, "axis 2");

    /* the ONNX GatherElements examples */
    const int32_t e[4] = {1, 2, 3, 4};
    const int64_t ei[4] = {0, 0, 1, 0};
    const int32_t ew[4] = {1, 1, 4, 3};
    cairn_attr_t a1 = cairn_attr_int("axis", 1);
    mt_expect("gather elements 1", "GatherElements",
              A(MT_IN(CAIRN_I32, e, 2, 2, 2), MT_IN(CAIRN_I64, ei, 2, 2, 2)), 2, &a1, 1,
              CAIRN_I32, 2, SHAPE(2, 2), ew);
    const int32_t e2[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    const int32_t ei2[6] = {1, 2, 0, 2, 0, -3};
    const int32_t ew2[6] = {4, 8, 3, 7, 2, 3};
    mt_expect("gather elements 0", "GatherElements",
              A(MT_IN(CAIRN_I32, e2, 2, 3, 3), MT_IN(CAIRN_I32, ei2, 2, 2, 3)), 2, NULL, 0,
              CAIRN_I32, 2, SHAPE(2, 3), ew2);
    const int32_t ebad[6] = {1, 2, 0, 2, 3, 0};
    CHECK_FAILS(mt_run("GatherElements",
                       A(MT_IN(CAIRN_I32, e2, 2, 3, 3), MT_IN(CAIRN_I32, ebad, 2, 2, 3)), 2, NULL,
                       0, &o, 1),
                CAIRN_ERR_RUNTIME, "index 3");
    CHECK_FAILS(mt_run("GatherElements",
                       A(MT_IN(CAIRN_I32, e2, 2, 3, 3), MT_IN(CAIRN_I32, ebad, 2, 1, 6)), 2, NULL,
                       0, &o, 1),
                CAIRN_ERR_SHAPE, "exceed");
    CHECK_FAILS(mt_run("GatherElements",
                       A(MT_IN(CAIRN_I32, e2, 2, 3, 3), MT_IN(CAIRN_I32, ebad, 1, 6)), 2, NULL, 0,
                       &o, 1),
                CAIRN_ERR_SHAPE, "rank");
}

static void test_expand_tile(void)
{
    const uint8_t x[3] = {1, 2, 3};
    const int64_t sh[3] = {2, 1, 4};
    uint8_t want[24];
    for (int i = 0; i < 24; i++)
        want[i] = x[(i / 4) % 3];
    mt_expect("expand", "Expand", A(MT_IN(CAIRN_U8, x, 2, 3, 1), MT_CONST(CAIRN_I64, sh, 1, 3)),
              2, NULL, 0, CAIRN_U8, 3, SHAPE(2, 3, 4), want);
    const int64_t sh1[1] = {1};
    mt_expect("expand keeps larger dims", "Expand",
              A(MT_IN(CAIRN_U8, x, 2, 3, 1), MT_CONST(CAIRN_I64, sh1, 1, 1)), 2, NULL, 0,
              CAIRN_U8, 2, SHAPE(3, 1), x);
    mt_out_t o;
    const int64_t shb[2] = {2, 2};
    CHECK_FAILS(mt_run("Expand", A(MT_IN(CAIRN_U8, x, 2, 3, 1), MT_CONST(CAIRN_I64, shb, 1, 2)),
                       2, NULL, 0, &o, 1),
                CAIRN_ERR_SHAPE, "broadcast");

    const int8_t t[4] = {1, 2, 3, 4};
    const int64_t rep[2] = {2, 3};
    const int8_t tw[24] = {1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4,
                           1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4};
    mt_expect("tile", "Tile", A(MT_IN(CAIRN_I8, t, 2, 2, 2), MT_CONST(CAIRN_I64, rep, 1, 2)), 2,
              NULL, 0, CAIRN_I8, 2, SHAPE(4, 6), tw);
    const int64_t rep0[2] = {0, 3};
    mt_expect("tile zero", "Tile", A(MT_IN(CAIRN_I8, t, 2, 2, 2), MT_CONST(CAIRN_I64, rep0, 1, 2)),
              2, NULL, 0, CAIRN_I8, 2, SHAPE(0, 6), tw);
    CHECK_FAILS(mt_run("Tile", A(MT_IN(CAIRN_I8, t, 2, 2, 2), MT_CONST(CAIRN_I64, rep, 1, 1)), 2,
                       NULL, 0, &o, 1),
                CAIRN_ERR_SHAPE, "rank 2");
    const int64_t repn[2] = {1, -1};
    CHECK_FAILS(mt_run("Tile", A(MT_IN(CAIRN_I8, t, 2, 2, 2), MT_CONST(CAIRN_I64, repn, 1, 2)), 2,
                       NULL, 0, &o, 1),
                CAIRN_ERR_SHAPE, "negative");
}

static void test_pad(void)
{
    const float x[4] = {1, 2, 3, 4};
    const int64_t p[2] = {2, 1};
    const float cv[1] = {9};
    cairn_attr_t mc = cairn_attr_string("mode", "constant"), mr = cairn_attr_string("mode", "reflect"),
                 me = cairn_attr_string("mode", "edge");
    const float wc[7] = {9, 9, 1, 2, 3, 4, 9}, wr[7] = {3, 2, 1, 2, 3, 4, 3},
                we[7] = {1, 1, 1, 2, 3, 4, 4};
    mt_expect("pad constant", "Pad",
              A(MT_IN(CAIRN_F32, x, 1, 4), MT_CONST(CAIRN_I64, p, 1, 2), MT_CONST(CAIRN_F32, cv, 0)),
              3, &mc, 1, CAIRN_F32, 1, SHAPE(7), wc);
    mt_expect("pad reflect", "Pad", A(MT_IN(CAIRN_F32, x, 1, 4), MT_CONST(CAIRN_I64, p, 1, 2)), 2,
              &mr, 1, CAIRN_F32, 1, SHAPE(7), wr);
    mt_expect("pad edge", "Pad", A(MT_IN(CAIRN_F32, x, 1, 4), MT_CONST(CAIRN_I64, p, 1, 2)), 2,
              &me, 1, CAIRN_F32, 1, SHAPE(7), we);
    const int64_t pn[2] = {-1, 1};
    const float wn[4] = {2, 3, 4, 0};
    mt_expect("pad crop", "Pad", A(MT_IN(CAIRN_F32, x, 1, 4), MT_CONST(CAIRN_I64, pn, 1, 2)), 2,
              NULL, 0, CAIRN_F32, 1, SHAPE(4), wn);
    /* the ONNX 2-D examples */
    const float d[6] = {1.0f, 1.2f, 2.3f, 3.4f, 4.5f, 5.7f};
    const int64_t p2[4] = {0, 2, 0, 0};
    const float r2[12] = {1.0f, 1.2f, 1.0f, 1.2f, 2.3f, 3.4f, 2.3f, 3.4f, 4.5f, 5.7f, 4.5f, 5.7f};
    const float e2[12] = {1.0f, 1.0f, 1.0f, 1.2f, 2.3f, 2.3f, 2.3f, 3.4f, 4.5f, 4.5f, 4.5f, 5.7f};
    mt_expect("pad reflect 2d", "Pad", A(MT_IN(CAIRN_F32, d, 2, 3, 2), MT_CONST(CAIRN_I64, p2, 1, 4)),
              2, &mr, 1, CAIRN_F32, 2, SHAPE(3, 4), r2);
    mt_expect("pad edge 2d", "Pad", A(MT_IN(CAIRN_F32, d, 2, 3, 2), MT_CONST(CAIRN_I64, p2, 1, 4)),
              2, &me, 1, CAIRN_F32, 2, SHAPE(3, 4), e2);
    /* rows padded with the constant, plus axes (opset 18 form) */
    const int64_t p3[2] = {1, -1}, a3[1] = {0};
    const float w3[6] = {0, 0, 1.0f, 1.2f, 2.3f, 3.4f};
    mt_expect("pad axes", "Pad",
              A(MT_IN(CAIRN_F32, d, 2, 3, 2), MT_CONST(CAIRN_I64, p3, 1, 2), MT_NONE,
                MT_CONST(CAIRN_I64, a3, 1, 1)),
              4, NULL, 0, CAIRN_F32, 2, SHAPE(3, 2), w3);
    mt_out_t o;
    cairn_attr_t mw = cairn_attr_string("mode", "wrap");
    CHECK_FAILS(mt_run("Pad", A(MT_IN(CAIRN_F32, x, 1, 4), MT_CONST(CAIRN_I64, p, 1, 2)), 2, &mw,
                       1, &o, 1),
                CAIRN_ERR_INVALID_ARGUMENT, "wrap");
    CHECK_FAILS(mt_run("Pad", A(MT_IN(CAIRN_F32, d, 2, 3, 2), MT_CONST(CAIRN_I64, p, 1, 2)), 2,
                       NULL, 0, &o, 1),
                CAIRN_ERR_SHAPE, "2 x 2");
    const int64_t pbig[2] = {-3, -2};
    CHECK_FAILS(mt_run("Pad", A(MT_IN(CAIRN_F32, x, 1, 4), MT_CONST(CAIRN_I64, pbig, 1, 2)), 2,
                       NULL, 0, &o, 1),
                CAIRN_ERR_SHAPE, "negative size");
    const double cvd[1] = {1};
    CHECK_FAILS(mt_run("Pad", A(MT_IN(CAIRN_F32, x, 1, 4), MT_CONST(CAIRN_I64, p, 1, 2),
                                MT_CONST(CAIRN_F64, cvd, 0)),
                       3, NULL, 0, &o, 1),
                CAIRN_ERR_DTYPE, NULL);
    CHECK_FAILS(mt_run("Pad", A(MT_IN(CAIRN_F32, x, 1, 0), MT_CONST(CAIRN_I64, p, 1, 2)), 2, &me,
                       1, &o, 1),
                CAIRN_ERR_SHAPE, "empty");
}

static void test_shape_size_cos_range(void)
{
    const uint16_t x[24] = {0};
    const int64_t w1[2] = {3, 4};
    cairn_attr_t st = cairn_attr_int("start", 1), en = cairn_attr_int("end", -1);
    mt_expect("shape start", "Shape", A(MT_IN(CAIRN_F16, x, 3, 2, 3, 4)), 1, &st, 1, CAIRN_I64, 1,
              SHAPE(2), w1);
    const int64_t w2[2] = {2, 3};
    mt_expect("shape end", "Shape", A(MT_IN(CAIRN_BF16, x, 3, 2, 3, 4)), 1, &en, 1, CAIRN_I64, 1,
              SHAPE(2), w2);
    const int64_t w3[1] = {24};
    mt_expect("size", "Size", A(MT_IN(CAIRN_F16, x, 3, 2, 3, 4)), 1, NULL, 0, CAIRN_I64, 0, NULL,
              w3);

    const int64_t shp[2] = {2, 3};
    const int32_t seven = 7;
    cairn_tensor_t vt = {CAIRN_I32, 1, {1}, (void *)&seven};
    cairn_attr_t va = cairn_attr_tensor("value", &vt);
    const int32_t w4[6] = {7, 7, 7, 7, 7, 7};
    mt_expect("constant of shape", "ConstantOfShape", A(MT_CONST(CAIRN_I64, shp, 1, 2)), 1, &va, 1,
              CAIRN_I32, 2, SHAPE(2, 3), w4);
    const float w5[6] = {0};
    mt_expect("constant of shape default", "ConstantOfShape", A(MT_CONST(CAIRN_I64, shp, 1, 2)),
              1, NULL, 0, CAIRN_F32, 2, SHAPE(2, 3), w5);
    mt_expect("constant of shape scalar", "ConstantOfShape", A(MT_CONST(CAIRN_I64, shp, 1, 0)),
              1, &va, 1, CAIRN_I32, 0, NULL, w4);
    mt_out_t o;
    const int32_t two[2] = {1, 2};
    cairn_tensor_t vt2 = {CAIRN_I32, 1, {2}, (void *)two};
    cairn_attr_t va2 = cairn_attr_tensor("value", &vt2);
    CHECK_FAILS(mt_run("ConstantOfShape", A(MT_CONST(CAIRN_I64, shp, 1, 2)), 1, &va2, 1, &o, 1),
                CAIRN_ERR_INVALID_ARGUMENT, "one element");
    const int64_t negs[2] = {2, -1};
    CHECK_FAILS(mt_run("ConstantOfShape", A(MT_CONST(CAIRN_I64, negs, 1, 2)), 1, NULL, 0, &o, 1),
                CAIRN_ERR_SHAPE, "negative");

    const float fs = 1, fl = 2, fd = 0.3f;
    const float w6[4] = {1.0f, (float)(1.0 + 0.3f), (float)(1.0 + 2.0 * 0.3f),
                         (float)(1.0 + 3.0 * 0.3f)};
    mt_expect("range f32", "Range",
              A(MT_CONST(CAIRN_F32, &fs, 0), MT_CONST(CAIRN_F32, &fl, 0), MT_CONST(CAIRN_F32, &fd, 0)),
              3, NULL, 0, CAIRN_F32, 1, SHAPE(4), w6);
    const int64_t is = 10, il = 4, id = -3;
    const int64_t w7[2] = {10, 7};
    mt_expect("range i64", "Range",
              A(MT_CONST(CAIRN_I64, &is, 0), MT_CONST(CAIRN_I64, &il, 0), MT_CONST(CAIRN_I64, &id, 0)),
              3, NULL, 0, CAIRN_I64, 1, SHAPE(2), w7);
    /* an output size that depends on run-time data: the plan is specialised
     * on the value of the (small) input */
    mt_expect("range i64, start fed at run time", "Range",
              A(MT_IN(CAIRN_I64, &is, 0), MT_CONST(CAIRN_I64, &il, 0), MT_CONST(CAIRN_I64, &id, 0)),
              3, NULL, 0, CAIRN_I64, 1, SHAPE(2), w7);
    CHECK_OK(mt_run("ConstantOfShape", A(MT_IN(CAIRN_I64, shp, 1, 2)), 1, NULL, 0, &o, 1));
    CHECK(o.rank == 2 && o.shape[0] == 2 && o.shape[1] == 3 && ((float *)o.data)[5] == 0.0f);
    free(o.data);
    const int16_t hs = 0, hl = 0, hd = 1;
    mt_expect("range empty", "Range",
              A(MT_CONST(CAIRN_I16, &hs, 0), MT_CONST(CAIRN_I16, &hl, 0), MT_CONST(CAIRN_I16, &hd, 0)),
              3, NULL, 0, CAIRN_I16, 1, SHAPE(0), w7);
    const double ds = -1, dl = 1, dd = 0.5;
    const double w8[4] = {-1, -0.5, 0, 0.5};
    mt_expect("range f64", "Range",
              A(MT_CONST(CAIRN_F64, &ds, 0), MT_CONST(CAIRN_F64, &dl, 0), MT_CONST(CAIRN_F64, &dd, 0)),
              3, NULL, 0, CAIRN_F64, 1, SHAPE(4), w8);
    const int32_t zs = 0, zl = 5, zd = 0;
    CHECK_FAILS(mt_run("Range", A(MT_CONST(CAIRN_I32, &zs, 0), MT_CONST(CAIRN_I32, &zl, 0),
                                  MT_CONST(CAIRN_I32, &zd, 0)),
                       3, NULL, 0, &o, 1),
                CAIRN_ERR_INVALID_ARGUMENT, "delta is 0");
    CHECK_FAILS(mt_run("Range", A(MT_CONST(CAIRN_I32, &zs, 0), MT_CONST(CAIRN_I64, &il, 0),
                                  MT_CONST(CAIRN_I32, &zd, 0)),
                       3, NULL, 0, &o, 1),
                CAIRN_ERR_DTYPE, NULL);
}

int main(void)
{
    test_transpose();
    test_reshape_family();
    test_concat_split();
    test_slice();
    test_gather();
    test_expand_tile();
    test_pad();
    test_shape_size_cos_range();
    return check_finish("test_movement_ops");
}
