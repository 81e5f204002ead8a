/* PPO's checkpoints: networks, optimizer, RNGs, update count, the
   rollout so far and the LSTM states (so a resume is exact), keep_best and
   the observation statistics; and the policy's description for readers
   without rlhost. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ppo.h"

/* Checkpoints: networks, optimizer, RNGs, update count, and (below) the
   rollout so far and the LSTM states, so a resume is exact. */
static int ppo_describe(const ppo *p, const rl_state_io *io, char *err, size_t errlen);
/* The networks, Adam, the random streams and the update count. */
static int learner_state(ppo *p, const rl_state_io *io, int load, char *err, size_t errlen)
{
    int rc;
    if ((rc = rl_params_state(&p->p, io, load, "", err, errlen)) ||
        (rc = load ? rl_adam_load(&p->adam, &p->p, io, err, errlen) : rl_adam_save(&p->adam, &p->p, io, err, errlen)))
        return rc;
    rl_rng *rngs[3] = {&p->rng, &p->eval_rng, &p->shuffle};
    static const char *const names[3] = {"state/rng_policy", "state/rng_eval", "state/rng_shuffle"};
    for (int k = 0; k < 3; k++)
        if ((rc = rl_rng_state(rngs[k], io, load, names[k], err, errlen))) return rc;
    double updates = (double)p->updates;
    if ((rc = rl_scalar_state(&updates, io, load, "state/updates", err, errlen)) ||
        (load && (rc = rl_state_check_f("state/updates", updates, 0, 9e18, err, errlen))))
        return rc;
    p->updates = (uint64_t)updates;
    return RL_OK;
}

/* The rollout so far, the LSTM states and the metric sums: with these a
   resumed run continues exactly. */
static int rollout_state(ppo *p, const rl_state_io *io, int load, char *err, size_t errlen)
{
    int rc;
    struct {
        double m_pg, m_v, m_ent, m_kl, m_clip, m_ev;
        uint64_t m_n, skipped;
        uint32_t t;
    } acc;
    memset(&acc, 0, sizeof acc); /* padding too: checkpoints compare byte for byte */
    acc.m_pg = p->m.policy_loss, acc.m_v = p->m.value_loss, acc.m_ent = p->m.entropy, acc.m_kl = p->m.approx_kl;
    acc.m_clip = p->m.clip_fraction, acc.m_ev = p->m.explained_variance;
    acc.m_n = p->m.n, acc.skipped = p->skipped, acc.t = p->ro.pos;
    if ((rc = rl_state_blob(io, load, "state/", "accumulators", &acc, sizeof acc, err, errlen))) return rc;
    if (load) {
        p->m.policy_loss = acc.m_pg, p->m.value_loss = acc.m_v, p->m.entropy = acc.m_ent, p->m.approx_kl = acc.m_kl;
        p->m.clip_fraction = acc.m_clip, p->m.explained_variance = acc.m_ev;
        p->m.n = acc.m_n, p->skipped = acc.skipped, p->ro.pos = acc.t;
        /* the rollout position indexes the rollout arrays */
        if ((rc = rl_state_check_u("state/accumulators: rollout position", p->ro.pos, 0, p->cfg.n_steps - 1, err,
                                   errlen)))
            return rc;
    }
    if ((rc = rl_rollout_arrays_state(&p->ro, io, load, err, errlen))) return rc;
    size_t TN = (size_t)p->cfg.n_steps * p->cfg.num_envs, H = p->cfg.lstm_hidden;
    if (p->cfg.sde) { /* gSDE: each env's matrix, held between draws */
        size_t n = (size_t)p->cfg.num_envs * p->cfg.latent * p->cfg.dim;
        if ((rc = rl_state_blob(io, load, "state/", "sde_matrices", p->sde_env, n * sizeof(float), err, errlen)) ||
            (load && (rc = rl_state_check_finite("state/sde_matrices", p->sde_env, n, err, errlen))))
            return rc;
    }
    /* The training LSTM states; the evaluation ones are not state: every
       evaluation starts its episodes afresh (zero states), and leaving them
       out lets `rlhost eval` load the checkpoint with any number of envs. */
    for (uint32_t k = 0; p->cfg.recurrent && k < p->cfg.n_towers; k++) {
        char name[32];
        float *arrays[4] = {p->stored_h[k], p->stored_c[k], p->live[k].h, p->live[k].c};
        size_t sizes[4] = {TN * H, TN * H, (size_t)p->cfg.num_envs * H, (size_t)p->cfg.num_envs * H};
        static const char *const what[4] = {"stored_h", "stored_c", "live_h", "live_c"};
        for (int j = 0; j < 4; j++) {
            snprintf(name, sizeof name, "%s%u", what[j], k);
            if ((rc = rl_state_blob(io, load, "rollout/", name, arrays[j], sizes[j] * 4, err, errlen)) ||
                (load && (rc = rl_state_check_finite(name, arrays[j], sizes[j], err, errlen))))
                return rc;
        }
    }
    return RL_OK;
}

/* normalize_obs and normalize_reward: the running statistics, as
   state/obs_{count,mean,var} and state/return_{count,mean,var},
   state/returns. */
static int norm_state(ppo *p, const rl_state_io *io, int load, char *err, size_t errlen)
{
    int rc;
    if (p->cfg.norm_obs && (rc = rl_obs_norm_state(&p->norm, io, load, "state/obs_", err, errlen))) return rc;
    if (p->cfg.norm_reward && !p->cfg.inference &&
        (rc = rl_return_norm_state(&p->rnorm, io, load, "state/", err, errlen)))
        return rc;
    return RL_OK;
}

int ppo_state(ppo *p, const rl_state_io *io, int load, char *err, size_t errlen)
{
    int rc;
    if (p->cfg.inference) { /* what acting reads: the networks, the eval stream, the observation statistics */
        if (!load)          /* what acting changes: the eval stream (an opponent that samples its moves) */
            return rl_rng_state(&p->eval_rng, io, 0, "state/rng_eval", err, errlen);
        if ((rc = rl_params_load(&p->p, io, "", err, errlen)) ||
            (rc = rl_rng_load(&p->eval_rng, io, "state/rng_eval", err, errlen)))
            return rc;
        return norm_state(p, io, 1, err, errlen);
    }
    if (!load && (rc = ppo_describe(p, io, err, errlen))) return rc;
    if ((rc = learner_state(p, io, load, err, errlen)) || (rc = rollout_state(p, io, load, err, errlen)) ||
        (rc = rl_keep_best_state(&p->kb, io, load, err, errlen)))
        return rc;
    return norm_state(p, io, load, err, errlen);
}

/* One tower's ops (an LSTM first when recurrent, then its MLP), appended. */
static int tower_ops(const tower *t, const char *name, char *buf, size_t cap)
{
    char pre[32];
    if (t->has_cnn) {
        snprintf(pre, sizeof pre, "%s/cnn", name);
        if (rl_cnn_ops(&t->cnn, pre, buf, cap)) return -1;
    }
    if (t->has_parts) {
        snprintf(pre, sizeof pre, "%s/parts", name);
        if (rl_parts_encoder_ops(&t->enc, pre, buf, cap)) return -1;
    }
    size_t len = strlen(buf);
    if (t->recurrent) {
        int n = snprintf(buf + len, cap - len,
                         "%s{\"op\":\"lstm\",\"weight_ih\":\"%s/lstm/weight_ih\",\"weight_hh\":\"%s/lstm/weight_hh\","
                         "\"bias\":\"%s/lstm/bias\",\"in\":%u,\"hidden\":%u,\"gates\":\"i,f,g,o\",\"state\":\"%s\"}",
                         len && buf[len - 1] == '}' ? "," : "", name, name, name, t->lstm.in_dim, t->lstm.hidden, name);
        if (n < 0 || (size_t)n >= cap - len) return -1;
    }
    snprintf(pre, sizeof pre, "%s/mlp", name);
    return rl_mlp_ops(&t->mlp, pre, buf, cap);
}

/* The policy as rlhost.policy/1 (docs/run-directory.md,
   "Checkpoints describe their policy"): input normalization, then the actor's logits and the
   critic's value as ops over the checkpoint's tensors; greedy is the argmax
   of the logits (deterministic_eval), else a sample of their softmax.  An
   "lstm" op's state (h, c) is carried from step to step of an episode and
   zero at its start; "state" names which one (actor, critic or body). */
static int ppo_describe(const ppo *p, const rl_state_io *io, char *err, size_t errlen)
{
    enum { CAP = 32768 }; /* a CNN per image part describes itself at length */
    char *actor = calloc(2, CAP), *critic = actor + CAP;
    if (!actor) {
        RL_ERRF(err, errlen, "out of memory describing the policy");
        return RL_ENOMEM;
    }
    int rc = 0;
    if (p->cfg.shared) {
        char act[32];
        snprintf(act, sizeof act, "{\"op\":\"%s\"}", rl_activation_name(p->cfg.act));
        rc = tower_ops(&p->towers[0], "body", actor, CAP);
        if (!rc && p->cfg.act != RL_ACT_NONE) rc = strlen(actor) + strlen(act) + 2 > CAP;
        if (!rc && p->cfg.act != RL_ACT_NONE) strcat(strcat(actor, ","), act);
        if (!rc) memcpy(critic, actor, CAP);
        if (!rc) rc = rl_mlp_ops(&p->head_pi, "pi", actor, CAP);
        if (!rc) rc = rl_mlp_ops(&p->head_v, "vf", critic, CAP);
    } else {
        rc = tower_ops(&p->towers[0], "actor", actor, CAP);
        if (!rc) rc = tower_ops(&p->towers[1], "critic", critic, CAP);
    }
    char greedy[2048];
    if (rc) {
        RL_ERRF(err, errlen, "the network is too large to describe");
        rc = RL_EINVAL;
    } else if (rl_mpdist_greedy(p->dist, !p->cfg.det_eval, p->cfg.shared ? "pi/log_std" : "actor/log_std", greedy,
                                sizeof greedy) < 0) {
        RL_ERRF(err, errlen, "the action space is too large to describe");
        rc = RL_EINVAL;
    }
    const char *names[2] = {p->cfg.discrete ? "logits" : "mean", "value"}, *ops[2] = {actor, critic};
    if (!rc)
        rc = rl_policy_meta(io, "ppo", p->cfg.obs_size, p->cfg.norm_obs ? "state/obs_" : NULL, 10.0f, 2, names, ops,
                            greedy, err, errlen);
    free(actor);
    return rc;
}
