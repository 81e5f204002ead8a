/* Envs the embedding program defines (rlh_env_register): a descriptor and
   a vtable of trampolines into the caller's callbacks, so the host drives
   them as any plugin. */
#define _GNU_SOURCE
#include "embed/embed_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rlhost/rlcore.h>

/* An instance: the caller's, and the first failure of its calls. */
typedef struct caller_inst {
    const caller_env *ce;
    void *inst;
    int rc;
    char why[RL_ERR_MAX];
} caller_inst;

static int ce_create(const rl_env_args *args, void **out, rl_env_info *info, char *err, size_t errlen)
{
    const caller_env *ce = (const caller_env *)rl__vecenv_creating();
    if (!ce) {
        RL_ERRF(err, errlen, "a caller's env was created outside the host's env driver");
        return RL_EINVAL;
    }
    caller_inst *ci = calloc(1, sizeof *ci);
    if (!ci) {
        RL_ERRF(err, errlen, "out of memory");
        return RL_ENOMEM;
    }
    ci->ce = ce;
    int rc = ce->def.create(ce->def.ctx, args->num_envs, args->seed, info, &ci->inst, err, errlen);
    if (rc != RL_OK) {
        free(ci);
        return rc < 0 ? rc : RL_EINVAL;
    }
    *out = ci;
    return RL_OK;
}

static void ce_destroy(void *env)
{
    caller_inst *ci = env;
    if (!ci) return;
    ci->ce->def.destroy(ci->ce->def.ctx, ci->inst);
    free(ci);
}

/* Keeps the first failure for rl.env.status/1. */
static void ce_result(caller_inst *ci, int rc, const char *why)
{
    if (rc == RL_OK || ci->rc != RL_OK) return;
    ci->rc = rc < 0 ? rc : RL_EIO;
    snprintf(ci->why, sizeof ci->why, "%s", why[0] ? why : rl_strerror(ci->rc));
}

static void ce_reset(void *env, const rl_env_io *io, uint32_t first, uint32_t count)
{
    caller_inst *ci = env;
    char why[RL_ERR_MAX] = "";
    ce_result(ci, ci->ce->def.reset(ci->ce->def.ctx, ci->inst, io, first, count, why, sizeof why), why);
}

static void ce_step(void *env, const rl_env_io *io, uint32_t first, uint32_t count)
{
    caller_inst *ci = env;
    char why[RL_ERR_MAX] = "";
    ce_result(ci, ci->ce->def.step(ci->ce->def.ctx, ci->inst, io, first, count, why, sizeof why), why);
}

static int ce_status(void *env, char *err, size_t errlen)
{
    caller_inst *ci = env;
    int rc = ci->rc;
    if (rc != RL_OK) snprintf(err, errlen, "%s", ci->why);
    ci->rc = RL_OK;
    return rc;
}

static const rl_env_status_ext ce_status_ext = {sizeof ce_status_ext, ce_status};

static const void *ce_extension(void *env, const char *id)
{
    (void)env;
    return strcmp(id, RL_EXT_ENV_STATUS) == 0 ? &ce_status_ext : NULL;
}

static const rl_env_vtable ce_vtable = {sizeof ce_vtable, ce_create, ce_destroy, ce_reset, ce_step, ce_extension};

int rlh_env_register(rlh_host *h, const rlh_env_def *def, char *err, size_t errlen)
{
    if (!h || !def || def->struct_size < sizeof *def || !def->name || !def->create || !def->destroy || !def->reset ||
        !def->step) {
        RL_ERRF(err, errlen,
                "rlh_env_register needs a host and a definition with struct_size = "
                "sizeof(rlh_env_def), a name and all four functions");
        return RL_EINVAL;
    }
    if (strlen(def->name) >= sizeof((caller_env *)0)->name) {
        RL_ERRF(err, errlen, "env name '%.40s...' is longer than 63 characters", def->name);
        return RL_EINVAL;
    }
    caller_env *ce = calloc(1, sizeof *ce);
    if (!ce) {
        RL_ERRF(err, errlen, "out of memory");
        return RL_ENOMEM;
    }
    snprintf(ce->name, sizeof ce->name, "%s", def->name);
    snprintf(ce->description, sizeof ce->description, "%s",
             def->description ? def->description : "an env of the embedding program");
    ce->def = *def;
    ce->def.name = ce->name;
    ce->def.description = ce->description;
    ce->desc =
        (rl_plugin_desc){sizeof ce->desc, RL_KIND_ENV,    ce->name, RLHOST_VERSION, ce->description, NULL, 0, NULL, 0,
                         &ce_vtable,      RL_DESC_SERIAL, NULL};
    int rc = rl__registry_add_caller(&h->reg, &ce->desc, err, errlen);
    if (rc != RL_OK) {
        free(ce);
        return rc;
    }
    ce->next = h->callers;
    h->callers = ce;
    return RL_OK;
}
