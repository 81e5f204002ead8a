/* Where a trained run is read from: a run directory or a checkpoint file. */
#define _GNU_SOURCE
#include "checkpoint/source.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rlhost/plugin.h>

#include "base/files.h"
#include "checkpoint/safetensors.h"

int rl__run_paths_of(const char *path, rl__run_paths *p)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) return 0;
    snprintf(p->config, sizeof p->config, "%s/config.cfg", path);
    snprintf(p->checkpoint, sizeof p->checkpoint, "%s/checkpoint.safetensors", path);
    snprintf(p->prev, sizeof p->prev, "%s/checkpoint.prev.safetensors", path);
    return 1;
}

/* 1 when path is a regular file that starts as a safetensors file does
   (an 8-byte little-endian header length that fits, then '{'); a FIFO or
   device is never opened for reading. */
static int is_checkpoint_file(const char *path)
{
    struct stat st;
    int fd = rl__open_regular(AT_FDCWD, path, 0, &st);
    if (fd < 0) return 0;
    unsigned char h[9];
    int yes = st.st_size > 9 && read(fd, h, 9) == 9 && h[8] == '{';
    close(fd);
    uint64_t hl = 0;
    for (int k = 7; yes && k >= 0; k--) hl = (hl << 8) | h[k];
    return yes && hl <= (uint64_t)st.st_size - 8;
}

void rl__source_checkpoint_file(const char *path, rl__run_paths *p)
{
    p->config[0] = p->prev[0] = 0;
    snprintf(p->checkpoint, sizeof p->checkpoint, "%s", path);
}

rl__source_kind rl__source_of(const char *path, rl__run_paths *p)
{
    if (rl__run_paths_of(path, p)) return RL__SOURCE_RUN_DIR;
    if (!is_checkpoint_file(path)) return RL__SOURCE_OTHER;
    rl__source_checkpoint_file(path, p);
    return RL__SOURCE_CHECKPOINT;
}

int rl__source_checkpoint_config(rl__config *c, const char *path, const rl__override *ov, size_t n_ov,
                                 const rl__registry *reg, rl__sbuf *errors)
{
    rl__ckpt ck = {0};
    char err[RL_ERR_MAX] = "";
    int rc = rl__ckpt_read(&ck, path, err, sizeof err);
    const char *text = rc == RL_OK ? rl__ckpt_meta_get(&ck, "rlhost.config") : NULL;
    if (rc != RL_OK) {
        rl__sbuf_printf(errors, "%s\n", err);
    } else if (!text) {
        rl__sbuf_printf(errors,
                        "%s holds no rlhost config (metadata rlhost.config): open its run directory, or "
                        "give the config it was trained with and the checkpoint beside it\n",
                        path);
        rc = RL_ECONFIG;
    } else {
        rc = rl__config_load_text(c, path, text, ov, n_ov, reg, errors, 1);
    }
    rl__ckpt_free(&ck);
    return rc;
}
