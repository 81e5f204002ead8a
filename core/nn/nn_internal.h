/* Internal helpers shared by the NN files (not installed). */
#ifndef RLHOST_NN_INTERNAL_H
#define RLHOST_NN_INTERNAL_H

#include <rlhost/nn.h>

/* rl_linear_backward with din = din_beta * din + dout W (din_beta 0 or 1). */
void rl__linear_backward_beta(float *din, float din_beta, float *dw, float *db,
                              const float *dout, const float *in, const float *w,
                              uint32_t batch, uint32_t in_dim, uint32_t out_dim);

/* d[i] *= f'(out[i]) in place: turns a post-activation gradient into the
   pre-activation one. */
void rl__activation_grad_inplace(rl_activation a, float *d, const float *out, size_t n);

/* tanh, vectorized, within 2e-7 of the exact value (linear.c); results do
   not depend on an element's position.  Sigmoid through it. */
void rl__tanh_array(float *out, const float *in, size_t n);
void rl__sigmoid_array(float *out, const float *in, size_t n);

#endif
