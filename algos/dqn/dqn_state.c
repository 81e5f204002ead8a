/* DQN's checkpoints and policy description; see dqn.h. */
#include <stdio.h>
#include <string.h>

#include "dqn.h"

/* Loaded priorities index the replay: every leaf and the running maximum
   are checked before anything samples from them. */
static int priorities_validate(dqn *d, char *err, size_t errlen)
{
    if (!d->prioritized) return RL_OK;
    int64_t bad = sumtree_rebuild(&d->tree, rl_replay_size(&d->rb));
    if (bad >= 0) {
        RL_ERRF(err, errlen, "tensors 'replay/priority_sum' and 'replay/priority_min' hold a bad priority at leaf %lld",
                (long long)bad);
        return RL_ECORRUPT;
    }
    if (!(d->max_priority > 0)) {
        RL_ERRF(err, errlen, "tensor 'state/max_priority' holds %g, not a positive priority", d->max_priority);
        return RL_ECORRUPT;
    }
    return RL_OK;
}

/* Loaded masks: every stored slot's allows an action, as the host checked
   when they were written; the replay's actions are in range already. */
static int masks_validate(dqn *d, char *err, size_t errlen)
{
    uint32_t A = d->mask_width, size = rl_replay_size(&d->rb);
    for (uint32_t s = 0; s < size; s++) {
        const uint8_t *m = d->next_masks + (size_t)s * A;
        uint32_t a = 0;
        while (a < A && !m[a]) a++;
        if (a == A) {
            RL_ERRF(err, errlen, "tensor 'replay/next_masks' allows no action in slot %u", s);
            return RL_ECORRUPT;
        }
    }
    return RL_OK;
}

/* The greedy policy as rlhost.policy/1 (docs/run-directory.md,
   "Checkpoints describe their policy"): ops over the online network's tensors, then argmax. */
static int dqn_describe(const dqn *d, const rl_state_io *io, char *err, size_t errlen)
{
    char ops[4096] = "";
    int rc = qnet_ops(&d->q, ops, sizeof ops);
    char json[4608];
    int n = snprintf(json, sizeof json,
                     "{\"format\":\"rlhost.policy/1\",\"algo\":\"dqn\",\"input\":{\"size\":%u,"
                     "\"normalize\":null},\"outputs\":{\"q\":[%s]},\"greedy\":{\"argmax\":\"q\"},"
                     "\"eval_epsilon\":%.9g}",
                     d->obs_size, ops, (double)d->eval_eps);
    if (rc || n < 0 || (size_t)n >= sizeof json) {
        RL_ERRF(err, errlen, "the network is too large to describe");
        return RL_EINVAL;
    }
    return rl_state_meta(io, "policy", json, err, errlen);
}

/* Checkpoints: networks, optimizer, RNGs, counters, metric sums, keep_best;
   with save_replay also the replay ring and priorities (into "replay/...",
   which the host writes to replay.safetensors), so a resume is exact. */
int dqn_state(dqn *d, const rl_state_io *io, int load, char *err, size_t errlen)
{
    int rc;
    if (!load && (rc = dqn_describe(d, io, err, errlen))) return rc;
    /* An instance made to act (eval, play, an opponent): what acting reads,
       the online network, and what acting changes, the evaluation's stream,
       which alone it saves (an opponent's state in its learner's checkpoint). */
    if (d->inference) {
        if (load && (rc = rl_params_load(&d->online, io, "", err, errlen))) return rc;
        return rl_rng_state(&d->explore_eval, io, load, "state/rng_eval", err, errlen);
    }
    if (load) {
        if ((rc = rl_params_load(&d->online, io, "", err, errlen)) ||
            (rc = rl_params_load(&d->target, io, "target/", err, errlen)) ||
            (rc = rl_adam_load(&d->adam, &d->online, io, err, errlen)))
            return rc;
    } else if ((rc = rl_params_save(&d->online, io, "", err, errlen)) ||
               (rc = rl_params_save(&d->target, io, "target/", err, errlen)) ||
               (rc = rl_adam_save(&d->adam, &d->online, io, err, errlen))) {
        return rc;
    }
    rl_rng *rngs[3] = {&d->explore, &d->explore_eval, &d->sample};
    static const char *const rng_names[3] = {"state/rng_explore", "state/rng_eval", "state/rng_sample"};
    for (int k = 0; k < 3; k++)
        if ((rc = rl_rng_state(rngs[k], io, load, rng_names[k], err, errlen))) return rc;
    double v[6] = {(double)d->vsteps, (double)d->last_target, (double)d->grad_steps, d->ratio_acc,
                   d->epsilon,        d->max_priority};
    static const char *const names[6] = {"state/vector_steps", "state/last_target_update",
                                         "state/grad_steps",   "state/ratio_acc",
                                         "state/epsilon",      "state/max_priority"};
    for (int k = 0; k < 6; k++)
        if ((rc = rl_scalar_state(&v[k], io, load, names[k], err, errlen))) return rc;
    /* counters fit a uint64; the update ratio's carry and epsilon are fractions */
    static const double hi[6] = {9e18, 9e18, 9e18, 1, 1, 1e300};
    for (int k = 0; load && k < 6; k++)
        if ((rc = rl_state_check_f(names[k], v[k], 0, hi[k], err, errlen))) return rc;
    if (load) {
        d->vsteps = (uint64_t)v[0];
        d->last_target = (uint64_t)v[1];
        d->grad_steps = (uint64_t)v[2];
        d->ratio_acc = v[3];
        d->epsilon = v[4];
        d->max_priority = v[5];
    }
    /* What the next metrics row averages, and keep_best's snapshot. */
    struct {
        double m_loss, m_q, m_w;
        uint64_t m_n, skipped;
    } acc;
    memset(&acc, 0, sizeof acc); /* padding too: checkpoints compare byte for byte */
    acc.m_loss = d->m_loss, acc.m_q = d->m_q, acc.m_w = d->m_w;
    acc.m_n = d->m_n, acc.skipped = d->skipped;
    if ((rc = rl_state_blob(io, load, "state/", "accumulators", &acc, sizeof acc, err, errlen))) return rc;
    if (load) {
        d->m_loss = acc.m_loss, d->m_q = acc.m_q, d->m_w = acc.m_w;
        d->m_n = acc.m_n, d->skipped = acc.skipped;
    }
    if ((rc = rl_keep_best_state(&d->kb, io, load, err, errlen))) return rc;
    /* A resume asks for the replay even without save_replay, so the host
       can warn when there is none.  No replay beside the checkpoint (a run
       without save_replay, or its file gone): the buffer starts empty. */
    if (!load && !d->save_replay) return RL_OK;
    rc = rl_replay_state(&d->rb, io, load, d->n_actions, NULL, NULL, err, errlen);
    if (rc == RL_ENOENT) return RL_OK;
    if (rc) return rc;
    if (d->next_masks) {
        size_t bytes = (size_t)d->rb.capacity * d->mask_width;
        if ((rc = rl_state_blob(io, load, "replay/", "next_masks", d->next_masks, bytes, err, errlen))) return rc;
        if (load && (rc = masks_validate(d, err, errlen))) return rc;
    }
    if (d->prioritized) {
        size_t nodes = 2 * (size_t)d->tree.capacity * sizeof(double);
        if ((rc = rl_state_blob(io, load, "replay/", "priority_sum", d->tree.sum, nodes, err, errlen)) ||
            (rc = rl_state_blob(io, load, "replay/", "priority_min", d->tree.min, nodes, err, errlen)))
            return rc;
    }
    return load ? priorities_validate(d, err, errlen) : RL_OK;
}
