/*
 * <rlhost/parts.h> — librlcore's network input for any observation, and
 * the multi-input encoder of composite ones (ABI 1.6, rl_obs_part).
 *
 * rl_obs_input turns rows of an env's observations into the floats a
 * network reads: one tensor's elements times obs_scale, or a composite
 * observation's parts in order, box elements times their scale and
 * discrete elements one-hot over their categories (as SB3 preprocesses a
 * Dict, Tuple, Discrete or MultiDiscrete space).  An algorithm that reads
 * composite observations (RL_DESC_OBS_PARTS) stores and trains on these
 * floats, or keeps the env's compact rows and converts when it samples.
 *
 * rl_parts_encoder is SB3's CombinedExtractor over that input: each image
 * part (a box of [C][H][W], or [H][W] as one channel) through a CNN of its
 * own when the config's encoder is "cnn" and the layers fit the image,
 * every other part as it is (an image too small for the kernels too:
 * flattened), all concatenated for the MLP after it.
 */
#ifndef RLHOST_PARTS_H
#define RLHOST_PARTS_H

#include <stddef.h>
#include <stdint.h>

#include <rlhost/nn.h>
#include <rlhost/plugin.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Floats of one row of network input (obs_size for one tensor). */
uint32_t rl_obs_input_width(const rl_env_info *env);
/* count rows of the env's observations (its dtype and row layout) into
   out [count][rl_obs_input_width]. */
void rl_obs_input(const rl_env_info *env, const void *rows, uint32_t count, float *out);
/* Bytes of one row of the env's observations. */
size_t rl_obs_row_bytes(const rl_env_info *env);

/* An env's observation layout copied, so it outlives the rl_env_info an
   algorithm's create was handed: info's observation fields, with
   obs_parts pointing at parts (and their nvec) here. */
typedef struct rl_obs_layout {
    rl_env_info info;
    rl_obs_part parts[RL_OBS_MAX_PARTS];
    uint32_t *nvec;
} rl_obs_layout;
/* RL_OK, RL_EINVAL for more than RL_OBS_MAX_PARTS parts, or RL_ENOMEM. */
int rl_obs_layout_copy(rl_obs_layout *l, const rl_env_info *env);
void rl_obs_layout_free(rl_obs_layout *l); /* a zeroed l is a no-op */

/* One part of the input as the encoder treats it: a slice of the input
   [in_off, in_off + in_len), through a CNN (cnn >= 0) or as it is, into
   [out_off, out_off + out_len) of the output. */
typedef struct rl_parts_segment {
    uint32_t in_off, in_len, out_off, out_len;
    int cnn; /* index into cnns, or -1 */
} rl_parts_segment;

typedef struct rl_parts_encoder {
    uint32_t n, n_cnn, in_dim, out_dim, max_batch;
    rl_parts_segment seg[RL_OBS_MAX_PARTS];
    rl_cnn *cnns;   /* [n_cnn] */
    float **gather; /* [n_cnn][max_batch][in_len]: each CNN's input, kept for backward */
    float *dpart;   /* [max_batch][widest CNN output] */
    float *out;     /* [max_batch][out_dim] */
} rl_parts_encoder;

/* The encoder of env's composite observation (n_obs_parts > 0), its CNNs'
   tensors PREFIX/<part>/convL.* declared in p, for at most max_batch rows;
   cnn: the config's encoder (rl_cnn_spec_read; not enabled: every part as
   it is).  RL_EINVAL with a sentence, or RL_ENOMEM. */
int rl_parts_encoder_create(rl_parts_encoder *e, rl_params *p, const char *prefix, const rl_env_info *env,
                            const rl_cnn_spec *cnn, uint32_t max_batch, char *err, size_t errlen);
void rl_parts_encoder_destroy(rl_parts_encoder *e); /* a zeroed e is a no-op */
void rl_parts_encoder_init(const rl_parts_encoder *e, rl_params *p, rl_init_scheme scheme, rl_rng *rng);
/* x [B][in_dim] (rl_obs_input) to [B][out_dim]; infer: as rl_cnn_infer (a
   row's result does not depend on B).  The output lives in the encoder. */
const float *rl_parts_encoder_forward(rl_parts_encoder *e, const float *params, const float *x, uint32_t B, int infer);
/* Backward of the last training forward from dout [B][out_dim]: the CNNs'
   gradients accumulate into grad (the input is an observation: no din). */
void rl_parts_encoder_backward(rl_parts_encoder *e, const float *params, float *grad, const float *dout, uint32_t B);
/* The encoder as rlhost.policy/1 operations appended to buf (rl_mlp_ops'
   conventions): {"op":"concat","parts":[[ops of part 0], ...]}, each part's
   ops a {"op":"slice"} of the input, then its CNN's. */
int rl_parts_encoder_ops(const rl_parts_encoder *e, const char *prefix, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif

#endif /* RLHOST_PARTS_H */
