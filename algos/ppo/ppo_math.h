/* PPO's arithmetic, separate from the plugin so tests can check it on
   hand-built numbers: the clipped surrogate and value losses with their
   gradients, and the assembly of recurrent minibatches from whole
   sequences.  GAE is librlcore's (<rlhost/rollout.h>). */
#ifndef RLHOST_PPO_MATH_H
#define RLHOST_PPO_MATH_H

#include <stdint.h>

/* Clipped surrogate for one sample: loss = -min(r A, clip(r, 1-c, 1+c) A).
   Returns the loss and writes dloss/dlogp (= dloss/dr * r), whether the
   clip was active, and (ratio not NULL) r = exp(logp - old_logp). */
float ppo_policy_loss(float logp, float old_logp, float adv, float clip, float *dlogp, int *clipped, float *ratio);

/* How the value loss treats the clipped value v' = old + clamp(v - old,
   -vclip, vclip) (v' = v when vclip is 0). */
typedef enum ppo_vloss {
    PPO_VLOSS_SB3,       /* (v' - R)^2: Stable-Baselines3 */
    PPO_VLOSS_BASELINES, /* 0.5 max((v - R)^2, (v' - R)^2): OpenAI Baselines' ppo2, CleanRL */
} ppo_vloss;

/* Value loss for one sample in the given form.  Writes dloss/dv; where the
   two terms of the max are equal, each takes half the gradient (as
   torch.max does). */
float ppo_value_loss(ppo_vloss form, float v, float old_v, float ret, float vclip, float *dv);

/* Recurrent minibatch of S sequences of L steps, time-major: row l*S + s is
   rollout row (start[s] + l) * N + env[s]; reset[l*S + s] is that row's
   episode_start flag (a sequence's first row always resets to its stored
   state, so it is 0 unless the episode starts there). */
void ppo_sequence_rows(uint32_t *rows, uint8_t *reset, const uint32_t *seq_ids, uint32_t S, uint32_t L, uint32_t N,
                       const uint8_t *episode_start);

#endif
