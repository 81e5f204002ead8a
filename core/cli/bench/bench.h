/* `rlhost bench`: measured speed, on/off side by side in one run. */
#ifndef RLHOST_BENCH_H
#define RLHOST_BENCH_H

/* rlhost bench nn [--json] [--repeat K]: sgemm vs full MLP update
   throughput, and the small-batch inference split. */
int rl__bench_nn(int json, int repeat);

#include "plugin/config.h"

/* rlhost bench env NAME [--set env.KEY=VALUE]... [--steps N] [--repeat K]
   [--json]: raw stepping speed with 1 thread and with every core. */
int rl__bench_env(const rl__registry *reg, const char *name, const rl__override *ov, size_t n_ov, uint64_t steps,
                  int repeat, int json);

/* rlhost bench search NAME [--set env.KEY=VALUE]... [--search SPEC]
   [--repeat K] [--json]: random-rollout tree search speed (simulations
   per second) with 1 thread and with every core. */
struct rl__search_opts;
int rl__bench_search(const rl__registry *reg, const char *name, const rl__override *ov, size_t n_ov,
                     const struct rl__search_opts *spec, int repeat, int json);

/* rlhost bench CONFIG [--stage NAME]... [--steps N] [--repeat K] [--json]:
   each stage off and on, interleaved; see run.c. */
int rl__bench_config(const rl__registry *reg, const char *path, const rl__override *ov, size_t n_ov,
                     const char *const *named, size_t n_named, uint64_t steps, int repeat, int busy, int json);

/* Median of v[0..n), n > 0; sorts v in place (so v[0] is the min and
   v[n-1] the max afterwards). */
double rl__median(double *v, int n);

#endif
