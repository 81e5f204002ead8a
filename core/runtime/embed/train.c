/* rlh_run: a config trained as `rlhost run` does, with the caller's
   overrides, log handler and stop. */
#define _GNU_SOURCE
#include "embed/embed_internal.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rlhost/rlcore.h>

#include "base/log.h"
#include "base/text.h"
#include "run/eval.h"
#include "run/run.h"

/* Splits "KEY=VALUE" strings into overrides (copies, freed by the caller
   via copies[]).  0, or -1 with why. */
int rl__embed_parse_overrides(const char *const *in, size_t n, rl__override *ov, const char **keys, char **copies,
                              char *err, size_t errlen)
{
    if (n > 64) {
        rl__embed_err(err, errlen, "at most 64 overrides%s%s", "", "");
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (!(copies[i] = strdup(in[i]))) {
            rl__embed_err(err, errlen, "out of memory%s%s", "", "");
            return -1;
        }
        if (rl__override_parse(copies[i], &ov[i]) != RL_OK) {
            rl__embed_err(err, errlen, "override '%s' is not KEY=VALUE%s", in[i], "");
            return -1;
        }
        keys[i] = ov[i].key;
    }
    return 0;
}

int rlh_run(rlh_host *h, const char *config_path, const rlh_run_options *opts, char *err, size_t errlen)
{
    static const rlh_run_options none = {sizeof none, NULL, 0, 0, NULL, 0, 0};
    if (!h || !config_path) {
        rl__embed_err(err, errlen, "rlh_run needs a host and a config file%s%s", "", "");
        return RL_EINVAL;
    }
    if (opts && opts->struct_size < offsetof(rlh_run_options, resume)) { /* API 2's first struct */
        RL_ERRF(err, errlen, "rlh_run_options.struct_size is %u: set it to sizeof(rlh_run_options)",
                (unsigned)opts->struct_size);
        return RL_EINVAL;
    }
    rlh_run_options in = none; /* the members opts's struct_size covers; the rest their defaults */
    if (opts) memcpy(&in, opts, opts->struct_size < sizeof in ? opts->struct_size : sizeof in);
    opts = &in;
    if (opts->n_overrides > 63) {
        rl__embed_err(err, errlen, "at most 63 overrides%s%s", "", "");
        return RL_EINVAL;
    }
    const char *resume_dir = opts->resume ? config_path : NULL;
    char cfg_in_dir[4200];
    if (resume_dir) {
        int k = snprintf(cfg_in_dir, sizeof cfg_in_dir, "%s/config.cfg", resume_dir);
        if (k < 0 || (size_t)k >= sizeof cfg_in_dir) {
            rl__embed_err(err, errlen, "the run directory's path is too long%s%s", "", "");
            return RL_EINVAL;
        }
        config_path = cfg_in_dir;
    }
    size_t n_ov = opts->n_overrides;
    char *copies[64] = {0};
    rl__override ov[64];
    const char *keys[64];
    int rc = RL_ECONFIG;
    if (rl__embed_parse_overrides(opts->overrides, n_ov, ov, keys, copies, err, errlen) == 0) {
        if (resume_dir) { /* the outputs stay where they are */
            ov[n_ov] = (rl__override){"run.out_dir", resume_dir};
            keys[n_ov++] = "run.out_dir";
        }
        rl__config c;
        rl__sbuf errors = {0};
        if ((rc = rl__config_load(&c, config_path, ov, n_ov, &h->reg, &errors)) != RL_OK) {
            rl__embed_errors(err, errlen, &errors);
            if (rc != RL_ENOMEM) rc = RL_ECONFIG;
        } else {
            const char *dir = c.run.vals[RL__RUN_OUT_DIR].s;
            if (opts->out_dir && opts->out_len) snprintf(opts->out_dir, opts->out_len, "%s", dir);
            struct sigaction old_int, old_term;
            sigaction(SIGINT, NULL, &old_int);
            sigaction(SIGTERM, NULL, &old_term);
            rl_log_level level = rl__log_get_level();
            rl__run_opts o = {.resume_dir = resume_dir, .set_keys = keys, .n_set_keys = n_ov, .force = opts->force};
            char first_error[RL_ERR_MAX] = "";
            rl__log_capture(first_error, sizeof first_error);
            rc = rl__run(&c, &o, NULL);
            rl__log_capture(NULL, 0);
            rl__log_set_level(level);
            sigaction(SIGINT, &old_int, NULL);
            sigaction(SIGTERM, &old_term, NULL);
            if (rc == RL_EINTR)
                rl__embed_err(err, errlen, "the run was stopped by a signal; its outputs are in %s%s", dir, "");
            else if (rc != RL_OK && err && errlen)
                snprintf(err, errlen, "the run in %s %s: %s", dir, rc == RL_ECONFIG ? "was refused" : "failed",
                         first_error[0] ? first_error : rl_strerror(rc));
            rl__config_destroy(&c);
        }
        rl__sbuf_free(&errors);
    }
    for (size_t i = 0; i < opts->n_overrides; i++) free(copies[i]);
    return rc;
}
