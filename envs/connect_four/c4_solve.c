/* c4_solve: the exact score of Connect Four positions, one per line of
   stdin as its moves in column digits 1..7 ("4453").  Prints the line, the
   position's score and, with -m, every column's score (x where full).
   `c4_solve -g COUNT MIN MAX SEED` instead prints COUNT positions reached by
   uniformly random play, MIN to MAX stones each (no game over on the way);
   `c4_solve -g COUNT MIN MAX SEED DEPTH EPS`, COUNT distinct ones reached by
   strong play: every move alpha-beta of DEPTH plies (its ties drawn at
   random), but a uniformly random one with probability EPS.
   `c4_solve -q DEPTH` reads lines as -m writes them and prints how often
   connect_four_alphabeta(depth=DEPTH) plays a best column, and how often it
   keeps the position's value (a won position won, a drawn one drawn; lost
   ones left out), its ties drawn uniformly (the expected fractions): the
   references for a policy's rates.
   The tool behind the move-quality positions of the Connect Four tests. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "c4.h"

static uint64_t next_u64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A move of p: uniformly random, or (depth > 0) alpha-beta's, its ties and
   an eps share of moves drawn at random. */
static int pick(const c4_pos *p, int depth, double eps, uint64_t *seed)
{
    int col;
    if (depth > 0 && (double)(next_u64(seed) >> 11) * 0x1p-53 >= eps) {
        int32_t sc[C4_W];
        unsigned best = c4_alphabeta_moves(p, depth, sc), n = (unsigned)__builtin_popcount(best);
        unsigned k = (unsigned)(next_u64(seed) % n);
        for (col = 0; col < C4_W; col++)
            if ((best >> col & 1) && k-- == 0) return col;
    }
    do col = (int)(next_u64(seed) % C4_W);
    while (!c4_can_play(p, col));
    return col;
}

/* Whether key was seen (and marks it): an open-addressing set of positions. */
static int seen_before(uint64_t *set, size_t cap, uint64_t key)
{
    for (size_t i = (size_t)(key * 0x9e3779b97f4a7c15ull) % cap;; i = (i + 1) % cap) {
        if (set[i] == key + 1) return 1;
        if (!set[i]) {
            set[i] = key + 1;
            return 0;
        }
    }
}

static int generate(long count, int lo, int hi, uint64_t seed, int depth, double eps)
{
    if (count < 1 || count > 10000000 || lo < 0 || hi < lo || hi >= C4_CELLS || depth < 0 || depth > 12 ||
        !(eps >= 0 && eps <= 1)) {
        fprintf(stderr, "c4_solve -g: COUNT 1 .. 10^7, 0 <= MIN <= MAX < %d, DEPTH 1 .. 12, EPS 0 .. 1\n", C4_CELLS);
        return 1;
    }
    size_t cap = (size_t)count * 4;
    uint64_t *set = depth ? calloc(cap, sizeof *set) : NULL;
    if (depth && !set) {
        fprintf(stderr, "c4_solve -g: out of memory for %ld positions\n", count);
        return 1;
    }
    for (long k = 0, tries = 0; k < count; tries++) {
        if (tries > 1000 * count) {
            fprintf(stderr, "c4_solve -g: %ld distinct positions after %ld games; play varies too little\n", k, tries);
            free(set);
            return 1;
        }
        int stones = lo + (int)(next_u64(&seed) % (uint64_t)(hi - lo + 1));
        c4_pos p = {0, 0, 0};
        char moves[C4_CELLS + 1];
        int i = 0;
        for (; i < stones; i++) {
            int col = pick(&p, depth, eps, &seed);
            if (c4_wins(&p, col)) break;
            c4_play(&p, col);
            moves[i] = (char)('1' + col);
        }
        if (i < stones) continue; /* the game ended on the way: draw again */
        if (set && seen_before(set, cap, c4_key(&p))) continue;
        moves[i] = 0;
        printf("%s\n", moves);
        k++;
    }
    free(set);
    return 0;
}

/* -q: the scripted player's expected best-column rate over solved lines. */
static int quality(int depth)
{
    if (depth < 1 || depth > 12) {
        fprintf(stderr, "c4_solve -q: DEPTH in 1 .. 12\n");
        return 1;
    }
    char line[256];
    double sum = 0, kept = 0;
    long n = 0, n_kept = 0;
    while (fgets(line, sizeof line, stdin)) {
        char moves[64], col[C4_W][16];
        int score;
        if (line[0] == '#' ||
            sscanf(line, "%63s %d %15s %15s %15s %15s %15s %15s %15s", moves, &score, col[0], col[1], col[2], col[3],
                   col[4], col[5], col[6]) != 9)
            continue;
        c4_pos p;
        if (c4_from_moves(&p, moves) != 0) continue;
        int32_t v[C4_W], s[C4_W], best = INT32_MIN;
        for (int c = 0; c < C4_W; c++) {
            v[c] = col[c][0] == 'x' ? INT32_MIN : atoi(col[c]);
            if (v[c] > best) best = v[c];
        }
        unsigned ab = c4_alphabeta_moves(&p, depth, s);
        int tot = 0, good = 0, keep = 0;
        for (int c = 0; c < C4_W; c++)
            if ((ab >> c) & 1)
                tot++, good += v[c] == best, keep += v[c] != INT32_MIN && (best > 0 ? v[c] > 0 : v[c] == 0);
        sum += (double)good / tot;
        n++;
        if (best >= 0) kept += (double)keep / tot, n_kept++; /* a lost position has no value to keep */
    }
    printf("connect_four_alphabeta(depth=%d) plays a best column in %.3f of %ld positions\n", depth, n ? sum / n : 0.0,
           n);
    printf("connect_four_alphabeta(depth=%d) keeps the value (won stays won, drawn drawn) in %.3f of %ld positions\n",
           depth, n_kept ? kept / n_kept : 0.0, n_kept);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "-q") == 0) return quality(atoi(argv[2]));
    if ((argc == 6 || argc == 8) && strcmp(argv[1], "-g") == 0)
        return generate(atol(argv[2]), atoi(argv[3]), atoi(argv[4]), strtoull(argv[5], NULL, 10),
                        argc == 8 ? atoi(argv[6]) : 0, argc == 8 ? atof(argv[7]) : 0.0);
    int per_move = argc > 1 && strcmp(argv[1], "-m") == 0;
    c4_solver *s = c4_solver_create(24);
    if (!s) {
        fprintf(stderr, "c4_solve: out of memory for the table\n");
        return 1;
    }
    char line[256];
    unsigned long lineno = 0;
    int rc = 0;
    while (fgets(line, sizeof line, stdin)) {
        lineno++;
        if (line[0] == '#') continue; /* a comment */
        line[strcspn(line, " \r\n")] = 0;
        c4_pos p;
        if (c4_from_moves(&p, line) != 0) {
            fprintf(stderr, "c4_solve: line %lu: '%s' is not a position of a game in progress\n", lineno, line);
            rc = 1;
            continue;
        }
        printf("%s %d", line, c4_solve(s, &p));
        if (per_move) {
            int32_t sc[C4_W];
            c4_solve_moves(s, &p, sc);
            for (int c = 0; c < C4_W; c++) sc[c] == INT32_MIN ? printf(" x") : printf(" %d", sc[c]);
        }
        printf("\n");
        fflush(stdout);
    }
    c4_solver_destroy(s);
    return rc;
}
