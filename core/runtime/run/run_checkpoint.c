/* A run's checkpoints: what the host adds to the algorithm's state (the
   envs, their observations and episode bookkeeping, the last evaluation),
   the gathering of an MPI job's replicas to rank 0, and resuming from the
   run directory. */
#define _GNU_SOURCE
#include "run/run_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rlhost/rlcore.h>

#include "checkpoint/safetensors.h"
#include "checkpoint/restore.h"
#include "base/text.h"
#include "base/log.h"
#include "parallel/world.h"

/* ---- checkpoints -------------------------------------------------------- */

static const rl_env_state_ext *env_state_ext(const rl__vecenv *v)
{
    const rl_env_state_ext *e = v->vt->get_extension ? v->vt->get_extension(v->env, RL_EXT_ENV_STATE) : NULL;
    return e && RL_HAS_FIELD(e, rl_env_state_ext, load) && e->save && e->load ? e : NULL;
}

/* An evaluation cut short at this step (absent from older checkpoints: none). */
static int eval_due_state(rl__run_state *rs, const rl_state_io *io, int load, char *err, size_t errlen)
{
    uint64_t shape = 1;
    uint8_t due = (uint8_t)rs->eval_due;
    int rc = load ? io->get(io->ctx, "host/eval_due", RL_DTYPE_U8, 1, &shape, &due)
                  : io->put(io->ctx, "host/eval_due", RL_DTYPE_U8, 1, &shape, &due);
    if (load && rc == RL_ENOENT) due = 0, rc = RL_OK;
    if (rc != RL_OK) {
        snprintf(err, errlen, "%s", io->error(io->ctx));
        return rc;
    }
    if (load && (rc = rl_state_check_u("host/eval_due", due, 0, 1, err, errlen))) return rc;
    if (load) rs->eval_due = due;
    return RL_OK;
}

/* An env that masks: the masks of the training envs' current observations,
   each row allowing an action as the env's own rows must. */
static int mask_state(rl__vecenv *v, const rl_state_io *io, int load, char *err, size_t errlen)
{
    size_t W = v->space.mask_width;
    if (!W) return RL_OK;
    int rc = rl_state_blob(io, load, "host/", "train_mask", v->io.action_mask, (size_t)v->n * W, err, errlen);
    for (uint32_t i = 0; rc == RL_OK && load && i < v->n; i++)
        if (rl__space_check_mask(&v->space, v->io.action_mask + (size_t)i * W, i, v->agents, -1, v->desc->name,
                                 "a mask", err, errlen) != RL_OK) {
            snprintf(err, errlen, "tensor 'host/train_mask' allows no action in row %u", i);
            rc = RL_ECORRUPT;
        }
    return rc;
}

/* The host's part of a checkpoint, for exact resumes: each env's state, the
   training envs' current observations and episode bookkeeping, and the
   last evaluation.  Written only when the env can save its state. */
static int host_state(rl__run_state *rs, const rl_state_io *io, int load, char *err, size_t errlen)
{
    rl__vecenv *v = &rs->train;
    const rl_env_state_ext *te = env_state_ext(v), *ee = rs->have_eval ? env_state_ext(&rs->eval) : NULL;
    int rc = eval_due_state(rs, io, load, err, errlen);
    if (rc != RL_OK || !te || (rs->have_eval && !ee)) return rc;
    if (load) { /* a checkpoint without host state: resume approximately */
        uint64_t shape = (uint64_t)v->n * v->row_bytes;
        rc = io->get(io->ctx, "host/train_obs", RL_DTYPE_U8, 1, &shape, v->io.obs);
        if (rc == RL_ENOENT) return RL_OK;
        if (rc != RL_OK) {
            snprintf(err, errlen, "%s", io->error(io->ctx));
            return rc;
        }
        if (v->info.obs_dtype == RL_DTYPE_F32 &&
            (rc = rl_state_check_finite("host/train_obs", v->io.obs, (size_t)v->n * v->row_bytes / 4, err, errlen)))
            return rc;
    } else if (rl_state_blob(io, 0, "host/", "train_obs", v->io.obs, (size_t)v->n * v->row_bytes, err, errlen)) {
        return RL_EIO;
    }
    if ((rc = mask_state(v, io, load, err, errlen)) != RL_OK) return rc;
    struct {
        eval_result last_eval;
        int32_t pending_eval;
    } ev;
    memset(&ev, 0, sizeof ev); /* padding too: checkpoints compare byte for byte */
    ev.last_eval = rs->rep.log.last_eval;
    ev.pending_eval = rs->rep.log.pending_eval;
    if ((rc = rl_state_blob(io, load, "host/", "episode_start", v->episode_start, v->n, err, errlen)) ||
        (rc = rl_state_blob(io, load, "host/", "episode_return", v->ep_return, v->n * sizeof *v->ep_return, err,
                            errlen)) ||
        (rc = rl_state_blob(io, load, "host/", "episode_length", v->ep_length, v->n * sizeof *v->ep_length, err,
                            errlen)) ||
        (rc = rl_state_blob(io, load, "host/", "episode_stats", &v->stats, offsetof(rl__ep_stats, recent_length), err,
                            errlen)) ||
        (rc = rl_state_blob(io, load, "host/", "last_eval", &ev, sizeof ev, err, errlen)))
        return rc;
    { /* the recent episodes' lengths (absent from older checkpoints: zeros) */
        uint64_t shape = RL__RECENT;
        double *len = v->stats.recent_length;
        rc = load ? io->get(io->ctx, "host/episode_recent_length", RL_DTYPE_F64, 1, &shape, len)
                  : io->put(io->ctx, "host/episode_recent_length", RL_DTYPE_F64, 1, &shape, len);
        if (load && rc == RL_ENOENT) {
            memset(len, 0, sizeof v->stats.recent_length);
            rc = RL_OK;
        }
        if (rc != RL_OK) {
            snprintf(err, errlen, "%s", io->error(io->ctx));
            return rc;
        }
        for (uint32_t i = 0; load && i < RL__RECENT; i++)
            if ((rc = rl_state_check_f("host/episode_recent_length", len[i], 0, 1e18, err, errlen))) return rc;
    }
    if (rs->have_pool && (rc = rl__selfplay_state(&rs->pool, io, load, err, errlen)) != RL_OK) return rc;
    if (rs->searched && (rc = rl__searched_state(&rs->search, io, load, err, errlen)) != RL_OK) return rc;
    char perr[RL_ERR_MAX] = "";
    rc = load ? te->load(v->env, io, "env/", perr, sizeof perr) : te->save(v->env, io, "env/", perr, sizeof perr);
    if (rc == RL_OK && ee) {
        rc = load ? ee->load(rs->eval.env, io, "eval_env/", perr, sizeof perr)
                  : ee->save(rs->eval.env, io, "eval_env/", perr, sizeof perr);
        /* another number of eval envs than the checkpoint's: they start afresh */
        if (load && rc != RL_OK && rs->eval_episodes_set &&
            (rc = rl__vecenv_reseed(&rs->eval, rl__eval_seed(rs->set.seed), perr, sizeof perr)) == RL_OK)
            rl__log(RL_LOG_INFO, NULL, "run.eval_episodes is set anew: the evaluation envs start afresh");
    }
    if (rc != RL_OK) {
        snprintf(err, errlen, "env '%s' state: %s", rs->c->env->desc->name, perr[0] ? perr : rl_strerror(rc));
        return rc;
    }
    if (load) { /* the statistics' ring position and count index arrays */
        const rl__ep_stats *st = &v->stats;
        if ((rc = rl_state_check_u("host/episode_stats: recent_n", st->recent_n, 0, RL__RECENT, err, errlen)) ||
            (rc = rl_state_check_u("host/episode_stats: recent_pos", st->recent_pos, 0, RL__RECENT - 1, err, errlen)) ||
            (rc = rl_state_check_u("host/episode_stats: n", st->n, 0, st->episodes, err, errlen)) ||
            (rc = rl_state_check_i("host/last_eval: pending", ev.pending_eval, 0, 1, err, errlen)))
            return rc;
        rs->rep.log.last_eval = ev.last_eval;
        rs->rep.log.pending_eval = ev.pending_eval;
        rs->envs_restored = 1;
    }
    return RL_OK;
}

int rl__run_eval_envs(rl__run_state *rs, rl__ckpt *snap, int load)
{
    const rl_env_state_ext *ee = env_state_ext(&rs->eval);
    if (!ee) return RL_OK;
    rl_state_io io;
    rl__ckpt_io(snap, &io);
    char perr[RL_ERR_MAX] = "";
    int rc = load ? ee->load(rs->eval.env, &io, "eval_env/", perr, sizeof perr)
                  : ee->save(rs->eval.env, &io, "eval_env/", perr, sizeof perr);
    if (rc != RL_OK) snprintf(rs->err, sizeof rs->err, "env '%s' state: %s", rs->c->env->desc->name, perr);
    return rc;
}

static int host_state_load(void *ctx, const rl_state_io *io, char *err, size_t errlen)
{
    return host_state(ctx, io, 1, err, errlen);
}

/* MPI: the state of the other ranks' replicas travels to rank 0 for the
   checkpoint, as a table of tensors and their bytes; rank 0 adds them to
   io after its own, so the file lists replica 0, 1, 2, ... as a one-process
   run does.  Collective: every rank calls it at every checkpoint (rank 0
   with io NULL when its own part failed). */
int rl__run_gather_state(rl__run_state *rs, const rl_state_io *io)
{
    if (rl__world_size() == 1 || !rs->state_ext) return RL_OK;
    rl__ckpt mine;
    memset(&mine, 0, sizeof mine);
    uint64_t n = 0;
    int rc = RL_OK;
    char perr[RL_ERR_MAX] = "";
    if (!rs->set.writer) {
        rl_state_io mio;
        rl__ckpt_io(&mine, &mio);
        rc = rl__replicas_state(&rs->reps, rs->state_ext, &mio, 0, perr, sizeof perr);
        n = rc == RL_OK ? mine.n : UINT64_MAX;
        if (rc != RL_OK)
            rl__log(RL_LOG_ERROR, NULL, "rank %u: algo '%s' could not save its state: %s", rl__world_rank(),
                    rs->c->algo->desc->name, perr);
    }
    size_t tab = n == UINT64_MAX ? 0 : (size_t)n * sizeof *mine.tensors;
    size_t bytes = sizeof n + tab + (n == UINT64_MAX ? 0 : mine.data_len);
    unsigned char *blob = malloc(bytes), *all = NULL;
    size_t lens[1024];
    if (blob) {
        memcpy(blob, &n, sizeof n);
        if (tab) memcpy(blob + sizeof n, mine.tensors, tab);
        if (tab && mine.data_len) memcpy(blob + sizeof n + tab, mine.data, mine.data_len);
    }
    int grc = rl__world_gather(blob ? blob : (const void *)&n, blob ? bytes : sizeof n, &all, lens);
    free(blob);
    rl__ckpt_free(&mine);
    if (!rs->set.writer) return rc;
    if (grc != 0) {
        snprintf(rs->err, sizeof rs->err, "out of memory gathering the replicas' state");
        return RL_ENOMEM;
    }
    for (uint32_t r = 1; io && rc == RL_OK && r < rl__world_size(); r++) {
        const unsigned char *b = all;
        for (uint32_t k = 0; k < r; k++) b += lens[k];
        uint64_t m = UINT64_MAX;
        if (lens[r] >= sizeof m) memcpy(&m, b, sizeof m);
        if (m == UINT64_MAX || m > (lens[r] - sizeof m) / sizeof *mine.tensors) {
            snprintf(rs->err, sizeof rs->err, "rank %u could not save its replicas' state", r);
            rc = RL_EIO;
            break;
        }
        const unsigned char *data = b + sizeof m + m * sizeof *mine.tensors;
        size_t avail = lens[r] - sizeof m - m * sizeof *mine.tensors;
        for (uint64_t k = 0; rc == RL_OK && k < m; k++) {
            rl__ckpt_tensor t;
            memcpy(&t, b + sizeof m + k * sizeof t, sizeof t);
            t.name[sizeof t.name - 1] = 0;
            if (t.ndim > 4 || t.offset > avail || t.bytes > avail - t.offset) {
                snprintf(rs->err, sizeof rs->err, "rank %u sent a malformed state tensor", r);
                rc = RL_EIO;
            } else if ((rc = io->put(io->ctx, t.name, t.dtype, t.ndim, t.shape, data + t.offset)) != RL_OK) {
                snprintf(rs->err, sizeof rs->err, "%s", io->error(io->ctx));
            }
        }
    }
    free(all);
    return rc;
}

/* Every checkpoint is preceded by the metrics up to its step, durably: a
   resume cuts metrics.csv back to the checkpoint's step, so after a kill at
   any instant no row is lost or doubled. */
/* The metadata and the algorithm's state of a checkpoint of this step into
   ck (what a checkpoint and a self-play snapshot share).  RL_OK, or an
   error with the sentence in rs->err. */
static int build_ckpt(rl__run_state *rs, rl__ckpt *ck, rl_state_io *io)
{
    const rl__config *c = rs->c;
    char num[32];
    rl__sbuf cfg = {0};
    rl__config_format(c, &cfg);
    int rc = cfg.oom ? RL_ENOMEM : RL_OK;
    if (!rc) rc = rl__ckpt_meta(ck, "rlhost.config", cfg.data);
    rl__sbuf_free(&cfg);
    if (!rc) rc = rl__ckpt_meta(ck, "rlhost.version", RLHOST_VERSION);
    snprintf(num, sizeof num, "%d.%d", RL_ABI_MAJOR, RL_ABI_MINOR);
    if (!rc) rc = rl__ckpt_meta(ck, "rlhost.abi", num);
    if (!rc) rc = rl__ckpt_meta(ck, "rlhost.env", c->env->desc->name);
    if (!rc) rc = rl__ckpt_meta(ck, "rlhost.env_version", c->env->desc->version);
    if (!rc) rc = rl__ckpt_meta(ck, "rlhost.algo", c->algo->desc->name);
    if (!rc) rc = rl__ckpt_meta(ck, "rlhost.algo_version", c->algo->desc->version);
    snprintf(num, sizeof num, "%llu", (unsigned long long)rs->steps);
    if (!rc) rc = rl__ckpt_meta(ck, "rlhost.step", num);
    if (!rc) rc = rl__ckpt_meta(ck, "rlhost.phase", rs->final_phase ? "final" : "training");
    char reps[16];
    snprintf(reps, sizeof reps, "%u", rs->reps.count);
    if (!rc) rc = rl__ckpt_meta(ck, "rlhost.replicas", reps);
    char eps[32];
    snprintf(eps, sizeof eps, "%llu", (unsigned long long)rs->train.stats.episodes);
    if (!rc) rc = rl__ckpt_meta(ck, "rlhost.episodes", eps);
    { /* what the policy reads and chooses, for readers without rlhost */
        const rl_env_info *in = &rs->train.info;
        rl__sbuf obs = {0};
        rl__sbuf_printf(&obs, "{\"dtype\":\"%s\",\"shape\":[", in->obs_dtype == RL_DTYPE_U8 ? "U8" : "F32");
        for (uint32_t k = 0; k < in->obs_ndim && k < 4; k++)
            rl__sbuf_printf(&obs, "%s%u", k ? "," : "", in->obs_shape[k]);
        rl__sbuf_printf(&obs, "],\"scale\":%.9g", (double)in->obs_scale);
        rl__parts_json(&rs->train.parts, &obs);
        rl__sbuf_puts(&obs, "}");
        if (!rc) rc = obs.oom ? RL_ENOMEM : rl__ckpt_meta(ck, "rlhost.observation", obs.data);
        rl__sbuf_free(&obs);
        rl__sbuf space = {0};
        rl__space_json(&rs->train.space, &space);
        if (!rc) rc = space.oom ? RL_ENOMEM : rl__ckpt_meta(ck, "rlhost.action_space", space.data);
        rl__sbuf_free(&space);
    }
    rl__ckpt_io(ck, io);
    if (rc) {
        snprintf(rs->err, sizeof rs->err, "%s", rc == RL_ENOMEM ? "out of memory building the checkpoint" : ck->err);
    } else if (rs->state_ext) {
        char perr[RL_ERR_MAX] = "";
        rc = rl__replicas_state(&rs->reps, rs->state_ext, io, 0, perr, sizeof perr);
        if (rc)
            snprintf(rs->err, sizeof rs->err, "algo '%s' could not save its state: %s", c->algo->desc->name,
                     perr[0] ? perr : rl_strerror(rc));
    }
    return rc;
}

int rl__run_snapshot(rl__run_state *rs)
{
    rl__selfplay *p = &rs->pool;
    if (!rs->set.writer) return RL_OK;
    if (mkdir(p->dir, 0755) != 0 && errno != EEXIST) { /* made again if it was removed */
        snprintf(rs->err, sizeof rs->err, "cannot make the self-play pool %s: %s", p->dir, strerror(errno));
        return RL_EIO;
    }
    rl__ckpt ck;
    memset(&ck, 0, sizeof ck);
    char path[4300], name[64];
    snprintf(name, sizeof name, "step-%015llu.safetensors", (unsigned long long)rs->steps);
    rl__selfplay_path(p, rs->steps, path, sizeof path);
    ck.path = path;
    rl_state_io io;
    int rc = build_ckpt(rs, &ck, &io);
    int fd = rc == RL_OK ? open(p->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
    if (rc == RL_OK && fd < 0) {
        snprintf(rs->err, sizeof rs->err, "cannot open the self-play pool %s: %s", p->dir,
                 errno == ELOOP || errno == ENOTDIR ? "it is no longer a directory of the run's own" : strerror(errno));
        rc = RL_EIO;
    }
    if (rc == RL_OK) rc = rl__ckpt_write(&ck, (rl__dir){fd, p->dir}, name, NULL, rs->err, sizeof rs->err);
    if (fd >= 0) close(fd);
    rl__ckpt_free(&ck);
    if (rc == RL_OK) rc = rl__selfplay_add(p, rs->steps, rs->err, sizeof rs->err);
    if (rc == RL_OK) rl__table_settle(rs->train.table);
    return rc;
}

int rl__run_checkpoint(rl__run_state *rs)
{
    if (!rs->set.writer) return rl__run_gather_state(rs, NULL);
    if (rl__report_write(&rs->rep, 1) != RL_OK) {
        rl__run_gather_state(rs, NULL);
        return RL_EIO;
    }
    char path[4200], num[32];
    snprintf(path, sizeof path, "%s/checkpoint.safetensors", rs->set.out_dir);
    snprintf(num, sizeof num, "%llu", (unsigned long long)rs->steps);
    rl__ckpt ck, replay;
    memset(&ck, 0, sizeof ck);
    memset(&replay, 0, sizeof replay);
    ck.path = path;
    ck.side = &replay;
    ck.to_side = rl__is_replay_tensor;
    rl_state_io io;
    int rc = build_ckpt(rs, &ck, &io);
    int grc = rl__run_gather_state(rs, rc ? NULL : &io);
    if (!rc) rc = grc;
    if (!rc && rs->state_ext) rc = host_state(rs, &io, 0, rs->err, sizeof rs->err);
    /* The replay buffer (save_replay) goes to its own file, written first
       and stamped with the step: a resume pairs the checkpoint with the
       replay of its step (this file or the previous one kept beside it). */
    if (!rc && replay.n) {
        rc = rl__ckpt_meta(&replay, "rlhost.step", num);
        if (rc)
            snprintf(rs->err, sizeof rs->err, "%s",
                     rc == RL_ENOMEM ? "out of memory building the checkpoint" : replay.err);
        else
            /* replay.prev stays when it is the replay of the checkpoint on
               disk (the newer file an orphan of a cut-off write): pushing it
               out would leave that checkpoint no replay to resume with */
            rc = rl__ckpt_write(&replay, run_dir(rs), "replay.safetensors",
                                rs->replay_keep_prev ? NULL : "replay.prev.safetensors", rs->err, sizeof rs->err);
    }
    if (!rc)
        rc = rl__ckpt_write(&ck, run_dir(rs), "checkpoint.safetensors",
                            rs->ckpt_keep_prev ? NULL : "checkpoint.prev.safetensors", rs->err, sizeof rs->err);
    if (!rc) rs->ckpt_keep_prev = rs->replay_keep_prev = 0; /* the new pair is whole */
    /* the pool's files, now that a checkpoint names the pool as it is */
    if (!rc && rs->have_pool) rc = rl__selfplay_sweep(&rs->pool, rs->err, sizeof rs->err);
    rl__ckpt_free(&replay);
    rl__ckpt_free(&ck);
    return rc;
}

static int replicas_load(void *ctx, const rl_algo_state_ext *ext, const rl_state_io *io, char *err, size_t errlen)
{
    return rl__replicas_state(ctx, ext, io, 1, err, errlen);
}

/* Restores a resumed run from its directory's checkpoint (or the previous
   one, when the newest is missing or bad) and replay. */
int rl__run_resume(rl__run_state *rs, const rl__run_opts *o)
{
    char path[4200], prev[4200], rpath[4200];
    snprintf(path, sizeof path, "%s/checkpoint.safetensors", o->resume_dir);
    snprintf(prev, sizeof prev, "%s/checkpoint.prev.safetensors", o->resume_dir);
    snprintf(rpath, sizeof rpath, "%s/replay.safetensors", o->resume_dir);
    if (faccessat(AT_FDCWD, path, F_OK, AT_SYMLINK_NOFOLLOW) != 0 &&
        faccessat(AT_FDCWD, prev, F_OK, AT_SYMLINK_NOFOLLOW) != 0) {
        snprintf(rs->err, sizeof rs->err,
                 "%s holds no checkpoint: the run stopped before its first one; start it "
                 "again with rlhost run %s/config.cfg --out %s --force",
                 o->resume_dir, o->resume_dir, o->resume_dir);
        return RL_EIO;
    }
    for (size_t k = 0; k < o->n_set_keys; k++) rs->eval_episodes_set |= !strcmp(o->set_keys[k], "run.eval_episodes");
    rl__restore r = {.path = path,
                     .prev_path = prev,
                     .replay_path = rpath,
                     .strict_config = 1,
                     .allowed = o->set_keys,
                     .n_allowed = o->n_set_keys,
                     .host_load = host_state_load,
                     .host_ctx = rs,
                     .algo_load = replicas_load,
                     .algo_ctx = &rs->reps,
                     .replicas = rs->reps.count};
    int rc = rl__ckpt_restore(&r, rs->c, rs->algo, rs->err, sizeof rs->err);
    if (rc != RL_OK) return rc;
    /* A checkpoint at the target written before training_done (a periodic
       one) resumes into the end of the run; a final one whose summary does
       not say done (killed or interrupted in the final evaluation) redoes
       that evaluation.  Checkpoints older than rlhost.phase at the target
       were final. */
    rs->final_phase = r.step >= rs->set.target && r.phase != RL__PHASE_TRAINING;
    if (rs->final_phase && rs->set.writer && rl__report_says_done(&rs->rep)) {
        snprintf(rs->err, sizeof rs->err,
                 "the run in %s is complete at step %llu (run.steps = %llu); "
                 "--set run.steps=N with a larger N trains on",
                 o->resume_dir, (unsigned long long)r.step, (unsigned long long)rs->set.target);
        return RL_ECONFIG;
    }
    rs->steps = r.step;
    rs->ckpt_keep_prev = r.used == r.prev_path;
    rs->replay_keep_prev = r.replay_from_prev;
    if (!rs->envs_restored) rs->train.stats.episodes = r.episodes;
    if (r.missing_replay)
        rl__log(RL_LOG_WARN, NULL,
                "%s has no replay of step %llu: the replay buffer starts empty, so "
                "the resumed run is close to, not identical with, an uninterrupted one",
                o->resume_dir, (unsigned long long)r.step);
    rl__report_load(&rs->rep, rs->steps);
    rs->rep.log.last_step = rs->start_steps = rs->steps;
    if (!rs->set.quiet)
        rl__say("rlhost: resuming %s at step %llu (%s)", o->resume_dir, (unsigned long long)rs->steps,
                rs->envs_restored ? "envs restored exactly" : "envs start fresh episodes");
    return RL_OK;
}
