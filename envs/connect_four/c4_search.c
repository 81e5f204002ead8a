/* Searches on Connect Four positions; see c4.h.
 *
 * The solver is negamax with alpha-beta on the scores of c4.h, narrowed by
 * null windows (a binary search over the score, each probe a search that
 * only asks "better than m?"), with a transposition table of upper and
 * lower bounds,
 * moves that lose at once pruned before they are searched, and moves tried
 * best-first by how many threats they make (centre first among equals).
 * It is the method of the known solvers (John Tromp's, Pascal Pons's). */
#include "c4.h"

#include <limits.h>
#include <stdlib.h>

struct c4_solver {
    uint64_t *keys;
    /* a bound on the score: an upper one as score + 1 - C4_MIN_SCORE (1 ..
       C4_MAX_SCORE - C4_MIN_SCORE + 1), a lower one above that range as
       score + C4_MAX_SCORE - 2 C4_MIN_SCORE + 2; 0: empty */
    uint8_t *vals;
    uint64_t size;
    uint64_t nodes;
};

c4_solver *c4_solver_create(unsigned log2_entries)
{
    c4_solver *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->size = 1ull << log2_entries;
    s->keys = calloc(s->size, sizeof *s->keys);
    s->vals = calloc(s->size, 1);
    if (!s->keys || !s->vals) {
        c4_solver_destroy(s);
        return NULL;
    }
    return s;
}

void c4_solver_destroy(c4_solver *s)
{
    if (!s) return;
    free(s->keys);
    free(s->vals);
    free(s);
}

uint64_t c4_solver_nodes(const c4_solver *s)
{
    return s->nodes;
}

static uint64_t slot_of(const c4_solver *s, uint64_t key)
{
    key ^= key >> 29;
    key *= 0xbf58476d1ce4e5b9ull;
    key ^= key >> 32;
    return key & (s->size - 1);
}

/* Cells the side to move can play without losing at once: none when the
   opponent has two threats it can play, the one forced block when it has
   one, and never the cell below an opponent's threat. */
static uint64_t non_losing(const c4_pos *p)
{
    uint64_t possible = c4_playable(p);
    uint64_t opp = c4_threats(p->cur ^ p->mask, p->mask);
    uint64_t forced = possible & opp;
    if (forced) {
        if (forced & (forced - 1)) return 0;
        possible = forced;
    }
    return possible & ~(opp >> 1);
}

static int popcount64(uint64_t x)
{
    return __builtin_popcountll(x);
}

/* Centre columns first: 3, 2, 4, 1, 5, 0, 6. */
static const int order[C4_W] = {3, 2, 4, 1, 5, 0, 6};

typedef struct sorted {
    uint64_t move[C4_W];
    int score[C4_W];
    int n;
} sorted;

/* Inserts keeping the highest score first, and among equals the later
   added first: moves are added outside in, so the more central. */
static void sorted_add(sorted *m, uint64_t move, int score)
{
    int i = m->n++;
    for (; i && m->score[i - 1] <= score; i--) {
        m->move[i] = m->move[i - 1];
        m->score[i] = m->score[i - 1];
    }
    m->move[i] = move;
    m->score[i] = score;
}

/* Negamax of p, which the side to move cannot win in one move, in the
   window (alpha, beta). */
static int negamax(c4_solver *s, const c4_pos *p, int alpha, int beta)
{
    s->nodes++;
    uint64_t next = non_losing(p);
    if (!next) return -(int)(C4_CELLS - p->moves) / 2;
    if (p->moves >= C4_CELLS - 2) return 0;
    int min = -(int)(C4_CELLS - 2 - p->moves) / 2;
    if (alpha < min) {
        alpha = min;
        if (alpha >= beta) return alpha;
    }
    int max = (int)(C4_CELLS - 1 - p->moves) / 2;
    if (beta > max) {
        beta = max;
        if (alpha >= beta) return beta;
    }
    uint64_t key = c4_key(p), slot = slot_of(s, key);
    int v = s->keys[slot] == key ? s->vals[slot] : 0;
    if (v > C4_MAX_SCORE - C4_MIN_SCORE + 1) { /* a lower bound */
        int lo = v + 2 * C4_MIN_SCORE - C4_MAX_SCORE - 2;
        if (alpha < lo) {
            alpha = lo;
            if (alpha >= beta) return alpha;
        }
    } else if (v) { /* an upper bound */
        int hi = v + C4_MIN_SCORE - 1;
        if (beta > hi) {
            beta = hi;
            if (alpha >= beta) return beta;
        }
    }
    sorted m = {.n = 0};
    for (int i = C4_W - 1; i >= 0; i--) { /* added outside in, so equals keep the centre first */
        uint64_t move = next & c4_column(order[i]);
        if (move) sorted_add(&m, move, popcount64(c4_threats(p->cur | move, p->mask)));
    }
    for (int i = 0; i < m.n; i++) {
        c4_pos q = *p;
        c4_play_bit(&q, m.move[i]);
        int score = -negamax(s, &q, -beta, -alpha);
        if (score >= beta) {
            s->keys[slot] = key;
            s->vals[slot] = (uint8_t)(score + C4_MAX_SCORE - 2 * C4_MIN_SCORE + 2);
            return score;
        }
        if (score > alpha) alpha = score;
    }
    s->keys[slot] = key;
    s->vals[slot] = (uint8_t)(alpha - C4_MIN_SCORE + 1);
    return alpha;
}

int c4_solve(c4_solver *s, const c4_pos *p)
{
    if (c4_can_win_next(p)) return (int)(C4_CELLS + 1 - p->moves) / 2;
    int min = -(int)(C4_CELLS - p->moves) / 2, max = (int)(C4_CELLS + 1 - p->moves) / 2;
    while (min < max) {
        int med = min + (max - min) / 2;
        if (med <= 0 && min / 2 < med)
            med = min / 2;
        else if (med >= 0 && max / 2 > med)
            med = max / 2;
        int r = negamax(s, p, med, med + 1);
        if (r <= med)
            max = r;
        else
            min = r;
    }
    return min;
}

static unsigned best_of(const int32_t *scores)
{
    int32_t best = INT32_MIN;
    unsigned bits = 0;
    for (int c = 0; c < C4_W; c++) {
        if (scores[c] == INT32_MIN) continue;
        if (scores[c] > best) best = scores[c], bits = 0;
        if (scores[c] == best) bits |= 1u << c;
    }
    return bits;
}

unsigned c4_solve_moves(c4_solver *s, const c4_pos *p, int32_t *scores)
{
    for (int c = 0; c < C4_W; c++) {
        scores[c] = INT32_MIN;
        if (!c4_can_play(p, c)) continue;
        if (c4_wins(p, c)) {
            scores[c] = (int32_t)(C4_CELLS + 1 - p->moves) / 2;
            continue;
        }
        c4_pos q = *p;
        c4_play(&q, c);
        scores[c] = q.moves == C4_CELLS ? 0 : -c4_solve(s, &q);
    }
    return best_of(scores);
}

/* Horizon value for the side to move: its threats less the opponent's. */
static int heuristic(const c4_pos *p)
{
    return popcount64(c4_threats(p->cur, p->mask)) - popcount64(c4_threats(p->cur ^ p->mask, p->mask));
}

/* Plain negamax to depth with alpha-beta; wins score far above any
   heuristic (100 + plies left), so a sooner win is preferred. */
static int ab(const c4_pos *p, int depth, int alpha, int beta)
{
    if (c4_can_win_next(p)) return 100 + (int)(C4_CELLS + 1 - p->moves);
    if (p->moves >= C4_CELLS) return 0;
    if (depth == 0) return heuristic(p);
    int best = -1000;
    for (int i = 0; i < C4_W; i++) {
        int c = order[i];
        if (!c4_can_play(p, c)) continue;
        c4_pos q = *p;
        c4_play(&q, c);
        int v = q.moves == C4_CELLS ? 0 : -ab(&q, depth - 1, -beta, -alpha);
        if (v > best) best = v;
        if (v > alpha) alpha = v;
        if (alpha >= beta) break;
    }
    return best;
}

unsigned c4_alphabeta_moves(const c4_pos *p, int depth, int32_t *scores)
{
    for (int c = 0; c < C4_W; c++) {
        scores[c] = INT32_MIN;
        if (!c4_can_play(p, c)) continue;
        if (c4_wins(p, c)) {
            scores[c] = 100 + (int32_t)(C4_CELLS + 1 - p->moves);
            continue;
        }
        c4_pos q = *p;
        c4_play(&q, c);
        /* a full window per move: every column's exact depth-limited score */
        scores[c] = q.moves == C4_CELLS ? 0 : -ab(&q, depth - 1, -1000, 1000);
    }
    return best_of(scores);
}

int c4_from_moves(c4_pos *p, const char *moves)
{
    *p = (c4_pos){0, 0, 0};
    for (const char *m = moves; *m; m++) {
        int col = *m - '1';
        if (col < 0 || col >= C4_W || !c4_can_play(p, col) || c4_wins(p, col) || p->moves + 1 >= C4_CELLS) return -1;
        c4_play(p, col);
    }
    return 0;
}
