/* Replicas: the thread allreduce sums in replica order (bit-identical to a
   plain loop, whatever the timing), R = 1 leaves buffers as they are, and a
   gradient split over R replicas and summed equals the one-replica
   gradient of the same minibatch (an MLP with a mean-squared loss; float
   tolerance, since the sums run in another order). */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <rlhost/nn.h>

#include "replicas.h"
#include "tap.h"

#define ROWS 64
#define IN 9
#define OUT 3

typedef struct net {
    rl_params p;
    rl_mlp m;
} net;

static float x[ROWS * IN], y[ROWS * OUT];

static void net_make(net *n)
{
    uint32_t hidden[2] = {32, 16};
    memset(n, 0, sizeof *n);
    rl_mlp_create(&n->m, &n->p, "q", IN, hidden, 2, OUT, RL_ACT_TANH, ROWS);
    rl_params_alloc(&n->p);
    rl_rng rng;
    rl_rng_seed(&rng, 3, 0);
    rl_mlp_init(&n->m, &n->p, RL_INIT_DEFAULT, 1.0f, &rng);
}

/* Gradient of mean((f(x) - y)^2) / 2 over all ROWS rows, from rows
   [first, first + count) only: scaled by the global row count. */
static void grad_of(net *n, uint32_t first, uint32_t count)
{
    rl_params_zero_grad(&n->p);
    const float *out = rl_mlp_forward(&n->m, n->p.data, x + first * IN, count);
    float d[ROWS * OUT];
    for (uint32_t k = 0; k < count * OUT; k++) d[k] = (out[k] - y[first * OUT + k]) / ROWS;
    rl_mlp_backward(&n->m, n->p.data, n->p.grad, x + first * IN, d, NULL, count);
}

typedef struct job {
    struct rl__replica_group *g;
    uint32_t index, R;
    net n;
    int rc;
} job;

static void *replica_main(void *arg)
{
    job *j = arg;
    uint32_t per = ROWS / j->R;
    grad_of(&j->n, j->index * per, per);
    const rl_replicas *api = rl__replica_group_api(j->g, j->index);
    j->rc = api->allreduce_f32(api->ctx, j->n.p.grad, j->n.p.n);
    return NULL;
}

int main(void)
{
    rl_rng rng;
    rl_rng_seed(&rng, 11, 0);
    for (int k = 0; k < ROWS * IN; k++) x[k] = (float)rl_rng_uniform_d(&rng) * 2 - 1;
    for (int k = 0; k < ROWS * OUT; k++) y[k] = (float)rl_rng_uniform_d(&rng);

    net whole;
    net_make(&whole);
    grad_of(&whole, 0, ROWS);

    /* R = 1: the single table returns at once and changes nothing. */
    net one;
    net_make(&one);
    grad_of(&one, 0, ROWS);
    const rl_replicas *single = rl__replicas_single();
    ASSERT_EQ(single->count, 1, "single table: one replica");
    ASSERT_EQ(single->allreduce_f32(single->ctx, one.p.grad, one.p.n), RL_OK, "single allreduce");
    OK(memcmp(one.p.grad, whole.p.grad, whole.p.n * sizeof(float)) == 0, "R = 1: the gradient exactly as it was");

    for (uint32_t R = 2; R <= 4; R *= 2) {
        struct rl__replica_group *g = rl__replica_group_create(R);
        job jobs[4];
        pthread_t th[4];
        for (uint32_t r = 0; r < R; r++) {
            memset(&jobs[r], 0, sizeof jobs[r]);
            jobs[r].g = g, jobs[r].index = r, jobs[r].R = R, jobs[r].rc = -1;
            net_make(&jobs[r].n);
        }
        for (uint32_t r = 0; r < R; r++) pthread_create(&th[r], NULL, replica_main, &jobs[r]);
        for (uint32_t r = 0; r < R; r++) pthread_join(th[r], NULL);
        int all_ok = 1, same = 1;
        for (uint32_t r = 0; r < R; r++) {
            all_ok &= jobs[r].rc == RL_OK;
            same &= memcmp(jobs[r].n.p.grad, jobs[0].n.p.grad, whole.p.n * sizeof(float)) == 0;
        }
        OK(all_ok, "every replica's allreduce returns ok");
        OK(same, "every replica holds the same sum, bit for bit");
        /* the same sum, by a plain loop in replica order */
        net part[4];
        double worst = 0;
        int ordered = 1;
        for (uint32_t r = 0; r < R; r++) {
            net_make(&part[r]);
            grad_of(&part[r], r * (ROWS / R), ROWS / R);
        }
        for (size_t i = 0; i < whole.p.n; i++) {
            float s = part[0].p.grad[i];
            for (uint32_t r = 1; r < R; r++) s += part[r].p.grad[i];
            ordered &= s == jobs[0].n.p.grad[i];
            double d = fabs((double)s - whole.p.grad[i]) / (fabs(whole.p.grad[i]) + 1e-4);
            if (d > worst) worst = d;
        }
        OK(ordered, "the sum adds the replicas in order 0..R-1 (same bits as a plain loop)");
        printf("# R = %u: largest relative difference to the one-replica gradient %.2e\n", R, worst);
        OK(worst < 1e-4, "the summed gradient equals the one-replica gradient of the minibatch");
        for (uint32_t r = 0; r < R; r++) {
            rl_mlp_destroy(&part[r].m);
            rl_params_free(&part[r].p);
            rl_mlp_destroy(&jobs[r].n.m);
            rl_params_free(&jobs[r].n.p);
        }
        rl__replica_group_destroy(g);
    }
    rl_mlp_destroy(&whole.m);
    rl_params_free(&whole.p);
    rl_mlp_destroy(&one.m);
    rl_params_free(&one.p);
    return tap_done();
}
