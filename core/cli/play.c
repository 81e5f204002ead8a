/* `rlhost play`; see play.h.  Acts in RL_MODE_EVAL mode (greedy for the
   learning algorithms) on a single env with the config's options. */
#define _GNU_SOURCE
#include "play.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rlhost/rlcore.h>

#include "run/eval.h"
#include "checkpoint/restore.h"
#include "env/vecenv.h"
#include "base/log.h"

#define FRAME_MAX 65536

static void sleep_s(double s)
{
    if (s <= 0) return;
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

/* What identifies one version of the checkpoint file: a new one is a new
   inode (written beside it, renamed over it). */
typedef struct file_id {
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime;
} file_id;

static int file_id_of(const char *path, file_id *id)
{
    struct stat st;
    if (!path || stat(path, &st) != 0) return 0;
    *id = (file_id){st.st_dev, st.st_ino, st.st_size, st.st_mtim};
    return 1;
}

static int same_file(const file_id *a, const file_id *b)
{
    return a->dev == b->dev && a->ino == b->ino && a->size == b->size && a->mtime.tv_sec == b->mtime.tv_sec &&
        a->mtime.tv_nsec == b->mtime.tv_nsec;
}

static volatile sig_atomic_t g_play_stop;
static void on_stop(int sig)
{
    g_play_stop = sig;
    signal(sig, SIG_DFL);
}

/* One game: the env, its renderer, the policy playing it, and with
   --follow the checkpoint file it watches. */
typedef struct game {
    const rl__config *c;
    const rl_algo_vtable *avt;
    rl__vecenv v;
    const rl_env_render_ext *render;
    void *algo;
    const char *ckpt, *prev;
    file_id loaded;
    uint64_t step;
    int tty, follow;
    int human;                /* --human: a person plays the other seat (seat_person) */
    uint64_t reported;        /* --human: the games whose result the person was shown */
    uint32_t episodes;        /* the games to play, 0: until a signal */
    rl__search_actor *search; /* --search: the policy's moves searched */
    uint32_t where[2 * 64];   /* the search's rows: env and agent of each */
} game;

static int open_env(game *g, char *err, size_t errlen)
{
    const rl__config *c = g->c;
    uint32_t repeat = (uint32_t)c->env_host_stages.vals[RL__ENVST_ACTION_REPEAT].i;
    uint64_t seed = (uint64_t)c->run.vals[RL__RUN_SEED].i;
    const char *const *opp; /* an env with seats: the learner against the first evaluation opponent */
    rl__seating seating = rl__seating_of(c, rl__eval_opponents(c, &opp) ? opp[0] : "random", -1, NULL, seed);
    if (rl__vecenv_create_seated(&g->v, c->env->desc, rl__env_eval_opts(c), c->env_stages.vals, 1, seed, 1, repeat,
                                 &seating, err, errlen) != RL_OK)
        return -1;
    const rl_env_render_ext *r = g->v.vt->get_extension ? g->v.vt->get_extension(g->v.env, RL_EXT_ENV_RENDER) : NULL;
    if (!r || !RL_HAS_FIELD(r, rl_env_render_ext, render) || !r->render) {
        snprintf(err, errlen, "env '%s' cannot draw itself (no %s capability)", c->env->desc->name, RL_EXT_ENV_RENDER);
        rl__vecenv_destroy(&g->v);
        return -1;
    }
    g->render = r;
    return 0;
}

/* --follow: a checkpoint newer than the one playing replaces it (a bad one
   is not retried; the next write is). */
static void follow_newer(game *g)
{
    file_id now;
    if (!g->follow || !file_id_of(g->ckpt, &now) || same_file(&now, &g->loaded)) return;
    char err[RL_ERR_MAX] = "";
    rl__restore r = {.path = g->ckpt, .prev_path = g->prev};
    void *fresh = rl__policy_open(g->c, &g->v.info, g->v.n, &r, err, sizeof err);
    if (!fresh) rl__log(RL_LOG_ERROR, NULL, "%s", err);
    if (fresh) {
        g->avt->destroy(g->algo);
        g->algo = fresh;
        g->step = r.step;
        fprintf(stderr, "rlhost: following: checkpoint of step %llu\n", (unsigned long long)g->step);
    }
    g->loaded = now;
    rl__vecenv_reset(&g->v);
}

static void show_frame(const game *g, const char *frame, uint32_t ep, uint32_t episodes, double fps)
{
    if (g->tty) {
        char of[32] = "", from[64] = "";
        if (episodes) snprintf(of, sizeof of, "/%u", episodes);
        if (g->follow) snprintf(from, sizeof from, "  checkpoint of step %llu", (unsigned long long)g->step);
        printf("\x1b[H\x1b[2J%s\nepisode %u%s  return %.3g%s\n", frame, ep, of, g->v.ep_return[0], from);
    } else {
        printf("%s\n\n", frame);
    }
    fflush(stdout);
    if (g->tty) sleep_s(1.0 / fps);
}

/* The board env 0's last episode ended on (its last move drawn), for an
   env that draws it (rl.env.render/1's render_final). */
static void show_final(const game *g, const char *final)
{
    char frame[FRAME_MAX];
    const rl_env_render_ext *r = g->render;
    if (!final) {
        if (!RL_HAS_FIELD(r, rl_env_render_ext, render_final) || !r->render_final ||
            r->render_final(g->v.env, 0, g->tty, frame, sizeof frame) < 0)
            return;
        final = frame;
    }
    if (final[0]) printf("\n%s", final);
}

/* --human: the result of the person's next unreported game, from their
   side, after the board it ended on (final: the table's, or NULL: asked). */
static void report_game(game *g, int learner_result, const char *final)
{
    show_final(g, final);
    g->reported++;
    printf("game %llu: %s\n", (unsigned long long)g->reported,
           learner_result < 0       ? "you won"
               : learner_result > 0 ? "you lost"
                                    : "a draw");
    fflush(stdout);
}

/* --human: the person's move on the board the env draws, typed as one
   number 1 .. n on a line; asked again, saying why, until it is one the
   mask allows.  A game that ended before this one is reported first (its
   last move then drew the next game's board).  End of input quits. */
static int person_move(void *ctx, const rl__human_move *m, char *err, size_t errlen)
{
    game *g = ctx;
    if (m->games > g->reported) {
        report_game(g, m->last_result, m->final_frame);
        if (g->episodes && g->reported >= g->episodes) { /* that was the last game asked for */
            g_play_stop = SIGTERM;
            snprintf(err, errlen, "the games asked for are played");
            return RL_EINTR;
        }
    }
    printf("\n%s", m->frame);
    for (;;) {
        printf("your move (1-%u%s): ", m->n_actions, m->mask ? ", where allowed" : "");
        fflush(stdout);
        char line[64];
        if (!fgets(line, sizeof line, stdin)) {
            printf("\n");
            g_play_stop = SIGTERM;
            snprintf(err, errlen, "the person playing left (end of input)");
            return RL_EINTR;
        }
        size_t len = strlen(line);
        if (!isatty(STDIN_FILENO)) /* moves from a file or a pipe: the transcript shows them */
            printf("%.*s\n", (int)strcspn(line, "\r\n"), line);
        if (len == sizeof line - 1 && line[len - 1] != '\n') { /* longer than any move: the rest of it goes too */
            int ch;
            while ((ch = getchar()) != '\n' && ch != EOF) {
            }
            printf("one number from 1 to %u, please\n", m->n_actions);
            continue;
        }
        char *end;
        errno = 0;
        long a = strtol(line, &end, 10);
        end += strspn(end, " \t\r\n");
        if (end == line || *end || errno) {
            printf("one number from 1 to %u, please\n", m->n_actions);
        } else if (a < 1 || a > (long)m->n_actions) {
            printf("%ld is no move: from 1 to %u, please\n", a, m->n_actions);
        } else if (m->mask && !m->mask[a - 1]) {
            printf("%ld is not allowed now\n", a);
        } else {
            *m->action = (int32_t)(a - 1);
            return RL_OK;
        }
    }
}

static void show_episode_end(game *g, uint32_t ep)
{
    const rl__vecenv *v = &g->v;
    if (g->human) {
        if (g->reported < ep) report_game(g, rl__table_outcome(v->table, 0), NULL);
        if (g->tty) sleep_s(1.0);
        return;
    }
    show_final(g, NULL);
    printf("episode %u: return %.4g, length %u", ep, v->done_return[0], v->done_length[0]);
    if (v->info.score_name) printf(", %s %.4g", v->info.score_name, v->io.scores[0]);
    printf(" (%s)\n", v->terminated[0] ? "terminated" : "truncated");
    fflush(stdout);
    if (g->tty) sleep_s(1.0);
}

/* Plays until `episodes` ended (0: until a signal); 0 or 1. */
static int play_loop(game *g, uint32_t episodes, double fps)
{
    char *frame = malloc(FRAME_MAX);
    if (!frame) return 1;
    char err[RL_ERR_MAX] = "";
    int exit_code = 0;
    rl__vecenv_reset(&g->v);
    for (uint32_t ep = 1; (episodes == 0 || ep <= episodes) && !g_play_stop;) {
        if (g->render->render(g->v.env, 0, g->tty, frame, FRAME_MAX) < 0) {
            rl__log(RL_LOG_ERROR, NULL, "env '%s' failed to render", g->c->env->desc->name);
            exit_code = 1;
            break;
        }
        show_frame(g, frame, ep, episodes, fps);
        rl__vecenv *v = &g->v;
        int rc;
        if (g->search) {
            rl__env_site site = rl__eval_site(v, g->where, g->where + v->n);
            rc = rl__search_actor_act(g->search, &site, v->n, g->avt, g->algo, g->where, g->where + v->n, v->io.obs,
                                      v->io.action_mask, v->n, v->actions, err, sizeof err);
        } else
            rc = rl__space_act(&v->space, g->avt, g->algo, RL_MODE_EVAL, v->io.obs, v->episode_start, v->io.action_mask,
                               v->actions, v->n, err, sizeof err);
        if (rc == RL_OK) rc = rl__vecenv_step(v, err, sizeof err);
        if (rc == RL_EINTR && g->human && g_play_stop) break; /* the person quit, or played every game */
        if (rc != RL_OK) {
            rl__log(RL_LOG_ERROR, NULL, "%s", err[0] ? err : rl_strerror(rc));
            exit_code = 1;
            break;
        }
        if (v->terminated[0] || v->truncated[0]) {
            show_episode_end(g, ep++);
            follow_newer(g); /* the next episode plays the newest checkpoint */
        }
    }
    free(frame);
    return exit_code;
}

int rl__play(const rl__config *c, const char *ckpt, const char *prev, uint32_t episodes, double fps, int follow,
             const rl__search_opts *search)
{
    char err[RL_ERR_MAX] = "";
    game g = {.c = c,
              .avt = c->algo->desc->vtable,
              .ckpt = ckpt,
              .prev = prev,
              .follow = follow,
              .tty = isatty(STDOUT_FILENO),
              .episodes = episodes};
    if (open_env(&g, err, sizeof err) != 0) {
        rl__log(RL_LOG_ERROR, NULL, "%s", err);
        return 1;
    }
    if (search && rl__search_check(c->env->desc, &g.v.info, c->algo->desc, err, sizeof err) != RL_OK) {
        rl__log(RL_LOG_ERROR, NULL, "--search: %s", err);
        rl__vecenv_destroy(&g.v);
        return 2;
    }
    g_play_stop = 0;
    int exit_code = 1;
    const char *const *opp;
    g.human = g.v.table && rl__eval_opponents(c, &opp) && !strcmp(opp[0], "human");
    if (g.human) rl__human_set(person_move, &g);
    if (follow) {
        signal(SIGINT, on_stop);
        signal(SIGTERM, on_stop);
        if (!file_id_of(ckpt, &g.loaded))
            fprintf(stderr, "rlhost: following %s: waiting for the first checkpoint\n", ckpt);
        while (!g_play_stop && !file_id_of(ckpt, &g.loaded)) sleep_s(0.2);
        if (g_play_stop) {
            exit_code = 0;
            goto out;
        }
    }
    rl__restore rs = {.path = ckpt, .prev_path = prev};
    g.algo = rl__policy_open(c, &g.v.info, g.v.n, &rs, err, sizeof err);
    g.step = rs.step;
    if (!g.algo) {
        rl__log(RL_LOG_ERROR, NULL, "%s", err);
        goto out;
    }
    if (follow) fprintf(stderr, "rlhost: following: checkpoint of step %llu\n", (unsigned long long)g.step);
    rl__search_actor actor = {.seed = rl__eval_seed((uint64_t)c->run.vals[RL__RUN_SEED].i), .algo_desc = c->algo->desc};
    if (search) actor.opts = *search, g.search = &actor;
    if (g.v.n > 64) {
        rl__log(RL_LOG_ERROR, NULL, "play shows one env; this one has %u rows", g.v.n);
        g.avt->destroy(g.algo);
        goto out;
    }
    exit_code = play_loop(&g, episodes, fps);
    rl__search_actor_close(&actor);
    g.avt->destroy(g.algo);
out:
    rl__human_set(NULL, NULL);
    if (follow) {
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
    }
    rl__vecenv_destroy(&g.v);
    return exit_code;
}
