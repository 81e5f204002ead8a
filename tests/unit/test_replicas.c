/* Replicas: the thread allreduce sums in replica order (bit-identical to a
   plain loop, whatever the timing), R = 1 leaves buffers as they are, and a
   gradient split over R replicas and summed equals the one-replica
   gradient of the same minibatch (an MLP with a mean-squared loss; float
   tolerance, since the sums run in another order).  The sharded step
   (reduce-scatter, each replica clipping and updating its slice, an
   all-gather of the parameters, and of Adam's moments after) leaves every
   replica bit-identical and equal to one replica stepping on the whole
   minibatch; a non-finite gradient stops it on every replica, naming the
   element. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rlhost/nn.h>

#include "parallel/replicas.h"
#include "../tap.h"

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

/* Sharded optimizer steps: STEPS steps over the same minibatch, each
   replica's gradient from its rows; bad_at >= 0 plants a NaN in replica
   R - 1's gradient there at the last step. */
#define STEPS 3
#define OKF(cond, ...)                        \
    do {                                      \
        char m_[256];                         \
        snprintf(m_, sizeof m_, __VA_ARGS__); \
        OK(cond, m_);                         \
    } while (0)

typedef struct sjob {
    struct rl__replica_group *g;
    uint32_t index, R;
    net n;
    rl_adam adam;
    float norm[STEPS];
    long bad, bad_at;
    int rc;
} sjob;

static void *sharded_main(void *arg)
{
    sjob *j = arg;
    uint32_t per = ROWS / j->R;
    const rl_replicas *api = rl__replica_group_api(j->g, j->index);
    j->rc = RL_OK;
    for (int s = 0; s < STEPS && j->rc == RL_OK; s++) {
        grad_of(&j->n, j->index * per, per);
        if (s == STEPS - 1 && j->bad_at >= 0 && j->index == j->R - 1) j->n.p.grad[j->bad_at] = NAN;
        j->rc = rl_replicated_adam_step(api, 1, &j->adam, j->n.p.data, j->n.p.grad, j->n.p.n, 0.05f, 0.01f, &j->norm[s],
                                        &j->bad);
    }
    if (j->rc == RL_OK) j->rc = rl_adam_gather(api, &j->adam);
    return NULL;
}

static void test_sharded(void)
{
    /* the reference: one replica, the whole minibatch, clipped (0.05 is
       below the gradient's norm) */
    net ref;
    rl_adam ra;
    net_make(&ref);
    rl_adam_create(&ra, ref.p.n, 0.9f, 0.999f, 1e-8f, 0.0f);
    float ref_norm[STEPS];
    for (int s = 0; s < STEPS; s++) {
        grad_of(&ref, 0, ROWS);
        ASSERT_EQ(
            rl_replicated_adam_step(NULL, 1, &ra, ref.p.data, ref.p.grad, ref.p.n, 0.05f, 0.01f, &ref_norm[s], NULL),
            RL_OK, "sharded step alone");
    }
    OK(ref_norm[0] > 0.05f, "the reference steps are clipped");
    for (uint32_t R = 2; R <= 3; R++) {
        for (int nan_case = 0; nan_case < 2; nan_case++) {
            struct rl__replica_group *g = rl__replica_group_create(R);
            sjob jobs[3];
            pthread_t th[3];
            long bad_at = nan_case ? (long)(ref.p.n - 2) : -1; /* in the last replica's slice */
            for (uint32_t r = 0; r < R; r++) {
                memset(&jobs[r], 0, sizeof jobs[r]);
                jobs[r].g = g, jobs[r].index = r, jobs[r].R = R, jobs[r].bad_at = bad_at;
                net_make(&jobs[r].n);
                rl_adam_create(&jobs[r].adam, jobs[r].n.p.n, 0.9f, 0.999f, 1e-8f, 0.0f);
            }
            /* ROWS / R rows each; 64 % 3 leaves a row out, so R = 3 steps on 63 rows
               and is compared with tolerance against its own bounds only */
            for (uint32_t r = 0; r < R; r++) pthread_create(&th[r], NULL, sharded_main, &jobs[r]);
            for (uint32_t r = 0; r < R; r++) pthread_join(th[r], NULL);
            int ok = 1, same = 1, moments = 1;
            for (uint32_t r = 0; r < R; r++) {
                ok &= jobs[r].rc == RL_OK;
                same &= !memcmp(jobs[r].n.p.data, jobs[0].n.p.data, ref.p.n * sizeof(float));
                moments &= !memcmp(jobs[r].adam.m, jobs[0].adam.m, ref.p.n * sizeof(float)) &&
                    !memcmp(jobs[r].adam.v, jobs[0].adam.v, ref.p.n * sizeof(float)) &&
                    jobs[r].adam.t == (uint64_t)(nan_case ? STEPS - 1 : STEPS);
            }
            if (!nan_case) {
                OKF(ok, "R = %u sharded steps return ok", R);
                OKF(same, "R = %u sharded steps: every replica's parameters are the same, bit for bit", R);
                OKF(moments, "R = %u: after the gather every replica holds the same Adam moments", R);
                if (R == 2) {
                    double worst = 0, worst_m = 0;
                    for (size_t i = 0; i < ref.p.n; i++) {
                        worst = fmax(worst, fabs((double)jobs[0].n.p.data[i] - ref.p.data[i]));
                        worst_m = fmax(worst_m, fabs((double)jobs[0].adam.m[i] - ra.m[i]) / (fabs(ra.m[i]) + 1e-6));
                    }
                    printf("# R = 2 sharded: largest parameter difference to one replica %.2e, moment %.2e\n", worst,
                           worst_m);
                    OK(worst < 1e-5 && worst_m < 1e-3,
                       "R = 2 sharded steps equal one replica's steps on the whole minibatch");
                    OK(fabsf(jobs[0].norm[0] - ref_norm[0]) < 1e-5f * ref_norm[0],
                       "the sharded global norm equals the whole gradient's");
                }
            } else {
                int all_bad = 1;
                for (uint32_t r = 0; r < R; r++) all_bad &= !isfinite(jobs[r].norm[STEPS - 1]) && jobs[r].bad == bad_at;
                OKF(ok && all_bad,
                    "R = %u: a NaN in one replica's slice stops the step on every replica, "
                    "which all name element %ld",
                    R, bad_at);
                OKF(same, "R = %u: no replica stepped on the non-finite gradient", R);
            }
            for (uint32_t r = 0; r < R; r++) {
                rl_adam_destroy(&jobs[r].adam);
                rl_mlp_destroy(&jobs[r].n.m);
                rl_params_free(&jobs[r].n.p);
            }
            rl__replica_group_destroy(g);
        }
    }
    rl_adam_destroy(&ra);
    rl_mlp_destroy(&ref.m);
    rl_params_free(&ref.p);
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
    test_sharded();
    rl_mlp_destroy(&whole.m);
    rl_params_free(&whole.p);
    rl_mlp_destroy(&one.m);
    rl_params_free(&one.p);
    return tap_done();
}
