/*
 * ONNX TensorProto <-> cairn tensor, via the protobuf-c bindings generated
 * from onnx.proto at build time.
 *
 * A file's contents are untrusted: every count is checked against the shape
 * before anything is copied, and the shape's element count and byte size are
 * computed with overflow checks before anything is allocated, so a hostile
 * file can neither read past its own buffers nor make us allocate more than
 * the data it actually carries.
 */
#define _XOPEN_SOURCE 700
#include "frontend/onnx/tensor_pb.h"

#include "base/alloc.h"
#include "base/dtype.h"
#include "base/status.h"
#include "onnx.pb-c.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

/* ONNX's names for every TensorProto.DataType, so rejections say which. */
static const char *onnx_type_name(int32_t t)
{
    static const char *const names[] = {
        "UNDEFINED", "FLOAT",      "UINT8",        "INT8",         "UINT16",
        "INT16",     "INT32",      "INT64",        "STRING",       "BOOL",
        "FLOAT16",   "DOUBLE",     "UINT32",       "UINT64",       "COMPLEX64",
        "COMPLEX128", "BFLOAT16",  "FLOAT8E4M3FN", "FLOAT8E4M3FNUZ", "FLOAT8E5M2",
        "FLOAT8E5M2FNUZ", "UINT4", "INT4",         "FLOAT4E2M1"};
    if (t >= 0 && (size_t)t < sizeof names / sizeof names[0])
        return names[t];
    return "an unknown type";
}

static int host_is_big_endian(void)
{
    const uint16_t one = 1;
    uint8_t b;
    memcpy(&b, &one, 1);
    return b == 0;
}

/* raw_data is little-endian by definition; on a big-endian host swap each
 * element in place (a no-op on the x86 hosts cairn targets today). */
static void swap_to_host(void *data, int64_t n, size_t esize)
{
    if (esize < 2 || !host_is_big_endian())
        return;
    uint8_t *p = data;
    for (int64_t i = 0; i < n; i++, p += esize)
        for (size_t a = 0, b = esize - 1; a < b; a++, b--) {
            uint8_t tmp = p[a];
            p[a] = p[b];
            p[b] = tmp;
        }
}

/* Which typed field holds the values of a tensor of this dtype. */
static const char *typed_field_for(cairn_dtype_t t)
{
    switch (t) {
    case CAIRN_F32: return "float_data";
    case CAIRN_F64: return "double_data";
    case CAIRN_I64: return "int64_data";
    default: return "int32_data";
    }
}

/* The inclusive range an int32_data entry may hold for a narrower dtype. */
static void int32_range(cairn_dtype_t t, int64_t *lo, int64_t *hi)
{
    switch (t) {
    case CAIRN_I8: *lo = INT8_MIN, *hi = INT8_MAX; break;
    case CAIRN_U8: *lo = 0, *hi = UINT8_MAX; break;
    case CAIRN_I16: *lo = INT16_MIN, *hi = INT16_MAX; break;
    case CAIRN_BOOL: *lo = 0, *hi = 1; break;
    case CAIRN_F16:
    case CAIRN_BF16: *lo = 0, *hi = UINT16_MAX; break; /* the bits, as uint16 */
    default: *lo = INT32_MIN, *hi = INT32_MAX; break;
    }
}


/* Reads `bytes` bytes of external data for tensor p into dst. The location
 * is relative to the model's folder `dir` and must stay inside it: absolute
 * paths and '..' components are refused outright, and the resolved path
 * (symlinks followed) must still lie under the resolved folder. */
static cairn_status_t read_external(const Onnx__TensorProto *p, const char *label,
                                    const char *dir, void *dst, size_t bytes)
{
    const char *loc = NULL;
    int64_t offset = 0, length = -1;
    for (size_t i = 0; i < p->n_external_data; i++) {
        const Onnx__StringStringEntryProto *e = p->external_data[i];
        if (!e || !e->key || !e->value)
            continue;
        if (!strcmp(e->key, "location")) {
            loc = e->value;
        } else if (!strcmp(e->key, "offset") || !strcmp(e->key, "length")) {
            char *end = NULL;
            errno = 0;
            long long v = strtoll(e->value, &end, 10);
            if (!e->value[0] || *end || errno || v < 0)
                return base_error(CAIRN_ERR_PARSE, "'%s': external data %s '%s' is not a "
                                  "non-negative whole number", label, e->key, e->value);
            if (e->key[0] == 'o')
                offset = v;
            else
                length = v;
        }
    }
    if (!loc || !loc[0])
        return base_error(CAIRN_ERR_PARSE, "'%s': external data without a 'location'", label);
    if (loc[0] == '/')
        return base_error(CAIRN_ERR_PARSE, "'%s': external data location '%s' is an absolute "
                          "path; it must be relative to the model's folder", label, loc);
    for (const char *c = loc; *c;) {
        const char *e = strchr(c, '/');
        size_t n = e ? (size_t)(e - c) : strlen(c);
        if (n == 2 && c[0] == '.' && c[1] == '.')
            return base_error(CAIRN_ERR_PARSE, "'%s': external data location '%s' contains "
                              "'..'; it must stay inside the model's folder", label, loc);
        c += n;
        while (*c == '/')
            c++;
    }
    if (length >= 0 && (uint64_t)length != (uint64_t)bytes)
        return base_error(CAIRN_ERR_PARSE, "'%s': external data length is %lld bytes but the "
                          "tensor's shape needs %zu", label, (long long)length, bytes);
    char *rdir = realpath(dir, NULL);
    if (!rdir)
        return base_error(CAIRN_ERR_IO, "'%s': cannot resolve the model folder '%s': %s", label,
                          dir, strerror(errno));
    size_t plen = strlen(rdir) + strlen(loc) + 2;
    char *joined = malloc(plen);
    if (!joined) {
        free(rdir);
        return base_error(CAIRN_ERR_OUT_OF_MEMORY, "out of memory");
    }
    snprintf(joined, plen, "%s/%s", rdir, loc);
    char *rfile = realpath(joined, NULL);
    int e = errno;
    free(joined);
    if (!rfile) {
        free(rdir);
        return base_error(CAIRN_ERR_IO, "'%s': external data file '%s': %s", label, loc,
                          strerror(e));
    }
    size_t dl = strlen(rdir);
    int inside = !strncmp(rfile, rdir, dl) && (rfile[dl] == '/' || (dl == 1 && rdir[0] == '/'));
    free(rdir);
    if (!inside) {
        free(rfile);
        return base_error(CAIRN_ERR_PARSE, "'%s': external data location '%s' resolves outside "
                          "the model's folder (through a symbolic link); refusing it", label, loc);
    }
    FILE *f = fopen(rfile, "rb");
    free(rfile);
    if (!f)
        return base_error(CAIRN_ERR_IO, "'%s': cannot open external data file '%s': %s", label,
                          loc, strerror(errno));
    cairn_status_t s = CAIRN_OK;
    if (fseeko(f, 0, SEEK_END) != 0) {
        s = base_error(CAIRN_ERR_IO, "'%s': cannot seek in '%s'", label, loc);
    } else {
        off_t size = ftello(f);
        if (size < 0 || (uint64_t)offset > (uint64_t)size ||
            (uint64_t)size - (uint64_t)offset < (uint64_t)bytes)
            s = base_error(CAIRN_ERR_PARSE, "'%s': external data file '%s' has %lld bytes, too "
                           "few for %zu bytes at offset %lld", label, loc, (long long)size, bytes,
                           (long long)offset);
        else if (fseeko(f, (off_t)offset, SEEK_SET) != 0 || fread(dst, 1, bytes, f) != bytes)
            s = base_error(CAIRN_ERR_IO, "'%s': cannot read %zu bytes at offset %lld of '%s'",
                           label, bytes, (long long)offset, loc);
        else if (length < 0 && (uint64_t)size - (uint64_t)offset != (uint64_t)bytes)
            s = base_error(CAIRN_ERR_PARSE, "'%s': external data file '%s' holds %lld bytes "
                           "after offset %lld but the tensor needs %zu (give a 'length')", label,
                           loc, (long long)((uint64_t)size - (uint64_t)offset), (long long)offset,
                           bytes);
    }
    fclose(f);
    return s;
}

cairn_status_t onnx_tensor_decode(const struct Onnx__TensorProto *p, const char *label,
                                  const char *dir, cairn_tensor_t *out)
{
    if (!label)
        label = "tensor";
    if (!p || !out)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "onnx_tensor_decode('%s'): NULL argument",
                          label);
    char dims_buf[160];

    if (!p->has_data_type || p->data_type == ONNX__TENSOR_PROTO__DATA_TYPE__UNDEFINED)
        return base_error(CAIRN_ERR_PARSE, "'%s': the tensor has no data_type (UNDEFINED)", label);
    cairn_dtype_t dt = (cairn_dtype_t)p->data_type;
    if (!base_dtype_valid(dt))
        return base_error(CAIRN_ERR_UNSUPPORTED,
                          "'%s': data_type %d (%s) is not supported by cairn "
                          "(supported: float, double, float16, bfloat16, int8/16/32/64, uint8, bool)",
                          label, (int)p->data_type, onnx_type_name(p->data_type));
    int external = (p->has_data_location &&
                    p->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL) ||
                   p->n_external_data;
    if (external && !dir) {
        const char *loc = "?";
        for (size_t i = 0; i < p->n_external_data; i++)
            if (p->external_data[i] && p->external_data[i]->key &&
                !strcmp(p->external_data[i]->key, "location") && p->external_data[i]->value)
                loc = p->external_data[i]->value;
        return base_error(CAIRN_ERR_UNSUPPORTED,
                          "'%s': the tensor keeps its data in an external file ('%s'); external "
                          "data is only read for tensors inside a model file",
                          label, loc);
    }
    if (p->segment)
        return base_error(CAIRN_ERR_UNSUPPORTED,
                          "'%s': segmented tensors (the 'segment' field) are not supported", label);
    if (p->n_dims > CAIRN_MAX_RANK)
        return base_error(CAIRN_ERR_UNSUPPORTED, "'%s': rank %zu exceeds cairn's maximum of %d",
                          label, p->n_dims, CAIRN_MAX_RANK);

    cairn_tensor_t t = {0};
    t.dtype = dt;
    t.rank = (int)p->n_dims;
    int64_t numel = 1;
    int overflow = 0;
    for (int i = 0; i < t.rank; i++) {
        int64_t d = p->dims[i];
        if (d < 0)
            return base_error(CAIRN_ERR_PARSE, "'%s': dimension %d is %lld; dims must be >= 0",
                              label, i, (long long)d);
        t.shape[i] = d;
        if (d != 0 && numel > INT64_MAX / d)
            overflow = 1;
        else
            numel *= d;
    }
    base_fmt_dims(dims_buf, sizeof dims_buf, t.shape, t.rank);
    size_t esize = cairn_dtype_size(dt);
    size_t bytes;
    /* a zero dim makes the count 0 whatever the other dims are; otherwise
     * both the count and the byte size must fit */
    int has_zero = 0;
    for (int i = 0; i < t.rank; i++)
        has_zero |= t.shape[i] == 0;
    if (has_zero)
        numel = 0, overflow = 0;
    if (overflow || !base_mul_size((size_t)numel, esize, &bytes) || bytes > (size_t)INT64_MAX)
        return base_error(CAIRN_ERR_PARSE,
                          "'%s': shape %s has too many elements (the size overflows)", label,
                          dims_buf);

    if (external) {
        if (p->has_raw_data || p->n_float_data || p->n_int32_data || p->n_int64_data ||
            p->n_double_data || p->n_string_data || p->n_uint64_data)
            return base_error(CAIRN_ERR_PARSE, "'%s': the tensor has both external data and "
                              "inline values; it must use exactly one", label);
        t.data = malloc(bytes + 1);
        if (!t.data)
            return base_error(CAIRN_ERR_OUT_OF_MEMORY, "'%s': cannot allocate %zu bytes", label,
                              bytes);
        cairn_status_t es = read_external(p, label, dir, t.data, bytes);
        if (es != CAIRN_OK) {
            free(t.data);
            return es;
        }
        swap_to_host(t.data, numel, esize);
        if (dt == CAIRN_BOOL)
            for (int64_t i = 0; i < numel; i++)
                if (((const uint8_t *)t.data)[i] > 1) {
                    free(t.data);
                    return base_error(CAIRN_ERR_PARSE, "'%s': bool element %lld is not 0 or 1",
                                      label, (long long)i);
                }
        *out = t;
        return CAIRN_OK;
    }

    /* exactly one place may hold the values */
    struct {
        const char *name;
        size_t n;
    } fields[] = {{"float_data", p->n_float_data},   {"int32_data", p->n_int32_data},
                  {"int64_data", p->n_int64_data},   {"double_data", p->n_double_data},
                  {"string_data", p->n_string_data}, {"uint64_data", p->n_uint64_data}};
    const char *present = NULL;
    size_t present_n = 0;
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        if (!fields[i].n)
            continue;
        if (present)
            return base_error(CAIRN_ERR_PARSE, "'%s': values are in both %s and %s; a tensor "
                              "uses exactly one data field", label, present, fields[i].name);
        present = fields[i].name, present_n = fields[i].n;
    }
    if (p->has_raw_data && present)
        return base_error(CAIRN_ERR_PARSE, "'%s': values are in both raw_data and %s; a tensor "
                          "uses exactly one data field", label, present);

    /* the counts are checked before allocating, so the allocation is never
     * larger than the data the file actually holds */
    if (p->has_raw_data && p->raw_data.len != bytes)
        return base_error(CAIRN_ERR_PARSE,
                          "'%s': raw_data has %zu bytes but a %s tensor of shape %s needs "
                          "%zu (%lld elements x %zu bytes)",
                          label, p->raw_data.len, cairn_dtype_name(dt), dims_buf, bytes,
                          (long long)numel, esize);
    const char *want = typed_field_for(dt);
    if (!p->has_raw_data) {
        if (present && strcmp(present, want))
            return base_error(CAIRN_ERR_PARSE,
                              "'%s': a %s tensor stores its values in %s or raw_data, but this "
                              "one uses %s",
                              label, cairn_dtype_name(dt), want, present);
        if ((int64_t)present_n != numel)
            return base_error(CAIRN_ERR_PARSE, "'%s': %s has %zu values but shape %s needs %lld",
                              label, want, present_n, dims_buf, (long long)numel);
    }

    /* +1: never a zero-byte malloc, so data is non-NULL for empty tensors */
    t.data = malloc(bytes + 1);
    if (!t.data)
        return base_error(CAIRN_ERR_OUT_OF_MEMORY, "'%s': cannot allocate %zu bytes for %s %s",
                          label, bytes, cairn_dtype_name(dt), dims_buf);

    if (p->has_raw_data) {
        if (bytes)
            memcpy(t.data, p->raw_data.data, bytes);
        swap_to_host(t.data, numel, esize);
        if (dt == CAIRN_BOOL)
            for (int64_t i = 0; i < numel; i++) {
                uint8_t v = ((const uint8_t *)t.data)[i];
                if (v > 1) {
                    free(t.data);
                    return base_error(CAIRN_ERR_PARSE,
                                      "'%s': bool element %lld is %u; raw bools must be 0 or 1",
                                      label, (long long)i, v);
                }
            }
        *out = t;
        return CAIRN_OK;
    }

    switch (dt) {
    case CAIRN_F32:
        if (numel)
            memcpy(t.data, p->float_data, bytes);
        break;
    case CAIRN_F64:
        if (numel)
            memcpy(t.data, p->double_data, bytes);
        break;
    case CAIRN_I64:
        if (numel)
            memcpy(t.data, p->int64_data, bytes);
        break;
    default: {
        int64_t lo, hi;
        int32_range(dt, &lo, &hi);
        for (int64_t i = 0; i < numel; i++) {
            int64_t v = p->int32_data[i];
            if (v < lo || v > hi) {
                free(t.data);
                return base_error(CAIRN_ERR_PARSE,
                                  "'%s': int32_data[%lld] is %lld, outside the range [%lld, %lld] "
                                  "of a %s tensor",
                                  label, (long long)i, (long long)v, (long long)lo, (long long)hi,
                                  cairn_dtype_name(dt));
            }
            switch (dt) {
            case CAIRN_I32: ((int32_t *)t.data)[i] = (int32_t)v; break;
            case CAIRN_I16: ((int16_t *)t.data)[i] = (int16_t)v; break;
            case CAIRN_I8: ((int8_t *)t.data)[i] = (int8_t)v; break;
            case CAIRN_U8:
            case CAIRN_BOOL: ((uint8_t *)t.data)[i] = (uint8_t)v; break;
            default: ((uint16_t *)t.data)[i] = (uint16_t)v; break; /* f16, bf16 bits */
            }
        }
        break;
    }
    }
    *out = t;
    return CAIRN_OK;
}

cairn_status_t onnx_tensor_parse(const uint8_t *buf, size_t len, const char *label,
                                 cairn_tensor_t *out, char **name)
{
    if (!label)
        label = "tensor";
    if ((!buf && len) || !out)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "onnx_tensor_parse('%s'): NULL argument",
                          label);
    static const uint8_t empty = 0;
    Onnx__TensorProto *p = onnx__tensor_proto__unpack(NULL, len, buf ? buf : &empty);
    if (!p)
        return base_error(CAIRN_ERR_PARSE,
                          "'%s': not a valid ONNX TensorProto (%zu bytes; truncated or not "
                          "protobuf)",
                          label, len);
    cairn_tensor_t t;
    cairn_status_t s = onnx_tensor_decode(p, label, NULL, &t);
    char *nm = NULL;
    if (s == CAIRN_OK && name) {
        const char *src = p->name ? p->name : "";
        nm = malloc(strlen(src) + 1);
        if (!nm) {
            free(t.data);
            s = base_error(CAIRN_ERR_OUT_OF_MEMORY, "'%s': out of memory", label);
        } else {
            strcpy(nm, src);
        }
    }
    onnx__tensor_proto__free_unpacked(p, NULL);
    if (s != CAIRN_OK)
        return s;
    *out = t;
    if (name)
        *name = nm;
    return CAIRN_OK;
}

cairn_status_t onnx_tensor_read(const char *path, cairn_tensor_t *out, char **name)
{
    if (!path || !out)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "onnx_tensor_read: NULL argument");
    FILE *f = fopen(path, "rb");
    if (!f)
        return base_error(CAIRN_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
    size_t cap = 1 << 16, len = 0;
    uint8_t *buf = malloc(cap);
    if (!buf) {
        fclose(f);
        return base_error(CAIRN_ERR_OUT_OF_MEMORY, "'%s': out of memory", path);
    }
    for (;;) {
        if (len == cap) {
            uint8_t *nb = cap > SIZE_MAX / 2 ? NULL : realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                fclose(f);
                return base_error(CAIRN_ERR_OUT_OF_MEMORY, "'%s': out of memory reading the file",
                                  path);
            }
            buf = nb, cap *= 2;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    int err = ferror(f) ? errno : 0;
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return base_error(CAIRN_ERR_IO, "cannot read '%s': %s", path,
                          err ? strerror(err) : "read error");
    }
    cairn_status_t s = onnx_tensor_parse(buf, len, path, out, name);
    free(buf);
    return s;
}

cairn_status_t onnx_tensor_serialize(const cairn_tensor_t *t, const char *name, uint8_t **buf,
                                     size_t *len)
{
    if (!t || !buf || !len)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "onnx_tensor_serialize: NULL argument");
    if (!base_dtype_valid(t->dtype))
        return base_error(CAIRN_ERR_DTYPE, "cannot write a tensor of dtype %d", (int)t->dtype);
    if (t->rank < 0 || t->rank > CAIRN_MAX_RANK)
        return base_error(CAIRN_ERR_SHAPE, "cannot write a tensor of rank %d (0..%d)", t->rank,
                          CAIRN_MAX_RANK);
    int64_t numel = 1;
    for (int i = 0; i < t->rank; i++) {
        if (t->shape[i] < 0)
            return base_error(CAIRN_ERR_SHAPE, "cannot write a tensor with dimension %d = %lld",
                              i, (long long)t->shape[i]);
        if (t->shape[i] && numel > INT64_MAX / t->shape[i])
            return base_error(CAIRN_ERR_SHAPE, "cannot write a tensor: its size overflows");
        numel *= t->shape[i];
    }
    size_t esize = cairn_dtype_size(t->dtype), bytes;
    if (!base_mul_size((size_t)numel, esize, &bytes))
        return base_error(CAIRN_ERR_SHAPE, "cannot write a tensor: its size overflows");
    if (bytes && !t->data)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "cannot write a tensor with NULL data");

    Onnx__TensorProto p = ONNX__TENSOR_PROTO__INIT;
    int64_t dims[CAIRN_MAX_RANK];
    for (int i = 0; i < t->rank; i++)
        dims[i] = t->shape[i];
    p.n_dims = (size_t)t->rank;
    p.dims = dims;
    p.has_data_type = 1;
    p.data_type = (int32_t)t->dtype;
    p.name = (char *)(name ? name : NULL);
    static uint8_t no_data;
    uint8_t *swapped = NULL;
    p.has_raw_data = 1;
    p.raw_data.len = bytes;
    p.raw_data.data = bytes ? (uint8_t *)t->data : &no_data;
    if (bytes && esize > 1 && host_is_big_endian()) {
        swapped = malloc(bytes);
        if (!swapped)
            return base_error(CAIRN_ERR_OUT_OF_MEMORY, "out of memory serializing a tensor");
        memcpy(swapped, t->data, bytes);
        swap_to_host(swapped, numel, esize); /* the swap is its own inverse */
        p.raw_data.data = swapped;
    }
    size_t n = onnx__tensor_proto__get_packed_size(&p);
    uint8_t *out = malloc(n ? n : 1);
    if (!out) {
        free(swapped);
        return base_error(CAIRN_ERR_OUT_OF_MEMORY, "out of memory serializing a tensor (%zu bytes)",
                          n);
    }
    size_t packed = onnx__tensor_proto__pack(&p, out);
    free(swapped);
    if (packed != n) {
        free(out);
        return base_error(CAIRN_ERR_INTERNAL, "protobuf-c packed %zu bytes, expected %zu", packed,
                          n);
    }
    *buf = out;
    *len = n;
    return CAIRN_OK;
}

cairn_status_t onnx_tensor_write(const char *path, const cairn_tensor_t *t, const char *name)
{
    if (!path)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "onnx_tensor_write: NULL path");
    uint8_t *buf;
    size_t len;
    cairn_status_t s = onnx_tensor_serialize(t, name, &buf, &len);
    if (s != CAIRN_OK)
        return base_error_prefix(s, "'%s': ", path);
    FILE *f = fopen(path, "wb");
    if (!f) {
        int e = errno;
        free(buf);
        return base_error(CAIRN_ERR_IO, "cannot create '%s': %s", path, strerror(e));
    }
    size_t put = fwrite(buf, 1, len, f);
    int e = errno;
    free(buf);
    int closed = fclose(f);
    if (put != len || closed != 0)
        return base_error(CAIRN_ERR_IO, "cannot write '%s': %s", path,
                          strerror(put != len ? e : errno));
    return CAIRN_OK;
}
