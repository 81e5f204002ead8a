/* Trained policies for the embedding program (rlh_policy_*): a run's
   algorithm restored from its checkpoint, acting on the caller's rows. */
#define _GNU_SOURCE
#include "embed/embed_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
    rl__search_actor_close(&p->search);
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

int rlh_policy_tensor(const rlh_policy *p, size_t i, rlh_tensor *out)
{
    if (i >= p->ckpt.n || !out || out->struct_size < sizeof *out) return RL_ENOENT;
    const rl__ckpt_tensor *t = &p->ckpt.tensors[i];
    out->name = t->name;
    out->dtype = (int)t->dtype;
    out->ndim = t->ndim;
    memcpy(out->shape, t->shape, sizeof out->shape);
    out->data = p->ckpt.data + t->offset;
    out->bytes = t->bytes;
    return RL_OK;
}

int rlh_policy_meta(const rlh_policy *p, size_t i, const char **key, const char **value)
{
    if (i >= p->ckpt.n_meta) return RL_ENOENT;
    *key = p->ckpt.meta_key[i];
    *value = p->ckpt.meta_val[i];
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
    /* what the env would take: allowed, and inside the box (as the host clips for it) */
    if (rc == RL_OK) rc = rl__space_settle(space, actions, actions, masks, count, 1, "algo", e, sizeof e);
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

/* The search rlh_policy_search asks for, opened anew when the spec or the
   vec changed (the searches' count carries on). */
static int search_for(rlh_policy *p, const rlh_vec *v, const char *spec, char *err, size_t errlen)
{
    if (p->search.s && p->search_vec == v && !strcmp(p->search_spec, spec)) return RL_OK;
    rl__search_actor_close(&p->search);
    p->search_vec = NULL;
    rl__search_opts o = rl__search_defaults();
    char e[RL_ERR_MAX] = "";
    int rc = rl__search_opts_parse(&o, spec, "rlh_policy_search", e, sizeof e);
    if (rc == RL_OK && strlen(spec) >= sizeof p->search_spec) {
        snprintf(e, sizeof e, "rlh_policy_search: the spec is longer than %zu bytes", sizeof p->search_spec - 1);
        rc = RL_ECONFIG;
    }
    if (rc == RL_OK) rc = rl__search_check(v->v.desc, &v->v.info, p->cfg.algo->desc, e, sizeof e);
    if (rc == RL_OK && strcmp(v->v.desc->name, p->cfg.env->desc->name)) {
        snprintf(e, sizeof e, "the policy was trained on env '%s'; the vec is of env '%s'", p->cfg.env->desc->name,
                 v->v.desc->name);
        rc = RL_EINVAL;
    }
    if (rc != RL_OK) {
        rl__embed_err(err, errlen, "%s%s", e, "");
        return rc;
    }
    p->search = (rl__search_actor){.opts = o,
                                   .algo_desc = p->cfg.algo->desc,
                                   .seed = rl__eval_seed((uint64_t)p->cfg.run.vals[RL__RUN_SEED].i),
                                   .calls = p->search_calls};
    snprintf(p->search_spec, sizeof p->search_spec, "%s", spec);
    p->search_vec = v;
    return RL_OK;
}

int rlh_policy_search(rlh_policy *p, rlh_vec *v, const char *spec, int32_t *actions, char *err, size_t errlen)
{
    if (!p || !v || !spec || !actions) {
        rl__embed_err(err, errlen, "rlh_policy_search needs a policy, a vec, a spec and actions%s%s", "", "");
        return RL_EINVAL;
    }
    int rc = search_for(p, v, spec, err, errlen);
    if (rc != RL_OK) return rc;
    const rl__vecenv *ve = &v->v;
    uint32_t n = ve->n, movers = 0, A = ve->info.n_actions;
    size_t rb = ve->row_bytes, mw = ve->space.mask_width;
    uint32_t *where = malloc(2 * (size_t)n * sizeof *where);
    uint8_t *obs = malloc((size_t)n * rb + (size_t)n * A + 1), *masks = obs ? obs + (size_t)n * rb : NULL;
    int32_t *picked = malloc((size_t)n * sizeof *picked);
    if (!where || !obs || !picked) rc = RL_ENOMEM;
    for (uint32_t r = 0; rc == RL_OK && r < n; r++) {
        actions[r] = -1;
        if (ve->to_move && !ve->to_move[r]) continue;
        where[movers] = r / ve->agents, where[n + movers] = r % ve->agents;
        memcpy(obs + (size_t)movers * rb, (const uint8_t *)ve->io.obs + (size_t)r * rb, rb);
        if (mw) memcpy(masks + (size_t)movers * A, ve->io.action_mask + (size_t)r * mw, A);
        movers++;
    }
    char e[RL_ERR_MAX] = "";
    if (rc == RL_OK && movers > p->n) {
        snprintf(e, sizeof e, "%u rows are to move; the policy was opened for %u", movers, p->n);
        rc = RL_EINVAL;
    }
    rl__env_site site = {ve->desc, ve->options, ve->stages, &ve->info, ve->vt, ve->env, ve->boards};
    if (rc == RL_OK && movers)
        rc = rl__search_actor_act(&p->search, &site, p->n, p->avt, p->algo, where, where + n, obs, mw ? masks : NULL,
                                  movers, picked, e, sizeof e);
    for (uint32_t r = 0, k = 0; rc == RL_OK && r < n; r++)
        if (!ve->to_move || ve->to_move[r]) actions[r] = picked[k++];
    p->search_calls = p->search.calls;
    if (rc != RL_OK) rl__embed_err(err, errlen, "%s%s", e[0] ? e : rl_strerror(rc), "");
    free(where);
    free(obs);
    free(picked);
    return rc;
}
