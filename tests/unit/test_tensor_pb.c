/* ONNX TensorProto files: round trips for every dtype, hand-encoded protobuf
 * bytes in every typed field (packed and unpacked), and the malformed files
 * the reader must reject with a message naming the file and the problem. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "frontend/onnx/tensor_pb.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmpdir[64];

static const char *tmp_path(const char *leaf)
{
    static char buf[4][128];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", tmpdir, leaf);
    return buf[k];
}

static void write_bytes(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f)
        return;
    CHECK(fwrite(p, 1, n, f) == n);
    fclose(f);
}

/* ---- a tiny protobuf encoder, independent of protobuf-c ---------------- */

typedef struct pb {
    uint8_t b[8192];
    size_t n;
} pb_t;

static void pb_raw(pb_t *p, const void *d, size_t n)
{
    memcpy(p->b + p->n, d, n);
    p->n += n;
}
static void pb_varint(pb_t *p, uint64_t v)
{
    while (v >= 0x80) {
        p->b[p->n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p->b[p->n++] = (uint8_t)v;
}
static void pb_tag(pb_t *p, int field, int wire) { pb_varint(p, (uint64_t)(field << 3 | wire)); }
static void pb_dims(pb_t *p, const int64_t *d, int n)
{
    for (int i = 0; i < n; i++) {
        pb_tag(p, 1, 0);
        pb_varint(p, (uint64_t)d[i]);
    }
}
static void pb_type(pb_t *p, int t)
{
    pb_tag(p, 2, 0);
    pb_varint(p, (uint64_t)t);
}
static void pb_bytes(pb_t *p, int field, const void *d, size_t n)
{
    pb_tag(p, field, 2);
    pb_varint(p, n);
    pb_raw(p, d, n);
}
/* little-endian fixed-width encodings (x86 hosts: memcpy is LE) */
static void pb_packed_f32(pb_t *p, int field, const float *v, int n)
{
    pb_tag(p, field, 2);
    pb_varint(p, (uint64_t)n * 4);
    pb_raw(p, v, (size_t)n * 4);
}
static void pb_packed_f64(pb_t *p, int field, const double *v, int n)
{
    pb_tag(p, field, 2);
    pb_varint(p, (uint64_t)n * 8);
    pb_raw(p, v, (size_t)n * 8);
}
/* int32/int64 varints: negatives are sign-extended to 10 bytes */
static void pb_packed_varints(pb_t *p, int field, const int64_t *v, int n)
{
    pb_t tmp = {{0}, 0};
    for (int i = 0; i < n; i++)
        pb_varint(&tmp, (uint64_t)v[i]);
    pb_bytes(p, field, tmp.b, tmp.n);
}

static cairn_status_t parse_pb(const pb_t *p, const char *leaf, cairn_tensor_t *t, char **name)
{
    const char *path = tmp_path(leaf);
    write_bytes(path, p->b, p->n);
    return onnx_tensor_read(path, t, name);
}

/* ---- round trips ------------------------------------------------------- */

static void test_roundtrip(void)
{
    static const cairn_dtype_t types[] = {CAIRN_F32, CAIRN_U8,  CAIRN_I8,  CAIRN_I16, CAIRN_I32,
                                          CAIRN_I64, CAIRN_BOOL, CAIRN_F16, CAIRN_F64, CAIRN_BF16};
    static const struct {
        int rank;
        int64_t shape[4];
    } shapes[] = {{0, {0}}, {1, {7}}, {3, {2, 3, 5}}, {2, {0, 4}}, {4, {1, 1, 3, 1}}};
    check_rng_t r = {0x1234567};
    for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++)
        for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
            cairn_tensor_t t = {types[ti], shapes[si].rank, {0}, NULL};
            memcpy(t.shape, shapes[si].shape, sizeof shapes[si].shape);
            size_t bytes = cairn_tensor_bytes(&t);
            uint8_t *data = malloc(bytes + 1);
            for (size_t i = 0; i < bytes; i++)
                data[i] = (uint8_t)check_rng_next(&r);
            if (types[ti] == CAIRN_BOOL)
                for (size_t i = 0; i < bytes; i++)
                    data[i] &= 1;
            t.data = bytes ? data : NULL; /* empty tensors may have no data */
            char leaf[32];
            snprintf(leaf, sizeof leaf, "rt_%zu_%zu.pb", ti, si);
            const char *path = tmp_path(leaf);
            CHECK_OK(onnx_tensor_write(path, &t, "some/name:0"));
            cairn_tensor_t back = {0};
            char *name = NULL;
            CHECK_OK(onnx_tensor_read(path, &back, &name));
            CHECK_MSG(back.dtype == t.dtype && back.rank == t.rank, "%s rank %d",
                      cairn_dtype_name(t.dtype), t.rank);
            CHECK(back.data != NULL);
            CHECK(!memcmp(back.shape, t.shape, sizeof(int64_t) * (size_t)t.rank));
            CHECK(!bytes || (back.data && !memcmp(back.data, data, bytes)));
            CHECK(name && !strcmp(name, "some/name:0"));
            free(back.data);
            free(name);
            /* no name; name pointer not wanted */
            CHECK_OK(onnx_tensor_write(path, &t, NULL));
            CHECK_OK(onnx_tensor_read(path, &back, NULL));
            free(back.data);
            CHECK_OK(onnx_tensor_read(path, &back, &name));
            CHECK(name && name[0] == '\0');
            free(back.data);
            free(name);
            remove(path);
            free(data);
        }
}

/* The bytes an ONNX writer would produce for a raw_data float tensor. */
static void test_handmade_raw(void)
{
    pb_t p = {{0}, 0};
    int64_t d[2] = {2, 2};
    pb_dims(&p, d, 2);
    pb_type(&p, 1);
    pb_bytes(&p, 8, "x", 1);
    const uint8_t raw[16] = {0, 0, 0x80, 0x3f, 0, 0, 0, 0x40, 0, 0, 0x40, 0xc0, 0, 0, 0, 0};
    pb_bytes(&p, 9, raw, sizeof raw);
    cairn_tensor_t t;
    char *name;
    CHECK_OK(parse_pb(&p, "raw.pb", &t, &name));
    CHECK(t.dtype == CAIRN_F32 && t.rank == 2 && t.shape[0] == 2 && t.shape[1] == 2);
    const float *f = t.data;
    CHECK(f[0] == 1.0f && f[1] == 2.0f && f[2] == -3.0f && f[3] == 0.0f);
    CHECK(!strcmp(name, "x"));
    free(t.data);
    free(name);

    /* the in-memory parser gives the same */
    CHECK_OK(onnx_tensor_parse(p.b, p.n, "mem", &t, NULL));
    CHECK(((float *)t.data)[2] == -3.0f);
    free(t.data);
}

static void test_handmade_typed(void)
{
    cairn_tensor_t t;
    int64_t d3[1] = {3};

    { /* float_data, packed and unpacked */
        pb_t p = {{0}, 0};
        pb_dims(&p, d3, 1);
        pb_type(&p, 1);
        float v[3] = {1.5f, -2.25f, 1e-3f};
        pb_packed_f32(&p, 4, v, 3);
        CHECK_OK(parse_pb(&p, "f32.pb", &t, NULL));
        CHECK(t.dtype == CAIRN_F32 && ((float *)t.data)[0] == 1.5f &&
              ((float *)t.data)[1] == -2.25f && ((float *)t.data)[2] == 1e-3f);
        free(t.data);

        pb_t q = {{0}, 0};
        pb_dims(&q, d3, 1);
        pb_type(&q, 1);
        for (int i = 0; i < 3; i++) {
            pb_tag(&q, 4, 5); /* fixed32, one per entry */
            pb_raw(&q, &v[i], 4);
        }
        CHECK_OK(parse_pb(&q, "f32u.pb", &t, NULL));
        CHECK(((float *)t.data)[1] == -2.25f && ((float *)t.data)[2] == 1e-3f);
        free(t.data);
    }
    { /* double_data */
        pb_t p = {{0}, 0};
        pb_dims(&p, d3, 1);
        pb_type(&p, 11);
        double v[3] = {0.1, -1e300, 7};
        pb_packed_f64(&p, 10, v, 3);
        CHECK_OK(parse_pb(&p, "f64.pb", &t, NULL));
        CHECK(t.dtype == CAIRN_F64 && ((double *)t.data)[0] == 0.1 &&
              ((double *)t.data)[1] == -1e300 && ((double *)t.data)[2] == 7);
        free(t.data);
    }
    { /* int64_data, packed and unpacked, with extremes */
        int64_t v[3] = {INT64_MIN, -1, INT64_MAX};
        pb_t p = {{0}, 0};
        pb_dims(&p, d3, 1);
        pb_type(&p, 7);
        pb_packed_varints(&p, 7, v, 3);
        CHECK_OK(parse_pb(&p, "i64.pb", &t, NULL));
        CHECK(t.dtype == CAIRN_I64 && ((int64_t *)t.data)[0] == INT64_MIN &&
              ((int64_t *)t.data)[1] == -1 && ((int64_t *)t.data)[2] == INT64_MAX);
        free(t.data);
        pb_t q = {{0}, 0};
        pb_dims(&q, d3, 1);
        pb_type(&q, 7);
        for (int i = 0; i < 3; i++) {
            pb_tag(&q, 7, 0);
            pb_varint(&q, (uint64_t)v[i]);
        }
        CHECK_OK(parse_pb(&q, "i64u.pb", &t, NULL));
        CHECK(((int64_t *)t.data)[0] == INT64_MIN && ((int64_t *)t.data)[2] == INT64_MAX);
        free(t.data);
    }
    /* int32_data carries i32, i16, i8, u8, bool, and f16/bf16 bit patterns */
    static const struct {
        int type;
        int64_t v[3];
    } cases[] = {
        {6, {INT32_MIN, -5, INT32_MAX}},
        {5, {-32768, -1, 32767}},
        {3, {-128, -7, 127}},
        {2, {0, 200, 255}},
        {9, {1, 0, 1}},
        {10, {0x3C00, 0xC000, 0x7BFF}}, /* f16: 1, -2, 65504 */
        {16, {0x3F80, 0xC040, 0x0000}}, /* bf16: 1, -3, 0 */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        pb_t p = {{0}, 0};
        pb_dims(&p, d3, 1);
        pb_type(&p, cases[c].type);
        pb_packed_varints(&p, 5, cases[c].v, 3);
        CHECK_OK(parse_pb(&p, "i32f.pb", &t, NULL));
        CHECK(t.dtype == (cairn_dtype_t)cases[c].type);
        for (int i = 0; i < 3; i++) {
            int64_t got;
            switch (t.dtype) {
            case CAIRN_I32: got = ((int32_t *)t.data)[i]; break;
            case CAIRN_I16: got = ((int16_t *)t.data)[i]; break;
            case CAIRN_I8: got = ((int8_t *)t.data)[i]; break;
            case CAIRN_U8:
            case CAIRN_BOOL: got = ((uint8_t *)t.data)[i]; break;
            default: got = ((uint16_t *)t.data)[i]; break;
            }
            CHECK_MSG(got == cases[c].v[i], "type %d element %d: got %lld want %lld",
                      cases[c].type, i, (long long)got, (long long)cases[c].v[i]);
        }
        if (t.dtype == CAIRN_F16) {
            CHECK(((uint16_t *)t.data)[1] == 0xC000);
        }
        free(t.data);
    }
    { /* a scalar (no dims) and an empty tensor with no data at all */
        pb_t p = {{0}, 0};
        pb_type(&p, 1);
        float v = 4.0f;
        pb_packed_f32(&p, 4, &v, 1);
        CHECK_OK(parse_pb(&p, "scalar.pb", &t, NULL));
        CHECK(t.rank == 0 && ((float *)t.data)[0] == 4.0f);
        free(t.data);
        pb_t q = {{0}, 0};
        int64_t d[2] = {3, 0};
        pb_dims(&q, d, 2);
        pb_type(&q, 7);
        CHECK_OK(parse_pb(&q, "empty.pb", &t, NULL));
        CHECK(t.rank == 2 && t.shape[1] == 0 && t.data != NULL);
        free(t.data);
    }
}

/* ---- malformed files --------------------------------------------------- */

#define CHECK_BAD(p, leaf, want, needle)                                        \
    do {                                                                        \
        cairn_tensor_t bad_t_ = {0};                                            \
        char *bad_n_ = NULL;                                                    \
        CHECK_FAILS(parse_pb(p, leaf, &bad_t_, &bad_n_), want, needle);         \
        CHECK(strstr(cairn_last_error(), leaf) != NULL); /* names the file */   \
    } while (0)

static void test_malformed(void)
{
    int64_t d2[1] = {2};
    float f2[2] = {1, 2};
    { /* not protobuf at all */
        pb_t p = {{0}, 0};
        const uint8_t junk[] = {0xff, 0xff, 0xff, 0xff, 0x0f, 0x12, 0x34};
        pb_raw(&p, junk, sizeof junk);
        CHECK_BAD(&p, "junk.pb", CAIRN_ERR_PARSE, "not a valid ONNX TensorProto");
    }
    { /* an empty file is an empty message: no data_type */
        pb_t p = {{0}, 0};
        CHECK_BAD(&p, "empty_file.pb", CAIRN_ERR_PARSE, "data_type");
    }
    { /* every truncation of a valid file fails cleanly */
        cairn_tensor_t t = {CAIRN_F32, 2, {3, 5}, NULL};
        float v[15];
        for (int i = 0; i < 15; i++)
            v[i] = (float)i;
        t.data = v;
        uint8_t *buf;
        size_t len;
        CHECK_OK(onnx_tensor_serialize(&t, "trunc", &buf, &len));
        int all_failed = 1;
        for (size_t n = 0; n < len; n++) {
            cairn_tensor_t out;
            if (onnx_tensor_parse(buf, n, "cut", &out, NULL) == CAIRN_OK) {
                all_failed = 0;
                free(out.data);
            } else if (!strstr(cairn_last_error(), "cut")) {
                all_failed = 0;
            }
        }
        CHECK(all_failed);
        /* and random corruptions never crash or read out of bounds (ASan) */
        check_rng_t r = {99};
        for (int k = 0; k < 3000; k++) {
            uint8_t m[256];
            memcpy(m, buf, len);
            int flips = 1 + (int)(check_rng_next(&r) % 4);
            for (int f = 0; f < flips; f++)
                m[check_rng_next(&r) % len] = (uint8_t)check_rng_next(&r);
            cairn_tensor_t out;
            char *nm = NULL;
            if (onnx_tensor_parse(m, len, "mut", &out, &nm) == CAIRN_OK) {
                free(out.data);
                free(nm);
            }
        }
        free(buf);
    }
    { /* negative dim */
        pb_t p = {{0}, 0};
        int64_t d[2] = {2, -2};
        pb_dims(&p, d, 2);
        pb_type(&p, 1);
        pb_packed_f32(&p, 4, f2, 2);
        CHECK_BAD(&p, "negdim.pb", CAIRN_ERR_PARSE, "dimension 1 is -2");
    }
    { /* element count overflows int64 */
        pb_t p = {{0}, 0};
        int64_t d[3] = {1ll << 40, 1ll << 40, 2};
        pb_dims(&p, d, 3);
        pb_type(&p, 1);
        pb_packed_f32(&p, 4, f2, 2);
        CHECK_BAD(&p, "ovf.pb", CAIRN_ERR_PARSE, "overflows");
    }
    { /* count fits, bytes do not */
        pb_t p = {{0}, 0};
        int64_t d[2] = {1ll << 31, 1ll << 31};
        pb_dims(&p, d, 2);
        pb_type(&p, 11);
        pb_bytes(&p, 9, f2, 8);
        CHECK_BAD(&p, "ovf2.pb", CAIRN_ERR_PARSE, "overflows");
    }
    { /* huge shape, tiny data: rejected without allocating the shape */
        pb_t p = {{0}, 0};
        int64_t d[2] = {1ll << 20, 1ll << 20};
        pb_dims(&p, d, 2);
        pb_type(&p, 1);
        pb_bytes(&p, 9, f2, 8);
        CHECK_BAD(&p, "huge.pb", CAIRN_ERR_PARSE, "raw_data has 8 bytes");
    }
    { /* raw_data too short and too long */
        pb_t p = {{0}, 0};
        pb_dims(&p, d2, 1);
        pb_type(&p, 1);
        pb_bytes(&p, 9, f2, 7);
        CHECK_BAD(&p, "short.pb", CAIRN_ERR_PARSE, "raw_data has 7 bytes but a f32 tensor of shape [2] needs 8");
        pb_t q = {{0}, 0};
        pb_dims(&q, d2, 1);
        pb_type(&q, 1);
        float f3[3] = {1, 2, 3};
        pb_bytes(&q, 9, f3, 12);
        CHECK_BAD(&q, "long.pb", CAIRN_ERR_PARSE, "raw_data has 12 bytes");
    }
    { /* typed count mismatch, and no data at all for a non-empty shape */
        pb_t p = {{0}, 0};
        int64_t d[1] = {4};
        pb_dims(&p, d, 1);
        pb_type(&p, 1);
        pb_packed_f32(&p, 4, f2, 2);
        CHECK_BAD(&p, "count.pb", CAIRN_ERR_PARSE, "float_data has 2 values but shape [4] needs 4");
        pb_t q = {{0}, 0};
        pb_dims(&q, d, 1);
        pb_type(&q, 6);
        CHECK_BAD(&q, "nodata.pb", CAIRN_ERR_PARSE, "int32_data has 0 values");
    }
    { /* wrong typed field for the dtype, two fields, raw + typed */
        pb_t p = {{0}, 0};
        pb_dims(&p, d2, 1);
        pb_type(&p, 7);
        pb_packed_f32(&p, 4, f2, 2);
        CHECK_BAD(&p, "field.pb", CAIRN_ERR_PARSE, "i64 tensor stores its values in int64_data");
        pb_t q = {{0}, 0};
        pb_dims(&q, d2, 1);
        pb_type(&q, 1);
        pb_packed_f32(&q, 4, f2, 2);
        pb_bytes(&q, 9, f2, 8);
        CHECK_BAD(&q, "both.pb", CAIRN_ERR_PARSE, "both raw_data and float_data");
        pb_t r = {{0}, 0};
        int64_t iv[2] = {1, 2};
        pb_dims(&r, d2, 1);
        pb_type(&r, 1);
        pb_packed_f32(&r, 4, f2, 2);
        pb_packed_varints(&r, 7, iv, 2);
        CHECK_BAD(&r, "two.pb", CAIRN_ERR_PARSE, "both float_data and int64_data");
    }
    { /* int32_data values out of range for the narrower dtype */
        static const struct {
            int type;
            int64_t v;
        } oor[] = {{3, 128}, {3, -129}, {2, -1}, {2, 256}, {5, 40000}, {9, 2}, {10, -1},
                   {16, 65536}};
        for (size_t i = 0; i < sizeof oor / sizeof oor[0]; i++) {
            pb_t p = {{0}, 0};
            int64_t d1[1] = {1};
            pb_dims(&p, d1, 1);
            pb_type(&p, oor[i].type);
            pb_packed_varints(&p, 5, &oor[i].v, 1);
            CHECK_BAD(&p, "range.pb", CAIRN_ERR_PARSE, "outside the range");
        }
        pb_t q = {{0}, 0};
        pb_dims(&q, d2, 1);
        pb_type(&q, 9);
        const uint8_t bools[2] = {1, 2};
        pb_bytes(&q, 9, bools, 2);
        CHECK_BAD(&q, "bool.pb", CAIRN_ERR_PARSE, "bool element 1 is 2");
    }
    { /* types cairn has no dtype for */
        static const struct {
            int type;
            const char *name;
        } un[] = {{8, "STRING"},  {14, "COMPLEX64"}, {15, "COMPLEX128"}, {12, "UINT32"},
                  {13, "UINT64"}, {4, "UINT16"},     {17, "FLOAT8E4M3FN"}, {99, "unknown"}};
        for (size_t i = 0; i < sizeof un / sizeof un[0]; i++) {
            pb_t p = {{0}, 0};
            pb_dims(&p, d2, 1);
            pb_type(&p, un[i].type);
            pb_bytes(&p, 9, f2, 8);
            CHECK_BAD(&p, "unsup.pb", CAIRN_ERR_UNSUPPORTED, un[i].name);
        }
        pb_t q = {{0}, 0};
        pb_dims(&q, d2, 1);
        pb_type(&q, 8);
        pb_bytes(&q, 6, "ab", 2);
        pb_bytes(&q, 6, "c", 1);
        CHECK_BAD(&q, "str.pb", CAIRN_ERR_UNSUPPORTED, "STRING");
    }
    { /* external data */
        pb_t p = {{0}, 0};
        pb_dims(&p, d2, 1);
        pb_type(&p, 1);
        pb_t e = {{0}, 0};
        pb_bytes(&e, 1, "location", 8);
        pb_bytes(&e, 2, "weights.bin", 11);
        pb_bytes(&p, 13, e.b, e.n);
        pb_tag(&p, 14, 0);
        pb_varint(&p, 1);
        CHECK_BAD(&p, "ext.pb", CAIRN_ERR_UNSUPPORTED, "external");
        CHECK(strstr(cairn_last_error(), "weights.bin") != NULL);
    }
    { /* rank beyond cairn's maximum */
        pb_t p = {{0}, 0};
        int64_t d[9] = {1, 1, 1, 1, 1, 1, 1, 1, 2};
        pb_dims(&p, d, 9);
        pb_type(&p, 1);
        pb_packed_f32(&p, 4, f2, 2);
        CHECK_BAD(&p, "rank.pb", CAIRN_ERR_UNSUPPORTED, "rank 9");
    }
    /* files that are not there, or not files */
    cairn_tensor_t t;
    CHECK_FAILS(onnx_tensor_read(tmp_path("missing.pb"), &t, NULL), CAIRN_ERR_IO, "missing.pb");
    const char *dir = tmpdir;
    CHECK_FAILS(onnx_tensor_read(dir, &t, NULL), CAIRN_ERR_IO, dir);
    CHECK_FAILS(onnx_tensor_read(NULL, &t, NULL), CAIRN_ERR_INVALID_ARGUMENT, NULL);
}

static void test_write_errors(void)
{
    float v[2] = {1, 2};
    cairn_tensor_t t = {CAIRN_F32, 1, {2}, v};
    CHECK_FAILS(onnx_tensor_write(tmp_path("no/such/dir/x.pb"), &t, NULL), CAIRN_ERR_IO,
                "no/such/dir");
    cairn_tensor_t bad = {(cairn_dtype_t)8, 1, {2}, v};
    CHECK_FAILS(onnx_tensor_write(tmp_path("x.pb"), &bad, NULL), CAIRN_ERR_DTYPE, "dtype 8");
    cairn_tensor_t nul = {CAIRN_F32, 1, {2}, NULL};
    CHECK_FAILS(onnx_tensor_write(tmp_path("x.pb"), &nul, NULL), CAIRN_ERR_INVALID_ARGUMENT,
                "NULL data");
    cairn_tensor_t neg = {CAIRN_F32, 1, {-2}, v};
    CHECK_FAILS(onnx_tensor_write(tmp_path("x.pb"), &neg, NULL), CAIRN_ERR_SHAPE, "-2");
    cairn_tensor_t rk = {CAIRN_F32, 9, {2}, v};
    CHECK_FAILS(onnx_tensor_write(tmp_path("x.pb"), &rk, NULL), CAIRN_ERR_SHAPE, "rank 9");
    CHECK_FAILS(onnx_tensor_write(NULL, &t, NULL), CAIRN_ERR_INVALID_ARGUMENT, NULL);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/cairn_tpb_XXXXXX");
    if (!mkdtemp(tmpdir)) {
        fprintf(stderr, "cannot create a temporary directory\n");
        return 1;
    }
    test_roundtrip();
    test_handmade_raw();
    test_handmade_typed();
    test_malformed();
    test_write_errors();
    /* clean up the leaves we made */
    static const char *const leaves[] = {
        "raw.pb",   "f32.pb",   "f32u.pb",   "f64.pb",   "i64.pb",   "i64u.pb",   "i32f.pb",
        "scalar.pb", "empty.pb", "junk.pb",  "empty_file.pb", "negdim.pb", "ovf.pb", "ovf2.pb",
        "huge.pb",  "short.pb", "long.pb",   "count.pb", "nodata.pb", "field.pb", "both.pb",
        "two.pb",   "range.pb", "bool.pb",   "unsup.pb", "str.pb",   "ext.pb",    "rank.pb"};
    for (size_t i = 0; i < sizeof leaves / sizeof leaves[0]; i++)
        remove(tmp_path(leaves[i]));
    rmdir(tmpdir);
    return check_finish("test_tensor_pb");
}
