/* Trained policies for the embedding program (rlh_policy_*): a run's
   algorithm restored from its checkpoint, acting on the caller's rows. */
#define _GNU_SOURCE
#include "embed/embed_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <rlhost/nn.h> /* rl_params_find_nonfinite */
#include <rlhost/rlcore.h>

#include "base/text.h"
#include "checkpoint/restore.h"
#include "run/eval.h"
#include "checkpoint/source.h"

static int load_policy_config(rlh_host *h, const char *path, rl__override *ov, size_t n_ov, rl__config *c,
                              rl__run_paths *rp, char *err, size_t errlen)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        rl__embed_err(err, errlen, "%s does not exist (a run directory or a checkpoint file)%s", path, "");
        return RL_EIO;
    }
    rl__sbuf errors = {0};
    int rc;
    if (rl__source_of(path, rp) == RL__SOURCE_RUN_DIR) {
        rc = rl__config_load(c, rp->config, ov, n_ov, &h->reg, &errors);
    } else { /* anything else is read as a checkpoint: its reader says what is wrong with it */
        rl__source_checkpoint_file(path, rp);
        rc = rl__source_checkpoint_config(c, path, ov, n_ov, &h->reg, &errors);
    }
    if (rc != RL_OK) rl__embed_errors(err, errlen, &errors);
    rl__sbuf_free(&errors);
    return rc;
}

rlh_policy *rlh_policy_open(rlh_host *h, const char *path, uint32_t num_envs, const char *const *overrides,
                            size_t n_overrides, char *err, size_t errlen)
{
    if (!h || !path || num_envs == 0 || n_overrides > 64) {
        rl__embed_err(err, errlen, "rlh_policy_open needs a host, a path, num_envs >= 1 and at most 64 overrides%s%s",
                      "", "");
        return NULL;
    }
    rlh_policy *p = calloc(1, sizeof *p);
    char *copies[64] = {0};
    rl__override ov[64];
    const char *keys[64];
    int ok = p != NULL;
    if (!ok) rl__embed_err(err, errlen, "out of memory%s%s", "", "");
    if (ok && rl__embed_parse_overrides(overrides, n_overrides, ov, keys, copies, err, errlen) != 0) ok = -1;
    rl__run_paths rp;
    if (ok == 1 && load_policy_config(h, path, ov, n_overrides, &p->cfg, &rp, err, errlen) != RL_OK) ok = -1;
    rlh_policy *out = NULL;
    if (ok == 1) p->h = h;
    if (ok == 1) {
        rl__config *c = &p->cfg;
        char e[RL_ERR_MAX] = "";
        uint32_t repeat = (uint32_t)c->env_host_stages.vals[RL__ENVST_ACTION_REPEAT].i;
        /* an env with seats: the learner's view, against random play */
        rl__seating seating = rl__seating_of(c, "random", 0, NULL, (uint64_t)c->run.vals[RL__RUN_SEED].i);
        if (rl__vecenv_create_seated(&p->probe, c->env->desc, c->env_opts.vals, c->env_stages.vals, 1,
                                     (uint64_t)c->run.vals[RL__RUN_SEED].i, 1, repeat, &seating, e,
                                     sizeof e) != RL_OK) {
            rl__embed_err(err, errlen, "%s%s", e, "");
        } else {
            rl__restore r = {.path = rp.checkpoint,
                             .prev_path = rp.prev[0] ? rp.prev : NULL,
                             .allowed = keys,
                             .n_allowed = n_overrides,
                             .keep = &p->ckpt};
            p->algo = rl__policy_open(c, &p->probe.info, num_envs, &r, err, errlen);
            p->step = r.step;
            p->avt = c->algo->desc->vtable;
            p->n = num_envs;
            p->no_start = calloc(num_envs, 1);
            if (p->algo && !p->no_start) rl__embed_err(err, errlen, "out of memory%s%s", "", "");
            if (p->algo && p->no_start) out = p;
        }
    }
    for (size_t i = 0; i < n_overrides; i++) free(copies[i]);
    if (!out) rlh_policy_close(p);
    return out;
}

void rlh_policy_close(rlh_policy *p)
{
    if (!p) return;
    if (p->algo) p->avt->destroy(p->algo);
    if (p->probe.env) rl__vecenv_destroy(&p->probe);
    rl__config_destroy(&p->cfg);
    free(p->no_start);
    rl__ckpt_free(&p->ckpt);
    free(p->ckpt_bytes);
    free(p);
}

int rlh_policy_checkpoint(rlh_policy *p, const void **data, size_t *len, char *err, size_t errlen)
{
    if (!p->ckpt_bytes) {
        char e[RL_ERR_MAX] = "";
        int rc = rl__ckpt_serialize(&p->ckpt, "the loaded checkpoint", &p->ckpt_bytes, &p->ckpt_len, e, sizeof e);
        if (rc != RL_OK) {
            rl__embed_err(err, errlen, "%s%s", e, "");
            return rc;
        }
    }
    *data = p->ckpt_bytes;
    *len = p->ckpt_len;
    return RL_OK;
}

const rl_env_info *rlh_policy_info(const rlh_policy *p)
{
    return &p->probe.info;
}
const char *rlh_policy_env_name(const rlh_policy *p)
{
    return p->cfg.env->desc->name;
}
const char *rlh_policy_algo_name(const rlh_policy *p)
{
    return p->cfg.algo->desc->name;
}
uint64_t rlh_policy_step(const rlh_policy *p)
{
    return p->step;
}

int rlh_policy_act(rlh_policy *p, const void *obs, const uint8_t *episode_start, void *actions, uint32_t count,
                   char *err, size_t errlen)
{
    return rlh_policy_act_masked(p, obs, episode_start, NULL, actions, count, err, errlen);
}

int rlh_policy_act_masked(rlh_policy *p, const void *obs, const uint8_t *episode_start, const uint8_t *masks,
                          void *actions, uint32_t count, char *err, size_t errlen)
{
    if (count > p->n) {
        if (err && errlen) snprintf(err, errlen, "act for %u rows; the policy was opened for %u", count, p->n);
        return RL_EINVAL;
    }
    const rl_env_info *info = &p->probe.info;
    char e[RL_ERR_MAX] = "";
    if (p->probe.parts.n) { /* a composite row: float parts finite, categories in range */
        int rc = rl__parts_check_rows(&p->probe.parts, obs, count, p->probe.row_bytes, 1, "the caller's observation", e,
                                      sizeof e);
        if (rc != RL_OK) {
            rl__embed_err(err, errlen, "%s%s", e, "");
            return RL_EINVAL;
        }
    }
    long bad = info->obs_dtype == RL_DTYPE_F32 ? rl_params_find_nonfinite(obs, (size_t)count * info->obs_size) : -1;
    if (bad >= 0) { /* a network would turn it into some action, silently */
        if (err && errlen)
            snprintf(err, errlen, "observation row %zu, element %zu holds %g: observations must be finite",
                     (size_t)bad / info->obs_size, (size_t)bad % info->obs_size, (double)((const float *)obs)[bad]);
        return RL_EINVAL;
    }
    const rl__space *space = &p->probe.space;
    for (uint32_t i = 0; masks && space->mask_width && i < count; i++) {
        int rc = rl__space_check_mask(space, masks + (size_t)i * space->mask_width, i, 1, -1, rlh_policy_env_name(p),
                                      "a mask", e, sizeof e);
        if (rc != RL_OK) { /* the sentence says the env wrote it: here the caller did */
            char row[16];
            snprintf(row, sizeof row, "%u", i);
            rl__embed_err(err, errlen, "the caller's mask row %s allows no action%s", row, "");
            return rc;
        }
    }
    int rc = rl__space_act(space, p->avt, p->algo, RL_MODE_EVAL, obs, episode_start ? episode_start : p->no_start,
                           masks, actions, count, e, sizeof e);
    if (rc == RL_OK && space->kind != RL_SPACE_BOX) /* what the env would take */
        rc = rl__space_check_actions(space, actions, masks, count, 1, "algo", e, sizeof e);
    /* a box: what the env would take, inside the box (as the host clips for it) */
    if (rc == RL_OK && p->probe.space.kind == RL_SPACE_BOX)
        rc = rl__space_clip(&p->probe.space, actions, actions, count, 1, "algo", e, sizeof e);
    if (rc != RL_OK) rl__embed_err(err, errlen, "%s%s", e[0] ? e : rl_strerror(rc), "");
    return rc;
}

rlh_vec *rlh_policy_vec(rlh_policy *p, uint32_t num_envs, uint64_t seed, char *err, size_t errlen)
{
    /* the vec gets a config of its own (the policy's, resolved again), so
       either can be closed first */
    rl__sbuf text = {0};
    rl__config_format(&p->cfg, &text);
    char n[16];
    snprintf(n, sizeof n, "%u", num_envs);
    rl__override ov = {"env.num_envs", n};
    rlh_vec *v = rl__embed_vec_from_text(p->h, p->cfg.path, &text, &ov, 1, num_envs, seed, 1, err, errlen);
    rl__sbuf_free(&text);
    return v;
}
