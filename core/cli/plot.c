/* `rlhost plot`; see plot.h. */
#define _GNU_SOURCE
#include "plot.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/files.h"
#include "base/text.h"

#include <rlhost/plugin.h>

#define MAX_RUNS 64
#define MAX_ROWS 100000

typedef struct series {
    double *step, *ret, *sps; /* metrics.csv's rows */
    size_t n;
    double *ep_step, *ep_val; /* episodes.csv's rows with a value, by step */
    size_t n_ep;
    char label[128];
} series;

#define GRID 200 /* points of an episodes.csv curve */

static int column(char *header, const char *name)
{
    int k = 0;
    for (char *tok = strtok(header, ",\n"); tok; tok = strtok(NULL, ",\n"), k++)
        if (!strcmp(tok, name)) return k;
    return -1;
}

static double field(const char *line, int col)
{
    const char *p = line;
    for (int k = 0; k < col && p; k++) {
        p = strchr(p, ',');
        if (p) p++;
    }
    if (!p || *p == ',' || *p == '\n' || !*p) return NAN;
    return strtod(p, NULL);
}

/* A value the axes can hold: beyond 1e300 (or infinite) the span of an
   axis would overflow, so such a value is a gap in the curve, as NaN is. */
static double plottable(double v)
{
    return fabs(v) <= 1e300 ? v : NAN;
}

/* path for reading when it is a regular file (a FIFO or a device planted
   in a run directory must not block plot), or NULL and a sentence. */
static FILE *open_regular(const char *path, char *err, size_t errlen, const char *hint)
{
    struct stat st;
    int fd = rl__open_regular(AT_FDCWD, path, 0, &st);
    if (fd == RL__NOT_REGULAR) {
        snprintf(err, errlen, "%s: not a regular file", path);
        return NULL;
    }
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot open: %s%s", path, strerror(errno), hint);
        return NULL;
    }
    FILE *f = fdopen(fd, "r");
    if (!f) {
        close(fd);
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
    }
    return f;
}

/* dir/file opened past its header, with the columns of names[0 .. n) in
   cols; NULL and a sentence in err when it cannot be read or lacks one. */
static FILE *open_csv(const char *dir, const char *file, const char *hint, const char *const *names, int *cols, int n,
                      char *path, size_t pathlen, char *err, size_t errlen)
{
    char line[8192], hdr[8192];
    snprintf(path, pathlen, "%s/%s", dir, file);
    FILE *f = open_regular(path, err, errlen, hint);
    if (!f) return NULL;
    if (!fgets(line, sizeof line, f)) {
        fclose(f);
        snprintf(err, errlen, "%s: empty", path);
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        memcpy(hdr, line, sizeof hdr);
        if ((cols[i] = column(hdr, names[i])) < 0) {
            fclose(f);
            snprintf(err, errlen, "%s: no %s column", path, names[i]);
            return NULL;
        }
    }
    return f;
}

static int load(series *s, const char *dir, char *err, size_t errlen)
{
    char path[4200], line[8192];
    static const char *const names[] = {"step", "return_mean", "sps"};
    int c[3];
    FILE *f = open_csv(dir, "metrics.csv", " (is it a run directory?)", names, c, 3, path, sizeof path, err, errlen);
    if (!f) return -1;
    const int cs = c[0], cr = c[1], cp = c[2];
    s->step = malloc(MAX_ROWS * sizeof(double));
    s->ret = malloc(MAX_ROWS * sizeof(double));
    s->sps = malloc(MAX_ROWS * sizeof(double));
    if (!s->step || !s->ret || !s->sps) {
        fclose(f);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    while (s->n < MAX_ROWS && fgets(line, sizeof line, f)) {
        if (!strncmp(line, "step,", 5)) continue; /* a header repeated by a resume */
        s->step[s->n] = plottable(field(line, cs));
        s->ret[s->n] = plottable(field(line, cr));
        s->sps[s->n] = plottable(field(line, cp));
        if (isfinite(s->step[s->n])) s->n++;
    }
    fclose(f);
    if (!s->n) {
        snprintf(err, errlen, "%s: no rows yet", path);
        return -1;
    }
    /* label: env/algo and seed from summary.json when present */
    snprintf(path, sizeof path, "%s/summary.json", dir);
    snprintf(s->label, sizeof s->label, "%s", dir);
    char ignored[RL_ERR_MAX];
    f = open_regular(path, ignored, sizeof ignored, "");
    if (f) {
        char env[64] = "?", algo[64] = "?", seed[32] = "?";
        while (fgets(line, sizeof line, f)) {
            sscanf(line, " \"env\": \"%63[^\"]\"", env);
            sscanf(line, " \"algo\": \"%63[^\"]\"", algo);
            sscanf(line, " \"seed\": %31[0-9]", seed);
        }
        fclose(f);
        snprintf(s->label, sizeof s->label, "%s / %s, seed %s", algo, env, seed);
    }
    return 0;
}

static int by_step(const void *a, const void *b)
{
    const double *x = a, *y = b;
    return (x[0] > y[0]) - (x[0] < y[0]);
}

/* episodes.csv's rows that have a number in column `name` (a score is nan for a
   lost life that did not end the game), in step order. */
static int load_episodes(series *s, const char *dir, const char *name, char *err, size_t errlen)
{
    char path[4200], line[8192];
    const char *const names[] = {"step", name};
    int c[2];
    FILE *f = open_csv(dir, "episodes.csv", " (a run written before rlhost kept episodes.csv has none)", names, c, 2,
                       path, sizeof path, err, errlen);
    if (!f) return -1;
    const int cs = c[0], cv = c[1];
    size_t cap = 0;
    double *rows = NULL; /* (step, value) pairs */
    int rc = 0;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "step,", 5)) continue;
        double st = plottable(field(line, cs)), v = plottable(field(line, cv));
        if (!isfinite(st) || !isfinite(v)) continue;
        if (s->n_ep == cap) {
            size_t ncap = cap ? 2 * cap : 4096;
            double *r = ncap <= SIZE_MAX / (2 * sizeof *r) ? realloc(rows, ncap * 2 * sizeof *r) : NULL;
            if (!r) {
                snprintf(err, errlen, "%s: out of memory at row %zu", path, s->n_ep);
                rc = -1;
                break;
            }
            rows = r, cap = ncap;
        }
        rows[2 * s->n_ep] = st, rows[2 * s->n_ep + 1] = v;
        s->n_ep++;
    }
    fclose(f);
    if (rc == 0 && !s->n_ep) {
        snprintf(err, errlen, "%s: no episode with a %s yet", path, name);
        rc = -1;
    }
    if (rc == 0) {
        qsort(rows, s->n_ep, 2 * sizeof *rows, by_step);
        s->ep_step = malloc(s->n_ep * sizeof(double));
        s->ep_val = malloc(s->n_ep * sizeof(double));
        if (!s->ep_step || !s->ep_val) {
            snprintf(err, errlen, "out of memory");
            rc = -1;
        } else {
            for (size_t i = 0; i < s->n_ep; i++) s->ep_step[i] = rows[2 * i], s->ep_val[i] = rows[2 * i + 1];
        }
    }
    free(rows);
    return rc;
}

/* out[g] = the mean of s's episode values with step in (x[g] - w, x[g]]
   (NaN where none, or past the run's last step); x ascending. */
static void window_means(const series *s, const double *x, size_t n, double w, double *out)
{
    const double last = fmax(s->step[s->n - 1], s->ep_step[s->n_ep - 1]);
    size_t lo = 0, hi = 0;
    for (size_t g = 0; g < n; g++) {
        while (hi < s->n_ep && s->ep_step[hi] <= x[g]) hi++;
        while (lo < hi && s->ep_step[lo] <= x[g] - w) lo++;
        double sum = 0;
        for (size_t i = lo; i < hi; i++) sum += s->ep_val[i];
        out[g] = hi > lo && x[g] <= last ? sum / (double)(hi - lo) : NAN;
    }
}

/* Linear interpolation of series y at x (NaN outside its range). */
static double interp(const series *s, const double *y, double x)
{
    if (x < s->step[0] || x > s->step[s->n - 1]) return NAN;
    for (size_t i = 1; i < s->n; i++)
        if (x <= s->step[i]) {
            double t = (x - s->step[i - 1]) / (s->step[i] - s->step[i - 1]);
            return y[i - 1] + t * (y[i] - y[i - 1]);
        }
    return y[s->n - 1];
}

/* A "nice" tick step covering span in about n ticks. */
static double nice_step(double span, int n)
{
    double raw = span / n, mag = pow(10, floor(log10(raw))), f = raw / mag;
    return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * mag;
}

typedef struct panel {
    double x0, y0, w, h; /* pixels */
    double xmin, xmax, ymin, ymax;
} panel;

static double px(const panel *p, double x)
{
    return p->x0 + (x - p->xmin) / (p->xmax - p->xmin) * p->w;
}

static double py(const panel *p, double y)
{
    return p->y0 + p->h - (y - p->ymin) / (p->ymax - p->ymin) * p->h;
}

static void fmt_num(char *b, size_t n, double v)
{
    double a = fabs(v);
    if (a < 1e-9) v = 0, a = 0; /* no "-0" from rounding */
    if (a >= 1e6)
        snprintf(b, n, "%gM", v / 1e6);
    else if (a >= 1e4)
        snprintf(b, n, "%gk", v / 1e3);
    else
        snprintf(b, n, "%g", v);
}

static void axes(rl__sbuf *o, const panel *p, const char *xlabel, const char *ylabel)
{
    rl__sbuf_printf(o, "<rect x='%.1f' y='%.1f' width='%.1f' height='%.1f' fill='none' stroke='#444'/>\n", p->x0, p->y0,
                    p->w, p->h);
    char b[32];
    double st = nice_step(p->xmax - p->xmin, 6);
    for (double x = ceil(p->xmin / st) * st; x <= p->xmax + 1e-9; x += st) {
        fmt_num(b, sizeof b, x);
        rl__sbuf_printf(o,
                        "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='#ddd'/>"
                        "<text x='%.1f' y='%.1f' font-size='11' text-anchor='middle'>%s</text>\n",
                        px(p, x), p->y0, px(p, x), p->y0 + p->h, px(p, x), p->y0 + p->h + 14, b);
    }
    st = nice_step(p->ymax - p->ymin, 5);
    for (double y = ceil(p->ymin / st) * st; y <= p->ymax + 1e-9; y += st) {
        fmt_num(b, sizeof b, y);
        rl__sbuf_printf(o,
                        "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='#ddd'/>"
                        "<text x='%.1f' y='%.1f' font-size='11' text-anchor='end'>%s</text>\n",
                        p->x0, py(p, y), p->x0 + p->w, py(p, y), p->x0 - 6, py(p, y) + 4, b);
    }
    rl__sbuf_printf(o, "<text x='%.1f' y='%.1f' font-size='12' text-anchor='middle'>%s</text>\n", p->x0 + p->w / 2,
                    p->y0 + p->h + 32, xlabel);
    rl__sbuf_printf(o,
                    "<text x='%.1f' y='%.1f' font-size='12' text-anchor='middle' "
                    "transform='rotate(-90 %.1f %.1f)'>%s</text>\n",
                    p->x0 - 48, p->y0 + p->h / 2, p->x0 - 48, p->y0 + p->h / 2, ylabel);
}

static void polyline(rl__sbuf *o, const panel *p, const double *x, const double *y, size_t n, const char *style)
{
    rl__sbuf_printf(o, "<path fill='none' %s d='", style);
    int pen = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(y[i])) {
            pen = 0;
            continue;
        }
        rl__sbuf_printf(o, "%c%.1f %.1f ", pen ? 'L' : 'M', px(p, x[i]), py(p, y[i]));
        pen = 1;
    }
    rl__sbuf_puts(o, "'/>\n");
}

/* The two panels' data: the upper curve on its points (grid), each run's
   values there (vals[k n + i]) and their mean, min and max; steps/s on
   the first run's metrics rows. */
typedef struct curves {
    size_t n;
    double window; /* with --episodes */
    double *grid, *vals, *mean, *lo, *hi, *msps;
    panel top, bot;
} curves;

static void curves_free(curves *c)
{
    free(c->grid), free(c->vals), free(c->mean), free(c->lo), free(c->hi), free(c->msps);
}

/* The upper curve's points are the first run's metrics rows (the others
   interpolated onto them), or with an episodes.csv column GRID steps up to
   the longest run, each run's window means there. */
static int curves_compute(curves *c, const series *s, size_t n_dirs, const rl__plot_opts *opts)
{
    const char *col = opts ? opts->column : NULL;
    c->top = (panel){80, 50, 680, 300, 0, 1, INFINITY, -INFINITY};
    c->bot = (panel){80, 420, 680, 130, 0, 1, 0, -INFINITY};
    for (size_t k = 0; k < n_dirs; k++) {
        c->top.xmax = fmax(c->top.xmax, s[k].step[s[k].n - 1]);
        if (col) c->top.xmax = fmax(c->top.xmax, s[k].ep_step[s[k].n_ep - 1]);
    }
    size_t n = c->n = col ? GRID : s[0].n;
    c->mean = calloc(n, sizeof *c->mean), c->lo = calloc(n, sizeof *c->lo), c->hi = calloc(n, sizeof *c->hi);
    c->grid = calloc(n, sizeof *c->grid), c->vals = calloc(n * n_dirs, sizeof *c->vals);
    c->msps = calloc(s[0].n, sizeof *c->msps);
    if (!c->mean || !c->lo || !c->hi || !c->msps || !c->grid || !c->vals) return -1;
    if (col) {
        c->window = opts->window ? (double)opts->window : fmax(1.0, ceil(c->top.xmax / 20));
        for (size_t i = 0; i < n; i++) c->grid[i] = c->top.xmax * (double)(i + 1) / (double)n;
        for (size_t k = 0; k < n_dirs; k++) window_means(&s[k], c->grid, n, c->window, c->vals + k * n);
    } else {
        for (size_t i = 0; i < n; i++) c->grid[i] = s[0].step[i];
        for (size_t k = 0; k < n_dirs; k++)
            for (size_t i = 0; i < n; i++) c->vals[k * n + i] = interp(&s[k], s[k].ret, c->grid[i]);
        for (size_t k = 0; k < n_dirs; k++) /* the runs' own rows are drawn too */
            for (size_t i = 0; i < s[k].n; i++)
                if (isfinite(s[k].ret[i]))
                    c->top.ymin = fmin(c->top.ymin, s[k].ret[i]), c->top.ymax = fmax(c->top.ymax, s[k].ret[i]);
    }
    for (size_t i = 0; i < n; i++) {
        double sum = 0, mn = INFINITY, mx = -INFINITY;
        int m = 0;
        for (size_t k = 0; k < n_dirs; k++) {
            double v = c->vals[k * n + i];
            if (isfinite(v)) sum += v, m++, mn = fmin(mn, v), mx = fmax(mx, v);
        }
        c->mean[i] = m ? sum / m : NAN;
        c->lo[i] = m ? mn : NAN;
        c->hi[i] = m ? mx : NAN;
        if (m) c->top.ymin = fmin(c->top.ymin, mn), c->top.ymax = fmax(c->top.ymax, mx);
    }
    for (size_t i = 0; i < s[0].n; i++) {
        double ssum = 0;
        int ms = 0;
        for (size_t k = 0; k < n_dirs; k++) {
            double w = interp(&s[k], s[k].sps, s[0].step[i]);
            if (isfinite(w)) ssum += w, ms++;
        }
        c->msps[i] = ms ? ssum / ms : NAN;
        if (ms) c->bot.ymax = fmax(c->bot.ymax, c->msps[i]);
    }
    panel *t = &c->top, *b = &c->bot;
    if (!isfinite(t->ymin)) t->ymin = 0, t->ymax = 1; /* no finished episodes yet */
    if (t->ymax - t->ymin < 1e-9) t->ymax = t->ymin + 1;
    double pad = 0.05 * (t->ymax - t->ymin);
    t->ymin -= pad, t->ymax += pad;
    b->xmin = t->xmin, b->xmax = t->xmax;
    if (!(b->ymax > 0)) b->ymax = 1;
    b->ymax *= 1.1;
    return 0;
}

static void draw(rl__sbuf *o, const curves *c, const series *s, size_t n_dirs, const char *col)
{
    const panel *top = &c->top, *bot = &c->bot;
    const size_t n = c->n;
    rl__sbuf_printf(o,
                    "<?xml version='1.0' encoding='UTF-8'?>\n<svg xmlns='http://www.w3.org/2000/svg' "
                    "width='800' height='600' viewBox='0 0 800 600' font-family='sans-serif'>\n"
                    "<rect width='800' height='600' fill='white'/>\n");
    rl__sbuf_printf(o, "<text x='400' y='28' font-size='16' text-anchor='middle'>");
    if (n_dirs > 1) rl__sbuf_printf(o, "learning curves, %zu runs (first: ", n_dirs);
    rl__sbuf_xml_str(o, s[0].label); /* folder and plugin names are anybody's text */
    if (n_dirs > 1) rl__sbuf_puts(o, ")");
    rl__sbuf_puts(o, "</text>\n");
    char ylabel[160], w[32];
    fmt_num(w, sizeof w, c->window);
    if (col)
        snprintf(ylabel, sizeof ylabel, "%s (mean of the episodes ending in the last %s steps)", col, w);
    else
        snprintf(ylabel, sizeof ylabel, "return (mean of the last 100 episodes)");
    axes(o, top, "environment steps", ylabel);
    if (n_dirs > 1) { /* the min-max band */
        rl__sbuf_puts(o, "<path fill='#1f77b4' fill-opacity='0.2' stroke='none' d='");
        int started = 0;
        for (size_t i = 0; i < n; i++)
            if (isfinite(c->hi[i]))
                rl__sbuf_printf(o, "%c%.1f %.1f ", started++ ? 'L' : 'M', px(top, c->grid[i]), py(top, c->hi[i]));
        for (size_t i = n; i-- > 0;)
            if (isfinite(c->lo[i])) rl__sbuf_printf(o, "L%.1f %.1f ", px(top, c->grid[i]), py(top, c->lo[i]));
        rl__sbuf_puts(o, "Z'/>\n");
        const char *thin = "stroke='#1f77b4' stroke-opacity='0.35' stroke-width='1'";
        for (size_t k = 0; k < n_dirs; k++) {
            if (col)
                polyline(o, top, c->grid, c->vals + k * n, n, thin);
            else
                polyline(o, top, s[k].step, s[k].ret, s[k].n, thin);
        }
    }
    polyline(o, top, c->grid, c->mean, n, "stroke='#1f77b4' stroke-width='2.5'");
    axes(o, bot, "environment steps", "steps/s");
    polyline(o, bot, s[0].step, c->msps, s[0].n, "stroke='#d62728' stroke-width='2'");
    /* legend */
    rl__sbuf_printf(o,
                    "<g font-size='12'><line x1='560' y1='306' x2='590' y2='306' stroke='#1f77b4' stroke-width='2.5'/>"
                    "<text x='596' y='310'>%s</text>\n",
                    n_dirs > 1 ? "mean over runs"
                        : col  ? col
                               : "return");
    if (n_dirs > 1)
        rl__sbuf_puts(o,
                      "<rect x='560' y='316' width='30' height='10' fill='#1f77b4' fill-opacity='0.2'/>"
                      "<text x='596' y='326'>min-max over runs</text>\n");
    rl__sbuf_puts(o,
                  "<line x1='560' y1='536' x2='590' y2='536' stroke='#d62728' stroke-width='2'/>"
                  "<text x='596' y='540'>steps/s</text></g>\n</svg>\n");
}

int rl__plot(const char *const *dirs, size_t n_dirs, const char *out_path, const rl__plot_opts *opts)
{
    if (n_dirs > MAX_RUNS) n_dirs = MAX_RUNS;
    const char *col = opts ? opts->column : NULL;
    series s[MAX_RUNS];
    memset(s, 0, sizeof s);
    curves c = {0};
    char err[RL_ERR_MAX];
    int rc = 1;
    for (size_t k = 0; k < n_dirs; k++)
        if (load(&s[k], dirs[k], err, sizeof err) != 0 ||
            (col && load_episodes(&s[k], dirs[k], col, err, sizeof err) != 0)) {
            fprintf(stderr, "rlhost: plot: %s\n", err);
            goto out;
        }
    if (curves_compute(&c, s, n_dirs, opts) != 0) {
        fprintf(stderr, "rlhost: plot: out of memory\n");
        goto out;
    }
    rl__sbuf o = {0};
    draw(&o, &c, s, n_dirs, col);
    if (o.oom) {
        fprintf(stderr, "rlhost: plot: out of memory\n");
    } else if (rl__write_path(out_path, o.data, o.len, err, sizeof err) != 0) {
        fprintf(stderr, "rlhost: plot: %s\n", err);
    } else {
        printf("wrote %s (%zu run%s)\n", out_path, n_dirs, n_dirs == 1 ? "" : "s");
        rc = 0;
    }
    rl__sbuf_free(&o);
out:
    for (size_t k = 0; k < n_dirs; k++) {
        free(s[k].step);
        free(s[k].ret);
        free(s[k].sps);
        free(s[k].ep_step);
        free(s[k].ep_val);
    }
    curves_free(&c);
    return rc;
}
