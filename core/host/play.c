/* `rlhost play`; see play.h.  Acts in RL_ACT_EVAL mode (greedy for the
   learning algorithms) on a single env with the config's options. */
#define _GNU_SOURCE
#include "play.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <rlhost/rlcore.h>

#include "eval.h"
#include "vecenv.h"

#define FRAME_MAX 65536

static void sleep_s(double s)
{
    if (s <= 0) return;
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

int rl__play(const rl__config *c, const char *ckpt, const char *prev, uint32_t episodes, double fps)
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
    void *algo = rl__policy_open(c, &v.info, 1, ckpt, prev, NULL);
    if (!algo) {
        rl__vecenv_destroy(&v);
        return 1;
    }
    int rc;
    char *frame = malloc(FRAME_MAX);
    int exit_code = frame ? 0 : 1;
    rl__vecenv_reset(&v);
    for (uint32_t ep = 1; frame && ep <= episodes;) {
        if (render->render(v.env, 0, tty, frame, FRAME_MAX) < 0) {
            rl__log(RL_LOG_ERROR, NULL, "env '%s' failed to render", c->env->desc->name);
            exit_code = 1;
            break;
        }
        if (tty)
            printf("\x1b[H\x1b[2J%s\nepisode %u/%u  return %.3g\n", frame, ep, episodes, v.ep_return[0]);
        else
            printf("%s\n\n", frame);
        fflush(stdout);
        if (tty) sleep_s(1.0 / fps);
        rc = avt->act(algo, RL_ACT_EVAL, v.io.obs, v.episode_start, v.actions, 1, err, sizeof err);
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
        }
    }
    free(frame);
    avt->destroy(algo);
    rl__vecenv_destroy(&v);
    return exit_code;
}
