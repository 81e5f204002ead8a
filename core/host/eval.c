/* Greedy evaluation; see eval.h. */
#include "eval.h"

#include <math.h>
#include <stdio.h>

#include <rlhost/rlcore.h>

#include "checkpoint.h"
#include "restore.h"
#include "config.h"
#include "replicas.h"

int rl__evaluate(rl__vecenv *ev, const rl_algo_vtable *avt, void *algo, const char *algo_name,
                 uint32_t episodes, volatile sig_atomic_t *stop, rl__eval_result *out, char *err,
                 size_t errlen)
{
    uint32_t n = ev->n;
    uint32_t quota[RL__MAX_EVAL_ENVS], got[RL__MAX_EVAL_ENVS];
    for (uint32_t i = 0; i < n; i++) {
        quota[i] = episodes / n + (i < episodes % n);
        got[i] = 0;
    }
    double sum = 0, sum2 = 0, sum_len = 0, sum_score = 0, mn = INFINITY, mx = -INFINITY;
    uint32_t done_total = 0;
    rl__vecenv_reset(ev);
    while (done_total < episodes) {
        if (stop && *stop) return RL_EINTR;
        char perr[RL_ERR_MAX] = "";
        int rc = avt->act(algo, RL_ACT_EVAL, ev->io.obs, ev->episode_start, ev->actions, n, perr,
                          sizeof perr);
        if (rc != RL_OK) {
            snprintf(err, errlen, "algo '%s' failed choosing eval actions: %s", algo_name,
                     perr[0] ? perr : rl_strerror(rc));
            return rc;
        }
        if ((rc = rl__vecenv_step(ev, err, errlen)) != RL_OK) return rc;
        for (uint32_t i = 0; i < n; i++) {
            if (!(ev->terminated[i] | ev->truncated[i]) || got[i] >= quota[i]) continue;
            got[i]++;
            done_total++;
            double r = ev->done_return[i];
            sum += r;
            sum2 += r * r;
            mn = r < mn ? r : mn;
            mx = r > mx ? r : mx;
            sum_len += ev->done_length[i];
            sum_score += ev->info.score_name ? ev->io.scores[i] : r;
        }
    }
    out->done = 1;
    out->episodes = episodes;
    out->return_mean = sum / episodes;
    double var = sum2 / episodes - out->return_mean * out->return_mean;
    out->return_std = var > 0 ? sqrt(var) : 0;
    out->return_min = mn;
    out->return_max = mx;
    out->length_mean = sum_len / episodes;
    out->score_mean = sum_score / episodes;
    return RL_OK;
}

void *rl__policy_open(const rl__config *c, const rl_env_info *info, uint32_t n_eval,
                      const char *ckpt, const char *prev, uint64_t *step)
{
    char err[RL_ERR_MAX] = "";
    const rl_algo_vtable *avt = c->algo->desc->vtable;
    rl_algo_args args = {sizeof args, info, (uint32_t)c->env_host.vals[RL__ENV_NUM_ENVS].i, n_eval,
                         (uint64_t)c->run.vals[RL__RUN_SEED].i,
                         (uint64_t)c->run.vals[RL__RUN_STEPS].i, c->algo_opts.vals,
                         c->algo_stages.vals, rl__host_api(), rl__replicas_single()};
    void *algo = NULL;
    int rc = avt->create(&args, &algo, err, sizeof err);
    if (rc != RL_OK) {
        rl__log(RL_LOG_ERROR, NULL, "algo '%s': %s", c->algo->desc->name, err[0] ? err : rl_strerror(rc));
        return NULL;
    }
    rl__restore r = {.path = ckpt, .prev_path = prev};
    if (ckpt && rl__ckpt_restore(&r, c, algo, err, sizeof err) != RL_OK) {
        rl__log(RL_LOG_ERROR, NULL, "%s", err);
        avt->destroy(algo);
        return NULL;
    }
    if (ckpt && step) *step = r.step;
    return algo;
}

int rl__eval_command(const rl__config *c, const char *ckpt, const char *prev, uint32_t episodes,
                     int json)
{
    char err[RL_ERR_MAX] = "";
    uint64_t seed = (uint64_t)c->run.vals[RL__RUN_SEED].i;
    uint32_t repeat = (uint32_t)c->env_host_stages.vals[RL__ENVST_ACTION_REPEAT].i;
    uint32_t n = episodes < RL__MAX_EVAL_ENVS ? episodes : RL__MAX_EVAL_ENVS;
    rl__vecenv ev;
    /* The run's evaluation seed stream, so the final checkpoint of a run
       evaluates to the numbers in its summary.json. */
    if (rl__vecenv_create(&ev, c->env->desc, c->env_opts.vals, c->env_stages.vals, n,
                          seed ^ 0x5eed5eed5eed5eedull, 1, repeat, err, sizeof err) != RL_OK) {
        rl__log(RL_LOG_ERROR, NULL, "%s", err);
        return 1;
    }
    const rl_algo_vtable *avt = c->algo->desc->vtable;
    uint64_t step = 0;
    void *algo = rl__policy_open(c, &ev.info, n, ckpt, prev, &step);
    int rc = RL_EINVAL;
    if (algo) {
        rl__eval_result r = {0};
        rc = rl__evaluate(&ev, avt, algo, c->algo->desc->name, episodes, NULL, &r, err, sizeof err);
        if (rc != RL_OK) {
            rl__log(RL_LOG_ERROR, NULL, "%s", err);
        } else if (json) {
            printf("{\"env\": \"%s\", \"algo\": \"%s\", \"checkpoint\": \"%s\", \"step\": %llu, "
                   "\"episodes\": %u, \"return_mean\": %.6g, \"return_std\": %.6g, \"return_min\": %.6g, "
                   "\"return_max\": %.6g, \"length_mean\": %.6g",
                   c->env->desc->name, c->algo->desc->name, ckpt ? ckpt : "", (unsigned long long)step,
                   r.episodes, r.return_mean, r.return_std, r.return_min, r.return_max, r.length_mean);
            if (ev.info.score_name) printf(", \"score_name\": \"%s\", \"score_mean\": %.6g", ev.info.score_name, r.score_mean);
            printf("}\n");
        } else {
            printf("%s on %s%s%s (step %llu): %u episodes\n", c->algo->desc->name, c->env->desc->name,
                   ckpt ? ", checkpoint " : ", untrained", ckpt ? ckpt : "", (unsigned long long)step,
                   r.episodes);
            printf("  return  mean %.4g  std %.4g  min %.4g  max %.4g\n", r.return_mean, r.return_std,
                   r.return_min, r.return_max);
            printf("  length  mean %.4g\n", r.length_mean);
            if (ev.info.score_name) printf("  %s  mean %.4g\n", ev.info.score_name, r.score_mean);
        }
        avt->destroy(algo);
    }
    rl__vecenv_destroy(&ev);
    return rc == RL_OK ? 0 : 1;
}
