/* The Arcade Learning Environment behind a C interface: the plugin's only
   C++ (ale_shim.cpp).  Every call catches what ALE throws and turns it into
   a return code with the sentence in err; none aborts. */
#ifndef RLHOST_ALE_SHIM_H
#define RLHOST_ALE_SHIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ale_shim ale_shim;

enum { ALE_SHIM_H = 210, ALE_SHIM_W = 160, ALE_SHIM_MAX_ACTIONS = 18 };

typedef struct ale_shim_opts {
    const char *rom;      /* a regular file, already checked by the caller */
    int32_t seed;         /* ALE's random_seed */
    float sticky;         /* repeat_action_probability */
    int max_frames;       /* max_num_frames_per_episode, 0: none */
    int mode, difficulty; /* -1: the game's default */
} ale_shim_opts;

/* The ALE version string ("0.12.1"). */
const char *ale_shim_version(void);
/* The game's name if rom's MD5 is one ALE supports, written into name
   (cap bytes); 0, or -1 with the sentence in err. */
int ale_shim_identify(const char *rom, char *name, size_t cap, char *err, size_t errlen);
ale_shim *ale_shim_open(const ale_shim_opts *o, char *err, size_t errlen);
void ale_shim_close(ale_shim *a);
/* The minimal (full = 0) or legal (full = 1) action set: ALE action ids. */
int ale_shim_actions(ale_shim *a, int full, int *ids, int cap);
/* One frame with ALE action id `id`; returns the frame's reward. */
int ale_shim_act(ale_shim *a, int id);
int ale_shim_game_over(const ale_shim *a); /* terminal, without truncation */
int ale_shim_truncated(const ale_shim *a); /* the frame limit was reached */
int ale_shim_lives(ale_shim *a);
int ale_shim_episode_frame(const ale_shim *a);
int ale_shim_frame(const ale_shim *a); /* frames since the emulator started */
void ale_shim_reset(ale_shim *a);
/* ale-py's reset(seed=...): random_seed set, the ROM loaded again (with
   the mode and difficulty it was opened with), a new game; 0, or -1 with
   the sentence. */
int ale_shim_reseed(ale_shim *a, int32_t seed, char *err, size_t errlen);
/* The screen (210 x 160) as ALE's grayscale or as RGB (210 x 160 x 3). */
void ale_shim_gray(ale_shim *a, uint8_t *out);
void ale_shim_rgb(ale_shim *a, uint8_t *out);
/* Serializes the emulator's whole state with its RNG, once, and keeps the
   bytes: their length, or 0 with the sentence when ALE throws.  take
   copies them to buf (room for that length; NULL: nowhere) and lets them
   go. */
size_t ale_shim_state_save(ale_shim *a, char *err, size_t errlen);
void ale_shim_state_take(ale_shim *a, uint8_t *buf);
/* Restores a state from ale_shim_state; 0, or -1 with the sentence. */
int ale_shim_restore(ale_shim *a, const uint8_t *buf, size_t len, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
