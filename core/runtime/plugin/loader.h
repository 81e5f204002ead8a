/* Plugin loader: finds plugin .so files, checks the ABI window and every
   struct_size, validates descriptors and schemas, and keeps a registry of
   the plugins found.  A refused file is a one-sentence reason, never a crash. */
#ifndef RLHOST_LOADER_H
#define RLHOST_LOADER_H

#include <stddef.h>
#include <stdint.h>

#include <rlhost/plugin.h>

typedef struct rl__plugin_file rl__plugin_file;

typedef struct rl__plugin {
    const rl_plugin_desc *desc;
    const rl__plugin_file *file;
    const char *path;                     /* file the plugin came from */
    const struct rl__plugin *shadowed_by; /* same kind+name found earlier */
    /* an env the embedding program registered (rlh_env_register): its
       state lives in the caller, outside checkpoints */
    int caller;
} rl__plugin;

typedef struct rl__registry {
    rl__plugin_file **files;
    size_t n_files;
    rl__plugin *plugins;
    size_t n_plugins, cap_plugins;
    char **refusals; /* one sentence per refused file */
    size_t n_refusals;
    char **searched; /* directories searched, in order */
    size_t n_searched;
} rl__registry;

/* Loads one file.  Returns RL_OK, or an RL_E* with the sentence in err (the
   sentence is also kept in reg->refusals). */
/* rl_plugin_desc.flags, 0 for a descriptor too short to have them (1.0). */
uint32_t rl__desc_flags(const rl_plugin_desc *d);
/* True when librlhost was loaded from inside the meson build tree (it
   then finds the plugins, and rlhost tune its Python package, there). */
int rl__running_from_build_tree(void);
/* rl_plugin_desc.tune_space, or NULL for a plugin built before ABI 1.3. */
const char *rl__desc_tune_space(const rl_plugin_desc *d);

/* Validates one descriptor as the loader does (sizes, names, schema,
   reserved and duplicate option names, vtable); 0, or -1 with why. */
int rl__desc_check(const rl_plugin_desc *d, char *why, size_t whylen);

int rl__registry_load_file(rl__registry *reg, const char *path, char *err, size_t errlen);

/* Loads every *.so directly inside dir (depth 0) or inside its immediate
   subdirectories (depth 1), in name order.  A missing dir is not an error. */
void rl__registry_scan_dir(rl__registry *reg, const char *dir, int depth);

/* The standard discovery order: extra dirs (--plugin-path), then
   $RLHOST_PLUGIN_PATH, then the build tree when running from it, then the
   installed plugindir. */
void rl__registry_discover(rl__registry *reg, const char *const *extra, size_t n_extra);

/* First plugin of that kind and name, or NULL with a sentence in err naming
   the available plugins of that kind and the nearest match. */
const rl__plugin *rl__registry_find(const rl__registry *reg, rl_plugin_kind kind, const char *name, const char *key,
                                    char *err, size_t errlen);

/* Adds an env the embedding program defines (desc valid until the
   registry is destroyed), after checking its descriptor.  RL_EINVAL with
   the sentence when the name is taken or the descriptor is invalid. */
int rl__registry_add_caller(rl__registry *reg, const rl_plugin_desc *desc, char *err, size_t errlen);

void rl__registry_destroy(rl__registry *reg);

const char *rl__kind_name(rl_plugin_kind kind);

/* rl_algo_args.act_workers for an algorithm of desc: 1 without
   RL_DESC_ACT_WORKERS, else the machine's cores, or `threads` (a search's
   setting; 0: none) where that is more.  Every instance the host makes
   gets this, so that a search of as many threads evaluates on each. */
uint32_t rl__act_workers(const rl_plugin_desc *desc, uint32_t threads);

#endif
