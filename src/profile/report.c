/* Profile reports in text, JSON, CSV, Chrome trace and HTML (see report.h). */
#include "profile/report.h"
#include "base/json_out.h"

#include <math.h>
#include <string.h>

/* ---- escaping and numbers ---- */

static void html_str(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
    }
}

/* CSV field: quoted when it holds a comma, quote or newline. */
static void csv_str(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static double ipc(const double *c) { return c[PC_CYCLES] > 0 ? c[PC_INSTRUCTIONS] / c[PC_CYCLES] : 0; }
static double miss_rate(const double *c)
{
    return c[PC_CACHE_REFS] > 0 ? c[PC_CACHE_MISSES] / c[PC_CACHE_REFS] : 0;
}

static void trunc_copy(char *dst, size_t cap, const char *src)
{
    size_t n = strlen(src);
    if (n < cap) {
        memcpy(dst, src, n + 1);
        return;
    }
    memcpy(dst, src, cap - 4);
    memcpy(dst + cap - 4, "...", 4);
}

/* ---- text ---- */

/* any step held to the int8 roof (profile_derive's rule) */
static int has_int8(const profile_analysis_t *a)
{
    for (int i = 0; a->roof.peak_int8_gops > 0 && i < a->n_rows; i++)
        if (profile_step_int8(&a->rows[i].step))
            return 1;
    return 0;
}

void profile_report_text(FILE *f, const profile_analysis_t *a, const report_meta_t *m)
{
    fprintf(f, "model %s: %d steps, %d threads, isa %s, %d profiled runs\n", m->model,
            a->n_rows, a->threads, m->isa ? m->isa : "?", a->iters);
    fprintf(f, "roofs %.1f GFLOP/s, %.1f GB/s (ridge %.2f FLOP/B; %s)\n", a->roof.peak_gflops,
            a->roof.peak_gbs, a->roof.peak_gbs > 0 ? a->roof.peak_gflops / a->roof.peak_gbs : 0,
            m->roof_source ? m->roof_source : "given");
    if (has_int8(a))
        fprintf(f, "      8-bit steps (int8 kernels): %.1f GOP/s (ridge %.2f OP/B)\n",
                a->roof.peak_int8_gops,
                a->roof.peak_gbs > 0 ? a->roof.peak_int8_gops / a->roof.peak_gbs : 0);
    fprintf(f, "\n%3s  %-30s %-18s %-6s %9s %6s %8s %7s %7s %-6s %6s", "#", "step", "op",
            "kernel", "ms", "%", "GFLOP/s", "GB/s", "FLOP/B", "bound", "%roof");
    if (a->counters)
        fprintf(f, " %5s %6s", "IPC", "miss%");
    fprintf(f, "  nodes\n");
    for (int i = 0; i < a->n_rows; i++) {
        const profile_row_t *r = &a->rows[i];
        char name[31], nodes[61];
        trunc_copy(name, sizeof name, r->step.name);
        trunc_copy(nodes, sizeof nodes, r->step.sources);
        fprintf(f, "%3d  %-30s %-18s %-6s %9.4f %6.2f %8.2f %7.2f %7.2f %-6s %6.1f", i, name,
                r->step.op, r->step.kernel, r->ms, 100 * r->share, r->gflops, r->gbs,
                r->intensity, r->memory_bound ? "memory" : "compute", 100 * r->frac);
        if (a->counters)
            fprintf(f, " %5.2f %6.1f", ipc(r->ctr), 100 * miss_rate(r->ctr));
        fprintf(f, "  %s\n", nodes);
    }
    fprintf(f, "%3s  %-30s %-18s %-6s %9.4f %6.2f\n", "", "total", "", "", a->total_ms, 100.0);

    fprintf(f, "\nper op type\n%-18s %5s %9s %6s %9s %8s\n", "op", "steps", "ms", "%", "GFLOP/s",
            "GB/s");
    for (int k = 0; k < a->n_ops; k++) {
        const profile_oprow_t *o = &a->ops[k];
        fprintf(f, "%-18s %5d %9.4f %6.2f %9.2f %8.2f\n", o->op, o->steps, o->ms, 100 * o->share,
                o->gflops, o->gbs);
    }

    fprintf(f, "\nper thread (per run)\n%-6s %9s %9s %6s\n", "thread", "busy ms", "wait ms",
            "busy%");
    for (int t = 0; t < a->threads; t++) {
        double tot = a->thr[t].busy_ms + a->thr[t].wait_ms;
        fprintf(f, "%-6d %9.4f %9.4f %6.1f\n", t, a->thr[t].busy_ms, a->thr[t].wait_ms,
                tot > 0 ? 100 * a->thr[t].busy_ms / tot : 0);
    }
    fprintf(f, "load imbalance %.1f%% (1 - mean busy / max busy)\n", 100 * a->imbalance);

    if (a->counters) {
        const double *c = a->ctr_total;
        fprintf(f, "\ncounters per run: %.4g cycles, %.4g instructions (IPC %.2f), %.4g cache "
                   "refs, %.4g misses (%.1f%%)",
                c[PC_CYCLES], c[PC_INSTRUCTIONS], ipc(c), c[PC_CACHE_REFS], c[PC_CACHE_MISSES],
                100 * miss_rate(c));
        if (a->counter_mask & (1u << PC_L1D_MISSES))
            fprintf(f, ", %.4g L1D read misses", c[PC_L1D_MISSES]);
        fprintf(f, "\n");
    } else {
        fprintf(f, "\ncounters: %s\n", m->counters_note ? m->counters_note : "not collected");
    }

    fprintf(f, "\nadvice\n");
    if (!a->n_advice)
        fprintf(f, "  nothing stands out\n");
    for (int i = 0; i < a->n_advice; i++)
        fprintf(f, "  - %s\n", a->advice[i].text);
}

/* ---- JSON ---- */

static void json_ctr(FILE *f, const profile_analysis_t *a, const double *c)
{
    fputc('{', f);
    int first = 1;
    for (int k = 0; k < PC_N; k++) {
        if (!(a->counter_mask & (1u << k)))
            continue;
        fprintf(f, "%s\"%s\":", first ? "" : ",", pc_name(k));
        base_json_number(f, c[k]);
        first = 0;
    }
    fputc('}', f);
}

void profile_report_json(FILE *f, const profile_analysis_t *a, const report_meta_t *m)
{
    fprintf(f, "{\"model\":");
    base_json_string(f, m->model);
    fprintf(f, ",\"isa\":");
    base_json_string(f, m->isa);
    fprintf(f, ",\"threads\":%d,\"iters\":%d,\"roof\":{\"peak_gflops\":", a->threads, a->iters);
    base_json_number(f, a->roof.peak_gflops);
    fprintf(f, ",\"peak_gbs\":");
    base_json_number(f, a->roof.peak_gbs);
    fprintf(f, ",\"peak_int8_gops\":");
    base_json_number(f, a->roof.peak_int8_gops);
    fprintf(f, ",\"source\":");
    base_json_string(f, m->roof_source);
    fprintf(f, "},\"total_ms\":");
    base_json_number(f, a->total_ms);
    fprintf(f, ",\"steps\":[");
    for (int i = 0; i < a->n_rows; i++) {
        const profile_row_t *r = &a->rows[i];
        fprintf(f, "%s{\"name\":", i ? "," : "");
        base_json_string(f, r->step.name);
        fprintf(f, ",\"op\":");
        base_json_string(f, r->step.op);
        fprintf(f, ",\"kernel\":");
        base_json_string(f, r->step.kernel);
        fprintf(f, ",\"nodes\":");
        base_json_string(f, r->step.sources);
        const char *keys[] = {"ms", "share", "flops", "bytes", "gflops", "gbs", "intensity",
                              "roof_fraction"};
        double vals[] = {r->ms, r->share, r->step.flops, r->step.bytes, r->gflops, r->gbs,
                         r->intensity, r->frac};
        for (size_t k = 0; k < sizeof vals / sizeof vals[0]; k++) {
            fprintf(f, ",\"%s\":", keys[k]);
            base_json_number(f, vals[k]);
        }
        fprintf(f, ",\"bound\":\"%s\"", r->memory_bound ? "memory" : "compute");
        if (a->counters) {
            fprintf(f, ",\"counters\":");
            json_ctr(f, a, r->ctr);
        }
        fputc('}', f);
    }
    fprintf(f, "],\"ops\":[");
    for (int k = 0; k < a->n_ops; k++) {
        const profile_oprow_t *o = &a->ops[k];
        fprintf(f, "%s{\"op\":", k ? "," : "");
        base_json_string(f, o->op);
        fprintf(f, ",\"steps\":%d,\"ms\":", o->steps);
        base_json_number(f, o->ms);
        fprintf(f, ",\"share\":");
        base_json_number(f, o->share);
        fprintf(f, ",\"gflops\":");
        base_json_number(f, o->gflops);
        fprintf(f, ",\"gbs\":");
        base_json_number(f, o->gbs);
        fputc('}', f);
    }
    fprintf(f, "],\"thread_stats\":[");
    for (int t = 0; t < a->threads; t++) {
        fprintf(f, "%s{\"thread\":%d,\"busy_ms\":", t ? "," : "", t);
        base_json_number(f, a->thr[t].busy_ms);
        fprintf(f, ",\"wait_ms\":");
        base_json_number(f, a->thr[t].wait_ms);
        fputc('}', f);
    }
    fprintf(f, "],\"imbalance\":");
    base_json_number(f, a->imbalance);
    fprintf(f, ",\"counters\":");
    if (a->counters)
        json_ctr(f, a, a->ctr_total);
    else
        fputs("null", f);
    fprintf(f, ",\"counters_note\":");
    if (m->counters_note)
        base_json_string(f, m->counters_note);
    else
        fputs("null", f);
    fprintf(f, ",\"advice\":[");
    for (int i = 0; i < a->n_advice; i++) {
        fprintf(f, "%s", i ? "," : "");
        base_json_string(f, a->advice[i].text);
    }
    fprintf(f, "]}\n");
}

/* ---- CSV ---- */

void profile_report_csv(FILE *f, const profile_analysis_t *a)
{
    fprintf(f, "step,name,op,kernel,nodes,ms,share,flops,bytes,gflops,gbs,intensity,bound,"
               "roof_fraction");
    for (int k = 0; k < PC_N; k++)
        fprintf(f, ",%s", pc_name(k));
    fputc('\n', f);
    for (int i = 0; i < a->n_rows; i++) {
        const profile_row_t *r = &a->rows[i];
        fprintf(f, "%d,", i);
        csv_str(f, r->step.name);
        fputc(',', f);
        csv_str(f, r->step.op);
        fputc(',', f);
        csv_str(f, r->step.kernel);
        fputc(',', f);
        csv_str(f, r->step.sources);
        fprintf(f, ",%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%s,%.6g", r->ms, r->share, r->step.flops,
                r->step.bytes, r->gflops, r->gbs, r->intensity,
                r->memory_bound ? "memory" : "compute", r->frac);
        for (int k = 0; k < PC_N; k++) {
            if (a->counters && (a->counter_mask & (1u << k)))
                fprintf(f, ",%.6g", r->ctr[k]);
            else
                fputc(',', f);
        }
        fputc('\n', f);
    }
}

/* ---- Chrome trace ---- */

static uint64_t origin_ns(const profile_t *p)
{
    return p->iters > 0 && p->n_steps > 0 ? p->t0[0] : 0;
}

void profile_report_trace(FILE *f, const profile_t *p, const profile_analysis_t *a)
{
    uint64_t origin = origin_ns(p);
    fprintf(f, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
    fprintf(f, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"tid\":0,\"args\":{\"name\":"
               "\"cairn\"}}");
    for (int t = 0; t < p->threads; t++)
        fprintf(f, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":%d,\"args\":"
                   "{\"name\":\"thread %d%s\"}}",
                t, t, t ? "" : " (caller)");
    for (int i = 0; i < p->iters; i++) {
        for (int s = 0; s < p->n_steps; s++) {
            size_t r = (size_t)i * (size_t)p->n_steps + (size_t)s;
            const profile_step_t *st = &p->steps[s];
            double ts = (double)(p->t0[r] - origin) * 1e-3, dur = (double)(p->t1[r] - p->t0[r]) * 1e-3;
            fprintf(f, ",\n{\"name\":");
            base_json_string(f, st->name);
            fprintf(f, ",\"cat\":\"step\",\"ph\":\"X\",\"pid\":1,\"tid\":0,\"ts\":%.3f,"
                       "\"dur\":%.3f,\"args\":{\"iter\":%d,\"step\":%d,\"op\":",
                    ts, dur, i, s);
            base_json_string(f, st->op);
            fprintf(f, ",\"kernel\":");
            base_json_string(f, st->kernel);
            fprintf(f, ",\"nodes\":");
            base_json_string(f, st->sources);
            fprintf(f, ",\"flops\":%.17g,\"bytes\":%.17g", st->flops, st->bytes);
            if (p->counters)
                for (int c = 0; c < PC_N; c++)
                    if (a->counter_mask & (1u << c))
                        fprintf(f, ",\"%s\":%llu", pc_name(c),
                                (unsigned long long)p->ctr[r * PC_N + c]);
            fprintf(f, "}}");
            /* workers: their busy time inside the step, from its start */
            for (int t = 1; t < p->threads; t++) {
                uint64_t b = p->busy[r * (size_t)p->threads + (size_t)t];
                if (!b)
                    continue;
                fprintf(f, ",\n{\"name\":");
                base_json_string(f, st->name);
                fprintf(f, ",\"cat\":\"busy\",\"ph\":\"X\",\"pid\":1,\"tid\":%d,\"ts\":%.3f,"
                           "\"dur\":%.3f,\"args\":{\"iter\":%d,\"step\":%d}}",
                        t, ts, (double)b * 1e-3, i, s);
            }
        }
    }
    fprintf(f, "\n]}\n");
}

/* ---- HTML ---- */

static const char *op_color(const char *op)
{
    static const char *const pal[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                      "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
    unsigned h = 5381;
    for (; *op; op++)
        h = h * 33u + (unsigned char)*op;
    return pal[h % 10u];
}

#define RW 720.0 /* roofline plot area */
#define RH 420.0
#define RX0 70.0
#define RY0 20.0

static void roofline_svg(FILE *f, const profile_analysis_t *a)
{
    double pk = a->roof.peak_gflops > 0 ? a->roof.peak_gflops : 1;
    double bw = a->roof.peak_gbs > 0 ? a->roof.peak_gbs : 1;
    double xmin = 1e-2, xmax = 1e3, ymax = pk * 2, ymin = pk * 1e-5;
    for (int i = 0; i < a->n_rows; i++) {
        const profile_row_t *r = &a->rows[i];
        if (r->intensity > 0 && r->gflops > 0) {
            if (r->intensity < xmin)
                xmin = r->intensity / 2;
            if (r->intensity > xmax)
                xmax = r->intensity * 2;
            if (r->gflops < ymin)
                ymin = r->gflops / 2;
            if (r->gflops > ymax)
                ymax = r->gflops * 2;
        }
    }
    double lx0 = log10(xmin), lx1 = log10(xmax), ly0 = log10(ymin), ly1 = log10(ymax);
#define PX(x) (RX0 + (log10(x) - lx0) / (lx1 - lx0) * RW)
#define PY(y) (RY0 + RH - (log10(y) - ly0) / (ly1 - ly0) * RH)
    fprintf(f, "<svg id=\"roofline\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
               "height=\"%.0f\" font-family=\"sans-serif\" font-size=\"11\">\n",
            RX0 + RW + 20, RY0 + RH + 50);
    fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"#fafafa\" "
               "stroke=\"#999\"/>\n",
            RX0, RY0, RW, RH);
    for (int e = (int)ceil(lx0); e <= (int)floor(lx1); e++)
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#ddd\"/>"
                   "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">1e%d</text>\n",
                PX(pow(10, e)), RY0, PX(pow(10, e)), RY0 + RH, PX(pow(10, e)), RY0 + RH + 14, e);
    for (int e = (int)ceil(ly0); e <= (int)floor(ly1); e++)
        fprintf(f, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                   "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">1e%d</text>\n",
                RX0, PY(pow(10, e)), RX0 + RW, PY(pow(10, e)), RX0 - 4, PY(pow(10, e)) + 4, e);
    fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">arithmetic intensity "
               "(FLOP/byte)</text>\n",
            RX0 + RW / 2, RY0 + RH + 32);
    fprintf(f, "<text transform=\"translate(14,%.0f) rotate(-90)\" text-anchor=\"middle\">"
               "GFLOP/s</text>\n",
            RY0 + RH / 2);
    /* the roofs: bandwidth slope up to the ridge, then flat compute */
    double ridge = pk / bw, xa = xmin, ya = xa * bw;
    if (ya < ymin)
        xa = ymin / bw, ya = ymin;
    fprintf(f, "<polyline fill=\"none\" stroke=\"#c00\" stroke-width=\"2\" points=\"%.1f,%.1f "
               "%.1f,%.1f %.1f,%.1f\"/>\n",
            PX(xa), PY(ya), PX(ridge), PY(pk), PX(xmax), PY(pk));
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#c00\">compute %.1f GFLOP/s</text>\n",
            PX(ridge) + 6, PY(pk) - 6, pk);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#c00\" text-anchor=\"end\">memory %.1f GB/s"
               "</text>\n",
            PX(ridge) - 6, PY(pk) - 6, bw);
    if (has_int8(a) && a->roof.peak_int8_gops < ymax) {
        /* the 8-bit steps' ceiling (their GOP/s are plotted as GFLOP/s) */
        const double p8 = a->roof.peak_int8_gops, r8 = p8 / bw;
        fprintf(f, "<polyline fill=\"none\" stroke=\"#c00\" stroke-dasharray=\"6,4\" "
                   "points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\"/>\n",
                PX(ridge), PY(pk), PX(r8), PY(p8), PX(xmax), PY(p8));
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#c00\">int8 %.1f GOP/s</text>\n",
                PX(r8) + 6, PY(p8) - 6, p8);
    }
    for (int i = 0; i < a->n_rows; i++) {
        const profile_row_t *r = &a->rows[i];
        if (!(r->intensity > 0 && r->gflops > 0))
            continue;
        fprintf(f, "<circle class=\"step\" cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\" "
                   "fill-opacity=\"0.6\" stroke=\"#333\"><title>",
                PX(r->intensity), PY(r->gflops), 3 + 22 * sqrt(r->share), op_color(r->step.op));
        html_str(f, r->step.name);
        fprintf(f, " (%s): %.4f ms, %.2f GFLOP/s, %.2f FLOP/B</title></circle>\n", r->step.op,
                r->ms, r->gflops, r->intensity);
    }
    fprintf(f, "</svg>\n");
#undef PX
#undef PY
}

/* The last run, one lane per thread. */
static void timeline_svg(FILE *f, const profile_t *p)
{
    double w = 900, lane = 22;
    int it = p->iters - 1;
    fprintf(f, "<svg id=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
               "height=\"%.0f\" font-family=\"sans-serif\" font-size=\"10\">\n",
            w + 80, lane * (p->threads > 0 ? p->threads : 1) + 30);
    if (it < 0 || p->n_steps == 0) {
        fprintf(f, "<text x=\"10\" y=\"20\">no runs recorded</text></svg>\n");
        return;
    }
    size_t r0 = (size_t)it * (size_t)p->n_steps, rl = r0 + (size_t)p->n_steps - 1;
    uint64_t org = p->t0[r0];
    double span = (double)(p->t1[rl] - org);
    if (span <= 0)
        span = 1;
    for (int t = 0; t < p->threads; t++)
        fprintf(f, "<text x=\"0\" y=\"%.0f\">thread %d</text>\n", lane * t + 15, t);
    for (int s = 0; s < p->n_steps; s++) {
        size_t r = r0 + (size_t)s;
        double x = 70 + (double)(p->t0[r] - org) / span * w;
        for (int t = 0; t < p->threads; t++) {
            double d = t == 0 ? (double)(p->t1[r] - p->t0[r])
                              : (double)p->busy[r * (size_t)p->threads + (size_t)t];
            if (d <= 0)
                continue;
            fprintf(f, "<rect x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" height=\"%.0f\" fill=\"%s\">"
                       "<title>",
                    x, lane * t + 2, d / span * w > 0.3 ? d / span * w : 0.3, lane - 4,
                    op_color(p->steps[s].op));
            html_str(f, p->steps[s].name);
            fprintf(f, " %.4f ms</title></rect>\n", d * 1e-6);
        }
    }
    fprintf(f, "<text x=\"70\" y=\"%.0f\">0</text><text x=\"%.0f\" y=\"%.0f\" "
               "text-anchor=\"end\">%.3f ms</text>\n",
            lane * p->threads + 20, 70 + w, lane * p->threads + 20, span * 1e-6);
    fprintf(f, "</svg>\n");
}

void profile_report_html(FILE *f, const profile_t *p, const profile_analysis_t *a, const report_meta_t *m)
{
    fprintf(f, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>cairn profile: ");
    html_str(f, m->model);
    fprintf(f, "</title>\n<style>body{font-family:sans-serif;margin:20px}"
               "table{border-collapse:collapse;font-size:12px}"
               "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}"
               "td.l,th.l{text-align:left}</style></head><body>\n<h1>cairn profile: ");
    html_str(f, m->model);
    fprintf(f, "</h1>\n<p>%d steps, %d threads, isa %s, %d profiled runs; total %.4f ms per run. "
               "Roofs: %.1f GFLOP/s, %.1f GB/s",
            a->n_rows, a->threads, m->isa ? m->isa : "?", a->iters, a->total_ms,
            a->roof.peak_gflops, a->roof.peak_gbs);
    if (has_int8(a))
        fprintf(f, ", int8 %.1f GOP/s for the 8-bit steps", a->roof.peak_int8_gops);
    fprintf(f, " (");
    html_str(f, m->roof_source ? m->roof_source : "given");
    fprintf(f, ").</p>\n<h2>Roofline</h2>\n");
    roofline_svg(f, a);
    fprintf(f, "<h2>Timeline (last run)</h2>\n");
    timeline_svg(f, p);
    fprintf(f, "<h2>Steps</h2>\n<table id=\"steps\"><tr><th>#</th><th class=\"l\">step</th>"
               "<th class=\"l\">op</th><th class=\"l\">kernel</th><th>ms</th><th>%%</th>"
               "<th>GFLOP/s</th><th>GB/s</th><th>FLOP/B</th><th class=\"l\">bound</th>"
               "<th>%%roof</th>%s<th class=\"l\">nodes</th></tr>\n",
            a->counters ? "<th>IPC</th><th>miss%</th>" : "");
    for (int i = 0; i < a->n_rows; i++) {
        const profile_row_t *r = &a->rows[i];
        fprintf(f, "<tr><td>%d</td><td class=\"l\">", i);
        html_str(f, r->step.name);
        fprintf(f, "</td><td class=\"l\">");
        html_str(f, r->step.op);
        fprintf(f, "</td><td class=\"l\">");
        html_str(f, r->step.kernel);
        fprintf(f, "</td><td>%.4f</td><td>%.2f</td><td>%.2f</td><td>%.2f</td><td>%.2f</td>"
                   "<td class=\"l\">%s</td><td>%.1f</td>",
                r->ms, 100 * r->share, r->gflops, r->gbs, r->intensity,
                r->memory_bound ? "memory" : "compute", 100 * r->frac);
        if (a->counters)
            fprintf(f, "<td>%.2f</td><td>%.1f</td>", ipc(r->ctr), 100 * miss_rate(r->ctr));
        fprintf(f, "<td class=\"l\">");
        html_str(f, r->step.sources);
        fprintf(f, "</td></tr>\n");
    }
    fprintf(f, "</table>\n<h2>Per op type</h2>\n<table id=\"ops\"><tr><th class=\"l\">op</th>"
               "<th>steps</th><th>ms</th><th>%%</th><th>GFLOP/s</th><th>GB/s</th></tr>\n");
    for (int k = 0; k < a->n_ops; k++) {
        const profile_oprow_t *o = &a->ops[k];
        fprintf(f, "<tr><td class=\"l\">");
        html_str(f, o->op);
        fprintf(f, "</td><td>%d</td><td>%.4f</td><td>%.2f</td><td>%.2f</td><td>%.2f</td></tr>\n",
                o->steps, o->ms, 100 * o->share, o->gflops, o->gbs);
    }
    fprintf(f, "</table>\n<h2>Threads</h2>\n<table id=\"threads\"><tr><th>thread</th>"
               "<th>busy ms</th><th>wait ms</th></tr>\n");
    for (int t = 0; t < a->threads; t++)
        fprintf(f, "<tr><td>%d</td><td>%.4f</td><td>%.4f</td></tr>\n", t, a->thr[t].busy_ms,
                a->thr[t].wait_ms);
    fprintf(f, "</table>\n<p>load imbalance %.1f%%</p>\n<h2>Advice</h2>\n<ul>\n",
            100 * a->imbalance);
    if (!a->n_advice)
        fprintf(f, "<li>nothing stands out</li>\n");
    for (int i = 0; i < a->n_advice; i++) {
        fprintf(f, "<li>");
        html_str(f, a->advice[i].text);
        fprintf(f, "</li>\n");
    }
    fprintf(f, "</ul>\n");
    if (!a->counters && m->counters_note) {
        fprintf(f, "<p>counters: ");
        html_str(f, m->counters_note);
        fprintf(f, "</p>\n");
    }
    fprintf(f, "</body></html>\n");
}
