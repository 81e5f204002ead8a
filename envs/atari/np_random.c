/* NumPy's SeedSequence, PCG64 and bounded integers (np_random.h).  The
   constants are NumPy's; the arithmetic is modulo 2^32 (the sequence) and
   2^128 (the generator) as there. */
#include "np_random.h"

enum { POOL = 4 };
#define INIT_A 0x43b0d7e5u
#define MULT_A 0x931e8875u
#define INIT_B 0x8b51f9ddu
#define MULT_B 0x58f38dedu
#define MIX_L 0xca01f9ddu
#define MIX_R 0x4973f715u

static uint32_t hashmix(uint32_t v, uint32_t *h)
{
    v ^= *h;
    *h *= MULT_A;
    v *= *h;
    return v ^ (v >> 16);
}

static uint32_t mix(uint32_t x, uint32_t y)
{
    uint32_t r = MIX_L * x - MIX_R * y;
    return r ^ (r >> 16);
}

void np_seed_sequence(uint64_t entropy, uint32_t *out, int n)
{
    /* the entropy as little-endian 32-bit words: one for 0 */
    uint32_t words[2] = {(uint32_t)entropy, (uint32_t)(entropy >> 32)};
    int nw = words[1] ? 2 : 1;
    uint32_t pool[POOL], h = INIT_A;
    for (int i = 0; i < POOL; i++) pool[i] = hashmix(i < nw ? words[i] : 0, &h);
    for (int s = 0; s < POOL; s++)
        for (int d = 0; d < POOL; d++)
            if (s != d) pool[d] = mix(pool[d], hashmix(pool[s], &h));
    uint32_t hb = INIT_B;
    for (int i = 0; i < n; i++) {
        uint32_t v = pool[i % POOL] ^ hb;
        hb *= MULT_B;
        v *= hb;
        out[i] = v ^ (v >> 16);
    }
}

__extension__ typedef unsigned __int128 u128;
#define PCG_MULT (((u128)0x2360ed051fc65da4ull << 64) | 0x4385df649fccf645ull)

static u128 get(uint64_t hi, uint64_t lo)
{
    return ((u128)hi << 64) | lo;
}

static void step(np_pcg64 *g)
{
    u128 s = get(g->state_hi, g->state_lo) * PCG_MULT + get(g->inc_hi, g->inc_lo);
    g->state_hi = (uint64_t)(s >> 64);
    g->state_lo = (uint64_t)s;
}

static uint64_t next64(np_pcg64 *g)
{
    step(g);
    uint64_t x = g->state_hi ^ g->state_lo;
    unsigned rot = (unsigned)(g->state_hi >> 58);
    return (x >> rot) | (x << ((64 - rot) & 63));
}

static uint32_t next32(np_pcg64 *g)
{
    if (g->has_uint32) {
        g->has_uint32 = 0;
        return g->uinteger;
    }
    uint64_t v = next64(g);
    g->has_uint32 = 1;
    g->uinteger = (uint32_t)(v >> 32);
    return (uint32_t)v;
}

void np_pcg64_seed(np_pcg64 *g, uint64_t entropy)
{
    uint32_t w[8];
    np_seed_sequence(entropy, w, 8);
    /* generate_state(4, uint64): word pairs little-endian */
    uint64_t v[4];
    for (int i = 0; i < 4; i++) v[i] = (uint64_t)w[2 * i] | (uint64_t)w[2 * i + 1] << 32;
    u128 initstate = get(v[0], v[1]), initseq = get(v[2], v[3]);
    u128 inc = (initseq << 1) | 1;
    *g = (np_pcg64){.inc_hi = (uint64_t)(inc >> 64), .inc_lo = (uint64_t)inc};
    step(g);
    u128 s = get(g->state_hi, g->state_lo) + initstate;
    g->state_hi = (uint64_t)(s >> 64);
    g->state_lo = (uint64_t)s;
    step(g);
}

int64_t np_integers(np_pcg64 *g, int64_t low, int64_t high)
{
    uint32_t rng = (uint32_t)(high - 1 - low); /* closed range width */
    if (rng == 0) return low;
    uint32_t excl = rng + 1;
    uint64_t m = (uint64_t)next32(g) * excl;
    uint32_t left = (uint32_t)m;
    if (left < excl) {
        uint32_t threshold = (UINT32_MAX - rng) % excl;
        while (left < threshold) {
            m = (uint64_t)next32(g) * excl;
            left = (uint32_t)m;
        }
    }
    return low + (int64_t)(m >> 32);
}
