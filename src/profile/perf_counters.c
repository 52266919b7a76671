/* Hardware counters through perf_event_open (see perf_counters.h). */
#define _GNU_SOURCE
#include "profile/perf_counters.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__linux__)
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#define PC_HAVE_PERF 1
#else
#define PC_HAVE_PERF 0
#endif

typedef struct pc_group {
    int fd[PC_N];   /* -1 where the event is absent */
    int leader;     /* fd of the group leader */
    int n_open;     /* events in the group, in counter order */
} pc_group_t;

struct pc_set {
    int n;
    pc_group_t *g;
    int available;
    unsigned mask;
    char reason[200];
};

static int inject_errno;

void pc_inject_failure(int err) { inject_errno = err; }

const char *pc_name(int counter)
{
    static const char *const names[PC_N] = {"cycles", "instructions", "cache_refs",
                                            "cache_misses", "l1d_misses"};
    return counter >= 0 && counter < PC_N ? names[counter] : "?";
}

#if PC_HAVE_PERF
static int open_event(int counter, int tid, int group_fd)
{
    if (inject_errno) {
        errno = inject_errno;
        return -1;
    }
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    switch (counter) {
    case PC_CYCLES: a.type = PERF_TYPE_HARDWARE, a.config = PERF_COUNT_HW_CPU_CYCLES; break;
    case PC_INSTRUCTIONS: a.type = PERF_TYPE_HARDWARE, a.config = PERF_COUNT_HW_INSTRUCTIONS; break;
    case PC_CACHE_REFS: a.type = PERF_TYPE_HARDWARE, a.config = PERF_COUNT_HW_CACHE_REFERENCES; break;
    case PC_CACHE_MISSES: a.type = PERF_TYPE_HARDWARE, a.config = PERF_COUNT_HW_CACHE_MISSES; break;
    default:
        a.type = PERF_TYPE_HW_CACHE;
        a.config = PERF_COUNT_HW_CACHE_L1D | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
                   (PERF_COUNT_HW_CACHE_RESULT_MISS << 16);
        break;
    }
    a.disabled = group_fd < 0; /* the leader starts the whole group */
    /* user space only: what perf_event_paranoid 2 (the common default) allows */
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    a.read_format = PERF_FORMAT_GROUP;
    return (int)syscall(SYS_perf_event_open, &a, tid, -1, group_fd, 0);
}
#endif

static void explain(pc_set_t *s, int err)
{
    const char *why;
    switch (err) {
    case EACCES:
    case EPERM:
        why = "permission denied (lower /proc/sys/kernel/perf_event_paranoid to 2 or less, "
              "or allow perf_event_open in the container)";
        break;
    case ENOENT:
    case EOPNOTSUPP:
    case ENODEV:
        why = "no hardware PMU exposed (a VM or container without performance counters)";
        break;
    case ENOSYS: why = "perf_event_open is not available on this kernel"; break;
    default: why = strerror(err); break;
    }
    snprintf(s->reason, sizeof s->reason, "perf_event_open failed: %s", why);
}

static void close_all(pc_set_t *s)
{
    for (int t = 0; t < s->n; t++)
        for (int c = 0; c < PC_N; c++)
            if (s->g[t].fd[c] >= 0)
                close(s->g[t].fd[c]), s->g[t].fd[c] = -1;
    s->mask = 0;
}

pc_set_t *pc_open(const int *tids, int n)
{
    pc_set_t *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    if (n < 1)
        n = 1;
    s->g = calloc((size_t)n, sizeof *s->g);
    if (!s->g) {
        free(s);
        return NULL;
    }
    s->n = n;
    for (int t = 0; t < n; t++)
        for (int c = 0; c < PC_N; c++)
            s->g[t].fd[c] = -1, s->g[t].leader = -1;
#if PC_HAVE_PERF
    unsigned mask = (1u << PC_N) - 1;
    for (int t = 0; t < n; t++) {
        pc_group_t *g = &s->g[t];
        int tid = tids ? tids[t] : 0;
        for (int c = 0; c < PC_N; c++) {
            if (!(mask & (1u << c)))
                continue;
            int fd = open_event(c, tid, g->leader);
            if (fd < 0) {
                /* no leader means no counters at all; a later thread must
                 * match the first thread's events */
                if (c == PC_CYCLES || t > 0) {
                    explain(s, errno);
                    close_all(s);
                    return s;
                }
                mask &= ~(1u << c); /* this PMU lacks the event */
                continue;
            }
            g->fd[c] = fd;
            if (g->leader < 0)
                g->leader = fd;
            g->n_open++;
        }
    }
    for (int t = 0; t < n; t++) {
        ioctl(s->g[t].leader, PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP);
        ioctl(s->g[t].leader, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
    }
    s->mask = mask;
    s->available = 1;
#else
    (void)tids;
    snprintf(s->reason, sizeof s->reason, "perf_event_open exists only on Linux");
#endif
    return s;
}

void pc_close(pc_set_t *s)
{
    if (!s)
        return;
    close_all(s);
    free(s->g);
    free(s);
}

int pc_available(const pc_set_t *s) { return s && s->available; }
unsigned pc_mask(const pc_set_t *s) { return s ? s->mask : 0; }
const char *pc_reason(const pc_set_t *s) { return s ? s->reason : "no counter set"; }

void pc_read(pc_set_t *s, uint64_t out[PC_N])
{
    memset(out, 0, sizeof(uint64_t) * PC_N);
    if (!pc_available(s))
        return;
    for (int t = 0; t < s->n; t++) {
        uint64_t buf[1 + PC_N];
        ssize_t got = read(s->g[t].leader, buf, sizeof buf);
        if (got < (ssize_t)sizeof(uint64_t))
            continue;
        /* values come in the order the events joined the group */
        uint64_t k = 1;
        for (int c = 0; c < PC_N && k <= buf[0]; c++)
            if (s->mask & (1u << c))
                out[c] += buf[k++];
    }
}

void pc_warn_once(const pc_set_t *s, FILE *f)
{
    static int warned;
    if (pc_available(s) || warned || !f)
        return;
    warned = 1;
    fprintf(f, "hardware counters unavailable: %s; continuing without them\n", pc_reason(s));
}
