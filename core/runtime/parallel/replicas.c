/* Data-parallel replicas in one process; see replicas.h. */
#define _GNU_SOURCE
#include "parallel/replicas.h"

#include "parallel/coop.h"
#include "parallel/load.h"
#include "parallel/wait.h"

#include <time.h>
#include <unistd.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rlhost/rlcore.h>

#include "plugin/loader.h"
#include "plugin/host_api.h"
#include "plugin/state_prefix.h"
#include "parallel/world.h"

typedef struct rl__replica_member {
    struct rl__replica_group *g;
    uint32_t index;
} member;

/* A barrier: replicas meet several times per minibatch, a few
   microseconds apart on an idle machine, so a waiting thread spins first;
   on a busy one it sleeps (wait.h).  When the replicas run as coroutines
   (coop.h) a waiter hands the thread to the next replica instead. */
typedef struct spin_barrier {
    _Atomic uint32_t arrived;
    rl__wait_word generation;
    uint32_t count;
} spin_barrier;

typedef struct rl__replica_group {
    uint32_t count; /* members in this process */
    int world_rc;
    spin_barrier barrier;
    rl__coop *coop;                      /* while the members run as coroutines, else NULL */
    uint32_t wait_gen[RL__MAX_REPLICAS]; /* the generation a coroutine waits past */
    void *bufs[RL__MAX_REPLICAS];
    size_t n[RL__MAX_REPLICAS];
    member members[RL__MAX_REPLICAS];
    rl_replicas api[RL__MAX_REPLICAS];
} group;

static void barrier_wait(group *g)
{
    spin_barrier *b = &g->barrier;
    uint32_t gen = atomic_load_explicit(&b->generation.value, memory_order_acquire);
    if (atomic_fetch_add_explicit(&b->arrived, 1, memory_order_acq_rel) == b->count - 1) {
        atomic_store_explicit(&b->arrived, 0, memory_order_relaxed);
        atomic_fetch_add(&b->generation.value, 1);
        rl__wake_all(&b->generation);
        return;
    }
    if (g->coop) {
        g->wait_gen[rl__coop_current(g->coop)] = gen;
        rl__coop_block(g->coop);
        return;
    }
    rl__wait_while(&b->generation, gen);
}

static int coop_ready(void *ctx, uint32_t r)
{
    group *g = ctx;
    return atomic_load_explicit(&g->barrier.generation.value, memory_order_relaxed) != g->wait_gen[r];
}

/* Every replica publishes its buffer; then replica k sums elements
   [k n / R, (k + 1) n / R) over the buffers in replica order and writes the
   sum back into all of them; a second barrier ends it.  In an MPI job the
   process's first member sums over every rank (world.h) in the same order
   while the others wait at the second barrier. */
#define ALLREDUCE(name, type, world_sum)                                                                        \
    static int name(void *ctx, type *buf, size_t n)                                                             \
    {                                                                                                           \
        member *m = ctx;                                                                                        \
        group *g = m->g;                                                                                        \
        uint32_t R = g->count, k = m->index;                                                                    \
        int world = rl__world_size() > 1;                                                                       \
        if (R == 1 && !world) return RL_OK;                                                                     \
        g->bufs[k] = buf;                                                                                       \
        g->n[k] = n;                                                                                            \
        if (R > 1) barrier_wait(g);                                                                             \
        int same = 1;                                                                                           \
        for (uint32_t r = 1; r < R; r++) same &= g->n[r] == g->n[0];                                            \
        if (world) {                                                                                            \
            if (k == 0) g->world_rc = same && world_sum((type *const *)g->bufs, R, n) == 0 ? RL_OK : RL_EINVAL; \
            if (R > 1) barrier_wait(g);                                                                         \
            return g->world_rc;                                                                                 \
        }                                                                                                       \
        if (same) { /* ((b0 + b1) + b2) + ... into b0's chunk, then copied out */                               \
            size_t lo = n * k / R, hi = n * (k + 1) / R;                                                        \
            type *restrict acc = (type *)g->bufs[0] + lo;                                                       \
            for (uint32_t r = 1; r < R; r++) {                                                                  \
                const type *restrict b = (const type *)g->bufs[r] + lo;                                         \
                for (size_t i = 0; i < hi - lo; i++) acc[i] += b[i];                                            \
            }                                                                                                   \
            for (uint32_t r = 1; r < R; r++) memcpy((type *)g->bufs[r] + lo, acc, (hi - lo) * sizeof(type));    \
        }                                                                                                       \
        barrier_wait(g);                                                                                        \
        return same ? RL_OK : RL_EINVAL; /* a plugin bug: replicas disagree on n */                             \
    }
ALLREDUCE(allreduce_f32, float, rl__world_sum_f32)
ALLREDUCE(allreduce_f64, double, rl__world_sum_f64)

/* The sum of the replicas' slices: buf[i] = ((b0[i] + b1[i]) + ...) for i
   in [lo, hi), in place even when buf is one of them: sixteen elements at
   a time, read whole before any is written.  Eight-lane vectors, which
   every x86-64 build with AVX has whole (wider ones the compiler may
   split element by element). */
typedef float v8f __attribute__((vector_size(32)));

static void sum_slice(float *buf, void *const *bufs, uint32_t R, size_t lo, size_t hi)
{
    size_t i = lo;
    for (; i + 16 <= hi; i += 16) {
        v8f t0, t1, b0, b1;
        memcpy(&t0, (const float *)bufs[0] + i, sizeof t0);
        memcpy(&t1, (const float *)bufs[0] + i + 8, sizeof t1);
        for (uint32_t r = 1; r < R; r++) {
            memcpy(&b0, (const float *)bufs[r] + i, sizeof b0);
            memcpy(&b1, (const float *)bufs[r] + i + 8, sizeof b1);
            t0 += b0;
            t1 += b1;
        }
        memcpy(buf + i, &t0, sizeof t0);
        memcpy(buf + i + 8, &t1, sizeof t1);
    }
    for (; i < hi; i++) {
        float t = ((const float *)bufs[0])[i];
        for (uint32_t r = 1; r < R; r++) t += ((const float *)bufs[r])[i];
        buf[i] = t;
    }
}

/* A slice-wise collective: every member publishes its buffer and they
   meet; then each runs its own part (in an MPI job the first member runs the
   job's world call for all of them, world.h); a second meeting keeps every
   buffer unchanged until all have read it. */
typedef void (*slice_part)(float *buf, void *const *bufs, uint32_t R, uint32_t k, size_t n);
typedef int (*world_part)(float *const *bufs, uint32_t local, size_t n);

static int sliced(void *ctx, float *buf, size_t n, slice_part mine, world_part world_call)
{
    member *m = ctx;
    group *g = m->g;
    uint32_t R = g->count, k = m->index;
    int world = rl__world_size() > 1;
    if (R == 1 && !world) return RL_OK;
    g->bufs[k] = buf;
    g->n[k] = n;
    if (R > 1) barrier_wait(g);
    int same = 1;
    for (uint32_t r = 1; r < R; r++) same &= g->n[r] == g->n[0];
    if (world) {
        if (k == 0) g->world_rc = same && world_call((float *const *)g->bufs, R, n) == 0 ? RL_OK : RL_EINVAL;
    } else if (same) {
        mine(buf, g->bufs, R, k, n);
    }
    if (R > 1) barrier_wait(g);
    return world ? g->world_rc : same ? RL_OK : RL_EINVAL;
}

/* Reduce-scatter: member k sums its own slice. */
static void scatter_part(float *buf, void *const *bufs, uint32_t R, uint32_t k, size_t n)
{
    sum_slice(buf, bufs, R, n * k / R, n * (k + 1) / R);
}

/* All-gather: member k copies the others' slices out of their buffers. */
static void gather_part(float *buf, void *const *bufs, uint32_t R, uint32_t k, size_t n)
{
    for (uint32_t r = 0; r < R; r++) {
        size_t lo = n * r / R, hi = n * (r + 1) / R;
        if (r != k) memcpy(buf + lo, (const float *)bufs[r] + lo, (hi - lo) * sizeof(float));
    }
}

static int reduce_scatter_f32(void *ctx, float *buf, size_t n)
{
    return sliced(ctx, buf, n, scatter_part, rl__world_reduce_scatter_f32);
}

static int allgather_f32(void *ctx, float *buf, size_t n)
{
    return sliced(ctx, buf, n, gather_part, rl__world_allgather_f32);
}

#define API(count_, index_, ctx_)                            \
    ((rl_replicas){.struct_size = sizeof(rl_replicas),       \
                   .count = (count_),                        \
                   .index = (index_),                        \
                   .ctx = (ctx_),                            \
                   .allreduce_f32 = allreduce_f32,           \
                   .allreduce_f64 = allreduce_f64,           \
                   .reduce_scatter_f32 = reduce_scatter_f32, \
                   .allgather_f32 = allgather_f32})

const uint64_t rl__no_steps = 0;

const rl_replicas *rl__replicas_single(void)
{
    static group one = {.count = 1};
    static const rl_replicas api = {.struct_size = sizeof api,
                                    .count = 1,
                                    .index = 0,
                                    .ctx = &one.members[0],
                                    .allreduce_f32 = allreduce_f32,
                                    .allreduce_f64 = allreduce_f64,
                                    .reduce_scatter_f32 = reduce_scatter_f32,
                                    .allgather_f32 = allgather_f32};
    one.members[0].g = &one;
    return &api;
}

struct rl__replica_group *rl__replica_group_create(uint32_t count)
{
    if (count < 1 || count > RL__MAX_REPLICAS) return NULL;
    group *gr = calloc(1, sizeof *gr);
    if (!gr) return NULL;
    gr->count = count;
    gr->barrier.count = count;
    for (uint32_t r = 0; r < count; r++) {
        gr->members[r] = (member){gr, r};
        gr->api[r] = API(count, r, &gr->members[r]);
    }
    return gr;
}

static void group_set_shared(group *g, int shared)
{
    for (uint32_t r = 0; r < g->count; r++) g->api[r].shared_envs = (uint32_t)shared;
}

const rl_replicas *rl__replica_group_api(struct rl__replica_group *g, uint32_t index)
{
    return index < g->count ? &g->api[index] : NULL;
}

void rl__replica_group_destroy(struct rl__replica_group *g)
{
    free(g);
}

/* ---- auto: threads, or coroutines when the cores are taken ------------- */

/* Other processes keep the cores taken: more of them busy (or runnable)
   than the replicas leave free, with half a core of slack so that an
   editor's blip does not count. */
static int taken_by(const rl__replicas *g, double others)
{
    return others > (double)rl__host_api()->cpu_count() - g->local + 0.5;
}

/* At create, before this process's pool exists: 1 when other processes'
   threads kept the cores taken in each of five looks 0.2 ms apart, so that
   a run on a loaded machine does not start with threads waiting for each
   other, and one that passed (the terminal drawing this run's first lines)
   does not make an idle machine look loaded. */
static int started_loaded(const rl__replicas *g)
{
    for (int i = 0; i < 5; i++) {
        if (i) nanosleep(&(struct timespec){0, 200000}, NULL);
        int others = rl__others_running();
        if (others < 0 || !taken_by(g, others)) return 0;
    }
    return 1;
}

/* auto: the replicas become coroutines when, over the last window (0.2 s;
   the first one 50 ms), other processes kept the cores taken (taken_by).
   Before the first window, what started_loaded saw decides. */
static int cores_taken(rl__replicas *g)
{
    double now = rl_now(), machine, own;
    if (now < g->next_look) return g->as_coroutines;
    if (rl__cpu_times(&machine, &own)) {
        double wall = now - g->look_wall;
        if (g->look_wall > 0 && wall > 0) {
            double others = ((machine - g->look_machine) - (own - g->look_own)) / wall;
            g->as_coroutines = taken_by(g, others);
        }
        /* the first window is short: the guess before it may be wrong */
        g->next_look = now + (g->look_wall > 0 ? 0.2 : 0.05);
        g->look_machine = machine, g->look_own = own, g->look_wall = now;
    } else {
        g->next_look = now + 0.2;
    }
    return g->as_coroutines;
}

int rl__replicas_create(rl__replicas *g, const rl__config *c, const rl_env_info *info, uint32_t num_envs,
                        uint32_t n_eval, uint64_t seed, uint64_t total_steps, const uint64_t *steps, uint32_t count,
                        char *err, size_t errlen)
{
    memset(g, 0, sizeof *g);
    g->avt = c->algo->desc->vtable;
    int rc = rl__space_from_info(&g->space, info, c->env->desc->name, err, errlen);
    const rl_obs_part *parts;
    int composite = rl_env_info_parts(info, &parts) != 0;
    if (rc == RL_OK) rc = rl__space_check_algo(&g->space, composite, c->env->desc->name, c->algo->desc, err, errlen);
    if (rc != RL_OK) {
        rl__space_free(&g->space);
        return rc;
    }
    uint32_t P = rl__world_size();
    if (count < 1 || count > RL__MAX_REPLICAS || count % P) {
        snprintf(err, errlen, "run.replicas: %u replicas over %u MPI ranks is out of range", count, P);
        rl__space_free(&g->space);
        return RL_ECONFIG;
    }
    g->count = count;
    g->local = count / P;
    g->first = rl__world_rank() * g->local;
    g->shared = num_envs % count != 0;
    g->per = g->shared ? num_envs : num_envs / count;
    /* actions, then the stop flag */
    size_t block = (g->shared ? num_envs : g->local * g->per) * g->space.action_bytes + sizeof(int32_t);
    group *gr = rl__replica_group_create(g->local);
    if (P > 1 && !(g->exchange = malloc((size_t)P * block))) {
        rl__replica_group_destroy(gr);
        gr = NULL;
    }
    const char *mode = getenv("RLHOST_REPLICAS_MODE");
    g->mode = mode && !strcmp(mode, "threads") ? RL__REPLICAS_THREADS
        : mode && !strcmp(mode, "coroutines")  ? RL__REPLICAS_COROUTINES
                                               : RL__REPLICAS_AUTO;
    if (g->local > 1 && !(g->coop = rl__coop_create(g->local))) g->mode = RL__REPLICAS_THREADS;
    if (g->mode == RL__REPLICAS_AUTO && g->local > 1) g->as_coroutines = started_loaded(g);
    if (!gr || !(g->pool = rl__pool_create(g->local))) {
        rl__replica_group_destroy(gr);
        rl__pool_destroy(g->pool);
        g->pool = NULL;
        free(g->exchange);
        g->exchange = NULL;
        rl__space_free(&g->space);
        snprintf(err, errlen, "out of memory for %u replicas", count);
        return RL_ENOMEM;
    }
    g->group = gr;
    group_set_shared(gr, g->shared);
    for (uint32_t r = 0; r < g->local; r++) { /* the job's replica first + r */
        gr->api[r].count = count;
        gr->api[r].index = g->first + r;
    }
    for (uint32_t r = 0; r < g->local; r++) {
        rl_algo_args args = {.struct_size = sizeof args,
                             .env = info,
                             .num_envs = g->per,
                             .num_eval_envs = n_eval,
                             .seed = seed,
                             .total_steps = total_steps,
                             .options = c->algo_opts.vals,
                             .stages = c->algo_stages.vals,
                             .host = rl__host_api(),
                             .replicas = &gr->api[r],
                             .steps = steps ? steps : &rl__no_steps,
                             .act_workers = rl__act_workers(c->algo->desc, rl__search_threads(c))};
        char perr[RL_ERR_MAX] = "";
        rc = g->avt->create(&args, &g->algo[r], perr, sizeof perr);
        if (rc != RL_OK) {
            g->algo[r] = NULL;
            snprintf(err, errlen, "algo '%s'%s: %s", c->algo->desc->name, count > 1 ? " (with replicas)" : "",
                     perr[0] ? perr : rl_strerror(rc));
            rl__replicas_destroy(g);
            return rc;
        }
    }
    return RL_OK;
}

void rl__replicas_destroy(rl__replicas *g)
{
    for (uint32_t r = 0; r < g->local; r++)
        if (g->algo[r]) g->avt->destroy(g->algo[r]);
    free(g->exchange);
    rl__space_free(&g->space);
    rl__pool_destroy(g->pool);
    rl__coop_destroy(g->coop);
    rl__replica_group_destroy(g->group);
    memset(g, 0, sizeof *g);
}

int rl__replicas_open(rl__replicas *g, const rl__config *c, const rl_env_info *info, uint32_t num_envs, uint32_t n_eval,
                      uint64_t seed, uint64_t total_steps, const uint64_t *steps, char *why, size_t whylen, char *err,
                      size_t errlen)
{
    const rl_value *v = &c->run.vals[RL__RUN_REPLICAS];
    const rl_plugin_desc *d = c->algo->desc;
    /* In an MPI job run.replicas counts each rank's threads: the job has
       ranks x that many replicas. */
    uint32_t P = rl__world_size();
    char ranks[64] = "";
    if (P > 1) snprintf(ranks, sizeof ranks, "%u MPI ranks x ", P);
    if (!(rl__desc_flags(d) & RL_DESC_REPLICAS)) {
        snprintf(why, whylen, "algo '%s' does not train data-parallel (no RL_DESC_REPLICAS%s)", d->name,
                 !RL_HAS_FIELD(d, rl_plugin_desc, flags) ? "; built for ABI 1.0" : "");
        if (P > 1) {
            snprintf(err, errlen, "%s, so it cannot run as %u MPI ranks; run it without mpirun", why, P);
            return RL_ECONFIG;
        }
        return rl__replicas_create(g, c, info, num_envs, n_eval, seed, total_steps, steps, 1, err, errlen);
    }
    if (!v->is_auto) {
        uint32_t T = (uint32_t)v->i;
        if ((uint64_t)T * P > RL__MAX_REPLICAS) {
            snprintf(err, errlen, "run.replicas: %s%u threads is more than %d replicas", ranks, T, RL__MAX_REPLICAS);
            return RL_ECONFIG;
        }
        int rc = rl__replicas_create(g, c, info, num_envs, n_eval, seed, total_steps, steps, T * P, err, errlen);
        snprintf(why, whylen, "%s%s", P > 1 ? ranks : "",
                 rc == RL_OK && g->shared ? "sharing the envs: they do not split" : "");
        if (P > 1 && rc == RL_OK)
            snprintf(why + strlen(why), whylen - strlen(why), "%u thread%s%s", T, T == 1 ? "" : "s",
                     g->shared ? ", envs shared" : "");
        return rc;
    }
    /* auto: this machine's cores, shared among the job's ranks on it */
    uint32_t cores = rl__host_api()->cpu_count(), local = rl__world_local(), top = cores / local;
    if (top < 1) top = 1;
    if ((uint64_t)top * P > RL__MAX_REPLICAS) top = RL__MAX_REPLICAS / P;
    char refused[RL_ERR_MAX] = "";
    for (uint32_t T = top; T >= 1; T--) {
        int rc = rl__replicas_create(g, c, info, num_envs, n_eval, seed, total_steps, steps, T * P, err, errlen);
        if (rc == RL_OK) {
            snprintf(why, whylen, "auto: %s%u core%s%s, %u envs%s%s%s", ranks, cores, cores == 1 ? "" : "s",
                     local > 1 ? " shared by the ranks here" : "", num_envs, g->shared ? ", shared" : "",
                     refused[0] ? "; " : "", refused);
            return RL_OK;
        }
        if (rc == RL_ENOMEM || T == 1) return rc;
        if (!refused[0]) snprintf(refused, sizeof refused, "%u refused: %s", T * P, err);
    }
    return RL_EINVAL; /* not reached: one replica a rank always splits */
}

/* ---- the phases: one replica per pool thread -------------------------- */

typedef struct phase {
    rl__replicas *g;
    const void *obs;
    size_t row_bytes;
    const uint8_t *start;
    const uint8_t *masks;
    unsigned char *actions;
    const rl_transition *t;
    uint64_t step;
    int rc[RL__MAX_REPLICAS];
} phase;

static void act_one(void *ctx, uint32_t first, uint32_t count)
{
    phase *ph = ctx;
    rl__replicas *g = ph->g;
    for (uint32_t r = first; r < first + count; r++) {
        size_t at = g->shared ? 0 : (size_t)(g->first + r) * g->per;
        g->err[r][0] = 0;
        ph->rc[r] = RL_OK;
        if (g->shared && g->first + r > 0) continue; /* replica 0 drives the shared envs */
        const uint8_t *masks = ph->masks ? ph->masks + at * g->space.mask_width : NULL;
        ph->rc[r] = rl__space_act(&g->space, g->avt, g->algo[r], RL_MODE_TRAIN,
                                  (const char *)ph->obs + at * ph->row_bytes, ph->start + at, masks,
                                  ph->actions + at * g->space.action_bytes, g->per, g->err[r], RL_ERR_MAX);
    }
}

static void observe_one(void *ctx, uint32_t first, uint32_t count)
{
    phase *ph = ctx;
    rl__replicas *g = ph->g;
    const rl_transition *t = ph->t;
    for (uint32_t r = first; r < first + count; r++) {
        size_t at = g->shared ? 0 : (size_t)(g->first + r) * g->per, ob = at * ph->row_bytes;
        size_t mb = at * g->space.mask_width;
        rl_transition s = {.struct_size = sizeof s,
                           .count = g->per,
                           .obs = (const char *)t->obs + ob,
                           .actions = t->actions ? t->actions + at * g->space.ints : NULL,
                           .rewards = t->rewards + at,
                           .next_obs = (const char *)t->next_obs + ob,
                           .final_obs = (const char *)t->final_obs + ob,
                           .terminated = t->terminated + at,
                           .truncated = t->truncated + at,
                           .box_actions = t->box_actions ? t->box_actions + at * g->space.floats : NULL,
                           .masks = t->masks ? t->masks + mb : NULL,
                           .next_masks = t->next_masks ? t->next_masks + mb : NULL,
                           .final_masks = t->final_masks ? t->final_masks + mb : NULL,
                           .search_policy = t->search_policy ? t->search_policy + at * g->space.n : NULL,
                           .same_mover = t->same_mover ? t->same_mover + at : NULL,
                           .search_value = t->search_value ? t->search_value + at : NULL};
        g->err[r][0] = 0;
        ph->rc[r] = g->avt->observe(g->algo[r], &s, g->err[r], RL_ERR_MAX);
        if (ph->rc[r] == RL_OK) ph->rc[r] = g->avt->update(g->algo[r], ph->step, g->err[r], RL_ERR_MAX);
    }
}

static int first_failure(const rl__replicas *g, const phase *ph, char *err, size_t errlen)
{
    for (uint32_t r = 0; r < g->local; r++)
        if (ph->rc[r] != RL_OK) {
            if (g->count > 1)
                snprintf(err, errlen, "replica %u: %s", g->first + r, g->err[r]);
            else
                snprintf(err, errlen, "%s", g->err[r]);
            return ph->rc[r];
        }
    return RL_OK;
}

/* Runs fn for every local replica: on the pool's threads, or as coroutines
   on this thread when the cores are taken (see replicas.h). */
static void run_replicas(rl__replicas *g, rl__pool_fn fn, phase *ph)
{
    int coop = g->mode == RL__REPLICAS_COROUTINES || (g->mode == RL__REPLICAS_AUTO && cores_taken(g));
    if (!coop) {
        rl__pool_run(g->pool, fn, ph, g->local);
        return;
    }
    group *gr = g->group;
    gr->coop = g->coop;
    rl__coop_run(g->coop, fn, ph, g->local, coop_ready, gr);
    gr->coop = NULL;
}

/* MPI: every rank's block of actions (rank 0's for shared envs) to every
   rank, with each rank's stop flag after its block: one collective a step. */
static void exchange(rl__replicas *g, unsigned char *actions, int *stop)
{
    uint32_t P = rl__world_size();
    size_t n = (size_t)(g->shared ? g->per : g->local * g->per) * g->space.action_bytes;
    size_t block = n + sizeof(int32_t);
    unsigned char *mine = g->exchange + (size_t)rl__world_rank() * block;
    memcpy(mine, actions + (g->shared ? 0 : (size_t)g->first * g->per * g->space.action_bytes), n);
    int32_t flag = *stop;
    memcpy(mine + n, &flag, sizeof flag);
    rl__world_allgather(mine, g->exchange, block);
    *stop = 0;
    for (uint32_t p = 0; p < P; p++) {
        const unsigned char *b = g->exchange + (size_t)p * block;
        memcpy(&flag, b + n, sizeof flag);
        if (flag) *stop = 1;
        if (!g->shared) memcpy(actions + (size_t)p * n, b, n);
    }
    if (g->shared) memcpy(actions, g->exchange, n);
}

int rl__replicas_act(rl__replicas *g, const void *obs, size_t row_bytes, const uint8_t *start, const uint8_t *masks,
                     void *actions, int *stop, char *err, size_t errlen)
{
    phase ph = {.g = g, .obs = obs, .row_bytes = row_bytes, .start = start, .masks = masks, .actions = actions};
    if (g->local == 1 || g->shared)
        act_one(&ph, 0, g->local);
    else
        run_replicas(g, act_one, &ph);
    int rc = first_failure(g, &ph, err, errlen);
    if (rc == RL_OK && g->exchange) exchange(g, actions, stop);
    return rc;
}

int rl__replicas_observe_update(rl__replicas *g, const rl_transition *t, size_t row_bytes, uint64_t step, char *err,
                                size_t errlen)
{
    phase ph = {.g = g, .t = t, .row_bytes = row_bytes, .step = step};
    if (g->local == 1)
        observe_one(&ph, 0, 1);
    else
        run_replicas(g, observe_one, &ph);
    return first_failure(g, &ph, err, errlen);
}

/* ---- checkpoints: replica r > 0 under "replica<r>/" -------------------- */

int rl__replicas_state(rl__replicas *g, const rl_algo_state_ext *ext, const rl_state_io *io, int load, char *err,
                       size_t errlen)
{
    for (uint32_t r = 0; r < g->local; r++) {
        uint32_t gr = g->first + r;
        char prefix[32];
        snprintf(prefix, sizeof prefix, "replica%u/", gr);
        rl__prefixed_io px; /* replica 0's own names, and metadata, which it alone writes */
        rl__prefixed_io_init(&px, io, prefix, NULL);
        const rl_state_io *use = gr ? &px.io : io;
        char perr[RL_ERR_MAX] = "";
        int rc = load ? ext->load(g->algo[r], use, perr, sizeof perr) : ext->save(g->algo[r], use, perr, sizeof perr);
        if (rc != RL_OK) {
            snprintf(err, errlen, "%s", perr[0] ? perr : rl_strerror(rc));
            return rc;
        }
    }
    return RL_OK;
}
