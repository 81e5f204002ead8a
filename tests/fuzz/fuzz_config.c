/* libFuzzer target: config text through the pre-scan, libconfig and the
   schema validation of every plugin the build tree holds, and the resolved
   config formatted back.  An input that starts with "#files\n" is up to
   four files separated by "\n#--\n" (f0.cfg ... f3.cfg in a scratch
   directory), read from f0.cfg: the @include expansion and its budget. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checkpoint/safetensors.h"
#include "plugin/config.h"
#include "plugin/loader.h"
#include "base/text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static rl__registry reg;
    static int ready;
    if (!ready) {
        rl__registry_discover(&reg, NULL, 0); /* the build tree's plugins */
        ready = 1;
    }
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = 0;
    rl__config c;
    rl__sbuf errors = {0};
    int rc;
    static char origin[96] = "fuzz.cfg"; /* the readback's name: the header comment names it */
    if (!strncmp(text, "#files\n", 7)) {
        static char dir[64];
        if (!dir[0]) {
            snprintf(dir, sizeof dir, "/tmp/fuzz-config-XXXXXX");
            if (!mkdtemp(dir)) abort();
        }
        char *part = text + 7, path[96];
        for (int k = 0; k < 4; k++) {
            char *sep = part ? strstr(part, "\n#--\n") : NULL;
            if (sep) *sep = 0;
            snprintf(path, sizeof path, "%s/f%d.cfg", dir, k);
            FILE *f = fopen(path, "w");
            if (!f) abort();
            fputs(part ? part : "", f);
            fclose(f);
            part = sep ? sep + 5 : NULL;
        }
        snprintf(origin, sizeof origin, "%s/f0.cfg", dir);
        rc = rl__config_load(&c, origin, NULL, 0, &reg, &errors);
    } else {
        snprintf(origin, sizeof origin, "fuzz.cfg");
        rc = rl__config_load_text(&c, origin, text, NULL, 0, &reg, &errors, 1);
    }
    if (rc == RL_OK) {
        /* the resolved config reads back as it is, to the same text */
        rl__sbuf out = {0}, again = {0}, errors2 = {0};
        rl__config_format(&c, &out);
        rl__config c2;
        if (out.oom || rl__config_load_text(&c2, origin, out.data, NULL, 0, &reg, &errors2, 1) != RL_OK) {
            fprintf(stderr, "resolved config does not read back:\n%s\n%s", out.data, errors2.data);
            __builtin_trap();
        }
        rl__config_format(&c2, &again);
        /* and it fits a checkpoint that every reader loads */
        rl__ckpt ck, back;
        memset(&ck, 0, sizeof ck);
        unsigned char *file = NULL;
        size_t len = 0;
        char err[RL_ERR_MAX];
        if (rl__ckpt_meta(&ck, "rlhost.config", out.data) != RL_OK ||
            rl__ckpt_serialize(&ck, "fuzz.safetensors", &file, &len, err, sizeof err) != RL_OK ||
            rl__ckpt_read_mem(&back, "fuzz.safetensors", file, len, err, sizeof err) != RL_OK ||
            strcmp(rl__ckpt_meta_get(&back, "rlhost.config"), out.data) != 0) {
            fprintf(stderr, "an accepted config does not make a readable checkpoint: %s\n%s", ck.err, err);
            __builtin_trap();
        }
        free(file);
        rl__ckpt_free(&ck);
        rl__ckpt_free(&back);
        if (strcmp(out.data, again.data) != 0) {
            fprintf(stderr, "resolved config changes when read back:\n%s\n%s", out.data, again.data);
            __builtin_trap();
        }
        rl__config_destroy(&c2);
        rl__sbuf_free(&out);
        rl__sbuf_free(&again);
        rl__sbuf_free(&errors2);
        rl__config_destroy(&c);
    }
    rl__sbuf_free(&errors);
    free(text);
    return 0;
}
