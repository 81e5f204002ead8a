/* `rlhost play`; see play.h.  Acts in RL_ACT_EVAL mode (greedy for the
   learning algorithms) on a single env with the config's options. */
#define _GNU_SOURCE
#include "play.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <rlhost/rlcore.h>

#include "eval.h"
#include "restore.h"
#include "vecenv.h"

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

int rl__play(const rl__config *c, const char *ckpt, const char *prev, uint32_t episodes, double fps,
             int follow)
{
    int tty = isatty(STDOUT_FILENO);
    char err[RL_ERR_MAX] = "";
    rl__vecenv v;
    uint32_t repeat = (uint32_t)c->env_host_stages.vals[RL__ENVST_ACTION_REPEAT].i;
    uint64_t seed = (uint64_t)c->run.vals[RL__RUN_SEED].i;
    if (rl__vecenv_create(&v, c->env->desc, c->env_opts.vals, c->env_stages.vals, 1, seed, 1,
                          repeat, err, sizeof err) != RL_OK) {
        rl__log(RL_LOG_ERROR, NULL, "%s", err);
        return 1;
    }
    const rl_env_render_ext *render =
        v.vt->get_extension ? v.vt->get_extension(v.env, RL_EXT_ENV_RENDER) : NULL;
    if (!render || render->struct_size < sizeof *render || !render->render) {
        rl__log(RL_LOG_ERROR, NULL, "env '%s' cannot draw itself (no %s capability)",
                c->env->desc->name, RL_EXT_ENV_RENDER);
        rl__vecenv_destroy(&v);
        return 1;
    }
    const rl_algo_vtable *avt = c->algo->desc->vtable;
    file_id loaded = {0}, now;
    uint64_t step = 0;
    g_play_stop = 0;
    if (follow) {
        signal(SIGINT, on_stop);
        signal(SIGTERM, on_stop);
        if (!file_id_of(ckpt, &now)) fprintf(stderr, "rlhost: following %s: waiting for the first checkpoint\n", ckpt);
        while (!g_play_stop && !file_id_of(ckpt, &now)) sleep_s(0.2);
        if (g_play_stop) {
            rl__vecenv_destroy(&v);
            return 0;
        }
        loaded = now;
    }
    rl__restore rs = {.path = ckpt, .prev_path = prev};
    void *algo = rl__policy_open(c, &v.info, v.n, &rs, err, sizeof err);
    step = rs.step;
    if (!algo) rl__log(RL_LOG_ERROR, NULL, "%s", err);
    if (algo && follow) fprintf(stderr, "rlhost: following: checkpoint of step %llu\n", (unsigned long long)step);
    if (!algo) {
        rl__vecenv_destroy(&v);
        return 1;
    }
    int rc;
    char *frame = malloc(FRAME_MAX);
    int exit_code = frame ? 0 : 1;
    rl__vecenv_reset(&v);
    for (uint32_t ep = 1; frame && (episodes == 0 || ep <= episodes) && !g_play_stop;) {
        if (render->render(v.env, 0, tty, frame, FRAME_MAX) < 0) {
            rl__log(RL_LOG_ERROR, NULL, "env '%s' failed to render", c->env->desc->name);
            exit_code = 1;
            break;
        }
        if (tty) {
            char of[32] = "", from[64] = "";
            if (episodes) snprintf(of, sizeof of, "/%u", episodes);
            if (follow) snprintf(from, sizeof from, "  checkpoint of step %llu", (unsigned long long)step);
            printf("\x1b[H\x1b[2J%s\nepisode %u%s  return %.3g%s\n", frame, ep, of, v.ep_return[0], from);
        } else {
            printf("%s\n\n", frame);
        }
        fflush(stdout);
        if (tty) sleep_s(1.0 / fps);
        rc = avt->act(algo, RL_ACT_EVAL, v.io.obs, v.episode_start, v.actions, v.n, err, sizeof err);
        if (rc == RL_OK) rc = rl__vecenv_step(&v, err, sizeof err);
        if (rc != RL_OK) {
            rl__log(RL_LOG_ERROR, NULL, "%s", err[0] ? err : rl_strerror(rc));
            exit_code = 1;
            break;
        }
        if (v.terminated[0] || v.truncated[0]) {
            printf("episode %u: return %.4g, length %u", ep, v.done_return[0], v.done_length[0]);
            if (v.info.score_name) printf(", %s %.4g", v.info.score_name, v.io.scores[0]);
            printf(" (%s)\n", v.terminated[0] ? "terminated" : "truncated");
            fflush(stdout);
            if (tty) sleep_s(1.0);
            ep++;
            /* the training wrote a newer checkpoint: the next episode plays it */
            if (follow && file_id_of(ckpt, &now) && !same_file(&now, &loaded)) {
                rl__restore r2 = {.path = ckpt, .prev_path = prev};
                void *fresh = rl__policy_open(c, &v.info, v.n, &r2, err, sizeof err);
                if (!fresh) rl__log(RL_LOG_ERROR, NULL, "%s", err);
                if (fresh) {
                    avt->destroy(algo);
                    algo = fresh;
                    step = r2.step;
                    fprintf(stderr, "rlhost: following: checkpoint of step %llu\n", (unsigned long long)step);
                }
                loaded = now; /* a bad one is not retried; the next write is */
                rl__vecenv_reset(&v);
            }
        }
    }
    free(frame);
    if (follow) {
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
    }
    avt->destroy(algo);
    rl__vecenv_destroy(&v);
    return exit_code;
}
