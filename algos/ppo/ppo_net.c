/* PPO's networks: towers (an optional CNN, an optional LSTM, then an MLP,
   carved from the algorithm's parameter block) and the inference pass over
   them; see ppo.h. */
#include <string.h>

#include "ppo.h"

int tower_create(tower *t, rl_params *p, const char *name, const rl_env_info *env, const rl_cnn_spec *cnn,
                 int recurrent, uint32_t lstm_hidden, const uint32_t *hidden, uint32_t n_hidden, uint32_t out,
                 rl_activation act, uint32_t max_rows, uint32_t seqs, uint32_t steps, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    t->recurrent = recurrent;
    char pre[32];
    int rc;
    uint32_t in = rl_obs_input_width(env);
    const rl_obs_part *parts;
    if (rl_env_info_parts(env, &parts) && cnn->enabled) { /* without a CNN the parts go in as rl_obs_input has them */
        snprintf(pre, sizeof pre, "%s/parts", name);
        if ((rc = rl_parts_encoder_create(&t->enc, p, pre, env, cnn, max_rows, err, errlen))) return rc;
        if (t->enc.n_cnn) {
            t->has_parts = 1;
            in = t->enc.out_dim;
            t->dcnn = rl_calloc_aligned((size_t)max_rows * in, sizeof(float));
            if (!t->dcnn) return RL_ENOMEM;
        } else { /* no image part the layers fit: nothing for an encoder to do */
            rl_parts_encoder_destroy(&t->enc);
        }
    } else if (cnn->enabled && !rl_env_info_parts(env, &parts)) {
        snprintf(pre, sizeof pre, "%s/cnn", name);
        if ((rc = rl_cnn_create_spec(&t->cnn, p, pre, cnn, max_rows, err, errlen))) return rc;
        t->has_cnn = 1;
        in = t->cnn.out_dim;
        t->dcnn = rl_calloc_aligned((size_t)max_rows * in, sizeof(float));
        if (!t->dcnn) return RL_ENOMEM;
    }
    if (recurrent) {
        snprintf(pre, sizeof pre, "%s/lstm", name);
        if ((rc = rl_lstm_create(&t->lstm, p, pre, in, lstm_hidden, seqs, steps))) return rc;
        t->hseq = rl_calloc_aligned((size_t)max_rows * lstm_hidden, sizeof(float));
        t->dh = rl_calloc_aligned((size_t)max_rows * lstm_hidden, sizeof(float));
        if (!t->hseq || !t->dh) return RL_ENOMEM;
        in = lstm_hidden;
    }
    snprintf(pre, sizeof pre, "%s/mlp", name);
    return rl_mlp_create(&t->mlp, p, pre, in, hidden, n_hidden, out, act, max_rows);
}

void tower_destroy(tower *t)
{
    rl_cnn_destroy(&t->cnn);
    rl_parts_encoder_destroy(&t->enc);
    rl_free(t->dcnn);
    rl_lstm_destroy(&t->lstm);
    rl_mlp_destroy(&t->mlp);
    rl_free(t->hseq);
    rl_free(t->dh);
}

/* Training forward over L x S time-major rows. */
const float *tower_forward(tower *t, const float *params, const float *x, const float *h0, const float *c0,
                           const uint8_t *reset, uint32_t L, uint32_t S)
{
    if (t->has_cnn) x = rl_cnn_forward(&t->cnn, params, x, L * S);
    if (t->has_parts) x = rl_parts_encoder_forward(&t->enc, params, x, L * S, 0);
    const float *in = x;
    if (t->recurrent) {
        rl_lstm_forward(&t->lstm, params, x, h0, c0, reset, t->hseq, NULL, NULL, L, S);
        in = t->hseq;
    }
    return rl_mlp_forward(&t->mlp, params, in, L * S);
}

void tower_backward(tower *t, const float *params, float *grad, const float *x, const float *dout, uint32_t L,
                    uint32_t S)
{
    const float *in = x; /* past the CNN, when there is one */
    float *din = NULL;
    if (t->has_cnn || t->has_parts) {
        in = t->has_cnn ? t->cnn.acts[t->cnn.n_layers - 1] : t->enc.out;
        din = t->dcnn;
        memset(din, 0, (size_t)L * S * (t->has_cnn ? t->cnn.out_dim : t->enc.out_dim) * sizeof(float));
    }
    if (!t->recurrent) {
        rl_mlp_backward(&t->mlp, params, grad, in, dout, din, L * S);
    } else {
        memset(t->dh, 0, (size_t)L * S * t->lstm.hidden * sizeof(float));
        rl_mlp_backward(&t->mlp, params, grad, t->hseq, dout, t->dh, L * S);
        rl_lstm_backward(&t->lstm, params, grad, in, t->dh, din, L, S);
    }
    if (t->has_cnn) rl_cnn_backward(&t->cnn, params, grad, x, din, L * S);
    if (t->has_parts) rl_parts_encoder_backward(&t->enc, params, grad, din, L * S);
}

/* Inference for B rows; h, c [B][H] are advanced in place (recurrent). */
const float *tower_infer(tower *t, const float *params, const float *x, float *h, float *c, float *gates, uint32_t B)
{
    if (t->has_cnn) x = rl_cnn_infer(&t->cnn, params, x, B);
    if (t->has_parts) x = rl_parts_encoder_forward(&t->enc, params, x, B, 1);
    const float *in = x;
    if (t->recurrent) {
        rl_lstm_step(&t->lstm, params, x, h, c, gates, B);
        in = h;
    }
    return rl_mlp_infer(&t->mlp, params, in, B);
}

/* Policy logits and values for B rows in inference mode, advancing the
   recurrent states st[] (rows 0..B-1 of them). */
void ppo_infer(ppo *p, const float *x, lstm_state *st, uint32_t B, float *logits, float *values)
{
    if (p->cfg.shared) {
        const float *f =
            tower_infer(&p->towers[0], p->p.data, x, st ? st[0].h : NULL, st ? st[0].c : NULL, p->ws.gates, B);
        uint32_t F = p->head_pi.dims[0];
        float *feat = p->ws.feat_scratch;
        rl_activation_forward(p->cfg.act, feat, f, (size_t)B * F);
        memcpy(logits, rl_mlp_infer(&p->head_pi, p->p.data, feat, B), (size_t)B * p->cfg.n_out * sizeof(float));
        if (values) memcpy(values, rl_mlp_infer(&p->head_v, p->p.data, feat, B), B * sizeof(float));
        return;
    }
    memcpy(logits, tower_infer(&p->towers[0], p->p.data, x, st ? st[0].h : NULL, st ? st[0].c : NULL, p->ws.gates, B),
           (size_t)B * p->cfg.n_out * sizeof(float));
    if (values)
        memcpy(values,
               tower_infer(&p->towers[1], p->p.data, x, st ? st[1].h : NULL, st ? st[1].c : NULL, p->ws.gates, B),
               B * sizeof(float));
}
