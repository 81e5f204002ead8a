/* Monte Carlo tree search; see <rlhost/search.h>.
 *
 * A tree is one block: nodes (each its state and one edge per move) in the
 * order they were made, the path of the walk in progress, and the leaf's
 * observation and mask.  A walk adds at most one node, so simulations + 1
 * nodes always suffice and nothing is allocated while searching.  An edge
 * holds what its step did (reward, whether it ended the episode, whether
 * the mover stayed) and the statistics of the move from its node's side:
 * visits n and value sum w, so Q = w / n. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rlhost/search.h>

#define NO_CHILD 0u
#define TERMINAL UINT32_MAX /* the move ended the episode: nothing to expand */
#define MAX_ROLLOUT_STEPS (1u << 20)

typedef struct edge {
    float p, w, r;
    uint32_t n, child; /* child: its node, NO_CHILD (not stepped yet) or TERMINAL */
    uint8_t legal, same;
} edge;

typedef struct step_ref {
    uint32_t node, action;
} step_ref;

typedef struct tree {
    uint8_t *block;
    uint32_t nodes, depth, pending; /* pending: the leaf node awaiting the evaluator, else 0 */
    uint32_t *visits;               /* [node]: the node's walks */
    float *root_prior;              /* [n_actions]: the root's priors before the noise */
    float root_value;               /* the evaluator's value of the root */
    edge *edges;                    /* [node][n_actions] */
    uint8_t *states;                /* [node][state_bytes] */
    step_ref *path;                 /* [max_nodes] */
    uint8_t *leaf_obs, *leaf_mask;
    uint8_t *scratch, *scratch_obs; /* two states, and an observation and a mask, for the generic rollout */
    rl_rng rng;
    float leaf_z; /* mix > 0: the pending leaf's rollout value */
    int rc;
} tree;

struct rl_search {
    rl_search_config cfg;
    rl_search_model m;
    uint32_t max_trees, max_nodes, count;
    size_t tree_bytes, stride;
    tree *trees;
    /* the evaluator's batch */
    uint8_t *batch_obs, *batch_mask;
    float *priors, *values;
    uint32_t *batch_tree;
    /* a round's errors, one per worker */
    char (*errs)[RL_ERR_MAX];
    uint32_t workers;
};

rl_search_config rl_search_defaults(void)
{
    rl_search_config c = {.struct_size = sizeof c,
                          .simulations = 100,
                          .c_puct = 1.25f,
                          .dirichlet_alpha = 0.0f,
                          .dirichlet_frac = 0.25f,
                          .discount = 1.0f,
                          .rollouts = 1,
                          .max_bytes = 1ull << 30,
                          .mix = 0.0f};
    return c;
}

/* A state's stride: 8-byte aligned, for a model that reads it as a struct. */
static uint64_t stride_of(const rl_search_model *m)
{
    return ((uint64_t)m->state_bytes + 7) & ~7ull;
}

/* One tree's block: edges, path, states, two scratch states, visits, the
   root's priors, then the leaf's and the scratch's observation and mask. */
static uint64_t tree_bytes(const rl_search_config *cfg, const rl_search_model *m)
{
    uint64_t nodes = (uint64_t)cfg->simulations + 1, st = stride_of(m);
    uint64_t per_node = (uint64_t)m->n_actions * sizeof(edge) + sizeof(step_ref) + st + sizeof(uint32_t);
    return nodes * per_node + 2 * st + (uint64_t)m->n_actions * sizeof(float) + 2 * (m->obs_bytes + m->n_actions);
}

uint64_t rl_search_bytes(const rl_search_config *cfg, const rl_search_model *model, uint32_t trees)
{
    uint64_t batch = (uint64_t)trees * (model->obs_bytes + model->n_actions + 4ull * model->n_actions + 8);
    return (uint64_t)trees * (tree_bytes(cfg, model) + sizeof(tree)) + batch;
}

void rl_search_destroy(rl_search *s)
{
    if (!s) return;
    for (uint32_t t = 0; s->trees && t < s->max_trees; t++) free(s->trees[t].block);
    free(s->trees);
    free(s->batch_obs);
    free(s->batch_mask);
    free(s->priors);
    free(s->values);
    free(s->batch_tree);
    free(s->errs);
    free(s);
}

static int check_config(const rl_search_config *c, const rl_search_model *m, uint32_t trees, char *err, size_t errlen)
{
    if (!m || m->struct_size < sizeof *m || !m->step || !m->n_actions || !m->state_bytes || !m->workers) {
        RL_ERRF(err, errlen, "search: the model lacks a step, its moves, its state size or its workers");
        return RL_EINVAL;
    }
    if (!c || c->struct_size < sizeof *c || !trees) {
        RL_ERRF(err, errlen, "search: no config, or no trees");
        return RL_EINVAL;
    }
    if (c->simulations < 1 || c->simulations > (1u << 24)) {
        RL_ERRF(err, errlen, "search: simulations is %u; it takes 1 to %u", c->simulations, 1u << 24);
        return RL_EINVAL;
    }
    if (!(c->c_puct >= 0 && c->c_puct <= 1e6f) || !(c->dirichlet_alpha >= 0 && c->dirichlet_alpha <= 1e3f) ||
        !(c->dirichlet_frac >= 0 && c->dirichlet_frac <= 1) || !(c->discount >= 0 && c->discount <= 1) ||
        c->rollouts < 1 || c->rollouts > 1u << 16 || !(c->mix >= 0 && c->mix <= 1)) {
        RL_ERRF(err, errlen,
                "search: c_puct (%g) takes 0 to 1e6, dirichlet_alpha (%g) 0 to 1000, dirichlet_frac (%g) 0 to 1, "
                "discount (%g) 0 to 1, rollouts (%u) 1 to 65536, mix (%g) 0 to 1",
                (double)c->c_puct, (double)c->dirichlet_alpha, (double)c->dirichlet_frac, (double)c->discount,
                c->rollouts, (double)c->mix);
        return RL_EINVAL;
    }
    return RL_OK;
}

int rl_search_create(const rl_search_config *cfg, const rl_search_model *model, uint32_t trees, rl_search **out,
                     char *err, size_t errlen)
{
    *out = NULL;
    int rc = check_config(cfg, model, trees, err, errlen);
    if (rc != RL_OK) return rc;
    uint64_t need = rl_search_bytes(cfg, model, trees);
    if (need > cfg->max_bytes) {
        RL_ERRF(err, errlen,
                "search: %u trees of %u simulations need %.1f MiB, past the cap of %.1f MiB (fewer simulations or "
                "envs, or a larger cap)",
                trees, cfg->simulations, (double)need / 1048576.0, (double)cfg->max_bytes / 1048576.0);
        return RL_ENOMEM;
    }
    rl_search *s = calloc(1, sizeof *s);
    if (!s) goto oom;
    s->cfg = *cfg;
    s->m = *model;
    s->max_trees = trees;
    s->max_nodes = cfg->simulations + 1;
    s->tree_bytes = (size_t)tree_bytes(cfg, model);
    s->stride = (size_t)stride_of(model);
    s->workers = model->workers;
    s->trees = calloc(trees, sizeof *s->trees);
    s->batch_obs = malloc((size_t)trees * (model->obs_bytes ? model->obs_bytes : 1));
    s->batch_mask = malloc((size_t)trees * model->n_actions);
    s->priors = malloc((size_t)trees * model->n_actions * sizeof(float));
    s->values = malloc((size_t)trees * sizeof(float));
    s->batch_tree = malloc((size_t)trees * sizeof(uint32_t));
    s->errs = calloc(s->workers, sizeof *s->errs);
    if (!s->trees || !s->batch_obs || !s->batch_mask || !s->priors || !s->values || !s->batch_tree || !s->errs)
        goto oom;
    size_t A = model->n_actions, st = (size_t)stride_of(model), N = s->max_nodes;
    for (uint32_t t = 0; t < trees; t++) {
        tree *tr = &s->trees[t];
        if (!(tr->block = malloc(s->tree_bytes))) goto oom;
        uint8_t *p = tr->block; /* every piece up to visits a multiple of 8 bytes */
        tr->edges = (edge *)p, p += N * A * sizeof(edge);
        tr->path = (step_ref *)p, p += N * sizeof(step_ref);
        tr->states = p, p += N * st;
        tr->scratch = p, p += 2 * st;
        tr->visits = (uint32_t *)p, p += N * sizeof(uint32_t);
        tr->root_prior = (float *)p, p += A * sizeof(float);
        tr->leaf_obs = p, p += model->obs_bytes;
        tr->leaf_mask = p, p += A;
        tr->scratch_obs = p;
    }
    *out = s;
    return RL_OK;
oom:
    rl_search_destroy(s);
    RL_ERRF(err, errlen, "search: out of memory for %u trees (%.1f MiB)", trees, (double)need / 1048576.0);
    return RL_ENOMEM;
}

static edge *edges_of(const rl_search *s, tree *t, uint32_t node)
{
    return t->edges + (size_t)node * s->m.n_actions;
}

static uint8_t *state_of(const rl_search *s, tree *t, uint32_t node)
{
    return t->states + (size_t)node * s->stride;
}

/* A fresh node from its state's mask (the state is already in place). */
static void init_node(const rl_search *s, tree *t, uint32_t node, const uint8_t *mask)
{
    edge *e = edges_of(s, t, node);
    for (uint32_t a = 0; a < s->m.n_actions; a++) e[a] = (edge){.legal = mask[a] != 0};
    t->visits[node] = 0;
}

/* Priors from the evaluator's weights, renormalized over the allowed moves
   (uniform when they weigh nothing); -1 for a weight negative or not finite. */
static int set_priors(const rl_search *s, tree *t, uint32_t node, const float *w)
{
    edge *e = edges_of(s, t, node);
    double sum = 0;
    uint32_t legal = 0;
    for (uint32_t a = 0; a < s->m.n_actions; a++) {
        if (!e[a].legal) continue;
        float p = w ? w[a] : 1.0f;
        if (!(p >= 0) || !isfinite(p)) return -1;
        sum += p, legal++;
    }
    for (uint32_t a = 0; a < s->m.n_actions; a++)
        if (e[a].legal) e[a].p = sum > 0 ? (float)((w ? w[a] : 1.0f) / sum) : 1.0f / (float)legal;
    return 0;
}

/* The root's priors (before any noise) and its value, for
   rl_search_improved_policy. */
static void keep_root(const rl_search *s, tree *t, float value)
{
    const edge *e = edges_of(s, t, 0);
    for (uint32_t a = 0; a < s->m.n_actions; a++) t->root_prior[a] = e[a].legal ? e[a].p : 0.0f;
    t->root_value = value;
}

/* A draw from Gamma(alpha, 1) (Marsaglia and Tsang; alpha < 1 boosted). */
static double gamma_draw(rl_rng *r, double alpha)
{
    if (alpha < 1) {
        double u = rl_rng_uniform_d(r);
        return gamma_draw(r, alpha + 1) * pow(u > 0 ? u : 1e-300, 1.0 / alpha);
    }
    double d = alpha - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
    for (;;) {
        double x = rl_rng_normal(r), v = 1.0 + c * x;
        if (v <= 0) continue;
        v = v * v * v;
        double u = rl_rng_uniform_d(r);
        if (u < 1.0 - 0.0331 * x * x * x * x || log(u > 0 ? u : 1e-300) < 0.5 * x * x + d * (1.0 - v + log(v)))
            return d * v;
    }
}

/* Root noise: Dir(alpha) over the allowed moves, drawn into the root's value
   sums (zero until its first walk) and mixed into its priors. */
static void root_noise(const rl_search *s, tree *t)
{
    if (!(s->cfg.dirichlet_alpha > 0) || !(s->cfg.dirichlet_frac > 0)) return;
    edge *e = edges_of(s, t, 0);
    double sum = 0;
    for (uint32_t a = 0; a < s->m.n_actions; a++)
        if (e[a].legal) sum += e[a].w = (float)gamma_draw(&t->rng, s->cfg.dirichlet_alpha);
    float f = s->cfg.dirichlet_frac;
    for (uint32_t a = 0; a < s->m.n_actions; a++) {
        if (e[a].legal && sum > 0) e[a].p = (1 - f) * e[a].p + f * (float)(e[a].w / sum);
        e[a].w = 0;
    }
}

/* With an evaluator: every allowed move of a new node stepped once, so a
   move that ends the episode is known from the start with its exact value
   (a win the priors overlook is still found).  The children's states are
   not kept: a move is stepped again when a walk first takes it. */
static int probe_ends(const rl_search *s, tree *t, uint32_t worker, uint32_t node, char *err, size_t errlen)
{
    edge *e = edges_of(s, t, node);
    uint8_t *next = t->scratch, *obs = t->scratch_obs, *mask = obs + s->m.obs_bytes;
    for (uint32_t a = 0; a < s->m.n_actions; a++) {
        if (!e[a].legal) continue;
        rl_search_step st = {0};
        int rc = s->m.step(s->m.ctx, worker, state_of(s, t, node), (int32_t)a, next, obs, mask, &st, err, errlen);
        if (rc != RL_OK) return rc;
        if (!isfinite(st.reward)) {
            RL_ERRF(err, errlen, "search: the env's reward for move %u is not finite", a);
            return RL_ENONFINITE;
        }
        if (!st.over) continue;
        e[a].r = st.reward, e[a].same = st.same_mover != 0;
        e[a].child = TERMINAL;
    }
    return RL_OK;
}

/* The move a walk takes at node: PUCT with priors; with rollouts, an untried
   move first (drawn), then UCB1. */
static uint32_t select_move(const rl_search *s, tree *t, uint32_t node, int rollouts)
{
    const edge *e = edges_of(s, t, node);
    uint32_t A = s->m.n_actions, N = t->visits[node], best = UINT32_MAX;
    float c = s->cfg.c_puct, best_score = -INFINITY;
    if (rollouts) {
        uint32_t untried = 0;
        for (uint32_t a = 0; a < A; a++) untried += e[a].legal && !e[a].n;
        if (untried) {
            uint32_t k = rl_rng_below(&t->rng, untried);
            for (uint32_t a = 0; a < A; a++)
                if (e[a].legal && !e[a].n && k-- == 0) return a;
        }
        float logn = logf((float)(N > 0 ? N : 1));
        for (uint32_t a = 0; a < A; a++) {
            if (!e[a].legal) continue;
            float score = e[a].w / (float)e[a].n + c * sqrtf(logn / (float)e[a].n);
            if (score > best_score || best == UINT32_MAX) best = a, best_score = score;
        }
        return best;
    }
    /* an untried move is valued as its node is so far (0 before any walk) */
    float w_sum = 0;
    for (uint32_t a = 0; a < A; a++) w_sum += e[a].w;
    float fpu = N ? w_sum / (float)N : 0.0f, sq = sqrtf((float)N + 1.0f);
    for (uint32_t a = 0; a < A; a++) {
        if (!e[a].legal) continue;
        /* a move that ends the episode is worth its reward from the start */
        float q = e[a].n ? e[a].w / (float)e[a].n : e[a].child == TERMINAL ? e[a].r : fpu;
        float score = q + c * e[a].p * sq / (1.0f + (float)e[a].n);
        if (score > best_score || best == UINT32_MAX) best = a, best_score = score;
    }
    return best;
}

/* Backs value v (from the side of the mover at the walk's last node) up the
   path. */
static void backup(const rl_search *s, tree *t, float v)
{
    for (uint32_t i = t->depth; i-- > 0;) {
        step_ref r = t->path[i];
        edge *e = &edges_of(s, t, r.node)[r.action];
        v = e->r + s->cfg.discount * (e->same ? v : -v);
        e->n++;
        e->w += v;
        t->visits[r.node]++;
    }
    t->depth = 0;
}

int32_t rl_search_random_move(const uint8_t *mask, uint32_t n_actions, rl_rng *rng)
{
    uint32_t legal = 0;
    for (uint32_t a = 0; a < n_actions; a++) legal += mask[a] != 0;
    if (!legal) return -1;
    uint32_t k = rl_rng_below(rng, legal);
    for (uint32_t a = 0; a < n_actions; a++)
        if (mask[a] && k-- == 0) return (int32_t)a;
    return -1;
}

/* Random play from state (its mask in mask) through the model's step. */
static int generic_rollout(const rl_search *s, tree *t, uint32_t worker, const uint8_t *state, const uint8_t *mask,
                           float *value, char *err, size_t errlen)
{
    uint8_t *cur = t->scratch, *next = cur + s->stride, *obs = t->scratch_obs, *m = obs + s->m.obs_bytes;
    memcpy(cur, state, s->m.state_bytes);
    memcpy(m, mask, s->m.n_actions);
    double ret = 0, scale = 1;
    for (uint32_t k = 0; k < MAX_ROLLOUT_STEPS; k++) {
        int32_t a = rl_search_random_move(m, s->m.n_actions, &t->rng);
        if (a < 0) {
            RL_ERRF(err, errlen, "search: a state of the rollout allows no move");
            return RL_EINVAL;
        }
        rl_search_step st = {0};
        int rc = s->m.step(s->m.ctx, worker, cur, a, next, obs, m, &st, err, errlen);
        if (rc != RL_OK) return rc;
        ret += scale * st.reward;
        if (st.over) {
            *value = (float)ret;
            return RL_OK;
        }
        scale *= st.same_mover ? s->cfg.discount : -s->cfg.discount;
        uint8_t *tmp = cur;
        cur = next, next = tmp;
    }
    RL_ERRF(err, errlen, "search: a rollout took %u steps without the episode ending", MAX_ROLLOUT_STEPS);
    return RL_EINVAL;
}

static int leaf_rollouts(const rl_search *s, tree *t, uint32_t worker, uint32_t node, float *value, char *err,
                         size_t errlen)
{
    double sum = 0;
    for (uint32_t k = 0; k < s->cfg.rollouts; k++) {
        float v = 0;
        int rc = s->m.rollout
            ? s->m.rollout(s->m.ctx, worker, state_of(s, t, node), &t->rng, s->cfg.discount, &v, err, errlen)
            : generic_rollout(s, t, worker, state_of(s, t, node), t->leaf_mask, &v, err, errlen);
        if (rc != RL_OK) return rc;
        if (!isfinite(v)) {
            RL_ERRF(err, errlen, "search: a rollout's return is not finite");
            return RL_ENONFINITE;
        }
        sum += v;
    }
    *value = (float)(sum / s->cfg.rollouts);
    return RL_OK;
}

/* One walk of tree t from its root: down to a move not stepped yet (or one
   that ended the episode), stepped into a new leaf.  With rollouts (or at
   an episode's end) the value is backed up at once; else the leaf waits
   for the evaluator (t->pending). */
static int walk(const rl_search *s, tree *t, uint32_t worker, int rollouts, char *err, size_t errlen)
{
    uint32_t node = 0;
    t->depth = 0;
    for (;;) {
        uint32_t a = select_move(s, t, node, rollouts);
        t->path[t->depth++] = (step_ref){node, a};
        edge *e = &edges_of(s, t, node)[a];
        if (e->child == TERMINAL) {
            backup(s, t, 0.0f);
            return RL_OK;
        }
        if (e->child != NO_CHILD) {
            node = e->child;
            continue;
        }
        if (t->nodes >= s->max_nodes) { /* cannot happen: a walk adds at most one node */
            RL_ERRF(err, errlen, "search: a tree outgrew its %u nodes", s->max_nodes);
            return RL_EINVAL;
        }
        uint32_t c = t->nodes;
        rl_search_step st = {0};
        int rc = s->m.step(s->m.ctx, worker, state_of(s, t, node), (int32_t)a, state_of(s, t, c), t->leaf_obs,
                           t->leaf_mask, &st, err, errlen);
        if (rc != RL_OK) return rc;
        if (!isfinite(st.reward)) {
            RL_ERRF(err, errlen, "search: the env's reward for move %u is not finite", a);
            return RL_ENONFINITE;
        }
        e->r = st.reward, e->same = st.same_mover != 0;
        if (st.over) {
            e->child = TERMINAL;
            backup(s, t, 0.0f);
            return RL_OK;
        }
        t->nodes++;
        e->child = c;
        init_node(s, t, c, t->leaf_mask);
        if (!rollouts) {
            t->pending = c;
            rc = probe_ends(s, t, worker, c, err, errlen);
            if (rc == RL_OK && s->cfg.mix > 0) rc = leaf_rollouts(s, t, worker, c, &t->leaf_z, err, errlen);
            return rc;
        }
        set_priors(s, t, c, NULL);
        float v;
        rc = leaf_rollouts(s, t, worker, c, &v, err, errlen);
        if (rc != RL_OK) return rc;
        backup(s, t, v);
        return RL_OK;
    }
}

/* The workers a search of s->count roots uses: one root each at least. */
static uint32_t active_workers(const rl_search *s)
{
    return s->count < s->workers ? s->count : s->workers;
}

/* Worker w's share of the roots: trees [*lo, *hi), never empty. */
static void share(const rl_search *s, uint32_t w, uint32_t *lo, uint32_t *hi)
{
    uint32_t W = active_workers(s);
    *lo = w * s->count / W, *hi = (w + 1) * s->count / W;
}

typedef struct round_ctx {
    rl_search *s;
    int rollouts;
    uint32_t walks; /* per tree: 1 a round (with an evaluator), else every simulation at once */
} round_ctx;

static void walk_range(void *arg, uint32_t w)
{
    round_ctx *r = arg;
    rl_search *s = r->s;
    uint32_t lo, hi;
    share(s, w, &lo, &hi);
    for (uint32_t i = lo; i < hi; i++) {
        tree *t = &s->trees[i];
        for (uint32_t k = 0; k < r->walks && t->rc == RL_OK; k++)
            t->rc = walk(s, t, w, r->rollouts, s->errs[w], sizeof s->errs[w]);
    }
}

/* The first failed tree's error, in the trees' order (the same whatever
   the timing), with its worker's sentence. */
static int round_errors(rl_search *s, char *err, size_t errlen)
{
    for (uint32_t w = 0; w < active_workers(s); w++) {
        uint32_t lo, hi;
        share(s, w, &lo, &hi);
        for (uint32_t i = lo; i < hi; i++)
            if (s->trees[i].rc != RL_OK) {
                RL_ERRF(err, errlen, "%s", s->errs[w][0] ? s->errs[w] : rl_strerror(s->trees[i].rc));
                return s->trees[i].rc;
            }
    }
    return RL_OK;
}

/* Evaluates the pending leaves of trees [lo, hi) (their roots in round 0)
   in one call, in batch rows from lo on, sets their priors and backs up
   their values. */
static int evaluate(rl_search *s, uint32_t lo, uint32_t hi, int roots, rl_search_eval_fn eval, void *ctx, char *err,
                    size_t errlen)
{
    size_t ob = s->m.obs_bytes, A = s->m.n_actions;
    uint32_t k = lo;
    for (uint32_t i = lo; i < hi; i++) {
        tree *t = &s->trees[i];
        if (!roots && !t->pending) continue;
        if (!roots) {
            memcpy(s->batch_obs + (size_t)k * ob, t->leaf_obs, ob);
            memcpy(s->batch_mask + (size_t)k * A, t->leaf_mask, A);
        }
        s->batch_tree[k++] = i;
    }
    if (k == lo) return RL_OK;
    int rc = eval(ctx, k - lo, s->batch_obs + (size_t)lo * ob, s->batch_mask + (size_t)lo * A,
                  s->priors + (size_t)lo * A, s->values + lo, err, errlen);
    if (rc != RL_OK) return rc;
    for (uint32_t j = lo; j < k; j++) {
        tree *t = &s->trees[s->batch_tree[j]];
        uint32_t node = roots ? 0 : t->pending;
        if (!isfinite(s->values[j]) || set_priors(s, t, node, s->priors + (size_t)j * A) != 0) {
            RL_ERRF(err, errlen,
                    "search: the evaluator wrote a value or prior that is not finite, or a negative prior");
            return RL_ENONFINITE;
        }
        if (roots) {
            keep_root(s, t, s->values[j]);
            root_noise(s, t);
        } else
            backup(s, t, (1 - s->cfg.mix) * s->values[j] + s->cfg.mix * t->leaf_z);
        t->pending = 0;
    }
    return RL_OK;
}

static void probe_roots(void *arg, uint32_t w)
{
    rl_search *s = arg;
    uint32_t lo, hi;
    share(s, w, &lo, &hi);
    for (uint32_t i = lo; i < hi; i++) {
        tree *t = &s->trees[i];
        t->rc = probe_ends(s, t, w, 0, s->errs[w], sizeof s->errs[w]);
    }
}

static void run_serial(void *ctx, void (*fn)(void *arg, uint32_t w), void *arg, uint32_t n)
{
    (void)ctx;
    for (uint32_t w = 0; w < n; w++) fn(arg, w);
}

/* The roots of a search set up in its trees; for an evaluator, their
   observations and masks in the batch rows of their trees. */
static int begin(rl_search *s, uint32_t count, const void *states, const void *obs, const uint8_t *masks,
                 const uint64_t *seeds, int evaluated, char *err, size_t errlen)
{
    if (count > s->max_trees) {
        RL_ERRF(err, errlen, "search: %u roots, past the %u trees it was made for", count, s->max_trees);
        return RL_EINVAL;
    }
    size_t A = s->m.n_actions, sb = s->m.state_bytes, ob = s->m.obs_bytes;
    s->count = count;
    for (uint32_t i = 0; i < count; i++) {
        tree *t = &s->trees[i];
        const uint8_t *mask = masks + i * A;
        uint32_t legal = 0;
        for (uint32_t a = 0; a < A; a++) legal += mask[a] != 0;
        if (!legal) {
            RL_ERRF(err, errlen, "search: root %u allows no move", i);
            return RL_EINVAL;
        }
        memcpy(state_of(s, t, 0), (const uint8_t *)states + i * sb, sb);
        init_node(s, t, 0, mask);
        t->nodes = 1, t->depth = 0, t->pending = 0, t->rc = RL_OK;
        rl_rng_seed(&t->rng, seeds[i], 0x5ea4c4ull);
        if (evaluated) {
            memcpy(s->batch_obs + i * ob, (const uint8_t *)obs + i * ob, ob);
            memcpy(s->batch_mask + i * A, mask, A);
        } else {
            set_priors(s, t, 0, NULL);
            keep_root(s, t, 0.0f);
        }
    }
    for (uint32_t w = 0; w < s->workers; w++) s->errs[w][0] = 0;
    return RL_OK;
}

/* The roots' visit counts and mean values. */
static void finish(const rl_search *s, float *visits, float *values)
{
    size_t A = s->m.n_actions;
    for (uint32_t i = 0; i < s->count; i++) {
        tree *t = &s->trees[i];
        const edge *e = edges_of(s, t, 0);
        double w = 0, n = 0;
        for (uint32_t a = 0; a < A; a++) {
            visits[i * A + a] = (float)e[a].n;
            w += e[a].w, n += e[a].n;
        }
        if (values) values[i] = n > 0 ? (float)(w / n) : 0.0f;
    }
}

int rl_search_run(rl_search *s, uint32_t count, const void *states, const void *obs, const uint8_t *masks,
                  const uint64_t *seeds, rl_search_eval_fn eval, void *eval_ctx, rl_search_parallel_fn par,
                  void *par_ctx, float *visits, float *values, char *err, size_t errlen)
{
    int rc = begin(s, count, states, obs, masks, seeds, eval != NULL, err, errlen);
    if (rc != RL_OK) return rc;
    if (!par) par = run_serial;
    uint32_t W = active_workers(s);
    if (eval) {
        par(par_ctx, probe_roots, s, W);
        rc = round_errors(s, err, errlen);
    }
    if (rc == RL_OK && eval) rc = evaluate(s, 0, count, 1, eval, eval_ctx, err, errlen);
    /* with rollouts the trees never wait for each other: each worker walks
       its trees through every simulation in one go */
    round_ctx rctx = {s, eval == NULL, eval ? 1 : s->cfg.simulations};
    for (uint32_t k = 0; rc == RL_OK && k < s->cfg.simulations; k += rctx.walks) {
        for (uint32_t w = 0; w < W; w++) s->errs[w][0] = 0;
        par(par_ctx, walk_range, &rctx, W);
        rc = round_errors(s, err, errlen);
        if (rc == RL_OK && eval) rc = evaluate(s, 0, count, 0, eval, eval_ctx, err, errlen);
    }
    if (rc == RL_OK) finish(s, visits, values);
    return rc;
}

typedef struct each_ctx {
    rl_search *s;
    rl_search_eval_fn eval;
    void *const *ctxs;
} each_ctx;

/* Worker w's share of the trees through the whole search: its roots
   evaluated, then a walk of each and one call for their leaves, every
   simulation, without waiting for any other worker.  A failure is its
   first tree's rc, for round_errors. */
static void each_range(void *arg, uint32_t w)
{
    each_ctx *c = arg;
    rl_search *s = c->s;
    uint32_t lo, hi;
    share(s, w, &lo, &hi);
    char *err = s->errs[w];
    size_t errlen = sizeof s->errs[w];
    int rc = RL_OK;
    for (uint32_t i = lo; i < hi && rc == RL_OK; i++) rc = probe_ends(s, &s->trees[i], w, 0, err, errlen);
    if (rc == RL_OK) rc = evaluate(s, lo, hi, 1, c->eval, c->ctxs[w], err, errlen);
    for (uint32_t k = 0; rc == RL_OK && k < s->cfg.simulations; k++) {
        for (uint32_t i = lo; i < hi && rc == RL_OK; i++) rc = walk(s, &s->trees[i], w, 0, err, errlen);
        if (rc == RL_OK) rc = evaluate(s, lo, hi, 0, c->eval, c->ctxs[w], err, errlen);
    }
    if (rc != RL_OK) s->trees[lo].rc = rc;
}

int rl_search_run_each(rl_search *s, uint32_t count, const void *states, const void *obs, const uint8_t *masks,
                       const uint64_t *seeds, rl_search_eval_fn eval, void *const *eval_ctxs, rl_search_parallel_fn par,
                       void *par_ctx, float *visits, float *values, char *err, size_t errlen)
{
    if (!eval || !eval_ctxs) {
        RL_ERRF(err, errlen, "search: rl_search_run_each needs an evaluator and a context per worker");
        return RL_EINVAL;
    }
    int rc = begin(s, count, states, obs, masks, seeds, 1, err, errlen);
    if (rc != RL_OK) return rc;
    each_ctx c = {s, eval, eval_ctxs};
    (par ? par : run_serial)(par_ctx, each_range, &c, active_workers(s));
    rc = round_errors(s, err, errlen);
    if (rc == RL_OK) finish(s, visits, values);
    return rc;
}

int rl_search_improved_policy(const rl_search *s, uint32_t root, float c_visit, float c_scale, float *out)
{
    if (!s || root >= s->count || !(c_visit >= 0) || !(c_scale >= 0) || !isfinite(c_visit) || !isfinite(c_scale))
        return RL_EINVAL;
    const tree *t = &s->trees[root];
    const edge *e = t->edges; /* the root's, node 0 */
    uint32_t A = s->m.n_actions, max_n = 0;
    double sum_n = 0, p_seen = 0, pq_seen = 0;
    for (uint32_t a = 0; a < A; a++) {
        if (!e[a].legal || !e[a].n) continue;
        sum_n += e[a].n;
        max_n = e[a].n > max_n ? e[a].n : max_n;
        p_seen += t->root_prior[a];
        pq_seen += t->root_prior[a] * (e[a].w / (double)e[a].n);
    }
    /* an unvisited move's value: the root's value mixed with the visited
       moves' values weighted by their priors, as many visits as they had */
    double v_mix = (t->root_value + (p_seen > 0 ? sum_n * pq_seen / p_seen : 0.0)) / (1.0 + sum_n);
    double lo = INFINITY, hi = -INFINITY;
    for (uint32_t a = 0; a < A; a++) {
        if (!e[a].legal) continue;
        double q = e[a].n ? e[a].w / (double)e[a].n : e[a].child == TERMINAL ? e[a].r : v_mix;
        out[a] = (float)q;
        lo = q < lo ? q : lo;
        hi = q > hi ? q : hi;
    }
    double scale = (c_visit + (double)max_n) * c_scale / (hi - lo > 1e-8 ? hi - lo : 1e-8), top = -INFINITY;
    for (uint32_t a = 0; a < A; a++) {
        if (!e[a].legal) continue;
        double p = t->root_prior[a] > 1e-30f ? t->root_prior[a] : 1e-30;
        out[a] = (float)(log(p) + scale * (out[a] - lo));
        top = out[a] > top ? out[a] : top;
    }
    double z = 0;
    for (uint32_t a = 0; a < A; a++) z += e[a].legal ? exp(out[a] - top) : 0.0;
    for (uint32_t a = 0; a < A; a++) out[a] = e[a].legal ? (float)(exp(out[a] - top) / z) : 0.0f;
    return RL_OK;
}

int32_t rl_search_pick(const float *visits, uint32_t n_actions, float temperature, rl_rng *rng)
{
    int32_t best = 0;
    for (uint32_t a = 1; a < n_actions; a++)
        if (visits[a] > visits[best]) best = (int32_t)a;
    if (!(temperature > 0) || !rng) return best;
    /* relative to the most visited, so 1 / temperature cannot overflow */
    double sum = 0, top = visits[best] > 0 ? visits[best] : 1;
    for (uint32_t a = 0; a < n_actions; a++) sum += visits[a] > 0 ? pow(visits[a] / top, 1.0 / temperature) : 0;
    if (!(sum > 0)) return best;
    double u = rl_rng_uniform_d(rng) * sum;
    for (uint32_t a = 0; a < n_actions; a++) {
        double p = visits[a] > 0 ? pow(visits[a] / top, 1.0 / temperature) : 0;
        if (u < p) return (int32_t)a;
        u -= p;
    }
    return best;
}
