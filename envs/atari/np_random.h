/* NumPy's seeding and its default generator, bit for bit, so that an atari
   env seeded with s draws what Gymnasium's ale-py env reset(seed=s) draws:
   SeedSequence(s).generate_state(2) gives the generator's seed and ALE's
   random_seed, and the no-op count at each reset is
   Generator(PCG64(SeedSequence(word 0))).integers(1, noop_max + 1). */
#ifndef RLHOST_NP_RANDOM_H
#define RLHOST_NP_RANDOM_H

#include <stdint.h>

/* SeedSequence(entropy).generate_state(n) as uint32 words (pool size 4). */
void np_seed_sequence(uint64_t entropy, uint32_t *out, int n);

/* PCG64 (XSL-RR 128/64) with NumPy's buffered 32-bit half.  Plain data:
   saved in checkpoints as it is. */
typedef struct np_pcg64 {
    uint64_t state_hi, state_lo, inc_hi, inc_lo;
    uint32_t has_uint32, uinteger;
} np_pcg64;

/* PCG64(SeedSequence(entropy)) */
void np_pcg64_seed(np_pcg64 *g, uint64_t entropy);
/* Generator.integers(low, high) for high - low - 1 < 2^32 - 1 (int64 result):
   Lemire's bounded method on 32-bit draws, as NumPy does. */
int64_t np_integers(np_pcg64 *g, int64_t low, int64_t high);

#endif
