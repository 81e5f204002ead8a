/*
 * <rlhost/nn.h> — librlcore's neural-network library: float32, CPU, cblas.
 *
 * Style (after llm.c): every layer is a forward/backward pair of plain
 * functions with explicit shapes; backward *accumulates* (+=) into every
 * gradient it writes, input gradients included, so callers zero gradient
 * buffers before a backward pass.  Matrices are row-major; a Linear weight
 * is [out][in] (as in PyTorch checkpoints), activations are [batch][features].
 *
 * Parameters of a whole model live in one rl_params block (and their
 * gradients in a second block of the same layout), so Adam, clipping,
 * target-network copies, Polyak averaging and checkpoints are single loops.
 * Modules first declare their tensors (rl_params_add) and get offsets; one
 * rl_params_alloc then creates both blocks.
 *
 * Nothing here allocates after create; nothing prints.  Functions are
 * reentrant on distinct objects.
 */
#ifndef RLHOST_NN_H
#define RLHOST_NN_H

#include <stddef.h>
#include <stdint.h>

#include <rlhost/dist.h>
#include <rlhost/rlcore.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Parameter blocks ----------------------------------------------------*/

#define RL_PARAMS_MAX_TENSORS 64
#define RL_PARAM_NAME_MAX 48

typedef struct rl_param_tensor {
    char name[RL_PARAM_NAME_MAX]; /* "layer0.weight" */
    size_t offset;                /* in floats, into data and grad */
    uint32_t rows, cols;          /* cols = 1 for vectors */
} rl_param_tensor;

typedef struct rl_params {
    float *data; /* all parameters, 64-byte aligned */
    float *grad; /* same layout */
    size_t n;    /* floats */
    rl_param_tensor tensors[RL_PARAMS_MAX_TENSORS];
    uint32_t n_tensors;
} rl_params;

/* Declares a rows x cols tensor (before rl_params_alloc); returns its offset
   or (size_t)-1 when the table is full. */
size_t rl_params_add(rl_params *p, const char *name, uint32_t rows, uint32_t cols);
/* Allocates data and grad (zeroed).  RL_ENOMEM on failure. */
int rl_params_alloc(rl_params *p);
/* Same layout, own memory; data copied, grad zeroed. */
int rl_params_clone(rl_params *dst, const rl_params *src);
void rl_params_free(rl_params *p);
void rl_params_zero_grad(rl_params *p);
/* dst = src (hard target update), or dst = tau*src + (1-tau)*dst (Polyak). */
void rl_params_copy(rl_params *dst, const rl_params *src);
void rl_params_polyak(rl_params *dst, const rl_params *src, float tau);
/* Index of the first non-finite value in data (or grad), or -1. */
long rl_params_find_nonfinite(const float *v, size_t n);
/* Name of the tensor holding element `index` of the block ("?" if none). */
const char *rl_params_tensor_at(const rl_params *p, size_t index);
/* What was wrong with a gradient whose global norm came out non-finite,
   as rl_replicated_adam_step reports it (bad: the first non-finite
   element, or -1): "a non-finite gradient in tensor 'NAME'", or, with
   every element finite, "a gradient norm past float's range (its elements
   are finite: a reward or observation far out of scale?)".  Written into
   buf (cap bytes), which is returned. */
const char *rl_grad_problem(const rl_params *p, long bad, char *buf, size_t cap);

/* ---- Initialisation (seeded, deterministic) -------------------------------*/

/* PyTorch's nn.Linear default: weight and bias U(-1/sqrt(in), 1/sqrt(in)). */
void rl_init_linear_default(float *w, float *b, uint32_t out, uint32_t in, rl_rng *rng);
/* Kaiming (He) uniform for ReLU: U(-sqrt(6/in), sqrt(6/in)). */
void rl_init_kaiming_uniform(float *w, uint32_t out, uint32_t in, rl_rng *rng);
/* Xavier (Glorot) uniform: U(-sqrt(6/(in+out)), sqrt(6/(in+out))). */
void rl_init_xavier_uniform(float *w, uint32_t out, uint32_t in, rl_rng *rng);
/* Orthogonal with gain (Saxe et al.), as used by PPO implementations:
   rows or columns orthonormal, scaled by gain. */
void rl_init_orthogonal(float *w, uint32_t out, uint32_t in, float gain, rl_rng *rng);

/* ---- Layers ---------------------------------------------------------------*/

/* out[B][out] = in[B][in] * W^T + b   (b may be NULL) */
void rl_linear_forward(float *out, const float *in, const float *w, const float *b, uint32_t batch, uint32_t in_dim,
                       uint32_t out_dim);
/* The same product with a fixed summation order per row: each output row
   depends on its input row only, never on the batch size, so one batched
   call and one call per row give bit-identical results.  Used for action
   selection; faster than BLAS at small batch, slower at large. */
void rl_linear_forward_rowwise(float *out, const float *in, const float *w, const float *b, uint32_t batch,
                               uint32_t in_dim, uint32_t out_dim);
/* dw += dout^T in; db += colsum(dout); din += dout W.  Any of din, dw, db may
   be NULL to skip it. */
void rl_linear_backward(float *din, float *dw, float *db, const float *dout, const float *in, const float *w,
                        uint32_t batch, uint32_t in_dim, uint32_t out_dim);

typedef enum rl_activation { RL_ACT_NONE = 0, RL_ACT_RELU, RL_ACT_TANH } rl_activation;

/* out = f(in) elementwise (in place allowed). */
void rl_activation_forward(rl_activation a, float *out, const float *in, size_t n);
/* din += dout * f'(.) computed from the forward output `out`. */
void rl_activation_backward(rl_activation a, float *din, const float *dout, const float *out, size_t n);

/* ---- MLP: Linear (-> act) ... -> Linear ----------------------------------- */

#define RL_MLP_MAX_LAYERS 8

typedef struct rl_mlp {
    uint32_t n_layers;                    /* linear layers */
    uint32_t dims[RL_MLP_MAX_LAYERS + 1]; /* dims[0] = input, dims[n] = output */
    rl_activation act;                    /* between layers, not after the last */
    size_t w_off[RL_MLP_MAX_LAYERS], b_off[RL_MLP_MAX_LAYERS];
    uint32_t max_batch;
    float *acts;  /* per layer output [max_batch][dims[l+1]] (post-activation) */
    float *dacts; /* gradients of the same */
    size_t act_off[RL_MLP_MAX_LAYERS];
    /* Batch renormalization before every linear layer (rl_mlp_create_renorm),
       else renorm = 0 and nothing below is used. */
    int renorm;
    int train;                           /* the last forward: 1 batch statistics, 0 running ones */
    float bn_momentum, bn_eps;           /* running statistics += momentum (batch - running) */
    size_t bn_off[RL_MLP_MAX_LAYERS][4]; /* layer l's bn_scale, bn_bias, bn_mean, bn_var */
    size_t z_off[RL_MLP_MAX_LAYERS];     /* layer l's rows in bn_z, bn_xhat [max_batch][dims[l]] */
    float *bn_z, *bn_xhat;               /* the linear layer's input, and the same before scale and bias */
    float *bn_dz, *bn_dx; /* a layer's z gradient [max_batch][widest]; the input's [max_batch][dims[0]] */
    float *bn_stats;      /* layer l's at s_off[l]: what its forward leaves for the backward */
    size_t s_off[RL_MLP_MAX_LAYERS];
    double *bn_acc; /* column sums [2][widest] */
} rl_mlp;

/* Declares the MLP's tensors in p as PREFIX/layerK.weight|bias.
   hidden[0..n_hidden) are the hidden widths.  Workspaces are allocated for
   up to max_batch rows. */
int rl_mlp_create(rl_mlp *m, rl_params *p, const char *prefix, uint32_t in_dim, const uint32_t *hidden,
                  uint32_t n_hidden, uint32_t out_dim, rl_activation act, uint32_t max_batch);
/* rl_mlp_create with batch renormalization (Ioffe 2017) of every linear
   layer's input, as CrossQ's networks have it (Bhatt et al. 2024):
   PREFIX/layerK.bn_scale and .bn_bias (learned, 1 and 0 at rl_mlp_init),
   .bn_mean and .bn_var (the running statistics, 0 and 1 at rl_mlp_init:
   they live in the parameter block so that checkpoints, copies and
   keep_best carry them, and their gradients stay 0).  A training forward
   (rl_mlp_forward_train) normalizes by the batch's mean and unbiased
   variance (before warm-up ends) or by the renormalized ones (r clipped to
   [1/3, 3], d to [-5, 5]: batch statistics moved towards the running
   ones), and moves the running statistics by momentum towards the
   batch's (a feature whose batch statistics are not finite leaves its
   running ones be, so a batch a learner skips for a NaN leaves no trace
   there); every other forward normalizes by the running statistics.
   (x - mean) / sqrt(var + eps) * scale + bias, as sb3-contrib's
   BatchRenorm computes it. */
int rl_mlp_create_renorm(rl_mlp *m, rl_params *p, const char *prefix, uint32_t in_dim, const uint32_t *hidden,
                         uint32_t n_hidden, uint32_t out_dim, rl_activation act, uint32_t max_batch, float momentum,
                         float eps);
void rl_mlp_destroy(rl_mlp *m);
/* The MLP as rlhost.policy/1 operations, appended to the JSON array text in
   buf (cap bytes, NUL-terminated; a comma first when buf ends in '}'):
   {"op":"linear","weight":"PREFIX/layer0.weight","bias":...,"in":I,"out":O}
   (y = x W^T + b, W stored [out][in]), {"op":"relu"|"tanh"} between layers,
   none after the last; a renormalized MLP's linear layers each after
   {"op":"batchnorm","scale":...,"bias":...,"mean":...,"var":...,"eps":E,
   "size":N} (y = (x - mean) / sqrt(var + eps) * scale + bias, the running
   statistics, as ONNX's BatchNormalization).  0, or -1 when buf is too
   small. */
int rl_mlp_ops(const rl_mlp *m, const char *prefix, char *buf, size_t cap);
/* A reduction, appended to an op list as rl_mlp_ops appends: the values so
   far, rows x cols of them row-major, become their means over axis (1:
   each row's mean, rows values; 0: each column's mean, cols values), as
   {"op":"mean","shape":[rows,cols],"axis":axis}.  A distributional head
   (QR-DQN's quantiles per action) then ends in the values greedy takes
   the argmax of.  0, or -1 when buf is too small or axis is not 0 or 1. */
int rl_mean_op(char *buf, size_t cap, uint32_t rows, uint32_t cols, uint32_t axis);
/* Name of an activation as the ops above write it: "none", "relu", "tanh". */
const char *rl_activation_name(rl_activation a);
/* Initialises weights after rl_params_alloc.  ORTHO: orthogonal with gain
   sqrt(2) on hidden layers and out_gain on the last (biases 0); DEFAULT:
   PyTorch's Linear default. */
typedef enum rl_init_scheme { RL_INIT_DEFAULT = 0, RL_INIT_ORTHOGONAL, RL_INIT_KAIMING, RL_INIT_XAVIER } rl_init_scheme;
void rl_mlp_init(const rl_mlp *m, rl_params *p, rl_init_scheme scheme, float out_gain, rl_rng *rng);
/* Forward for batch rows; returns the output [batch][out] (inside the
   workspace, valid until the next forward). */
const float *rl_mlp_forward(rl_mlp *m, const float *params, const float *in, uint32_t batch);
/* rl_mlp_forward with rl_linear_forward_rowwise: results per row do not
   depend on batch (for inference). */
const float *rl_mlp_infer(rl_mlp *m, const float *params, const float *in, uint32_t batch);
/* Forward passes of a few rows at a time (a search's leaves, one thread's
   share of them) with the weights laid out once instead of on every call:
   rl_mlp_pack writes each layer's W transposed ([in][out], layer after
   layer, rl_mlp_packed_floats of them) and must run again whenever params
   change; rl_mlp_forward_packed reads them beside params' biases.  Each
   row's result depends on nothing but the row: it is the one
   rl_mlp_forward gives the row in a batch of 32 or more rows wherever that
   takes librlcore's own kernel (AVX2 or AVX-512, sums of at most 256
   terms).  A renormalized MLP packs nothing and runs rl_mlp_forward. */
size_t rl_mlp_packed_floats(const rl_mlp *m);
void rl_mlp_pack(const rl_mlp *m, const float *params, float *packed);
const float *rl_mlp_forward_packed(rl_mlp *m, const float *params, const float *packed, const float *in,
                                   uint32_t batch);
/* A renormalized MLP's training forward over batch >= 2 rows: batch
   statistics (renormalized when renorm is nonzero, after the caller's
   warm-up), the running ones in params updated.  Without renormalization,
   rl_mlp_forward. */
const float *rl_mlp_forward_train(rl_mlp *m, float *params, const float *in, uint32_t batch, int renorm);
/* A renormalized MLP's running variances in params, as a loaded block
   must have them: 0, or -1 with the first bad tensor's name (after prefix,
   as the checkpoint names it: "" or "best/") and what is wrong in err. */
int rl_mlp_check_stats(const rl_mlp *m, const rl_params *p, const char *prefix, char *err, size_t errlen);
/* Backward from dout [batch][out] (the forward must be the last one run on
   this input); accumulates into grad; din (may be NULL) += d input.  With
   grad NULL only din is computed (no weight or bias gradients: the
   products for them are skipped), e.g. to differentiate a critic's output
   by its action input without training the critic. */
void rl_mlp_backward(rl_mlp *m, const float *params, float *grad, const float *in, const float *dout, float *din,
                     uint32_t batch);
uint32_t rl_mlp_out_dim(const rl_mlp *m);

/* ---- Trunk with several heads --------------------------------------------
   One body MLP shared by several head MLPs: in -> hidden[0] -> ... ->
   hidden[n_hidden-1] with the activation after every body layer, the last
   included, then each head feat -> its hidden widths -> out_dim (no
   activation after a head's last layer).  An actor-critic with a shared
   trunk, or a dueling Q-network, is one of these.  Tensors are
   PREFIX/trunk/layerK.weight|bias and PREFIX/NAME/layerK.weight|bias per
   head, declared body first, heads in order.  Backward sums the heads'
   feature gradients before the body's backward, so a loss over several
   heads trains the body once. */
#define RL_TRUNK_MAX_HEADS 4

typedef struct rl_trunk_head {
    const char *name; /* "value": the tensors' PREFIX/NAME */
    uint32_t out_dim;
    uint32_t n_hidden; /* the head's own hidden layers (0: linear) */
    uint32_t hidden[RL_MLP_MAX_LAYERS - 1];
} rl_trunk_head;

typedef struct rl_trunk {
    rl_mlp body; /* PREFIX/trunk; its output is activated in place */
    rl_mlp heads[RL_TRUNK_MAX_HEADS];
    char names[RL_TRUNK_MAX_HEADS + 1][RL_PARAM_NAME_MAX]; /* tensor prefixes, body last */
    uint32_t n_heads, feat_dim, max_batch;
    rl_activation act;
    float *dfeat; /* [max_batch][feat_dim] the heads' summed gradients */
} rl_trunk;

/* n_hidden >= 1 (the last width is the features'); n_heads in
   1..RL_TRUNK_MAX_HEADS.  RL_EINVAL on a zero size or too many layers or
   heads; RL_ENOMEM when p's table or memory is full. */
int rl_trunk_create(rl_trunk *t, rl_params *p, const char *prefix, uint32_t in_dim, const uint32_t *hidden,
                    uint32_t n_hidden, rl_activation act, const rl_trunk_head *heads, uint32_t n_heads,
                    uint32_t max_batch);
void rl_trunk_destroy(rl_trunk *t);
/* Body, then heads in order, each as rl_mlp_init (ORTHOGONAL: gain sqrt 2
   on every body layer, head_gains[h] on head h's last; head_gains may be
   NULL for 1). */
void rl_trunk_init(const rl_trunk *t, rl_params *p, rl_init_scheme scheme, const float *head_gains, rl_rng *rng);
/* Forward for batch rows: out[h] gets head h's output [batch][out_dim]
   (inside the workspace, valid until the next forward).  infer = 1 runs
   the row-independent kernel (rl_mlp_infer), which shares this workspace:
   never between a training forward and its backward. */
void rl_trunk_forward(rl_trunk *t, const float *params, const float *in, uint32_t batch, int infer, const float **out);
/* The body's and the heads' packs, in that order (rl_mlp_pack), and
   rl_trunk_forward through them (rl_mlp_forward_packed). */
size_t rl_trunk_packed_floats(const rl_trunk *t);
void rl_trunk_pack(const rl_trunk *t, const float *params, float *packed);
void rl_trunk_forward_packed(rl_trunk *t, const float *params, const float *packed, const float *in, uint32_t batch,
                             const float **out);
/* Backward of the last training forward on in: dout[h] is head h's output
   gradient, or NULL for a head outside the loss.  Accumulates into grad;
   din (may be NULL) += d input. */
void rl_trunk_backward(rl_trunk *t, const float *params, float *grad, const float *in, const float *const *dout,
                       float *din, uint32_t batch);
/* Head h's path as rlhost.policy/1 operations (the body, its activation,
   then the head; see rl_mlp_ops), appended to buf. */
int rl_trunk_ops(const rl_trunk *t, uint32_t head, char *buf, size_t cap);

/* ---- Dueling head: Q = V + A - mean(A) ----------------------------------- */

/* q[B][n] from v[B] and a[B][n]. */
void rl_dueling_forward(float *q, const float *v, const float *a, uint32_t batch, uint32_t n);
/* dv += sum_j dq; da += dq - mean_j(dq). */
void rl_dueling_backward(float *dv, float *da, const float *dq, uint32_t batch, uint32_t n);

/* ---- LSTM layer (PyTorch gate order i, f, g, o) --------------------------- */

/* A 2-D convolution layer (stride, zero padding), as matrix products
   (core/rlcore/nn/conv.c).  Channel-major tensors: x [B][in_c][in_h][in_w],
   y [B][out_c][out_h][out_w]; tensors PREFIX.weight [out_c][in_c*k*k]
   (PyTorch's [out_c][in_c][k][k]) and PREFIX.bias [out_c]. */
typedef struct rl_conv2d {
    uint32_t in_c, in_h, in_w, out_c, k, stride, pad, out_h, out_w, max_batch;
    size_t w_off, b_off;
    float *cols;         /* [max_batch out_h out_w][in_c k k] patches */
    float *yt;           /* [max_batch out_h out_w][ldyt]: dY transposed (and the
                            forward's product without the in-place kernel) */
    uint32_t ldyt;       /* out_c, rounded up to 16 with the in-place kernel */
    double *dbsum;       /* [out_c] the bias gradient's sums */
    const float *cols_x; /* the input (and batch) cols holds the patches of */
    uint32_t cols_b;
    /* Where the CPU has AVX2 and FMA the forward and the weight gradient
       read their patches in place (NULL otherwise): the weight transposed in
       blocks of 16 channels, each patch element's offset in an input sample,
       each output pixel's patch corner in a sample, and the zero-bordered
       copy of the input when pad > 0. */
    float *wt;
    uint32_t *koff, *moff;
    float *xpad;
} rl_conv2d;

/* RL_EINVAL when a size is 0 or the kernel does not fit the padded input. */
int rl_conv2d_create(rl_conv2d *c, rl_params *p, const char *prefix, uint32_t in_c, uint32_t in_h, uint32_t in_w,
                     uint32_t out_c, uint32_t k, uint32_t stride, uint32_t pad, uint32_t max_batch);
void rl_conv2d_destroy(rl_conv2d *c);
/* y = conv(x) + b for B <= max_batch samples.  With the in-place patches
   (wt not NULL) a sample's output does not depend on B or on the other
   samples. */
void rl_conv2d_forward(rl_conv2d *c, const float *params, const float *x, float *y, uint32_t B);
/* Accumulates dW and db into grad from dy; writes dx when not NULL.  Reuses
   the input patches the last forward left in the workspace when that
   forward ran on this x and B, else lays them out again. */
void rl_conv2d_backward(rl_conv2d *c, const float *params, float *grad, const float *x, const float *dy, float *dx,
                        uint32_t B);

/* ---- CNN encoder: conv (-> ReLU) ... flattened ----------------------------
   A stack of conv2d layers, each followed by ReLU, over a channel-major
   image [in_c][in_h][in_w]; its output is the last layer's activations
   flattened per sample ([C][H][W] order, as torch.flatten on NCHW).  Large
   batches run in chunks, so the patch workspaces stay small; the layers'
   activations are kept for the whole batch (backward reads them). */
#define RL_CNN_MAX_LAYERS 6

typedef struct rl_cnn {
    uint32_t n_layers, in_c, in_h, in_w, out_dim, max_batch, chunk;
    rl_conv2d conv[RL_CNN_MAX_LAYERS];
    size_t act_size[RL_CNN_MAX_LAYERS]; /* floats per sample of layer l's output */
    float *acts[RL_CNN_MAX_LAYERS];     /* [max_batch][act_size[l]] after ReLU */
    float *dscratch[2];                 /* [chunk][max act_size] gradients */
} rl_cnn;

/* Declares PREFIX/convL.weight|bias for every layer: channels, kernels,
   strides and pads give each layer's out_c, k, stride and zero padding.
   RL_EINVAL with a sentence in err when a layer does not fit its input
   ("cnn layer 3: kernel 3 does not fit its 1x1 input (padding 0)"). */
int rl_cnn_create(rl_cnn *n, rl_params *p, const char *prefix, uint32_t in_c, uint32_t in_h, uint32_t in_w,
                  const uint32_t *channels, const uint32_t *kernels, const uint32_t *strides, const uint32_t *pads,
                  uint32_t n_layers, uint32_t max_batch, char *err, size_t errlen);
void rl_cnn_destroy(rl_cnn *n);
/* Kaiming or orthogonal (gain sqrt 2) weights by scheme, biases 0; DEFAULT:
   PyTorch's Conv2d default (as its Linear's, fan-in in_c k k). */
void rl_cnn_init(const rl_cnn *n, rl_params *p, rl_init_scheme scheme, rl_rng *rng);
/* Training forward for B <= max_batch samples of x [B][in_c in_h in_w];
   returns [B][out_dim] (inside the workspace). */
const float *rl_cnn_forward(rl_cnn *n, const float *params, const float *x, uint32_t B);
/* Inference: a row's result does not depend on B (as rl_mlp_infer): the
   whole batch at once where every layer reads its patches in place, else
   one sample at a time.  It uses the same workspace as the training
   forward (as rl_mlp_infer). */
const float *rl_cnn_infer(rl_cnn *n, const float *params, const float *x, uint32_t B);
/* Backward of the last rl_cnn_forward on x from dout [B][out_dim];
   accumulates into grad (no input gradient: the CNN reads observations). */
void rl_cnn_backward(rl_cnn *n, const float *params, float *grad, const float *x, const float *dout, uint32_t B);
/* The CNN as rlhost.policy/1 operations appended to buf (see rl_mlp_ops):
   {"op":"conv2d","weight":...,"bias":...,"in_c","in_h","in_w","out_c",
   "kernel","stride","pad"} and {"op":"relu"} per layer, then
   {"op":"flatten"}. */
int rl_cnn_ops(const rl_cnn *n, const char *prefix, char *buf, size_t cap);

/* ---- Encoder options, as the algorithms share them ------------------------
   RL_ENCODER_OPTIONS(base) defines five options at indexes base .. base+4
   of a plugin's option table (give them consecutive enum values, e.g.
   OPT_ENCODER, OPT_ENCODER_LAST = OPT_ENCODER + RL_ENCODER_N_OPTIONS - 1):
     encoder = "mlp" | "cnn", cnn_channels, cnn_kernels, cnn_strides,
     cnn_padding (one entry per conv layer).
   The default cnn is the small-grid encoder: two 3x3 convs, 32 and 64
   channels, stride 1, padding 1.  The Nature encoder is
   cnn_channels = [32, 64, 64], cnn_kernels = [8, 4, 3],
   cnn_strides = [4, 2, 1], cnn_padding = [0, 0, 0]. */
#define RL_ENCODER_N_OPTIONS 5
extern const char *const rl_encoder_names[]; /* "mlp", "cnn", NULL */
#define RL_ENCODER_OPTIONS(base)                                                                                       \
    [(base)] = RL_OPTION_ENUM("encoder", "mlp", rl_encoder_names,                                                      \
                              "mlp: the observation flattened into the MLP; cnn: conv layers "                         \
                              "(cnn_*) over an image observation first"),                                              \
    [(base) + 1] = RL_OPTION_INT_LIST("cnn_channels", "[32, 64]", 1, 4096, "cnn: output channels of each conv layer"), \
    [(base) + 2] = RL_OPTION_INT_LIST("cnn_kernels", "[3, 3]", 1, 64, "cnn: kernel side of each layer"),               \
    [(base) + 3] = RL_OPTION_INT_LIST("cnn_strides", "[1, 1]", 1, 64, "cnn: stride of each layer"),                    \
    [(base) + 4] = RL_OPTION_INT_LIST("cnn_padding", "[1, 1]", 0, 64, "cnn: zero padding on each side, per layer")

typedef struct rl_cnn_spec {
    int enabled; /* encoder = "cnn" */
    uint32_t n_layers, in_c, in_h, in_w;
    uint32_t channels[RL_CNN_MAX_LAYERS], kernels[RL_CNN_MAX_LAYERS], strides[RL_CNN_MAX_LAYERS],
        pads[RL_CNN_MAX_LAYERS];
} rl_cnn_spec;

/* 1 when the env's observation is one image, [C][H][W] or [H][W] (then
   one channel), writing its shape; 0 for a vector or a composite
   observation. */
int rl_obs_image_shape(const rl_env_info *env, uint32_t *c, uint32_t *h, uint32_t *w);
/* Reads the five encoder values o[0..5) (RL_ENCODER_OPTIONS' order) against
   the env's observation: an image is obs_shape [C][H][W], or [H][W] as one
   channel.  RL_EINVAL with a sentence when the lists differ in length or
   the observation is not an image. */
int rl_cnn_spec_read(rl_cnn_spec *s, const rl_value *o, const rl_env_info *env, char *err, size_t errlen);
/* rl_cnn_create from a spec read above. */
int rl_cnn_create_spec(rl_cnn *n, rl_params *p, const char *prefix, const rl_cnn_spec *s, uint32_t max_batch, char *err,
                       size_t errlen);

/* ---- Residual tower: a stem conv, then blocks with a skip, flattened ------
   The stem is a k x k conv (stride 1, zero padding k / 2) from the image's
   in_c channels to `channels`, then ReLU.  Each block keeps the shape:
   y = relu(x + conv2(relu(conv1(x)))), both convs k x k from channels to
   channels (AlphaZero's tower without batch normalization).  The output is
   the last block's activations flattened ([C][H][W] order).  Tensors
   PREFIX/stem.weight|bias and PREFIX/blockJ/conv1|conv2.weight|bias.  Like
   rl_cnn, large batches run in chunks and every layer's activations are
   kept for the whole batch. */
#define RL_RESNET_MAX_BLOCKS 8

typedef struct rl_resnet {
    uint32_t in_c, in_h, in_w, channels, k, blocks, out_dim, max_batch, chunk;
    rl_conv2d conv[1 + 2 * RL_RESNET_MAX_BLOCKS]; /* the stem, then each block's two */
    float *acts[1 + 2 * RL_RESNET_MAX_BLOCKS];    /* [max_batch][out_dim] after each conv's ReLU (and skip) */
    float *dscratch[3];                           /* [chunk][out_dim] gradients */
} rl_resnet;

/* RL_EINVAL with a sentence in err on a zero size, more than
   RL_RESNET_MAX_BLOCKS blocks or an even kernel (a block's output must
   have its input's shape); RL_ENOMEM when p's table or memory is full. */
int rl_resnet_create(rl_resnet *n, rl_params *p, const char *prefix, uint32_t in_c, uint32_t in_h, uint32_t in_w,
                     uint32_t channels, uint32_t kernel, uint32_t blocks, uint32_t max_batch, char *err, size_t errlen);
void rl_resnet_destroy(rl_resnet *n);
/* The stem and each block's first conv as rl_cnn_init's layers (gain
   sqrt 2 where orthogonal); each block's second conv zero, so that every
   block starts as the identity and the tower trains without normalization
   (Goyal et al. 2017's zero-initialized last layer of a residual branch). */
void rl_resnet_init(const rl_resnet *n, rl_params *p, rl_init_scheme scheme, rl_rng *rng);
/* Training forward for B <= max_batch samples of x [B][in_c in_h in_w];
   returns [B][out_dim] (inside the workspace). */
const float *rl_resnet_forward(rl_resnet *n, const float *params, const float *x, uint32_t B);
/* Inference: a row's result does not depend on B (as rl_cnn_infer), in the
   training forward's workspace. */
const float *rl_resnet_infer(rl_resnet *n, const float *params, const float *x, uint32_t B);
/* Backward of the last rl_resnet_forward on x from dout [B][out_dim];
   accumulates into grad (no input gradient: the tower reads observations). */
void rl_resnet_backward(rl_resnet *n, const float *params, float *grad, const float *x, const float *dout, uint32_t B);
/* The tower as rlhost.policy/1 operations appended to buf: the stem's
   conv2d and relu, then per block {"op":"residual","ops":[conv2d, relu,
   conv2d]} (y = x + the ops of x) and relu, then flatten. */
int rl_resnet_ops(const rl_resnet *n, const char *prefix, char *buf, size_t cap);
typedef struct rl_lstm {
    uint32_t in_dim, hidden, max_batch, max_steps;
    size_t wih_off, whh_off, b_off; /* W_ih [4H][in], W_hh [4H][H], b [4H] */
    /* workspaces for a sequence of up to max_steps x max_batch */
    float *gates;             /* [T][B][4H] post-nonlinearity i, f, g, o */
    float *c;                 /* [T][B][H] */
    float *h_in, *c_in;       /* [T][B][H] the state each step started from */
    uint8_t *resets;          /* [T][B] as passed to the last forward */
    float *tanh_c;            /* backward scratch [B][H] */
    float *dgates, *dh, *dc;  /* backward scratch */
    float *whh_fwd, *whh_bwd; /* W_hh^T and W_hh packed for the per-step products */
} rl_lstm;

int rl_lstm_create(rl_lstm *l, rl_params *p, const char *prefix, uint32_t in_dim, uint32_t hidden, uint32_t max_batch,
                   uint32_t max_steps);
void rl_lstm_destroy(rl_lstm *l);
/* Orthogonal W_hh, Xavier-like W_ih, zero bias with forget bias 1. */
void rl_lstm_init(const rl_lstm *l, rl_params *p, rl_rng *rng);
/* Runs T steps over x [T][B][in].  h0/c0 [B][H] are the state before step 0;
   reset [T][B] (may be NULL): nonzero zeroes the state before that step.
   Writes h_out [T][B][H] and leaves the final state in h_last/c_last
   [B][H] (may alias h0/c0). */
void rl_lstm_forward(rl_lstm *l, const float *params, const float *x, const float *h0, const float *c0,
                     const uint8_t *reset, float *h_out, float *h_last, float *c_last, uint32_t steps, uint32_t batch);
/* One step for inference (no workspace use): h, c [B][H] updated in place;
   gates_scratch holds 2 x [B][4H].  Uses the row-independent kernel, so
   each row's result does not depend on B. */
void rl_lstm_step(const rl_lstm *l, const float *params, const float *x, float *h, float *c, float *gates_scratch,
                  uint32_t batch);
/* BPTT for the last forward: dh_out [T][B][H] -> grad (+=), dx [T][B][in]
   (+=, may be NULL).  Gradients do not flow into h0/c0 or across resets. */
void rl_lstm_backward(rl_lstm *l, const float *params, float *grad, const float *x, const float *dh_out, float *dx,
                      uint32_t steps, uint32_t batch);

/* ---- Discrete policies: <rlhost/dist.h> (categorical, Gaussian, squashed) ---- */

/* ---- Losses (mean over the batch; optional per-sample weights) ------------ */

/* Smooth L1 (delta 1, as torch's smooth_l1_loss): mean_i w_i h(pred_i - target_i).
   dpred (+=) the gradient; w may be NULL (all 1).  Returns the loss. */
float rl_huber_loss(float *dpred, const float *pred, const float *target, const float *w, uint32_t n);
/* Mean squared error: mean_i w_i (pred_i - target_i)^2. */
float rl_mse_loss(float *dpred, const float *pred, const float *target, const float *w, uint32_t n);

/* ---- Optimisation ----------------------------------------------------------*/

typedef struct rl_adam {
    float beta1, beta2, eps, weight_decay; /* decoupled (AdamW) when > 0 */
    float *m, *v;
    size_t n;
    uint64_t t;
} rl_adam;

int rl_adam_create(rl_adam *a, size_t n, float beta1, float beta2, float eps, float weight_decay);
void rl_adam_destroy(rl_adam *a);
/* One step: params -= lr * mhat / (sqrt(vhat) + eps) (+ decoupled decay). */
void rl_adam_step(rl_adam *a, float *params, const float *grad, float lr);

/* rl_adam_step on elements [lo, hi) only (the step count still advances
   by one): a replica's slice of a sharded step. */
void rl_adam_step_slice(rl_adam *a, float *params, const float *grad, float lr, size_t lo, size_t hi);

/* RMSprop as PyTorch writes it (no momentum, not centered): v = alpha v +
   (1 - alpha) g^2, params -= lr g / (sqrt(v) + eps).  Stable-Baselines3's
   A2C uses alpha 0.99, eps 1e-5. */
typedef struct rl_rmsprop {
    float alpha, eps;
    float *v;
    size_t n;
} rl_rmsprop;

int rl_rmsprop_create(rl_rmsprop *o, size_t n, float alpha, float eps);
void rl_rmsprop_destroy(rl_rmsprop *o);
void rl_rmsprop_step(rl_rmsprop *o, float *params, const float *grad, float lr);
/* Checkpoint: the square averages as PREFIXv/NAME (NAME from the layout of
   p); load checks each finite and >= 0. */
int rl_rmsprop_state(rl_rmsprop *o, const rl_params *p, const rl_state_io *io, int load, const char *prefix, char *err,
                     size_t errlen);

/* Scales grad so its global L2 norm is at most max_norm; returns the norm
   before clipping. */
float rl_clip_grad_norm(float *grad, size_t n, float max_norm);

/* One optimizer step of a learner that trains alone: grad clipped to
   max_norm by its global L2 norm (max_norm <= 0: not clipped), then Adam
   at lr.  Returns the norm before clipping; when it is not finite nothing
   was stepped (report RL_ENONFINITE: the host keeps the last good
   checkpoint).  rl_replicated_adam_step is the same over replicas. */
float rl_adam_clip_step(rl_adam *a, float *params, float *grad, size_t n, float max_norm, float lr);

/* One optimizer step of a replica (rep NULL or of count 1: alone): the
   gradients summed over the replicas, clipped to max_norm by their global
   norm (max_norm <= 0: not clipped), then Adam at lr.  With several
   replicas and shard set the step is sharded: the gradients are
   reduce-scattered, each replica clips and updates its slice of the
   parameters (and of Adam's moments) and the parameters are all-gathered,
   so Adam and the clipping are split R ways; without shard every replica
   steps all of them after an allreduce.  Either way every replica ends
   with the same parameters, and alone it is exactly rl_clip_grad_norm and
   rl_adam_step.  *norm is the global norm before clipping; when it is not
   finite nothing was stepped and *bad (unless NULL) is the first
   non-finite gradient element (-1: not found).  RL_EINVAL when the
   replicas' calls disagree (a plugin bug). */
int rl_replicated_adam_step(const rl_replicas *rep, int shard, rl_adam *a, float *params, float *grad, size_t n,
                            float max_norm, float lr, float *norm, long *bad);

/* After sharded steps each replica's moments are current on its slice
   only: this all-gathers them, so that every replica holds all of Adam's
   state (before it is saved).  It moves two buffers the size of the
   parameters, about what two sharded steps save, so sharding pays where
   several steps come between gathers.  Collective; nothing to do alone. */
int rl_adam_gather(const rl_replicas *rep, rl_adam *a);

/* ---- Checkpoint helpers (rl.algo.state/1) -------------------------------- */

/* The policy as rlhost.policy/1 in the checkpoint's algo.policy
   (docs/run-directory.md, "Checkpoints describe their policy"), so that
   readers without rlhost (NumPy, to_torch()) can act: the input is
   obs_size floats, normalized when norm_prefix names the statistics an
   rl_obs_norm saved under it (PREFIXmean, PREFIXvar; eps 1e-8, clip
   norm_clip), else NULL; n outputs, names[k] computed by the op list ops[k]
   (the text rl_mlp_ops, rl_cnn_ops or rl_trunk_ops write); greedy, a JSON
   object saying how the action comes from the outputs: {"argmax":"logits"},
   {"sample_softmax":"logits"}, or {"identity":"mean","log_std":"TENSOR"}
   (a box; "sample_gaussian" to sample).  A save-only call: nothing when
   the host stores no metadata (rl_state_meta). */
int rl_policy_meta(const rl_state_io *io, const char *algo, uint32_t obs_size, const char *norm_prefix, float norm_clip,
                   uint32_t n, const char *const *names, const char *const *ops, const char *greedy, char *err,
                   size_t errlen);

/* Every tensor of p as PREFIX + its name, float32, [rows, cols] (or [rows]);
   load checks each name, dtype and shape.  On failure err gets the
   sentence (the host's, for a missing or mismatched tensor). */
int rl_params_save(const rl_params *p, const rl_state_io *io, const char *prefix, char *err, size_t errlen);
int rl_params_load(rl_params *p, const rl_state_io *io, const char *prefix, char *err, size_t errlen);
/* rl_params_load when load, else rl_params_save. */
int rl_params_state(rl_params *p, const rl_state_io *io, int load, const char *prefix, char *err, size_t errlen);
/* Adam's moments as adam/m/NAME, adam/v/NAME (NAME from the layout of p)
   and its step count as adam/t. */
int rl_adam_save(const rl_adam *a, const rl_params *p, const rl_state_io *io, char *err, size_t errlen);
int rl_adam_load(rl_adam *a, const rl_params *p, const rl_state_io *io, char *err, size_t errlen);
/* The same with PREFIX instead of "adam/" (PREFIXm/NAME, PREFIXv/NAME,
   PREFIXt), for an algorithm with several optimizers; load when load. */
int rl_adam_state(rl_adam *a, const rl_params *p, const rl_state_io *io, int load, const char *prefix, char *err,
                  size_t errlen);
/* One RNG (uint64 [4]) or one scalar (float64 [1]) by name. */
int rl_rng_save(const rl_rng *r, const rl_state_io *io, const char *name, char *err, size_t errlen);
int rl_rng_load(rl_rng *r, const rl_state_io *io, const char *name, char *err, size_t errlen);
/* rl_rng_load (which checks the state) when load, else rl_rng_save. */
int rl_rng_state(rl_rng *r, const rl_state_io *io, int load, const char *name, char *err, size_t errlen);
int rl_scalar_save(double v, const rl_state_io *io, const char *name, char *err, size_t errlen);
int rl_scalar_load(double *v, const rl_state_io *io, const char *name, char *err, size_t errlen);
/* rl_scalar_load when load, else rl_scalar_save: one line for state
   functions that serve both directions. */
int rl_scalar_state(double *v, const rl_state_io *io, int load, const char *name, char *err, size_t errlen);
/* A count (steps, updates, a position) as one uint64 by name, exactly: save,
   or load and check it is at most max (rl_state_check_u's sentence). */
int rl_count_state(uint64_t *v, uint64_t max, const rl_state_io *io, int load, const char *name, char *err,
                   size_t errlen);

/* ---- keep_best: the best parameters periodic evaluation has seen ---------- */

typedef struct rl_keep_best {
    int enabled, have;
    double best_return;
    rl_params best; /* a clone of the model's layout when enabled */
} rl_keep_best;

int rl_keep_best_init(rl_keep_best *k, int enabled, const rl_params *model);
void rl_keep_best_free(rl_keep_best *k);
/* An evaluation ended with `ret`: snapshot the model when it is at least as
   good as the best so far (later wins ties: it has trained longer). */
void rl_keep_best_offer(rl_keep_best *k, const rl_params *model, double ret);
/* Training is over: put the best back; 1 if it did. */
int rl_keep_best_restore(const rl_keep_best *k, rl_params *model);
/* Checkpoint: best/... tensors and best/return, best/have. */
int rl_keep_best_state(rl_keep_best *k, const rl_state_io *io, int load, char *err, size_t errlen);
/* rl_keep_best_restore, and when it restored, an info line through host
   (as `who`) saying which evaluation's policy the run ends with. */
void rl_keep_best_finish(const rl_keep_best *k, rl_params *model, const rl_host_api *host, const char *who);

/* Defines `static const rl_algo_eval_ext NAME`, the rl.algo.eval/1
   extension of an algorithm whose instance struct TYPE keeps its
   rl_keep_best in member KB for the parameters in member MODEL: each
   periodic evaluation offers the parameters, and training_done restores the
   best (rl_keep_best_finish with HOST, an expression for the plugin's
   rl_host_api pointer, and WHO).  Every algorithm with keep_best uses it. */
#define RL_KEEP_BEST_EVAL_EXT(NAME, TYPE, KB, MODEL, HOST, WHO)                               \
    static int NAME##_evaluated(void *a, uint64_t step, double ret, char *err, size_t errlen) \
    {                                                                                         \
        (void)step;                                                                           \
        (void)err;                                                                            \
        (void)errlen;                                                                         \
        rl_keep_best_offer(&((TYPE *)a)->KB, &((TYPE *)a)->MODEL, ret);                       \
        return RL_OK;                                                                         \
    }                                                                                         \
    static int NAME##_training_done(void *a, char *err, size_t errlen)                        \
    {                                                                                         \
        (void)err;                                                                            \
        (void)errlen;                                                                         \
        rl_keep_best_finish(&((TYPE *)a)->KB, &((TYPE *)a)->MODEL, (HOST), (WHO));            \
        return RL_OK;                                                                         \
    }                                                                                         \
    static const rl_algo_eval_ext NAME = {sizeof(rl_algo_eval_ext), NAME##_evaluated, NAME##_training_done}

/* ---- Product ledger: the arithmetic a run really did ---------------------- */

/* While the ledger is on, every matrix product the library runs (sgemm,
   sgemv, the row-independent and small-matrix kernels) is counted by shape.
   `rlhost bench` replays the counted shapes through cblas_sgemm alone: the
   time sgemm needs for exactly the run's arithmetic, i.e. its floor.  Meant
   for one thread of network code at a time (the host's main thread). */
typedef struct rl_gemm_shape {
    int trans_a, trans_b; /* as given to cblas_sgemm, row-major */
    uint32_t m, n, k;     /* m = 1: a matrix-vector product */
    uint64_t count;
} rl_gemm_shape;

#define RL_LEDGER_MAX_SHAPES 256

void rl_ledger_start(void); /* clears the counts and turns counting on */
void rl_ledger_stop(void);
/* The shapes counted since the last start; *dropped counts products of
   shapes beyond RL_LEDGER_MAX_SHAPES (not in the list). */
size_t rl_ledger_shapes(const rl_gemm_shape **shapes, uint64_t *dropped);
/* 2 m n k summed over every product counted. */
double rl_ledger_flops(void);

/* Linear schedule from start to end as progress goes 0 -> 1 (clamped). */
static inline float rl_schedule_linear(float start, float end, double progress)
{
    if (progress < 0) progress = 0;
    if (progress > 1) progress = 1;
    return (float)(start + (end - start) * progress);
}

#ifdef __cplusplus
}
#endif

#endif /* RLHOST_NN_H */
