/* Every env plugin: results identical for any thread count, and a step of a
   range writes only that range (all of its agents' rows, and no others). */
#include <stdlib.h>
#include <string.h>

#include <rlhost/rlcore.h>

#include "plugin/config.h"
#include "../tap.h"
#include "env/vecenv.h"
#include "base/text.h"
#include "plugin/host_api.h"

static rl__registry reg;

static const char *const cases[] = {
    "plugin = \"cartpole\";",
    "plugin = \"catch\"; rows = 7; columns = 4;",
    "plugin = \"snake\"; observation = \"window\"; flood_fill = true;",
    "plugin = \"snake\"; observation = \"grid\"; body_order = true;",
    "plugin = \"snake\"; observation = \"window\"; vision = 2;",
    "plugin = \"snake\"; observation = \"features\"; actions = \"relative\";",
    "plugin = \"gridworld\"; layout = \"four_rooms\"; random_start = true; random_goal = true; observation = \"view\"; "
    "actions = \"turn\";",
    "plugin = \"gridworld\"; layout = \"tmaze\"; observation = \"full\";",
    "plugin = \"gridworld\"; layout = \"four_rooms\"; agents = 3; random_goal = true; observation = \"view\"; actions "
    "= \"turn\";",
    "plugin = \"gridworld\"; layout = \"empty\"; size = 5; agents = 4; observation = \"full\"; max_steps = 30;",
    "plugin = \"snake\"; observation = \"window\"; snakes = 3; width = 8; height = 8; vision = 2;",
    "plugin = \"snake\"; observation = \"grid\"; snakes = 2; food_count = 3; max_idle_steps = 40;",
    "plugin = \"snake\"; observation = \"features\"; snakes = 4; width = 6; height = 6; initial_length = 2;",
};

static int resolve(rl__config *c, const char *opts)
{
    char text[512];
    snprintf(text, sizeof text, "env: { %s };", opts);
    rl__sbuf e = {0};
    int rc = rl__config_load_text(c, "test", text, NULL, 0, &reg, &e, 0);
    if (rc != RL_OK) printf("# %s", e.data);
    rl__sbuf_free(&e);
    return rc;
}

int main(void)
{
    rl__registry_discover(&reg, NULL, 0);
    char err[RL_ERR_MAX];
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        rl__config c;
        if (!OK(resolve(&c, cases[k]) == RL_OK, cases[k])) continue;
        rl__vecenv a, b;
        const uint32_t n = 67; /* not a multiple of the thread count */
        int ok = rl__vecenv_create(&a, c.env->desc, c.env_opts.vals, c.env_stages.vals, n, 9, 1, 1, err, sizeof err) ==
                RL_OK &&
            rl__vecenv_create(&b, c.env->desc, c.env_opts.vals, c.env_stages.vals, n, 9, 2, 1, err, sizeof err) ==
                RL_OK;
        if (!OK(ok, "create with 1 and with 2 threads")) continue;
        const uint32_t R = a.n; /* rows: envs x agents */
        rl__vecenv_reset(&a);
        rl__vecenv_reset(&b);
        rl_rng rng;
        rl_rng_seed(&rng, 4, 0);
        int same = memcmp(a.io.obs, b.io.obs, R * a.row_bytes) == 0;
        uint64_t dones = 0;
        for (int step = 0; step < 2000 && same; step++) {
            for (uint32_t i = 0; i < R; i++)
                ((int32_t *)a.actions)[i] = ((int32_t *)b.actions)[i] = (int32_t)rl_rng_below(&rng, a.info.n_actions);
            rl__vecenv_step(&a, err, sizeof err);
            rl__vecenv_step(&b, err, sizeof err);
            same &= memcmp(a.io.obs, b.io.obs, R * a.row_bytes) == 0;
            same &= memcmp(a.rewards, b.rewards, R * sizeof(float)) == 0;
            same &= memcmp(a.terminated, b.terminated, R) == 0 && memcmp(a.truncated, b.truncated, R) == 0;
            for (uint32_t i = 0; i < R; i++)
                if (a.terminated[i] | a.truncated[i]) {
                    dones++;
                    same &= memcmp((char *)a.io.final_obs + i * a.row_bytes, (char *)b.io.final_obs + i * a.row_bytes,
                                   a.row_bytes) == 0;
                    same &= a.io.scores[i] == b.io.scores[i];
                }
        }
        char label[256];
        snprintf(label, sizeof label, "1 and 2 threads identical over 2000 steps (%llu episodes): %s",
                 (unsigned long long)dones, cases[k]);
        OK(same && dones > 0, label);
        rl__vecenv_destroy(&a);
        rl__vecenv_destroy(&b);

        /* Range contract, straight through the vtable. */
        const rl_env_vtable *vt = c.env->desc->vtable;
        void *env;
        rl_env_info info = {.struct_size = sizeof info, .obs_scale = 1};
        rl_env_args args = {sizeof args, 3, 7, c.env_opts.vals, c.env_stages.vals, rl__host_api()};
        if (vt->create(&args, &env, &info, err, sizeof err) == RL_OK) {
            size_t row = info.obs_size * (info.obs_dtype == RL_DTYPE_U8 ? 1 : 4);
            uint32_t K = info.agents ? info.agents : 1, rows = 3 * K; /* env 1: rows [K, 2K) */
            unsigned char *obs = malloc(rows * row), *fin = malloc(rows * row);
            float *rew = malloc(rows * sizeof *rew), *sc = malloc(rows * sizeof *sc);
            uint8_t *te = malloc(rows), *tr = malloc(rows);
            int32_t *act = calloc(rows, sizeof *act);
            memset(obs, 0xAB, rows * row);
            memset(fin, 0xAB, rows * row);
            for (uint32_t i = 0; i < rows; i++) rew[i] = sc[i] = -99.0f, te[i] = tr[i] = 7;
            rl_env_io io = {.struct_size = sizeof io,
                            .obs = obs,
                            .actions = act,
                            .rewards = rew,
                            .terminated = te,
                            .truncated = tr,
                            .final_obs = fin,
                            .scores = sc};
            vt->reset(env, &io, 1, 1);
            int untouched = 1, written = 1;
            for (int s = 0; s < 300; s++) {
                for (uint32_t j = K; j < 2 * K; j++) act[j] = (s + (int)j) % (int)info.n_actions;
                vt->step(env, &io, 1, 1);
            }
            for (uint32_t i = 0; i < rows; i++) {
                if (i >= K && i < 2 * K) continue;
                for (size_t j = 0; j < row; j++) untouched &= obs[i * row + j] == 0xAB && fin[i * row + j] == 0xAB;
                untouched &= rew[i] == -99.0f && sc[i] == -99.0f && te[i] == 7 && tr[i] == 7;
            }
            for (uint32_t i = K; i < 2 * K; i++) written &= rew[i] != -99.0f && te[i] != 7 && tr[i] != 7;
            snprintf(label, sizeof label, "a step of env 1 writes its %u row%s and no other: %s", K, K == 1 ? "" : "s",
                     cases[k]);
            OK(untouched && written, label);
            /* The text frame (rlhost/text.h) into any buffer: the frame's
               first cap - 1 bytes, NUL-terminated, that length returned. */
            const rl_env_render_ext *r = vt->get_extension ? vt->get_extension(env, RL_EXT_ENV_RENDER) : NULL;
            if (r && r->struct_size >= sizeof *r) {
                char full[8192], part[8192];
                int L = r->render(env, 1, 1, full, sizeof full), cut = L > 0;
                const size_t caps[] = {1, 2, 7, 100, (size_t)L / 2 + 1, (size_t)L, (size_t)L + 1};
                for (size_t q = 0; q < sizeof caps / sizeof *caps && cut; q++) {
                    size_t cap = caps[q];
                    memset(part, 'x', sizeof part);
                    int got = r->render(env, 1, 1, part, cap);
                    size_t want = cap - 1 < (size_t)L ? cap - 1 : (size_t)L;
                    cut &= got == (int)want && part[want] == '\0' && memcmp(part, full, want) == 0 && part[cap] == 'x';
                }
                snprintf(label, sizeof label, "render cut to 1, 2, 7, 100, L/2 + 1, L and L+1 bytes (L = %d): %s", L,
                         cases[k]);
                OK(cut, label);
            }
            free(obs), free(fin), free(rew), free(sc), free(te), free(tr), free(act);
            vt->destroy(env);
        }
        rl__config_destroy(&c);
    }
    rl__registry_destroy(&reg);
    return tap_done();
}
