/* Calibrated peaks for the tool's commands (see peaks.h). */
#define _POSIX_C_SOURCE 200809L
#include "peaks.h"

#include "base/cpu.h"
#include "cmd.h"

#include <string.h>
#include <unistd.h>

int tool_get_peaks(const char *cmd, int threads, int need_bandwidth, machine_peaks_t *row,
                   char *source, size_t source_cap, FILE *err)
{
    char path[4096];
    if (machine_file_path(path, sizeof path) != CAIRN_OK) {
        fprintf(err, "cairn %s: %s\n", cmd, cairn_last_error());
        return 1;
    }
    machine_info_t m;
    memset(&m, 0, sizeof m);
    int on_disk = access(path, F_OK) == 0;
    cairn_status_t s = on_disk ? machine_read(path, &m) : CAIRN_ERR_IO;
    int exists = s == CAIRN_OK, writable = 1;
    const base_cpu_t *c = base_cpu();
    if (on_disk && s != CAIRN_OK) {
        fprintf(err,
                "cairn %s: warning: %s; measuring the peaks now without rewriting it (run "
                "'cairn calibrate' to replace it)\n",
                cmd, cairn_last_error());
        writable = 0;
        memset(&m, 0, sizeof m);
    } else if (exists && c->model[0] && strcmp(m.cpu, c->model)) {
        fprintf(err, "cairn %s: the machine file %s was written on '%s', not this '%s': "
                     "calibrating again\n",
                cmd, path, m.cpu, c->model);
        memset(&m, 0, sizeof m);
        exists = 0;
    }
    const machine_peaks_t *r = machine_find(&m, threads);
    int have_bw = r && (r->triad_gbs > 0 || r->copy_gbs > 0);
    if (!r || !(r->f32_gflops > 0) || (need_bandwidth && !have_bw)) {
        int list[2] = {1, threads};
        int n = threads > 1 ? 2 : 1;
        if (!exists) {
            fprintf(err, "cairn %s: no machine file at %s: running a quick calibration first "
                         "('cairn calibrate' measures more carefully)\n",
                    cmd, path);
        } else {
            fprintf(err, "cairn %s: the machine file lacks the %s for %d thread%s: measuring "
                         "it now\n",
                    cmd, need_bandwidth ? "peaks" : "f32 peak", threads, threads > 1 ? "s" : "");
            list[0] = threads, n = 1;
        }
        /* memory rates take the longest: only when asked for or the file is new */
        size_t mem = (!exists || need_bandwidth) ? calibrate_default_mem_bytes() : 0;
        if (calibrate_measure(list, n, 1, mem, &m, err) != 0)
            return 1;
        if (writable) {
            if (machine_write(path, &m) != CAIRN_OK)
                fprintf(err, "cairn %s: warning: %s\n", cmd, cairn_last_error());
            else
                fprintf(err, "cairn %s: wrote %s\n", cmd, path);
        }
        r = machine_find(&m, threads);
    }
    if (!r) {
        fprintf(err, "cairn %s: no peaks could be measured for %d threads\n", cmd, threads);
        return 1;
    }
    *row = *r;
    snprintf(source, source_cap, "%s%s%s%s", path, m.date[0] ? " (" : "", m.date,
             m.date[0] ? ")" : "");
    return 0;
}
