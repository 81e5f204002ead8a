/* Greedy evaluation; see eval.h. */
#include "run/eval.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rlhost/rlcore.h>

#include "checkpoint/safetensors.h"
#include "checkpoint/restore.h"
#include "plugin/config.h"
#include "parallel/replicas.h"
#include "base/text.h"
#include "base/log.h"
#include "plugin/host_api.h"

static void trace_header(FILE *f, const rl__vecenv *ev)
{
    size_t d = ev->row_bytes / rl_dtype_size(ev->info.obs_dtype);
    fprintf(f, "env,episode,t");
    if (ev->space.kind == RL_SPACE_DISCRETE)
        fprintf(f, ",action");
    else /* MultiDiscrete's or a hybrid action's components, then a box's dimensions */
        for (uint32_t k = 0; k < ev->space.ints + ev->space.floats; k++) fprintf(f, ",action_%u", k);
    fprintf(f, ",reward,terminated,truncated");
    for (size_t k = 0; k < d; k++) fprintf(f, ",obs_%zu", k);
    for (uint32_t k = 0; k < ev->space.mask_width; k++) fprintf(f, ",mask_%u", k);
    fputc('\n', f);
}

static void trace_row(FILE *f, const rl__vecenv *ev, uint32_t i, uint32_t episode, uint32_t t)
{
    fprintf(f, "%u,%u,%u", i, episode, t);
    /* the action the env took: its floats clipped into the box */
    const unsigned char *a = (const unsigned char *)(ev->env_actions ? ev->env_actions : ev->actions);
    a += (size_t)i * ev->space.action_bytes;
    for (uint32_t k = 0; k < ev->space.ints + ev->space.floats; k++) {
        if (k < ev->space.ints) {
            int32_t x;
            memcpy(&x, a + 4 * k, 4);
            fprintf(f, ",%d", (int)x);
        } else {
            float x;
            memcpy(&x, a + 4 * k, 4);
            fprintf(f, ",%.9g", (double)x);
        }
    }
    fprintf(f, ",%.9g,%u,%u", (double)ev->rewards[i], ev->terminated[i], ev->truncated[i]);
    const unsigned char *row = (const unsigned char *)ev->prev_obs + (size_t)i * ev->row_bytes;
    if (ev->info.obs_dtype == RL_DTYPE_F32) {
        for (size_t k = 0; k < ev->row_bytes / 4; k++) {
            float x;
            memcpy(&x, row + 4 * k, 4);
            fprintf(f, ",%.9g", (double)x);
        }
    } else {
        for (size_t k = 0; k < ev->row_bytes; k++) fprintf(f, ",%u", row[k]);
    }
    const uint8_t *mask = ev->prev_mask + (size_t)i * ev->space.mask_width; /* what the action was chosen under */
    for (uint32_t k = 0; ev->prev_mask && k < ev->space.mask_width; k++) fprintf(f, ",%u", mask[k] != 0);
    fputc('\n', f);
}

/* RL_EINVAL with a sentence when an episode of an env without a time limit
   has run RL__EVAL_MAX_EPISODE_STEPS steps and goes on. */
static int episode_limit(const rl__vecenv *ev, int *warned, char *err, size_t errlen)
{
    /* a word on stderr long before anything stops: an evaluation that seems
       to hang says why (an env past the time limit it declares, or with
       none, past a tenth of the steps that stop it) */
    uint32_t limit = ev->info.max_episode_steps;
    uint32_t soon = limit ? (limit > UINT32_MAX / 2 ? UINT32_MAX : 2 * limit) : RL__EVAL_MAX_EPISODE_STEPS / 10;
    for (uint32_t i = 0; i < ev->n && !*warned; i++) {
        if (ev->ep_length[i] < soon) continue;
        *warned = 1;
        if (limit)
            rl__log(RL_LOG_WARN, NULL,
                    "evaluation: env %u's episode has run %u steps, past the time limit of %u its env declares; "
                    "the evaluation waits for its episodes to end (Ctrl-C stops it)",
                    i, ev->ep_length[i], limit);
        else
            rl__log(RL_LOG_WARN, NULL,
                    "evaluation: env %u's episode has run %u steps without ending, and its env declares no time "
                    "limit; the evaluation stops at %u",
                    i, ev->ep_length[i], RL__EVAL_MAX_EPISODE_STEPS);
    }
    if (limit) return RL_OK; /* the env truncates its episodes itself */
    for (uint32_t i = 0; i < ev->n; i++) {
        if (ev->ep_length[i] < RL__EVAL_MAX_EPISODE_STEPS) continue;
        snprintf(err, errlen,
                 "env %u's episode has run %u steps without ending; an env that never "
                 "ends cannot be evaluated: give it a time limit (Gymnasium's max_episode_steps, or "
                 "rl_env_info_set_time_limit)",
                 i, RL__EVAL_MAX_EPISODE_STEPS);
        return RL_EINVAL;
    }
    return RL_OK;
}

/* The result of n episodes from the sums of their returns, squared returns,
   lengths and scores, and the extreme returns. */
static void result_of(rl__eval_result *out, uint32_t n, double sum, double sum2, double mn, double mx, double len,
                      double score)
{
    out->done = 1;
    out->episodes = n;
    out->return_mean = sum / n;
    double var = sum2 / n - out->return_mean * out->return_mean;
    out->return_std = var > 0 ? sqrt(var) : 0;
    out->return_min = mn;
    out->return_max = mx;
    out->length_mean = len / n;
    out->score_mean = score / n;
}

int rl__evaluate(rl__vecenv *ev, const rl_algo_vtable *avt, void *algo, const char *algo_name, uint32_t episodes,
                 volatile sig_atomic_t *stop, FILE *trace, rl__eval_result *out, char *err, size_t errlen)
{
    return rl__evaluate_games(ev, avt, algo, algo_name, episodes, stop, trace, out, NULL, NULL, err, errlen);
}

rl__env_site rl__eval_site(const rl__vecenv *ev, uint32_t *boards_of, uint32_t *movers)
{
    for (uint32_t i = 0; i < ev->n; i++) {
        if (ev->table)
            rl__table_learner_at(ev->table, i, &boards_of[i], &movers[i]);
        else
            boards_of[i] = i / ev->agents, movers[i] = i % ev->agents;
    }
    if (ev->table) return rl__table_site(ev->table);
    return (rl__env_site){ev->desc, ev->options, ev->stages, &ev->info, ev->vt, ev->env, ev->boards};
}

/* The learner's actions for every row: its policy's, or searched. */
static int learner_act(rl__vecenv *ev, const rl_algo_vtable *avt, void *algo, rl__search_actor *search, uint32_t *where,
                       char *err, size_t errlen)
{
    if (!search)
        return rl__space_act(&ev->space, avt, algo, RL_MODE_EVAL, ev->io.obs, ev->episode_start, ev->io.action_mask,
                             ev->actions, ev->n, err, errlen);
    rl__env_site site = rl__eval_site(ev, where, where + ev->n);
    return rl__search_actor_act(search, &site, ev->n, avt, algo, where, where + ev->n, ev->io.obs, ev->io.action_mask,
                                ev->n, ev->actions, err, errlen);
}

int rl__evaluate_games(rl__vecenv *ev, const rl_algo_vtable *avt, void *algo, const char *algo_name, uint32_t episodes,
                       volatile sig_atomic_t *stop, FILE *trace, rl__eval_result *out, rl__table_tally *tally,
                       rl__search_actor *search, char *err, size_t errlen)
{
    uint32_t n = ev->n; /* rows: envs x agents */
    uint32_t *t_in_episode = calloc(5 * (size_t)n, sizeof(uint32_t));
    if (!t_in_episode) {
        snprintf(err, errlen, "out of memory for %u evaluation rows", n);
        return RL_ENOMEM;
    }
    uint32_t *quota = t_in_episode + n, *got = quota + n, *where = got + n;
    int rc = RL_OK;
    for (uint32_t i = 0; i < n; i++) {
        quota[i] = episodes / n + (i < episodes % n);
        got[i] = 0;
    }
    double sum = 0, sum2 = 0, sum_len = 0, sum_score = 0, mn = INFINITY, mx = -INFINITY;
    uint32_t done_total = 0;
    int warned = 0;
    rl__vecenv_reset(ev);
    if (trace) trace_header(trace, ev);
    while (done_total < episodes) {
        if (stop && *stop) {
            rc = RL_EINTR;
            break;
        }
        char perr[RL_ERR_MAX] = "";
        rc = learner_act(ev, avt, algo, search, where, perr, sizeof perr);
        if (rc != RL_OK) {
            snprintf(err, errlen, "algo '%s' failed choosing eval actions: %s", algo_name,
                     perr[0] ? perr : rl_strerror(rc));
            break;
        }
        if ((rc = rl__vecenv_step(ev, err, errlen)) != RL_OK) break;
        if ((rc = episode_limit(ev, &warned, err, errlen)) != RL_OK) break;
        for (uint32_t i = 0; trace && i < n; i++) {
            if (got[i] >= quota[i]) continue; /* past its quota: not counted */
            /* env i's episodes are numbered i, i + n, ... in the order they end */
            trace_row(trace, ev, i, i + got[i] * n, t_in_episode[i]);
            t_in_episode[i] = (ev->terminated[i] | ev->truncated[i]) ? 0 : t_in_episode[i] + 1;
        }
        for (uint32_t i = 0; i < n; i++) {
            if (!(ev->terminated[i] | ev->truncated[i]) || got[i] >= quota[i]) continue;
            got[i]++;
            done_total++;
            if (tally && ev->table) {
                int o = rl__table_outcome(ev->table, i);
                uint32_t seat = rl__table_outcome_seat(ev->table, i);
                (o > 0 ? tally->win : o < 0 ? tally->loss : tally->draw)[seat]++;
            }
            double r = ev->done_return[i];
            sum += r;
            sum2 += r * r;
            mn = r < mn ? r : mn;
            mx = r > mx ? r : mx;
            sum_len += ev->done_length[i];
            sum_score += ev->info.score_name ? ev->io.scores[i] : r;
        }
    }
    free(t_in_episode);
    if (rc != RL_OK) return rc;
    result_of(out, episodes, sum, sum2, mn, mx, sum_len, sum_score);
    return RL_OK;
}

/* A column name's part for an opponent spec: [a-z0-9_] only. */
static void column_name(const char *spec, char *out, size_t len)
{
    size_t n = 0;
    for (const char *p = spec; *p && n + 1 < len; p++) {
        char ch = *p >= 'A' && *p <= 'Z' ? (char)(*p - 'A' + 'a') : *p;
        int ok = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9');
        if (ok)
            out[n++] = ch;
        else if (n && out[n - 1] != '_')
            out[n++] = '_';
    }
    while (n && out[n - 1] == '_') n--;
    out[n] = 0;
}

/* The evaluation opponents of a run with seats: seats.eval_opponents, or
   the training opponent when that list is empty and it is not "self". */
uint32_t rl__eval_opponents(const rl__config *c, const char *const **list)
{
    const rl_value *v = &c->seats.vals[RL__SEATS_EVAL_OPPONENTS];
    static const char *train[1];
    if (v->n) {
        *list = v->slist;
        return (uint32_t)v->n;
    }
    train[0] = c->seats.vals[RL__SEATS_OPPONENT].s;
    *list = train;
    return strcmp(train[0], "self") ? 1 : 0;
}

int rl__eval_opponents_check(const rl__config *c, char *err, size_t errlen)
{
    const char *const *opp;
    uint32_t n = rl__eval_opponents(c, &opp);
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < i; j++) {
            char a[96], b[96];
            column_name(opp[i], a, sizeof a);
            column_name(opp[j], b, sizeof b);
            if (strcmp(a, b)) continue;
            snprintf(err, errlen,
                     "seats.eval_opponents: '%s' and '%s' would share the columns vs_%s_* of evals.csv: name each "
                     "opponent once",
                     opp[j], opp[i], a);
            return RL_ECONFIG;
        }
    return RL_OK;
}

/* See eval.h.  The rating is Elo's for the score S over all the games,
   against the opponents taken as one player rated 0: 400 log10(S / (1 - S)),
   S kept half a game from 0 and 1. */
int rl__evaluate_seats(rl__vecenv *ev, const rl__config *c, const rl_algo_vtable *avt, void *algo, uint32_t episodes,
                       uint64_t seed, volatile sig_atomic_t *stop, rl__search_actor *search, rl__eval_result *out,
                       rl__sbuf *cols, rl__sbuf *vals, rl__sbuf *text, char *err, size_t errlen)
{
    const char *const *opp;
    uint32_t n_opp = rl__eval_opponents(c, &opp), seats = rl__table_seats(ev->table);
    double n = 0, sum = 0, sum2 = 0, len = 0, score = 0, mn = INFINITY, mx = -INFINITY, points = 0;
    int rc = RL_OK;
    if (!n_opp) {
        snprintf(err, errlen, "seats.eval_opponents is empty and the learner trains against itself: name an opponent");
        return RL_ECONFIG;
    }
    for (uint32_t o = 0; o < n_opp && rc == RL_OK; o++) {
        char name[96];
        column_name(opp[o], name, sizeof name);
        for (uint32_t seat = 0; seat < seats && rc == RL_OK; seat++) {
            rl__table_tally tally;
            memset(&tally, 0, sizeof tally);
            rl__eval_result r;
            memset(&r, 0, sizeof r);
            rc = rl__table_set_opponent(ev->table, opp[o], (int32_t)seat, err, errlen);
            if (rc == RL_OK) rc = rl__vecenv_reseed(ev, seed, err, errlen);
            if (rc == RL_OK)
                rc = rl__evaluate_games(ev, avt, algo, c->algo->desc->name, episodes, stop, NULL, &r, &tally, search,
                                        err, errlen);
            if (rc != RL_OK) break;
            double e = r.episodes, w = (double)tally.win[seat], d = (double)tally.draw[seat],
                   l = (double)tally.loss[seat];
            n += e;
            sum += e * r.return_mean;
            sum2 += e * (r.return_std * r.return_std + r.return_mean * r.return_mean);
            len += e * r.length_mean;
            score += e * r.score_mean;
            mn = r.return_min < mn ? r.return_min : mn;
            mx = r.return_max > mx ? r.return_max : mx;
            points += w + d / 2;
            rl__sbuf_printf(cols, ",vs_%s_seat%u_win,vs_%s_seat%u_draw,vs_%s_seat%u_loss", name, seat, name, seat, name,
                            seat);
            rl__sbuf_printf(vals, ",%.6g,%.6g,%.6g", w / e, d / e, l / e);
            if (text)
                rl__sbuf_printf(text,
                                "  vs %s, learner at seat %u: won %.0f, drew %.0f, lost %.0f of %.0f (%.1f%% won)\n",
                                opp[o], seat, w, d, l, e, 100 * w / e);
        }
    }
    /* the table rests as it was opened (the first opponent, seat 0, fresh
       games), so a checkpoint of it between evaluations loads into a table
       opened anew */
    if (rc == RL_OK) rc = rl__table_set_opponent(ev->table, opp[0], 0, err, errlen);
    if (rc == RL_OK) rc = rl__vecenv_reseed(ev, seed, err, errlen);
    if (rc != RL_OK) return rc;
    double S = points / n, lo = 0.5 / n;
    S = S < lo ? lo : S > 1 - lo ? 1 - lo : S;
    double elo = 400.0 * log10(S / (1 - S));
    rl__sbuf_puts(cols, ",elo");
    rl__sbuf_printf(vals, ",%.1f", elo);
    if (text) rl__sbuf_printf(text, "  rating %.0f (Elo, the opponents as one player rated 0)\n", elo);
    result_of(out, (uint32_t)n, sum, sum2, mn, mx, len, score);
    return RL_OK;
}
