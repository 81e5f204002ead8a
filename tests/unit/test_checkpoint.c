#define _GNU_SOURCE
/* Checkpoints: a write/read round trip, then every truncation and many
   random corruptions of a real file, each read either cleanly or refused
   with a sentence, every change to the tensors' bytes refused by their
   CRC-32s (this test also runs under ASan/UBSan). */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rlhost/rlcore.h>

#include "checkpoint/safetensors.h"
#include "../tap.h"

static unsigned char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc(*n);
    if (fread(b, 1, *n, f) != *n) *n = 0;
    fclose(f);
    return b;
}

static void spit(const char *path, const unsigned char *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    fwrite(b, 1, n, f);
    fclose(f);
}

int main(void)
{
    char path[64], prev[64], bad[64], err[RL_ERR_MAX];
    snprintf(path, sizeof path, "/tmp/rl-ckpt-%d.st", (int)getpid());
    snprintf(prev, sizeof prev, "/tmp/rl-ckpt-%d.prev.st", (int)getpid());
    snprintf(bad, sizeof bad, "/tmp/rl-ckpt-%d.bad.st", (int)getpid());
    rl__ckpt w;
    memset(&w, 0, sizeof w);
    float a[6] = {1, 2, 3, 4, 5, 6};
    uint64_t s23[2] = {2, 3}, s4[1] = {4};
    uint8_t u[4] = {7, 8, 9, 10};
    OK(rl__ckpt_put(&w, "q/layer0.weight", RL_DTYPE_F32, 2, s23, a) == RL_OK, "put a matrix");
    OK(rl__ckpt_put(&w, "u", RL_DTYPE_U8, 1, s4, u) == RL_OK, "put bytes");
    OK(rl__ckpt_put(&w, "u", RL_DTYPE_U8, 1, s4, u) != RL_OK, "a name twice is refused");
    OK(rl__ckpt_meta(&w, "rlhost.step", "42") == RL_OK, "metadata");
    OK(rl__ckpt_meta(&w, "quote", "a \"b\"\nc") == RL_OK, "metadata with escapes");
    int tmpfd = open("/tmp", O_RDONLY | O_DIRECTORY);
    rl__dir tmpdir = {tmpfd, "/tmp"};
    OK(rl__ckpt_write(&w, tmpdir, path + 5, prev + 5, err, sizeof err) == RL_OK, "write");
    OK(rl__ckpt_write(&w, tmpdir, path + 5, prev + 5, err, sizeof err) == RL_OK, "write again");
    OK(access(prev, F_OK) == 0, "the previous file is kept");
    rl__ckpt_free(&w);

    rl__ckpt r;
    OK(rl__ckpt_read(&r, path, err, sizeof err) == RL_OK, "read back");
    const rl__ckpt_tensor *t = rl__ckpt_find(&r, "q/layer0.weight");
    OK(t && t->ndim == 2 && t->shape[0] == 2 && t->shape[1] == 3 && t->dtype == RL_DTYPE_F32 &&
           memcmp(r.data + t->offset, a, sizeof a) == 0,
       "matrix round-trips");
    t = rl__ckpt_find(&r, "u");
    OK(t && memcmp(r.data + t->offset, u, 4) == 0, "bytes round-trip");
    OK(rl__ckpt_meta_get(&r, "rlhost.step") && !strcmp(rl__ckpt_meta_get(&r, "rlhost.step"), "42"),
       "metadata round-trips");
    OK(rl__ckpt_meta_get(&r, "quote") && !strcmp(rl__ckpt_meta_get(&r, "quote"), "a \"b\"\nc"),
       "escaped metadata round-trips");
    rl_state_io io;
    rl__ckpt_io(&r, &io);
    float back[6];
    uint64_t s32[2] = {3, 2};
    OK(io.get(io.ctx, "q/layer0.weight", RL_DTYPE_F32, 2, s23, back) == RL_OK && back[5] == 6.0f,
       "state io serves a tensor");
    OK(io.get(io.ctx, "q/layer0.weight", RL_DTYPE_F32, 2, s32, back) == RL_ECORRUPT, "shape mismatch");
    ASSERT_CONTAINS(io.error(io.ctx), "is F32 [2, 3] in the checkpoint, but the config builds F32 [3, 2]",
                    "mismatch sentence");
    OK(io.get(io.ctx, "nope", RL_DTYPE_F32, 2, s23, back) == RL_ENOENT, "missing tensor");
    rl__ckpt_free(&r);

    size_t n = 0;
    unsigned char *orig = slurp(path, &n);
    int crashes_avoided = 1, truncations_refused = 1;
    for (size_t len = 0; len < n; len++) { /* every truncation */
        spit(bad, orig, len);
        int rc = rl__ckpt_read(&r, bad, err, sizeof err);
        if (rc == RL_OK) {
            truncations_refused = 0;
            rl__ckpt_free(&r);
        } else if (!strstr(err, bad)) {
            crashes_avoided = 0;
        }
    }
    OK(truncations_refused, "every truncation is refused");
    rl_rng rng;
    rl_rng_seed(&rng, 5, 0);
    unsigned char *m = malloc(n);
    int refused = 0, read_ok = 0, data_only = 0, data_refused = 0;
    uint64_t data_at = 0; /* 8 + the header's length */
    for (int k = 7; k >= 0; k--) data_at = (data_at << 8) | orig[k];
    data_at += 8;
    for (int k = 0; k < 3000; k++) { /* random byte corruptions */
        memcpy(m, orig, n);
        int flips = 1 + (int)rl_rng_below(&rng, 4), in_data = 1;
        for (int f = 0; f < flips; f++) {
            size_t at = rl_rng_below(&rng, (uint32_t)n);
            m[at] = (unsigned char)rl_rng_below(&rng, 256);
            in_data &= at >= data_at;
        }
        in_data &= memcmp(m, orig, n) != 0;
        spit(bad, m, n);
        data_only += in_data;
        if (rl__ckpt_read(&r, bad, err, sizeof err) == RL_OK) {
            read_ok++;
            rl__ckpt_free(&r);
        } else {
            refused++;
            data_refused += in_data && strstr(err, "does not match its CRC-32") != NULL;
            if (!strstr(err, bad)) crashes_avoided = 0;
        }
    }
    OK(crashes_avoided, "every refusal names the file");
    printf("# 3000 corruptions: %d refused, %d read (a metadata string changed), %d in the data alone\n", refused,
           read_ok, data_only);
    OK(data_only > 0 && data_refused == data_only, "every change to the tensors' bytes is refused by their CRC-32");
    free(m);
    free(orig);

    /* The format's own rules (the reference reader refuses these). */
    static const struct {
        const char *header, *why, *says;
        size_t data;
    } crafted[] = {
        {"{\"a\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[0,2]},"
         "\"a\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[2,4]}}",
         "a duplicate tensor name", "tensor 'a' appears twice", 4},
        {"{\"a\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4]},"
         "\"b\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[2,4]}}",
         "overlapping data ranges", "ranges overlap", 4},
        {"{\"a\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[2,4]}}", "a gap before the data", "a gap", 4},
        {"{\"a\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[0,2]}}", "trailing data bytes", "trailing bytes", 4},
        {"{\"a\\u0000b\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[0,2]}}", "a NUL inside a name",
         "NUL character", 2},
        {"{\"a\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[0,2]}} x", "bytes after the header object",
         "after the header object", 2},
        {"{\"__metadata__\":{\"k\":\"1\",\"k\":\"2\"}}", "a metadata key twice", "appears twice", 0},
        {"{\"a\" {}}", "a missing colon", "expected ':' at header byte 5", 0},
    };
    for (size_t k = 0; k < sizeof crafted / sizeof *crafted; k++) {
        size_t hl = strlen(crafted[k].header);
        unsigned char *f = calloc(1, 8 + hl + crafted[k].data);
        for (int b = 0; b < 8; b++) f[b] = (unsigned char)((uint64_t)hl >> (8 * b));
        memcpy(f + 8, crafted[k].header, hl);
        spit(bad, f, 8 + hl + crafted[k].data);
        free(f);
        int rc = rl__ckpt_read(&r, bad, err, sizeof err);
        if (rc == RL_OK) rl__ckpt_free(&r);
        char what[128];
        snprintf(what, sizeof what, "%s is refused", crafted[k].why);
        OK(rc == RL_ECORRUPT, what);
        ASSERT_CONTAINS(err, crafted[k].says, crafted[k].why);
    }
    /* Other writers put more than a few metadata entries. */
    memset(&w, 0, sizeof w);
    char key[32];
    for (int k = 0; k < 100; k++) {
        snprintf(key, sizeof key, "key%d", k);
        rl__ckpt_meta(&w, key, "v");
    }
    OK(rl__ckpt_write(&w, tmpdir, bad + 5, NULL, err, sizeof err) == RL_OK, "write 100 metadata entries");
    rl__ckpt_free(&w);
    OK(rl__ckpt_read(&r, bad, err, sizeof err) == RL_OK && r.n_meta == 101 &&
           !strcmp(rl__ckpt_meta_get(&r, "key99"), "v") && rl__ckpt_meta_get(&r, RL__CKPT_CRC_KEY),
       "100 metadata entries read back, with the writer's CRC-32 list");
    rl__ckpt_free(&r);
    unlink(path);
    unlink(prev);
    unlink(bad);
    close(tmpfd);
    return tap_done();
}
