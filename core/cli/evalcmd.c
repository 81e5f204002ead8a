/* `rlhost eval`; see evalcmd.h. */
#define _GNU_SOURCE
#include "evalcmd.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "base/text.h"
#include "checkpoint/restore.h"
#include "run/eval.h"

/* --search: the searcher opened before any game is played. */
static int open_search(rl__vecenv *ev, rl__search_actor *sa, const rl_algo_vtable *avt, void *algo, char *err,
                       size_t errlen)
{
    uint32_t *where = calloc(2 * (size_t)ev->n, sizeof *where);
    if (!where) return RL_ENOMEM;
    rl__env_site site = rl__eval_site(ev, where, where + ev->n);
    char why[RL_ERR_MAX] = "";
    int rc = rl__search_actor_open(sa, &site, ev->n, avt, algo, why, sizeof why);
    free(where);
    if (rc != RL_OK) snprintf(err, errlen, "--search: %s", why);
    return rc == RL_OK ? RL_OK : RL_ECONFIG;
}

typedef struct eval_out {
    rl__eval_result r;
    rl__sbuf cols, vals, games;
} eval_out;

/* The episodes (or games) themselves, with the trace or the search asked for. */
static int play_episodes(rl__vecenv *ev, const rl__config *c, void *algo, uint32_t episodes, const char *trace_path,
                         rl__search_actor *sa, eval_out *o, char *err, size_t errlen)
{
    const rl_algo_vtable *avt = c->algo->desc->vtable;
    uint64_t seed = rl__eval_seed((uint64_t)c->run.vals[RL__RUN_SEED].i);
    if (sa && trace_path) {
        snprintf(err, errlen, "--trace follows the policy's own moves; it does not take --search");
        return RL_ECONFIG;
    }
    int rc = sa ? open_search(ev, sa, avt, algo, err, errlen) : RL_OK;
    if (rc != RL_OK) return rc;
    if (ev->table) {
        if (!trace_path)
            return rl__evaluate_seats(ev, c, avt, algo, episodes, seed, NULL, sa, &o->r, &o->cols, &o->vals, &o->games,
                                      err, errlen);
        snprintf(err, errlen, "--trace: env '%s' seats players; a trace follows one opponent (not yet)",
                 c->env->desc->name);
        return RL_ENOTSUP;
    }
    FILE *trace = NULL;
    if (trace_path && !(trace = fopen(trace_path, "w"))) {
        snprintf(err, errlen, "cannot write the trace %s: %s", trace_path, strerror(errno));
        return RL_EIO;
    }
    rc = rl__evaluate_games(ev, avt, algo, c->algo->desc->name, episodes, NULL, trace, &o->r, NULL, sa, err, errlen);
    if (trace && (fflush(trace) != 0 || ferror(trace) || fsync(fileno(trace)) != 0) && rc == RL_OK) {
        snprintf(err, errlen, "writing the trace %s failed: %s", trace_path, strerror(errno));
        rc = RL_EIO;
    }
    if (trace) fclose(trace);
    return rc;
}

static void print_result(const rl__config *c, const char *ckpt, uint64_t step, const rl_env_info *info,
                         const eval_out *o, int json)
{
    const rl__eval_result *r = &o->r;
    if (json) {
        rl__sbuf b = {0};
        rl__sbuf_puts(&b, "{");
        rl__json_str(&b, "env", c->env->desc->name);
        rl__json_str(&b, "algo", c->algo->desc->name);
        rl__json_str(&b, "checkpoint", ckpt);
        rl__json_u64(&b, "step", step);
        rl__json_u64(&b, "episodes", r->episodes);
        rl__json_num(&b, "return_mean", r->return_mean);
        rl__json_num(&b, "return_std", r->return_std);
        rl__json_num(&b, "return_min", r->return_min);
        rl__json_num(&b, "return_max", r->return_max);
        rl__json_num(&b, "length_mean", r->length_mean);
        if (info->score_name) {
            rl__json_str(&b, "score_name", info->score_name);
            rl__json_num(&b, "score_mean", r->score_mean);
        }
        /* a game of seats: evals.csv's columns, named as there (the fraction
           of each opponent's games won, drawn and lost from each seat, and
           the rating) */
        const char *k = o->cols.data, *v = o->vals.data;
        while (k && v && *k == ',' && *v == ',') {
            size_t kn = strcspn(k + 1, ","), vn = strcspn(v + 1, ",");
            char key[128], num[64];
            snprintf(key, sizeof key, "%.*s", (int)kn, k + 1);
            snprintf(num, sizeof num, "%.*s", (int)vn, v + 1);
            rl__json_raw(&b, key, num);
            k += 1 + kn, v += 1 + vn;
        }
        rl__json_print(&b);
        return;
    }
    printf("%s on %s%s%s (step %llu): %u episodes\n", c->algo->desc->name, c->env->desc->name,
           ckpt ? ", checkpoint " : ", untrained", ckpt ? ckpt : "", (unsigned long long)step, r->episodes);
    printf("  return  mean %.4g  std %.4g  min %.4g  max %.4g\n", r->return_mean, r->return_std, r->return_min,
           r->return_max);
    printf("  length  mean %.4g\n", r->length_mean);
    if (info->score_name) printf("  %s  mean %.4g\n", info->score_name, r->score_mean);
    if (o->games.data) fputs(o->games.data, stdout);
}

int rl__eval_command(const rl__config *c, const char *ckpt, const char *prev, uint32_t episodes, int json,
                     const char *trace_path, const rl__search_opts *search)
{
    char err[RL_ERR_MAX] = "";
    /* the run's evaluation seed stream, so the final checkpoint of a run
       evaluates to the numbers in its summary.json */
    uint64_t seed = rl__eval_seed((uint64_t)c->run.vals[RL__RUN_SEED].i);
    uint32_t repeat = (uint32_t)c->env_host_stages.vals[RL__ENVST_ACTION_REPEAT].i;
    uint32_t n = episodes < RL__MAX_EVAL_ENVS ? episodes : RL__MAX_EVAL_ENVS;
    const char *const *opp;
    if (rl__eval_opponents_check(c, err, sizeof err) != RL_OK) {
        rl__log(RL_LOG_ERROR, NULL, "%s", err);
        return 2;
    }
    rl__seating seating = rl__seating_of(c, rl__eval_opponents(c, &opp) ? opp[0] : "random", 0, NULL, seed);
    rl__vecenv ev;
    int rc = rl__vecenv_create_seated(&ev, c->env->desc, rl__env_eval_opts(c), c->env_stages.vals, n, seed, 1, repeat,
                                      &seating, err, sizeof err);
    if (rc != RL_OK) {
        rl__log(RL_LOG_ERROR, NULL, "%s", err);
        return rc == RL_ECONFIG ? 2 : 1; /* an opponent the env cannot seat is a usage error */
    }
    if (search && (rc = rl__search_check(c->env->desc, &ev.info, c->algo->desc, err, sizeof err)) != RL_OK) {
        rl__log(RL_LOG_ERROR, NULL, "--search: %s", err);
        rl__vecenv_destroy(&ev);
        return 2;
    }
    rl__restore rs = {.path = ckpt, .prev_path = prev};
    void *algo = rl__policy_open(c, &ev.info, ev.n, &rs, err, sizeof err);
    rc = RL_EINVAL;
    if (algo) {
        eval_out o = {0};
        rl__search_actor actor = {.seed = seed, .algo_desc = c->algo->desc};
        if (search) actor.opts = *search;
        rc = play_episodes(&ev, c, algo, episodes, trace_path, search ? &actor : NULL, &o, err, sizeof err);
        rl__search_actor_close(&actor);
        if (rc == RL_OK) print_result(c, ckpt, rs.step, &ev.info, &o, json);
        rl__sbuf_free(&o.cols);
        rl__sbuf_free(&o.vals);
        rl__sbuf_free(&o.games);
        ((const rl_algo_vtable *)c->algo->desc->vtable)->destroy(algo);
    }
    if (rc != RL_OK) rl__log(RL_LOG_ERROR, NULL, "%s", err);
    rl__vecenv_destroy(&ev);
    return rc == RL_OK ? 0 : rc == RL_ECONFIG ? 2 : 1; /* refused before any episode: a usage error */
}
