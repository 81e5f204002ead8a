/* SAC's, TQC's, CrossQ's and TD3's checkpoints: the actor, critics, targets
   (CrossQ has none) and optimizers, CrossQ's renormalization step counts,
   the entropy coefficient, random streams, counters, metric sums and
   keep_best, and with save_replay the replay ring (so a resume is exact);
   loaded values that index or drive anything are checked.  And the
   policy's description for readers without rlhost: the actor's operations
   (CrossQ's with its batchnorms), SAC's mean (the first dim outputs), a
   tanh, and the rescale to the box. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ac.h"

/* The running variances (CrossQ's; none elsewhere) of what was loaded,
   which square roots take: the actor, and unless the instance only acts
   the critics and keep_best's actor, the one a run ends with.  RL_OK, or
   RL_EINVAL with the tensor named as the file stores it. */
static int running_stats(const ac *p, char *err, size_t errlen)
{
    if (rl_mlp_check_stats(&p->pi, &p->actor, "", err, errlen)) return RL_EINVAL;
    if (p->cfg.inference) return RL_OK;
    for (uint32_t j = 0; j < p->cfg.n_critics; j++)
        if (rl_mlp_check_stats(&p->q[j], &p->critic, "", err, errlen)) return RL_EINVAL;
    if (p->kb.enabled && rl_mlp_check_stats(&p->pi, &p->kb.best, "best/", err, errlen)) return RL_EINVAL;
    return RL_OK;
}

static int networks(ac *p, const rl_state_io *io, int load, char *err, size_t errlen)
{
    int rc;
    int td3 = p->cfg.kind == AC_TD3, crossq = p->cfg.kind == AC_CROSSQ;
#define PARAMS(net, prefix) rl_params_state(net, io, load, prefix, err, errlen)
    if ((rc = PARAMS(&p->actor, "")) || (rc = PARAMS(&p->critic, "")) ||
        (!crossq && (rc = PARAMS(&p->critic_t, "target/"))) || (td3 && (rc = PARAMS(&p->actor_t, "target/"))))
        return rc;
#undef PARAMS
    if ((rc = rl_adam_state(&p->adam_actor, &p->actor, io, load, "adam_actor/", err, errlen)) ||
        (rc = rl_adam_state(&p->adam_critic, &p->critic, io, load, "adam_critic/", err, errlen)))
        return rc;
    return RL_OK;
}

static int scalars(ac *p, const rl_state_io *io, int load, char *err, size_t errlen)
{
    int rc;
    rl_rng *rngs[3] = {&p->explore, &p->explore_eval, &p->sample};
    static const char *const rng_names[3] = {"state/rng_explore", "state/rng_eval", "state/rng_sample"};
    for (int k = 0; k < 3; k++)
        if ((rc = rl_rng_state(rngs[k], io, load, rng_names[k], err, errlen))) return rc;
    double v[7] = {(double)p->vsteps,    (double)p->grad_steps,      (double)p->skipped,        p->ratio_acc,
                   (double)p->log_alpha, (double)p->adam_alpha.m[0], (double)p->adam_alpha.v[0]};
    static const char *const names[7] = {"state/vector_steps", "state/grad_steps", "state/skipped",
                                         "state/ratio_acc",    "state/log_alpha",  "state/alpha_adam_m",
                                         "state/alpha_adam_v"};
    static const double lo[7] = {0, 0, 0, 0, -50, -1e30, 0}, hi[7] = {9e18, 9e18, 9e18, 1, 50, 1e30, 1e30};
    for (int k = 0; k < 7; k++)
        if ((rc = rl_scalar_state(&v[k], io, load, names[k], err, errlen)) ||
            (load && (rc = rl_state_check_f(names[k], v[k], lo[k], hi[k], err, errlen))))
            return rc;
    static const char *const bn_names[2] = {"state/renorm_steps_actor", "state/renorm_steps_critic"};
    for (int k = 0; p->cfg.kind == AC_CROSSQ && k < 2; k++) { /* CrossQ's renormalization warm-up */
        double s = (double)p->bn_steps[k];
        if ((rc = rl_scalar_state(&s, io, load, bn_names[k], err, errlen)) ||
            (load && (rc = rl_state_check_f(bn_names[k], s, 0, 9e15, err, errlen))))
            return rc;
        if (load) p->bn_steps[k] = (uint64_t)s;
    }
    double t = (double)p->adam_alpha.t;
    if ((rc = rl_scalar_state(&t, io, load, "state/alpha_adam_t", err, errlen)) ||
        (load && (rc = rl_state_check_f("state/alpha_adam_t", t, 0, 9e15, err, errlen))))
        return rc;
    if (!load) return RL_OK;
    p->vsteps = (uint64_t)v[0];
    p->grad_steps = (uint64_t)v[1];
    p->skipped = (uint64_t)v[2];
    p->ratio_acc = v[3];
    p->log_alpha = (float)v[4];
    p->adam_alpha.m[0] = (float)v[5];
    p->adam_alpha.v[0] = (float)v[6];
    p->adam_alpha.t = (uint64_t)t;
    return RL_OK;
}

static int sums(ac *p, const rl_state_io *io, int load, char *err, size_t errlen)
{
    ac_sums s;
    memset(&s, 0, sizeof s); /* padding too: checkpoints compare byte for byte */
    s.critic_loss = p->m.critic_loss, s.actor_loss = p->m.actor_loss, s.q = p->m.q;
    s.entropy = p->m.entropy, s.alpha = p->m.alpha, s.n = p->m.n, s.n_actor = p->m.n_actor;
    int rc = rl_state_blob(io, load, "state/", "accumulators", &s, sizeof s, err, errlen);
    if (rc == RL_OK && load) p->m = s; /* means for a metrics row: any double is harmless */
    if (rc != RL_OK) return rc;
    if (p->cfg.ou_noise) { /* the exploration noise's state */
        size_t n = (size_t)p->cfg.num_envs * p->cfg.dim;
        if ((rc = rl_state_blob(io, load, "state/", "ou_noise", p->ws.ou, n * sizeof(float), err, errlen)) ||
            (load && (rc = rl_state_check_finite("state/ou_noise", p->ws.ou, n, err, errlen))))
            return rc;
    }
    if (!p->cfg.sde) return RL_OK;
    size_t n = (size_t)p->cfg.num_envs * p->cfg.latent * p->cfg.dim; /* gSDE: each env's matrix, held */
    if ((rc = rl_state_blob(io, load, "state/", "sde_matrices", p->ws.sde_env, n * sizeof(float), err, errlen)))
        return rc;
    return load ? rl_state_check_finite("state/sde_matrices", p->ws.sde_env, n, err, errlen) : RL_OK;
}

/* The rlhost.policy/1 description: the actor's MLP, then (SAC) its first
   dim outputs, a tanh, and the rescale into the box. */
static int describe(const ac *p, const rl_state_io *io, char *err, size_t errlen)
{
    const ac_settings *c = &p->cfg;
    char buf[16384];
    int n = snprintf(buf, sizeof buf,
                     "{\"format\":\"rlhost.policy/1\",\"algo\":\"%s\",\"input\":{\"size\":%u,"
                     "\"normalize\":null},\"outputs\":{\"action\":[",
                     c->kind == AC_TQC          ? "tqc"
                         : c->kind == AC_SAC    ? "sac"
                         : c->kind == AC_CROSSQ ? "crossq"
                                                : "td3",
                     c->obs_size);
    if (n < 0 || rl_mlp_ops(&p->pi, "actor", buf, sizeof buf) != 0) goto small;
    size_t len = strlen(buf);
    if (ac_squashed(c) && !c->sde)
        len += (size_t)snprintf(buf + len, sizeof buf - len, ",{\"op\":\"slice\",\"start\":0,\"len\":%u}", c->dim);
    if (c->sde) /* gSDE's means, clipped */
        len += (size_t)snprintf(buf + len, sizeof buf - len, ",{\"op\":\"clip\",\"min\":%g,\"max\":%g}",
                                -(double)AC_SDE_MEAN_CLIP, (double)AC_SDE_MEAN_CLIP);
    len += (size_t)snprintf(buf + len, sizeof buf - len, ",{\"op\":\"tanh\"},{\"op\":\"rescale\",\"low\":[");
    for (uint32_t k = 0; k < c->dim && len < sizeof buf; k++)
        len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%.9g", k ? "," : "", (double)c->low[k]);
    len += (size_t)snprintf(buf + len, sizeof buf - len, "],\"high\":[");
    for (uint32_t k = 0; k < c->dim && len < sizeof buf; k++)
        len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%.9g", k ? "," : "", (double)c->high[k]);
    len += (size_t)snprintf(buf + len, sizeof buf - len, "]}]},\"greedy\":{\"identity\":\"action\"}}");
    if (len >= sizeof buf) goto small;
    return rl_state_meta(io, "policy", buf, err, errlen);
small:
    RL_ERRF(err, errlen, "the policy description does not fit %zu bytes", sizeof buf);
    return RL_ENOMEM;
}

int ac_state(ac *p, const rl_state_io *io, int load, char *err, size_t errlen)
{
    int rc;
    if (!load && (rc = describe(p, io, err, errlen))) return rc;
    /* An instance made to act reads the actor, and acting (the mean, no
       noise) changes nothing it would save. */
    if (p->cfg.inference) {
        if (!load) return RL_OK;
        if ((rc = rl_params_load(&p->actor, io, "", err, errlen))) return rc;
        return running_stats(p, err, errlen);
    }
    if ((rc = networks(p, io, load, err, errlen)) || (rc = scalars(p, io, load, err, errlen)) ||
        (rc = sums(p, io, load, err, errlen)) || (rc = rl_keep_best_state(&p->kb, io, load, err, errlen)))
        return rc;
    if (load && (rc = running_stats(p, err, errlen))) return rc;
    /* A resume asks for the replay even without save_replay, so the host
       can warn when there is none (the buffer then starts empty). */
    if (!load && !p->cfg.save_replay) return RL_OK;
    rc = rl_replay_state(&p->rb, io, load, 0, p->cfg.low, p->cfg.high, err, errlen);
    return rc == RL_ENOENT ? RL_OK : rc;
}
