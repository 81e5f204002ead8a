/* The machine's load as /proc tells it; see load.h. */
#define _GNU_SOURCE
#include "parallel/load.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int rl__cpu_times(double *machine, double *own)
{
    FILE *f = fopen("/proc/stat", "r");
    if (!f) return 0;
    unsigned long long v[8] = {0};
    int got = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
                     &v[7]);
    fclose(f);
    struct timespec ts;
    if (got != 8 || clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return 0;
    long hz = sysconf(_SC_CLK_TCK);
    /* user nice system idle iowait irq softirq steal: all but idle and iowait */
    *machine = (double)(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / (double)(hz > 0 ? hz : 100);
    *own = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
    return 1;
}

/* This process's threads that are runnable right now (state R in
   /proc/self/task/<tid>/stat: a pool or BLAS thread still spinning counts). */
static int own_running(void)
{
    DIR *dir = opendir("/proc/self/task");
    if (!dir) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dir))) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        char path[64], line[512];
        snprintf(path, sizeof path, "/proc/self/task/%.20s/stat", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue; /* the thread has ended */
        size_t got = fread(line, 1, sizeof line - 1, f);
        fclose(f);
        line[got] = 0;
        const char *paren = strrchr(line, ')'); /* the name may hold anything */
        if (paren && paren[1] == ' ' && paren[2] == 'R') n++;
    }
    closedir(dir);
    return n;
}

int rl__others_running(void)
{
    FILE *f = fopen("/proc/loadavg", "r");
    if (!f) return -1;
    int running = 0;
    int got = fscanf(f, "%*f %*f %*f %d/", &running);
    fclose(f);
    int own = own_running();
    return got == 1 && own >= 1 && running >= own ? running - own : -1;
}
