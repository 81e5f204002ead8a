/* The atari env drawn (text for `rlhost play`, RGB frames for videos) and
   saved in checkpoints (atari.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rlhost/rlcore.h>
#include <rlhost/text.h>

#include "atari.h"

/* ---- drawing ------------------------------------------------------------- */

enum { COLS = ALE_SHIM_W / 2, ROWS = (ALE_SHIM_H + 3) / 4 };

static const uint8_t *px(const uint8_t *rgb, int y, int x)
{
    if (y >= ALE_SHIM_H) y = ALE_SHIM_H - 1;
    return rgb + ((size_t)y * ALE_SHIM_W + (size_t)x) * 3;
}

/* Half-block characters: each cell is two pixels, one above the other (the
   screen sampled every other column and every other row), in 24-bit
   colour, a colour written only where it changes; without colour a
   brightness ramp. */
static void draw_text(const uint8_t *rgb, int color, rl_text *o)
{
    static const char ramp[] = " .:-=+*#%@";
    for (int r = 0; r < ROWS; r++) {
        int fg = -1, bg = -1;
        for (int c = 0; c < COLS; c++) {
            const uint8_t *t = px(rgb, 4 * r, 2 * c), *b = px(rgb, 4 * r + 2, 2 * c);
            if (color) {
                int ft = t[0] << 16 | t[1] << 8 | t[2], bb = b[0] << 16 | b[1] << 8 | b[2];
                if (ft != fg) rl_text_put(o, "\x1b[38;2;%d;%d;%dm", t[0], t[1], t[2]);
                if (bb != bg) rl_text_put(o, "\x1b[48;2;%d;%d;%dm", b[0], b[1], b[2]);
                fg = ft, bg = bb;
                rl_text_put(o, "\xe2\x96\x80"); /* U+2580, the upper half block */
            } else {
                int lum = (t[0] * 3 + t[1] * 6 + t[2] + b[0] * 3 + b[1] * 6 + b[2]) / 20;
                rl_text_put(o, "%c", ramp[lum * 9 / 255]);
            }
        }
        rl_text_put(o, "%s\n", color ? "\x1b[0m" : "");
    }
}

static int atari_render(void *env, uint32_t index, int color, char *buf, size_t cap)
{
    atari *e = env;
    if (index >= e->n || cap == 0) return RL_EINVAL;
    uint8_t *rgb = malloc((size_t)ALE_SHIM_H * ALE_SHIM_W * 3);
    if (!rgb) return RL_ENOMEM;
    atari_game *g = &e->games[index];
    ale_shim_rgb(g->ale, rgb);
    rl_text o = rl_text_begin(buf, cap);
    draw_text(rgb, color, &o);
    rl_text_put(&o, "%s  score %.0f  lives %d  frame %d", e->game, g->score, g->lives, ale_shim_episode_frame(g->ale));
    free(rgb);
    return rl_text_end(&o);
}

const rl_env_render_ext atari_render_ext = {.struct_size = sizeof atari_render_ext, .render = atari_render};

static void raster_size(void *env, uint32_t *height, uint32_t *width)
{
    (void)env;
    *height = ALE_SHIM_H;
    *width = ALE_SHIM_W;
}

static int raster(void *env, uint32_t index, uint8_t *rgb)
{
    atari *e = env;
    if (index >= e->n) return RL_EINVAL;
    ale_shim_rgb(e->games[index].ale, rgb);
    return RL_OK;
}

const rl_env_raster_ext atari_raster_ext = {sizeof atari_raster_ext, raster_size, raster};

/* ---- checkpoints ----------------------------------------------------------
   One fixed-size slot per env in the tensor atari/state: a header, the
   preprocessing's buffers, and ALE's serialized emulator state with its
   RNG (variable in length: the RNG is written as text).  ALE trusts what
   it restores, so the header holds a hash of ALE's bytes: a damaged or
   edited state is refused before ALE reads it. */

#define STATE_MAGIC 0x31525441u  /* "ATR1" */
#define ALE_STATE_MAX (1u << 20) /* far above any cartridge's state */

typedef struct slot_head {
    uint32_t magic, ale_len;
    int32_t lives;
    uint32_t head;
    double score;
    np_pcg64 rng;
    uint64_t hash;
} slot_head;

static uint64_t fnv1a(const uint8_t *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

static size_t slot_bytes(const atari *e, size_t cap)
{
    return sizeof(slot_head) + 2 * e->raw_bytes + e->stack * e->frame_bytes + cap;
}

/* Env i into its slot; len: the length of ALE's bytes that
   ale_shim_state_save holds for it (at most the slot's room). */
static void pack(atari *e, uint32_t i, uint8_t *s, size_t len)
{
    atari_game *g = &e->games[i];
    uint8_t *p = s + sizeof(slot_head);
    memcpy(p, g->raw0, e->raw_bytes), p += e->raw_bytes;
    memcpy(p, g->raw1, e->raw_bytes), p += e->raw_bytes;
    memcpy(p, g->frames, e->stack * e->frame_bytes), p += e->stack * e->frame_bytes;
    ale_shim_state_take(g->ale, p);
    slot_head h = {STATE_MAGIC, (uint32_t)len, g->lives, g->head, g->score, g->rng, fnv1a(p, len)};
    memcpy(s, &h, sizeof h);
}

static int unpack(atari *e, uint32_t i, const uint8_t *s, size_t cap, const char *name, char *err, size_t errlen)
{
    atari_game *g = &e->games[i];
    slot_head h;
    memcpy(&h, s, sizeof h);
    const uint8_t *p = s + sizeof h, *ale = p + 2 * e->raw_bytes + e->stack * e->frame_bytes;
    const char *why = h.magic != STATE_MAGIC         ? "is not an atari env state"
        : h.ale_len == 0 || h.ale_len > cap          ? "has an ALE state of an impossible length"
        : h.lives < 0 || h.lives > 255               ? "has an impossible number of lives"
        : h.head >= e->stack                         ? "has a frame index outside the stack"
        : !isfinite(h.score) || fabs(h.score) > 1e15 ? "has a non-finite or impossible score"
        : fnv1a(ale, h.ale_len) != h.hash            ? "has an ALE state that does not match its hash"
                                                     : NULL;
    if (why) {
        RL_ERRF(err, errlen, "tensor '%s': env %u %s", name, i, why);
        return RL_ECORRUPT;
    }
    char aerr[256];
    if (ale_shim_restore(g->ale, ale, h.ale_len, aerr, sizeof aerr)) {
        RL_ERRF(err, errlen, "tensor '%s': env %u: %s", name, i, aerr);
        return RL_ECORRUPT;
    }
    memcpy(g->raw0, p, e->raw_bytes), p += e->raw_bytes;
    memcpy(g->raw1, p, e->raw_bytes), p += e->raw_bytes;
    memcpy(g->frames, p, e->stack * e->frame_bytes);
    g->lives = h.lives;
    g->head = h.head;
    g->score = h.score;
    g->rng = h.rng;
    g->first = 0; /* a restored game is not a fresh one */
    return RL_OK;
}

/* The tensor atari/ale_cap (uint64) holds the slot's room for ALE's
   bytes: the longest of the envs' states when saved.  Saving serializes
   each env's emulator once: the bytes wait in the shim until packed. */
/* The tensor atari/game: the game the states are of (ALE's name, NUL
   padded), so that a state is never handed to another game's emulator.
   Checkpoints written before it existed have none, and load as they are. */
static int game_io(atari *e, const rl_state_io *io, const char *prefix, int load, char *err, size_t errlen)
{
    char mine[64] = {0}, theirs[64] = {0};
    snprintf(mine, sizeof mine, "%s", e->game);
    if (!load) return rl_state_blob(io, 0, prefix, "atari/game", mine, sizeof mine, err, errlen);
    char name[128];
    snprintf(name, sizeof name, "%satari/game", prefix);
    uint64_t shape = sizeof theirs;
    int rc = io->get(io->ctx, name, RL_DTYPE_U8, 1, &shape, theirs);
    if (rc == RL_ENOENT) return RL_OK;
    if (rc != RL_OK) {
        RL_ERRF(err, errlen, "%s", io->error ? io->error(io->ctx) : rl_strerror(rc));
        return rc;
    }
    theirs[sizeof theirs - 1] = 0;
    for (const char *c = theirs; c == theirs || *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_')) { /* "" too */
            RL_ERRF(err, errlen, "tensor '%s' holds no game name", name);
            return RL_ECORRUPT;
        }
    if (strcmp(theirs, mine)) {
        RL_ERRF(err, errlen,
                "the checkpoint's envs play '%.63s' and this config plays '%s' (env.game): resume with "
                "the game it was trained on",
                theirs, mine);
        return RL_ECONFIG;
    }
    return RL_OK;
}

static int state_io(void *env, const rl_state_io *io, const char *prefix, int load, char *err, size_t errlen)
{
    atari *e = env;
    int grc = game_io(e, io, prefix, load, err, errlen);
    if (grc != RL_OK) return grc;
    uint64_t cap = 0;
    size_t *lens = load ? NULL : calloc(e->n ? e->n : 1, sizeof *lens);
    if (!load && !lens) {
        RL_ERRF(err, errlen, "out of memory for the atari env's state (%u envs)", e->n);
        return RL_ENOMEM;
    }
    for (uint32_t i = 0; !load && i < e->n; i++) {
        char why[256] = "";
        lens[i] = ale_shim_state_save(e->games[i].ale, why, sizeof why);
        if (lens[i] == 0) {
            RL_ERRF(err, errlen, "env %u: %s", i, why[0] ? why : "ALE's state is empty");
            while (i-- > 0) ale_shim_state_take(e->games[i].ale, NULL);
            free(lens);
            return RL_EIO;
        }
        cap = lens[i] > cap ? lens[i] : cap;
    }
    int rc = rl_state_blob(io, load, prefix, "atari/ale_cap", &cap, sizeof cap, err, errlen);
    if (rc == RL_OK && (cap == 0 || cap > ALE_STATE_MAX)) {
        RL_ERRF(err, errlen, "tensor '%satari/ale_cap': %llu bytes is no ALE state's size (1 to %u)", prefix,
                (unsigned long long)cap, ALE_STATE_MAX);
        rc = RL_ECORRUPT;
    }
    size_t one = rc == RL_OK ? slot_bytes(e, (size_t)cap) : 0;
    uint8_t *buf = rc == RL_OK ? calloc(e->n, one) : NULL;
    if (rc == RL_OK && !buf) {
        RL_ERRF(err, errlen, "out of memory for the atari env's state (%u envs)", e->n);
        rc = RL_ENOMEM;
    }
    if (rc != RL_OK) { /* the serialized states held for packing go unused */
        for (uint32_t i = 0; !load && i < e->n; i++) ale_shim_state_take(e->games[i].ale, NULL);
        free(lens);
        return rc;
    }
    char name[128];
    snprintf(name, sizeof name, "%satari/state", prefix);
    for (uint32_t i = 0; !load && i < e->n; i++) pack(e, i, buf + i * one, lens[i]);
    free(lens);
    rc = rl_state_blob(io, load, prefix, "atari/state", buf, e->n * one, err, errlen);
    for (uint32_t i = 0; load && rc == RL_OK && i < e->n; i++)
        rc = unpack(e, i, buf + i * one, (size_t)cap, name, err, errlen);
    free(buf);
    return rc;
}

static int atari_save(void *env, const struct rl_state_io *io, const char *prefix, char *err, size_t errlen)
{
    return state_io(env, io, prefix, 0, err, errlen);
}

static int atari_load(void *env, const struct rl_state_io *io, const char *prefix, char *err, size_t errlen)
{
    return state_io(env, io, prefix, 1, err, errlen);
}

const rl_env_state_ext atari_state_ext = {sizeof atari_state_ext, atari_save, atari_load};
