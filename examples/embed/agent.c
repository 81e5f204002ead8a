/* A trained rlhost agent inside another C program: load the policy of a run
   directory, make its env, play episodes.  Build against an installed rlhost
   with `cc agent.c $(pkg-config --cflags --libs rlhost)`.
   Usage: agent RUN_DIR [EPISODES [SEED]] */
#include <stdio.h>
#include <stdlib.h>

#include <rlhost/host.h>

int main(int argc, char **argv)
{
    if (argc < 2) return fprintf(stderr, "usage: agent RUN_DIR [EPISODES [SEED]]\n"), 2;
    int episodes = argc > 2 ? atoi(argv[2]) : 10;
    uint64_t seed = argc > 3 ? strtoull(argv[3], NULL, 0) : 1;
    char err[512];
    rlh_host *host = rlh_open(NULL, err, sizeof err);
    rlh_policy *policy = host ? rlh_policy_open(host, argv[1], 1, NULL, 0, err, sizeof err) : NULL;
    rlh_vec *env = policy ? rlh_policy_vec(policy, 1, seed, err, sizeof err) : NULL;
    if (!env) return fprintf(stderr, "agent: %s\n", err), 1;

    const rlh_buffers *b = rlh_vec_buffers(env);
    rlh_vec_reset(env);
    for (int done = 0; done < episodes;) {
        if (rlh_policy_act(policy, b->obs, b->episode_start, b->actions, 1, err, sizeof err) ||
            rlh_vec_step(env, err, sizeof err))
            return fprintf(stderr, "agent: %s\n", err), 1;
        if (b->terminated[0] || b->truncated[0])
            printf("episode %d: return %.9g, length %u\n", ++done, b->episode_return[0], b->episode_length[0]);
    }
    rlh_vec_close(env);
    rlh_policy_close(policy);
    rlh_close(host);
    return 0;
}
