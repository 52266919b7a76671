#include "base/status.h"

#include <stdio.h>
#include <string.h>

#define BASE_ERR_CAP 2048

static _Thread_local char err_buf[BASE_ERR_CAP];

const char *cairn_status_string(cairn_status_t s)
{
    switch (s) {
    case CAIRN_OK: return "ok";
    case CAIRN_ERR_INVALID_ARGUMENT: return "invalid argument";
    case CAIRN_ERR_SHAPE: return "shape error";
    case CAIRN_ERR_DTYPE: return "type error";
    case CAIRN_ERR_UNSUPPORTED: return "unsupported";
    case CAIRN_ERR_GRAPH: return "malformed graph";
    case CAIRN_ERR_UNBOUND_DIM: return "unbound symbolic dimension";
    case CAIRN_ERR_OUT_OF_MEMORY: return "out of memory";
    case CAIRN_ERR_IO: return "i/o error";
    case CAIRN_ERR_PARSE: return "parse error";
    case CAIRN_ERR_RUNTIME: return "runtime error";
    case CAIRN_ERR_INTERNAL: return "internal error";
    }
    return "unknown status";
}

const char *cairn_last_error(void) { return err_buf; }
const char *base_error_message(void) { return err_buf; }
void base_error_clear(void) { err_buf[0] = '\0'; }

cairn_status_t base_verror(cairn_status_t s, const char *fmt, va_list ap)
{
    vsnprintf(err_buf, sizeof err_buf, fmt, ap);
    return s;
}

cairn_status_t base_error(cairn_status_t s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    base_verror(s, fmt, ap);
    va_end(ap);
    return s;
}

cairn_status_t base_error_prefix(cairn_status_t s, const char *fmt, ...)
{
    char prefix[512];
    char old[BASE_ERR_CAP];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    memcpy(old, err_buf, sizeof old);
    size_t np = strlen(prefix);
    if (np >= sizeof err_buf)
        np = sizeof err_buf - 1;
    memcpy(err_buf, prefix, np);
    size_t room = sizeof err_buf - 1 - np, no = strlen(old);
    if (no > room)
        no = room;
    memcpy(err_buf + np, old, no);
    err_buf[np + no] = '\0';
    return s;
}

const char *base_fmt_dims(char *buf, size_t cap, const int64_t *dims, int rank)
{
    size_t used = 0;
    if (cap == 0)
        return buf;
    buf[0] = '\0';
    used += (size_t)snprintf(buf, cap, "[");
    for (int i = 0; i < rank && used < cap; i++) {
        if (dims[i] < 0)
            used += (size_t)snprintf(buf + used, cap - used, "%s?", i ? "," : "");
        else
            used += (size_t)snprintf(buf + used, cap - used, "%s%lld", i ? "," : "",
                                     (long long)dims[i]);
    }
    if (used < cap)
        snprintf(buf + used, cap - used, "]");
    return buf;
}
