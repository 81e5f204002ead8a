/* The vectorized env driver; see vecenv.h. */
#include "env/vecenv.h"
#include "plugin/env_create.h"

#include "plugin/loader.h"
#include "plugin/host_api.h"

#include <stdio.h>
#include <string.h>

#include <rlhost/nn.h> /* rl_params_find_nonfinite */
#include <rlhost/rlcore.h>

/* Below this many envs per thread, waking a worker costs more than the
   stepping it takes over (measured with `rlhost bench env`). */
#define MIN_ENVS_PER_THREAD 64

uint32_t rl__auto_env_threads(uint32_t num_envs, char *reason, size_t len)
{
    uint32_t cores = rl__host_api()->cpu_count();
    uint32_t by_envs = num_envs / MIN_ENVS_PER_THREAD;
    if (by_envs < 1) by_envs = 1;
    uint32_t t = cores < by_envs ? cores : by_envs;
    if (t == cores)
        snprintf(reason, len, "%u core%s", cores, cores == 1 ? "" : "s");
    else
        snprintf(reason, len, "%u envs: one thread per %u envs", num_envs, MIN_ENVS_PER_THREAD);
    return t;
}

/* The env's rl.env.status/1, or NULL when it cannot fail. */
static const rl_env_status_ext *status_ext_of(const rl__vecenv *v)
{
    const rl_env_status_ext *st = v->vt->get_extension ? v->vt->get_extension(v->env, RL_EXT_ENV_STATUS) : NULL;
    return st && RL_HAS_FIELD(st, rl_env_status_ext, status) && st->status ? st : NULL;
}

/* A failure the env reports after a call, as a status with the sentence. */
static int env_status(rl__vecenv *v, char *err, size_t errlen)
{
    if (!v->status) return RL_OK;
    char why[RL_ERR_MAX] = "";
    int rc = v->status->status(v->env, why, sizeof why);
    if (rc == RL_OK) return RL_OK;
    snprintf(err, errlen, "env '%s': %s", v->desc->name, why[0] ? why : rl_strerror(rc));
    return rc < 0 ? rc : RL_EIO;
}

/* A float observation holding a NaN or infinity would poison training
   steps later, far from its cause: refused with the env row and element
   (the Python bridge checks its envs alike). */
static int obs_finite(const rl__vecenv *v, const char *what, char *err, size_t errlen)
{
    if (v->parts.n) { /* float parts finite, discrete parts in range */
        char who[160];
        snprintf(who, sizeof who, "env '%s' returned %s", v->desc->name, what);
        return rl__parts_check_rows(&v->parts, v->io.obs, v->n, v->row_bytes, v->agents, who, err, errlen);
    }
    if (v->info.obs_dtype != RL_DTYPE_F32) return RL_OK;
    const float *o = v->io.obs; /* rows of obs_size floats, back to back */
    size_t d = v->info.obs_size;
    long bad = rl_params_find_nonfinite(o, (size_t)v->n * d);
    if (bad < 0) return RL_OK;
    snprintf(err, errlen, "env '%s' returned %s holding %g at env %zu, element %zu: observations must be finite",
             v->desc->name, what, (double)o[bad], (size_t)bad / d, (size_t)bad % d);
    return RL_ENONFINITE;
}

/* The host-owned buffers of v->n rows, the worker pool and io. */
static int alloc_buffers(rl__vecenv *v, uint32_t threads, char *err, size_t errlen)
{
    const rl_plugin_desc *desc = v->desc;
    uint32_t num_envs = v->boards;
    size_t n = v->n;
    v->obs_buf[0] = rl_calloc_aligned(n, v->row_bytes);
    v->obs_buf[1] = rl_calloc_aligned(n, v->row_bytes);
    void *final_obs = rl_calloc_aligned(n, v->row_bytes);
    int box = v->space.kind == RL_SPACE_BOX, hybrid = v->space.kind == RL_SPACE_HYBRID;
    v->actions = rl_calloc_aligned(n, v->space.action_bytes);
    if (box || hybrid) v->env_actions = rl_calloc_aligned(n, v->space.action_bytes);
    if (hybrid) v->env_split = rl_calloc_aligned(n, v->space.action_bytes);
    if (hybrid) v->chosen_split = rl_calloc_aligned(n, v->space.action_bytes);
    v->rewards = rl_calloc_aligned(n, sizeof *v->rewards);
    v->rew_acc = rl_calloc_aligned(n, sizeof *v->rew_acc);
    v->terminated = rl_calloc_aligned(n, 1);
    v->truncated = rl_calloc_aligned(n, 1);
    v->stopped = rl_calloc_aligned(n, 1);
    v->episode_start = rl_calloc_aligned(n, 1);
    v->ep_return = rl_calloc_aligned(n, sizeof *v->ep_return);
    v->ep_length = rl_calloc_aligned(n, sizeof *v->ep_length);
    v->done_return = rl_calloc_aligned(n, sizeof *v->done_return);
    v->done_length = rl_calloc_aligned(n, sizeof *v->done_length);
    v->frames = rl_calloc_aligned(n, sizeof *v->frames);
    float *scores = rl_calloc_aligned(n, sizeof(float));
    size_t mw = v->space.mask_width;
    uint8_t *final_mask = NULL;
    if (mw) {
        v->mask_buf[0] = rl_calloc_aligned(n, mw);
        v->mask_buf[1] = rl_calloc_aligned(n, mw);
        final_mask = rl_calloc_aligned(n, mw);
    }
    if (threads == 0) {
        threads = rl__auto_env_threads(v->n, v->threads_reason, sizeof v->threads_reason);
    } else {
        snprintf(v->threads_reason, sizeof v->threads_reason, "set in config");
    }
    if (threads > num_envs) threads = num_envs; /* ranges are of boards */
    if (rl__desc_flags(desc) & RL_DESC_SERIAL) {
        threads = 1;
        snprintf(v->threads_reason, sizeof v->threads_reason, "the env is not thread-safe");
    }
    if (v->table) threads = 1; /* the table steps its env on threads of its own */
    v->pool = rl__pool_create(threads);
    v->io = (rl_env_io){.struct_size = sizeof v->io,
                        .obs = v->obs_buf[0],
                        .actions = box ? NULL
                            : hybrid   ? v->env_split
                                       : v->actions,
                        .rewards = v->rewards,
                        .terminated = v->terminated,
                        .truncated = v->truncated,
                        .final_obs = final_obs,
                        .scores = scores,
                        .box_actions = hybrid ? (float *)v->env_split + n * v->space.ints : v->env_actions,
                        .action_mask = v->mask_buf[0],
                        .final_mask = final_mask,
                        .to_move = v->to_move};
    if (mw && (!v->mask_buf[0] || !v->mask_buf[1] || !final_mask)) {
        snprintf(err, errlen, "env '%s': out of memory for the masks of %u envs", desc->name, num_envs);
        return RL_ENOMEM;
    }
    if (!v->obs_buf[0] || !v->obs_buf[1] || !final_obs || !v->actions || ((box || hybrid) && !v->env_actions) ||
        (hybrid && (!v->env_split || !v->chosen_split)) || !v->rewards || !v->rew_acc || !v->terminated ||
        !v->truncated || !v->stopped || !v->episode_start || !v->ep_return || !v->ep_length || !v->done_return ||
        !v->done_length || !v->frames || !scores || !v->pool) {
        snprintf(err, errlen, "env '%s': out of memory for %u envs of %u agents", desc->name, num_envs, v->agents);
        return RL_ENOMEM;
    }
    return RL_OK;
}

int rl__vecenv_create(rl__vecenv *v, const rl_plugin_desc *desc, const rl_value *options, const rl_value *stages,
                      uint32_t num_envs, uint64_t seed, uint32_t threads, uint32_t repeat, char *err, size_t errlen)
{
    return rl__vecenv_create_seated(v, desc, options, stages, num_envs, seed, threads, repeat, NULL, err, errlen);
}

/* An env with seats goes into a table; without a seating it is refused. */
static int seat_env(rl__vecenv *v, const rl__seating *seating, uint32_t num_envs, uint32_t threads, char *err,
                    size_t errlen)
{
    const rl_plugin_desc *desc = v->desc;
    if (rl_env_info_turn_based(&v->info) && !rl_env_info_seats(&v->info)) {
        snprintf(err, errlen, "env '%s' says it is turn-based but seats no players (rl_env_info.seats < 2)",
                 desc->name);
        return RL_EINVAL;
    }
    if (!rl_env_info_seats(&v->info)) return RL_OK;
    if (seating && seating->raw) {
        if (rl_env_info_turn_based(&v->info) &&
            !(v->to_move = rl_calloc_aligned((size_t)num_envs * (v->info.agents ? v->info.agents : 1), 1))) {
            snprintf(err, errlen, "env '%s': out of memory for %u envs", desc->name, num_envs);
            return RL_ENOMEM;
        }
        return RL_OK;
    }
    if (!seating) {
        snprintf(err, errlen, "env '%s' seats %u players; this command cannot seat them (rlhost run, eval and play do)",
                 desc->name, v->info.seats);
        return RL_EINVAL;
    }
    if (threads == 0) threads = rl__auto_env_threads(num_envs, v->threads_reason, sizeof v->threads_reason);
    const rl_env_vtable *vt = v->vt;
    void *env = v->env;
    int rc = rl__table_wrap(seating, desc, v->options, v->stages, num_envs, threads, &vt, &env, &v->info, err, errlen);
    if (rc != RL_OK) return rc;
    v->vt = vt;
    v->env = env;
    v->table = rl__table_of(vt, env);
    return RL_OK;
}

int rl__vecenv_create_seated(rl__vecenv *v, const rl_plugin_desc *desc, const rl_value *options, const rl_value *stages,
                             uint32_t num_envs, uint64_t seed, uint32_t threads, uint32_t repeat,
                             const rl__seating *seating, char *err, size_t errlen)
{
    memset(v, 0, sizeof *v);
    v->desc = desc;
    v->vt = desc->vtable;
    v->n = num_envs;
    v->repeat = repeat ? repeat : 1;
    v->options = options;
    v->stages = stages;
    int rc = rl__env_open(desc, options, stages, num_envs, seed, &v->env, &v->info, err, errlen);
    if (rc != RL_OK) return rc;
    if ((rc = seat_env(v, seating, num_envs, threads, err, errlen)) != RL_OK) {
        rl__vecenv_destroy(v);
        return rc;
    }
    v->status = status_ext_of(v);
    size_t row_bytes = rl__obs_check(&v->info, desc->name, err, errlen);
    if (!row_bytes) {
        rl__vecenv_destroy(v);
        return RL_EINVAL;
    }
    if ((rc = rl__space_from_info(&v->space, &v->info, desc->name, err, errlen)) != RL_OK ||
        (rc = rl__parts_from_info(&v->parts, &v->info, row_bytes, desc->name, err, errlen)) != RL_OK) {
        rl__vecenv_destroy(v);
        return rc;
    }
    if ((rc = rl__symmetries_from_info(&v->sym, &v->info, &v->parts, row_bytes, desc->name, err, errlen)) != RL_OK) {
        rl__vecenv_destroy(v);
        return rc;
    }
    if (v->parts.n) { /* algorithms read the host's checked copies, not the env's tables */
        v->info.obs_parts = v->parts.part;
        v->info.n_obs_parts = v->parts.n;
    }
    v->info.n_symmetries = v->sym.n;
    v->info.symmetries = v->sym.n ? v->sym.list : NULL;
    v->row_bytes = row_bytes;
    v->boards = num_envs;
    v->agents = v->info.agents ? v->info.agents : 1;
    if ((uint64_t)num_envs * v->agents > (1u << 24)) {
        snprintf(err, errlen, "env '%s': %u envs of %u agents are more than %u rows", desc->name, num_envs, v->agents,
                 1u << 24);
        rl__vecenv_destroy(v);
        return RL_EINVAL;
    }
    if (v->space.mask_width && v->repeat > 1) {
        snprintf(err, errlen,
                 "env '%s' masks its actions; env.optimizations.action_repeat must be 1 (a repeated action "
                 "may be masked after its first frame)",
                 desc->name);
        rl__vecenv_destroy(v);
        return RL_EINVAL;
    }
    if (v->agents > 1 && v->repeat > 1) {
        snprintf(err, errlen,
                 "env '%s' has %u agents per env; env.optimizations.action_repeat must be 1 with "
                 "several agents (their episodes end at different frames)",
                 desc->name, v->agents);
        rl__vecenv_destroy(v);
        return RL_EINVAL;
    }
    v->n = num_envs * v->agents;
    if ((rc = alloc_buffers(v, threads, err, errlen)) != RL_OK) {
        rl__vecenv_destroy(v);
        return rc;
    }
    v->prev_obs = v->obs_buf[1];
    v->prev_mask = v->mask_buf[1];
    return RL_OK;
}

/* The masks the env wrote: every row's current one and, where an episode
   just ended (after a step), its final one allow an action. */
static int masks_ok(rl__vecenv *v, int after_step, char *err, size_t errlen)
{
    const rl__space *s = &v->space;
    if (!s->mask_width) return RL_OK;
    for (uint32_t i = 0; i < v->n; i++) {
        int rc = rl__space_check_mask(s, v->io.action_mask + (size_t)i * s->mask_width, i, v->agents,
                                      after_step ? v->ep_length[i] : 0, v->desc->name, "a mask", err, errlen);
        if (rc == RL_OK && after_step && !v->next_step && v->episode_start[i]) /* next-step: shown now */
            rc = rl__space_check_mask(s, v->io.final_mask + (size_t)i * s->mask_width, i, v->agents, v->done_length[i],
                                      v->desc->name, "a final mask", err, errlen);
        if (rc != RL_OK) return rc;
    }
    return RL_OK;
}

static void reset_range(void *ctx, uint32_t first, uint32_t count)
{
    rl__vecenv *v = ctx;
    v->vt->reset(v->env, &v->io, first, count);
}

void rl__vecenv_reset(rl__vecenv *v)
{
    rl__pool_run(v->pool, reset_range, v, v->boards);
    if (!v->failed) v->failed = env_status(v, v->failed_why, sizeof v->failed_why);
    if (!v->failed) v->failed = obs_finite(v, "a first observation", v->failed_why, sizeof v->failed_why);
    memset(v->episode_start, 1, v->n);
    if (v->pending) memset(v->pending, 0, v->n);
    memset(v->ep_return, 0, v->n * sizeof *v->ep_return);
    memset(v->ep_length, 0, v->n * sizeof *v->ep_length);
    if (!v->failed) v->failed = masks_ok(v, 0, v->failed_why, sizeof v->failed_why);
}

/* Steps [first, first+count) `repeat` times; an env whose episode ended
   stops for the rest of this call so its new episode starts cleanly, and an
   env with a next-step reset pending is not stepped at all. */
static void step_range(void *ctx, uint32_t first, uint32_t count)
{
    rl__vecenv *v = ctx;
    uint32_t end = first + count;
    if (v->repeat == 1 && !v->next_step) { /* boards [first, end): their rows get a frame each */
        v->vt->step(v->env, &v->io, first, count);
        for (uint32_t i = first * v->agents; i < end * v->agents; i++) v->frames[i] = 1;
        return;
    }
    /* action repeat or next-step: one agent per board (create and
       rl__vecenv_set_autoreset refuse more), so rows are boards */
    if (v->next_step)
        memcpy(v->stopped + first, v->pending + first, count);
    else
        memset(v->stopped + first, 0, count);
    for (uint32_t i = first; i < end; i++) {
        v->rew_acc[i] = 0;
        v->frames[i] = 0;
    }
    for (uint32_t r = 0; r < v->repeat; r++) {
        uint32_t i = first;
        while (i < end) { /* step each maximal run of envs still going */
            while (i < end && v->stopped[i]) i++;
            uint32_t j = i;
            while (j < end && !v->stopped[j]) j++;
            if (j > i) v->vt->step(v->env, &v->io, i, j - i);
            i = j;
        }
        int all_stopped = 1;
        for (uint32_t k = first; k < end; k++) {
            if (v->stopped[k]) continue;
            v->rew_acc[k] += v->rewards[k];
            v->frames[k]++;
            if (v->terminated[k] || v->truncated[k])
                v->stopped[k] = 1;
            else
                all_stopped = 0;
        }
        if (all_stopped) break;
    }
    memcpy(v->rewards + first, v->rew_acc + first, count * sizeof *v->rewards);
}

/* Next-step autoreset, row i ended this step: it shows its last
   observation now and keeps the next episode's first for its next step. */
static void next_step_end(rl__vecenv *v, uint32_t i)
{
    char *obs = v->io.obs, *final_obs = v->io.final_obs, *keep = v->pending_obs;
    memcpy(keep + i * v->row_bytes, obs + i * v->row_bytes, v->row_bytes);
    memcpy(obs + i * v->row_bytes, final_obs + i * v->row_bytes, v->row_bytes);
    size_t mw = v->space.mask_width;
    if (mw) {
        memcpy(v->pending_mask + i * mw, v->io.action_mask + i * mw, mw);
        memcpy(v->io.action_mask + i * mw, v->io.final_mask + i * mw, mw);
    }
    v->episode_start[i] = 0;
    v->pending[i] = 1;
}

/* Next-step autoreset, row i's step is its reset: the kept observation,
   no reward, no flags. */
static void next_step_begin(rl__vecenv *v, uint32_t i)
{
    char *obs = v->io.obs, *keep = v->pending_obs;
    memcpy(obs + i * v->row_bytes, keep + i * v->row_bytes, v->row_bytes);
    size_t mw = v->space.mask_width;
    if (mw) memcpy(v->io.action_mask + i * mw, v->pending_mask + i * mw, mw);
    v->rewards[i] = 0;
    v->terminated[i] = v->truncated[i] = 0;
    v->episode_start[i] = 1;
    v->pending[i] = 0;
}

static void record_episode(rl__ep_stats *s, double ret, double len, double score)
{
    s->episodes++;
    s->n++;
    s->sum_return += ret;
    s->sum_length += len;
    if (score == score) s->sum_score += score; /* NaN: no game ended (an env's lost life) */
    s->recent_return[s->recent_pos] = ret;
    s->recent_score[s->recent_pos] = score;
    s->recent_length[s->recent_pos] = len;
    s->recent_pos = (s->recent_pos + 1) % RL__RECENT;
    if (s->recent_n < RL__RECENT) s->recent_n++;
}

void rl__vecenv_chosen(rl__vecenv *v, const int32_t **ints, const float **floats)
{
    const rl__space *sp = &v->space;
    if (!v->chosen_split) {
        *ints = sp->ints ? v->actions : NULL;
        *floats = sp->floats ? v->actions : NULL;
        return;
    }
    int32_t *i = v->chosen_split;
    float *f = (float *)v->chosen_split + (size_t)v->n * sp->ints;
    rl__space_split(sp, v->actions, v->n, i, f);
    *ints = i, *floats = f;
}

int rl__vecenv_step(rl__vecenv *v, char *err, size_t errlen)
{
    if (v->failed) {
        int rc = v->failed;
        snprintf(err, errlen, "%s", v->failed_why);
        v->failed = 0;
        return rc;
    }
    void *settled = v->env_actions ? v->env_actions : v->actions;
    int rc = rl__space_settle(&v->space, v->actions, settled, v->io.action_mask, v->n, v->agents, "algo", err, errlen);
    if (rc != RL_OK) return rc;
    if (v->env_split)
        rl__space_split(&v->space, settled, v->n, v->env_split, (float *)v->env_split + (size_t)v->n * v->space.ints);
    if (!v->fixed_obs) {
        v->prev_obs = v->obs_buf[v->cur];
        v->prev_mask = v->mask_buf[v->cur];
        v->cur ^= 1;
        v->io.obs = v->obs_buf[v->cur];
        v->io.action_mask = v->mask_buf[v->cur];
    }
    rl__pool_run(v->pool, step_range, v, v->boards);
    if ((rc = env_status(v, err, errlen)) != RL_OK) return rc;
    if ((rc = obs_finite(v, "an observation", err, errlen)) != RL_OK) return rc;
    int has_score = v->info.score_name != NULL;
    for (uint32_t i = 0; i < v->n; i++) {
        if (v->next_step && v->pending[i]) {
            next_step_begin(v, i);
            continue;
        }
        v->ep_return[i] += v->rewards[i];
        v->ep_length[i] += v->frames[i];
        uint8_t done = v->terminated[i] | v->truncated[i];
        v->episode_start[i] = done;
        if (done) {
            v->done_return[i] = v->ep_return[i];
            v->done_length[i] = v->ep_length[i];
            record_episode(&v->stats, v->ep_return[i], v->ep_length[i], has_score ? v->io.scores[i] : v->ep_return[i]);
            v->ep_return[i] = 0;
            v->ep_length[i] = 0;
            if (v->next_step) next_step_end(v, i);
        }
    }
    return masks_ok(v, 1, err, errlen);
}

int rl__vecenv_set_autoreset(rl__vecenv *v, int next_step, char *err, size_t errlen)
{
    if (next_step && v->agents > 1) {
        snprintf(err, errlen,
                 "env '%s' has %u agents per env, whose episodes end at different steps: it "
                 "autoresets in the same step only",
                 v->desc->name, v->agents);
        return RL_EINVAL;
    }
    if (next_step && !v->pending) {
        v->pending = rl_calloc_aligned(v->n, 1);
        v->pending_obs = rl_calloc_aligned(v->n, v->row_bytes);
        if (v->space.mask_width) v->pending_mask = rl_calloc_aligned(v->n, v->space.mask_width);
        if (!v->pending || !v->pending_obs || (v->space.mask_width && !v->pending_mask)) {
            snprintf(err, errlen, "env '%s': out of memory", v->desc->name);
            return RL_ENOMEM;
        }
    }
    if (v->pending) memset(v->pending, 0, v->n);
    v->next_step = next_step != 0;
    return RL_OK;
}

int rl__vecenv_reseed(rl__vecenv *v, uint64_t seed, char *err, size_t errlen)
{
    if (v->table) {
        int rc = rl__table_reseed(v->table, seed, err, errlen);
        if (rc == RL_OK) v->failed = 0;
        return rc;
    }
    rl_env_info info;
    void *fresh = NULL;
    int rc = rl__env_open(v->desc, v->options, v->stages, v->boards, seed, &fresh, &info, err, errlen);
    if (rc != RL_OK) return rc;
    if (info.obs_dtype != v->info.obs_dtype || info.obs_size != v->info.obs_size || info.obs_ndim != v->info.obs_ndim ||
        memcmp(info.obs_shape, v->info.obs_shape, sizeof info.obs_shape) || info.n_actions != v->info.n_actions ||
        info.agents != v->info.agents || info.action_kind != v->info.action_kind ||
        info.action_dim != v->info.action_dim || rl_env_info_mask_width(&info) != v->space.mask_width ||
        info.n_obs_parts != v->info.n_obs_parts) {
        v->vt->destroy(fresh);
        snprintf(err, errlen, "env '%s' changed its spaces when reseeded", v->desc->name);
        return RL_EINVAL;
    }
    v->vt->destroy(v->env);
    v->env = fresh;
    v->status = status_ext_of(v);
    v->failed = 0;
    return RL_OK;
}

double rl__ep_recent_mean(const rl__ep_stats *s, int what)
{
    if (!s->recent_n) return 0.0 / 0.0;
    const double *v = what == RL__EP_SCORE ? s->recent_score
        : what == RL__EP_LENGTH            ? s->recent_length
                                           : s->recent_return;
    double sum = 0;
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->recent_n; i++)
        if (v[i] == v[i]) sum += v[i], n++; /* a NaN score: that episode ended no game */
    return n ? sum / n : 0.0 / 0.0;
}

void rl__ep_interval_reset(rl__ep_stats *s)
{
    s->n = 0;
    s->sum_return = s->sum_length = s->sum_score = 0;
}

void rl__vecenv_destroy(rl__vecenv *v)
{
    rl__pool_destroy(v->pool);
    if (v->env) v->vt->destroy(v->env);
    rl_free(v->obs_buf[0]);
    rl_free(v->obs_buf[1]);
    rl_free(v->io.final_obs);
    rl_free(v->actions);
    rl_free(v->env_actions);
    rl_free(v->env_split);
    rl_free(v->chosen_split);
    rl__space_free(&v->space);
    rl__parts_free(&v->parts);
    rl__symmetries_free(&v->sym);
    rl_free(v->rewards);
    rl_free(v->rew_acc);
    rl_free(v->terminated);
    rl_free(v->truncated);
    rl_free(v->stopped);
    rl_free(v->episode_start);
    rl_free(v->ep_return);
    rl_free(v->ep_length);
    rl_free(v->done_return);
    rl_free(v->done_length);
    rl_free(v->frames);
    rl_free(v->io.scores);
    rl_free(v->pending);
    rl_free(v->pending_obs);
    rl_free(v->pending_mask);
    rl_free(v->mask_buf[0]);
    rl_free(v->mask_buf[1]);
    rl_free(v->io.final_mask);
    rl_free(v->to_move);
    memset(v, 0, sizeof *v);
}
