/* A small strict JSON validator for the tests (RFC 8259 grammar; no
 * extensions): json_valid returns 1 when the whole text is one value. */
#ifndef CAIRN_TESTS_JSON_CHECK_H
#define CAIRN_TESTS_JSON_CHECK_H

#include <ctype.h>
#include <string.h>

static const char *jc_value(const char *p, int depth);

static const char *jc_ws(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    return p;
}

static const char *jc_string(const char *p)
{
    if (*p++ != '"')
        return NULL;
    while (*p && *p != '"') {
        if ((unsigned char)*p < 0x20)
            return NULL;
        if (*p == '\\') {
            p++;
            if (*p == 'u') {
                for (int i = 1; i <= 4; i++)
                    if (!isxdigit((unsigned char)p[i]))
                        return NULL;
                p += 5;
                continue;
            }
            if (!*p || !strchr("\"\\/bfnrt", *p))
                return NULL;
        }
        p++;
    }
    return *p == '"' ? p + 1 : NULL;
}

static const char *jc_number(const char *p)
{
    if (*p == '-')
        p++;
    if (*p == '0')
        p++;
    else if (isdigit((unsigned char)*p))
        while (isdigit((unsigned char)*p))
            p++;
    else
        return NULL;
    if (*p == '.') {
        p++;
        if (!isdigit((unsigned char)*p))
            return NULL;
        while (isdigit((unsigned char)*p))
            p++;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!isdigit((unsigned char)*p))
            return NULL;
        while (isdigit((unsigned char)*p))
            p++;
    }
    return p;
}

static const char *jc_value(const char *p, int depth)
{
    if (depth > 64)
        return NULL;
    p = jc_ws(p);
    if (*p == '{' || *p == '[') {
        char close = *p == '{' ? '}' : ']';
        int obj = *p == '{';
        p = jc_ws(p + 1);
        if (*p == close)
            return p + 1;
        for (;;) {
            if (obj) {
                p = jc_string(jc_ws(p));
                if (!p)
                    return NULL;
                p = jc_ws(p);
                if (*p++ != ':')
                    return NULL;
            }
            p = jc_value(p, depth + 1);
            if (!p)
                return NULL;
            p = jc_ws(p);
            if (*p == ',') {
                p++;
                continue;
            }
            return *p == close ? p + 1 : NULL;
        }
    }
    if (*p == '"')
        return jc_string(p);
    if (!strncmp(p, "true", 4))
        return p + 4;
    if (!strncmp(p, "false", 5))
        return p + 5;
    if (!strncmp(p, "null", 4))
        return p + 4;
    return jc_number(p);
}

static int json_valid(const char *text)
{
    const char *p = jc_value(text, 0);
    return p && !*jc_ws(p);
}

/* Non-overlapping occurrences of needle in hay. */
static int count_str(const char *hay, const char *needle)
{
    int n = 0;
    size_t len = strlen(needle);
    for (const char *p = hay; (p = strstr(p, needle)); p += len)
        n++;
    return n;
}

#endif
