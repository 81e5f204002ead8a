/* libFuzzer target: an env's description of its spaces as the host checks
   it when it opens the env (the observation, the action space with its
   MultiDiscrete nvec, masks and a hybrid action's box, a composite observation's parts: names,
   kinds, dtypes, shapes, offsets, scales, nvec), its agents' seats and
   turns (ABI 1.7), its symmetries (ABI 1.13), built from arbitrary bytes; where it passes, rows of observations, masks
   and actions from the rest of the input go through the checks every step makes, and an algorithm's actions are
   settled, split and packed back. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "seats/table.h"
#include "spaces/parts.h"
#include "spaces/spaces.h"
#include "spaces/symmetry.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct rd {
    const uint8_t *p, *end;
} rd;

static uint8_t byte(rd *r)
{
    return r->p < r->end ? *r->p++ : 0;
}

static uint32_t u16(rd *r)
{
    uint32_t lo = byte(r);
    return lo | (uint32_t)byte(r) << 8;
}

static float scale(rd *r)
{
    static const float pick[8] = {1.0f, 1.0f / 255.0f, 0.0f, -1.0f, 1e30f, 0.5f, 2.0f, 3.0f};
    uint8_t k = byte(r);
    return k == 255 ? __builtin_nanf("") : pick[k % 8];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rd r = {data, data + size};
    rl_env_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    info.obs_dtype = (rl_dtype)(byte(&r) % 4);
    info.obs_ndim = byte(&r) % 3;
    for (uint32_t k = 0; k < 4; k++) info.obs_shape[k] = u16(&r) % 300;
    info.obs_size = 1;
    for (uint32_t k = 0; k < info.obs_ndim; k++) info.obs_size *= info.obs_shape[k];
    if (byte(&r) & 1) info.obs_size = u16(&r);
    info.obs_scale = scale(&r);
    info.action_kind = byte(&r) % 5; /* 4: no kind rlhost knows */
    info.n_actions = u16(&r) % 40;
    info.action_dim = byte(&r) % 10;
    info.action_box_dim = byte(&r) % 10; /* a hybrid action's floats */
    uint32_t nvec[16];
    for (uint32_t k = 0; k < 16; k++) nvec[k] = byte(&r) % 12;
    info.action_nvec = byte(&r) % 4 ? nvec : NULL;
    float low[16], high[16];
    for (uint32_t k = 0; k < 16; k++) low[k] = -1.0f, high[k] = (float)(byte(&r) % 3) - 1.0f;
    info.action_low = low, info.action_high = high;
    info.action_mask = byte(&r) & 1;
    /* parts with every field from the input */
    static const char *const names[6] = {"board", "x", "", "a b", "board", "heading_and_a_name_far_too_long_1"};
    rl_obs_part parts[RL_OBS_MAX_PARTS + 2];
    uint32_t part_nvec[RL_OBS_MAX_PARTS + 2][8];
    uint32_t n_parts = byte(&r) % (RL_OBS_MAX_PARTS + 3);
    for (uint32_t k = 0; k < n_parts; k++) {
        rl_obs_part *p = &parts[k];
        p->struct_size = byte(&r) & 7 ? sizeof *p : byte(&r);
        p->name = byte(&r) % 7 == 6 ? NULL : names[byte(&r) % 6];
        p->kind = byte(&r) % 3;
        p->dtype = (rl_dtype)(byte(&r) % 6);
        p->ndim = byte(&r) % 6;
        for (uint32_t d = 0; d < 4; d++) p->shape[d] = byte(&r) % 9;
        p->offset = u16(&r) % 600;
        p->scale = scale(&r);
        for (uint32_t e = 0; e < 8; e++) part_nvec[k][e] = byte(&r) % 5;
        p->nvec = byte(&r) % 4 ? part_nvec[k] : NULL;
    }
    info.n_obs_parts = n_parts;
    info.obs_parts = byte(&r) % 5 ? parts : NULL;
    /* seats: agents, a seat for each from the input (past the seats too) */
    uint32_t seat_of_in[80], seat_of[64], per_seat = 0;
    info.agents = byte(&r) % 80;
    info.seats = byte(&r) % 70;
    for (uint32_t k = 0; k < 80; k++) seat_of_in[k] = byte(&r) % 72;
    info.agent_seats = byte(&r) % 4 ? seat_of_in : NULL;
    info.turn_based = byte(&r) & 1;
    char err[RL_ERR_MAX];
    if (rl_env_info_seats(&info) && rl__seats_check(&info, "fuzz", seat_of, &per_seat, err, sizeof err) == RL_OK) {
        uint32_t agents = info.agents ? info.agents : 1;
        for (uint32_t g = 0; g < agents; g++)
            if (seat_of[g] >= info.seats) __builtin_trap();                 /* a seat it let through is in range */
        if (!per_seat || per_seat * info.seats != agents) __builtin_trap(); /* and the seats are even */
    }
    size_t row = rl__obs_check(&info, "fuzz", err, sizeof err);
    if (!row) return 0;
    rl__space s;
    if (rl__space_from_info(&s, &info, "fuzz", err, sizeof err) != RL_OK) return 0;
    rl__parts p;
    if (rl__parts_from_info(&p, &info, row, "fuzz", err, sizeof err) != RL_OK) {
        rl__space_free(&s);
        return 0;
    }
    /* up to 3 symmetries of tables from the input, nearly permutations:
       one the host accepts permutes the row's bytes and the moves, and
       keeps a row the parts accept acceptable */
    enum { SYM_ROW = 512 };
    uint32_t sym_obs[3][SYM_ROW], sym_act[3][40];
    rl_symmetry syms[3];
    rl__symmetries sy = {0};
    int have_sym = 0;
    if (row <= SYM_ROW && byte(&r) % 2) {
        uint32_t n_sym = 1 + byte(&r) % 3;
        for (uint32_t k = 0; k < n_sym; k++) {
            uint8_t how = byte(&r); /* 0: identity, 1: reversed, else a byte's worth of swaps */
            for (uint32_t j = 0; j < row; j++) sym_obs[k][j] = how == 1 ? (uint32_t)row - 1 - j : j;
            for (uint32_t a = 0; a < 40; a++)
                sym_act[k][a] = how == 1 && a < info.n_actions ? info.n_actions - 1 - a : a;
            for (uint32_t t = how > 1 ? byte(&r) % 8 : 0; t > 0; t--) {
                uint32_t i = u16(&r) % (uint32_t)(row + 1), j = u16(&r) % (uint32_t)row, x = sym_obs[k][j];
                if (i < row)
                    sym_obs[k][j] = sym_obs[k][i], sym_obs[k][i] = x; /* else a byte out of range */
                else
                    sym_obs[k][j] = (uint32_t)row;
            }
            if (byte(&r) % 5 == 0) sym_act[k][byte(&r) % 40] = byte(&r) % 41;
            syms[k] = (rl_symmetry){sym_obs[k], byte(&r) % 9 ? sym_act[k] : NULL};
        }
        info.n_symmetries = n_sym;
        info.symmetries = syms;
        if (rl__symmetries_from_info(&sy, &info, &p, row, "fuzz", err, sizeof err) == RL_OK) have_sym = sy.n > 0;
    }
    /* two rows of whatever the rest of the input holds */
    enum { ROWS = 2 };
    unsigned char *obs = calloc(ROWS, row);
    uint8_t *mask = calloc(ROWS, s.mask_width ? s.mask_width : 1);
    unsigned char *act = calloc(ROWS, s.action_bytes);
    if (obs && mask && act) {
        for (size_t k = 0; k < ROWS * row; k++) obs[k] = byte(&r);
        for (size_t k = 0; k < ROWS * (size_t)s.mask_width; k++) mask[k] = byte(&r) & 1;
        for (size_t k = 0; k < ROWS * s.action_bytes; k++) act[k] = byte(&r) % 4;
        int rows_ok = rl__parts_check_rows(&p, obs, ROWS, row, 1, "fuzz", err, sizeof err) == RL_OK;
        for (uint32_t k = 0; have_sym && k < sy.n; k++) {
            uint8_t seen[SYM_ROW] = {0}, moved[40] = {0}, image[SYM_ROW];
            for (size_t j = 0; j < row; j++) {
                if (sy.list[k].obs_from[j] >= row || seen[sy.list[k].obs_from[j]]++) __builtin_trap();
                image[j] = obs[sy.list[k].obs_from[j]];
            }
            for (uint32_t a = 0; a < info.n_actions; a++)
                if (sy.list[k].action_to[a] >= info.n_actions || moved[sy.list[k].action_to[a]]++) __builtin_trap();
            if (rows_ok && rl__parts_check_rows(&p, image, 1, row, 1, "fuzz", err, sizeof err) != RL_OK)
                __builtin_trap(); /* an image of an acceptable row is acceptable */
        }
        for (uint32_t i = 0; s.mask_width && i < ROWS; i++)
            rl__space_check_mask(&s, mask + (size_t)i * s.mask_width, i, 1, 0, "fuzz", "a mask", err, sizeof err);
        rl__space_check_actions(&s, act, s.mask_width ? mask : NULL, ROWS, 1, "fuzz", err, sizeof err);
        /* as an algorithm's: settled (ints checked, floats clipped), then split into the ABI's arrays */
        unsigned char *settled = calloc(ROWS, s.action_bytes), *split = calloc(ROWS, s.action_bytes + 4);
        if (settled && split &&
            rl__space_settle(&s, act, settled, s.mask_width ? mask : NULL, ROWS, 1, "fuzz", err, sizeof err) == RL_OK) {
            int32_t *ints = s.ints ? (int32_t *)(void *)split : NULL;
            float *floats = s.floats ? (float *)(void *)split + (size_t)ROWS * s.ints : NULL;
            rl__space_split(&s, settled, ROWS, ints, floats);
            rl__space_pack(&s, ints, floats, ROWS, act);
            if (memcmp(act, settled, ROWS * s.action_bytes) != 0) __builtin_trap(); /* split and pack are inverses */
        }
        free(settled);
        free(split);
        rl__sbuf b = {0};
        rl__parts_json(&p, &b);
        rl__space_json(&s, &b);
        rl__sbuf_free(&b);
    }
    free(obs);
    free(mask);
    free(act);
    rl__symmetries_free(&sy);
    rl__parts_free(&p);
    rl__space_free(&s);
    return 0;
}
