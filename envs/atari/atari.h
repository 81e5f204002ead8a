/* The atari env's shared parts: its options, its games and the files that
   make and save them (atari_create.c, atari_io.c). */
#ifndef RLHOST_ATARI_H
#define RLHOST_ATARI_H

#include <stddef.h>
#include <stdint.h>

#include <rlhost/plugin.h>

#include "ale_shim.h"
#include "area.h"
#include "np_random.h"

enum {
    OPT_GAME,
    OPT_ROM,
    OPT_MODE,
    OPT_DIFFICULTY,
    OPT_STICKY,
    OPT_FULL_ACTIONS,
    OPT_NOOP_MAX,
    OPT_FRAME_SKIP,
    OPT_SCREEN_SIZE,
    OPT_GRAYSCALE,
    OPT_FRAME_STACK,
    OPT_MAX_FRAMES,
    OPT_EPISODIC_LIFE,
    OPT_FIRE_RESET,
    OPT_REWARD_CLIP,
    OPT_TERMINAL_ON_LIFE_LOSS,
    ATARI_N_OPTS
};

/* One env: a game in ALE and what its preprocessing keeps. */
typedef struct atari_game {
    ale_shim *ale;
    np_pcg64 rng;           /* the no-op counts: Gymnasium's env.np_random */
    uint32_t seed_words[2]; /* seed_game's (NumPy's seed, ALE's random_seed) */
    int first;              /* the next reset is Gymnasium's reset(seed=...) */
    /* rl.env.info/1 as the last step ended: lives, raw reward, game over,
       the episode's frame, ALE's frame */
    double ended[5];
    int32_t lives;
    uint32_t head;        /* the newest frame in frames */
    double score;         /* the raw score of the game so far */
    uint8_t *raw0, *raw1; /* the last two screens (AtariPreprocessing's obs_buffer) */
    uint8_t *frames;      /* stack frames, a ring */
    float *scratch;       /* the resize's (area_scratch_floats) */
} atari_game;

typedef struct atari {
    uint32_t n, stack, frame_skip, size, gray;
    int noop_max, episodic, clip, life_ends; /* life_ends: terminal_on_life_loss */
    int ids[ALE_SHIM_MAX_ACTIONS];           /* ALE action ids of the action set */
    int n_actions, fire;                     /* fire: ALE's FIRE id with fire_reset, else -1 */
    size_t raw_bytes, frame_bytes, obs_bytes;
    uint64_t seed;
    atari_game *games;
    area_plan plan; /* the resize's taps, shared by the envs */
    char game[64];  /* the ROM's game as ALE names it */
} atari;

int atari_create(const rl_env_args *args, void **out, rl_env_info *info, char *err, size_t errlen);
void atari_destroy(void *env);

extern const rl_env_render_ext atari_render_ext;
extern const rl_env_raster_ext atari_raster_ext;
extern const rl_env_state_ext atari_state_ext;
extern const rl_env_info_ext atari_info_ext;

#endif
