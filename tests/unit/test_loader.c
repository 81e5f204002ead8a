/* Loader: every way a plugin can be refused gives its sentence (never a
   crash), and the good plugins keep working beside the broken ones. */
#include <stdlib.h>

#include "plugin/loader.h"
#include "../tap.h"
#include "env/vecenv.h"

static const char *dir;

static void load(rl__registry *reg, const char *file, int want_rc, const char *needle, const char *what)
{
    char path[1024], err[RL_ERR_MAX] = "";
    snprintf(path, sizeof path, "%s/%s", dir, file);
    int rc = rl__registry_load_file(reg, path, err, sizeof err);
    char label[256];
    snprintf(label, sizeof label, "%s: status", what);
    ASSERT_EQ(rc, want_rc, label);
    if (needle) {
        snprintf(label, sizeof label, "%s: message", what);
        ASSERT_CONTAINS(err, needle, label);
        snprintf(label, sizeof label, "%s: names the file", what);
        ASSERT_CONTAINS(err, file, label);
    }
}

int main(void)
{
    dir = getenv("RLHOST_FIXTURE_DIR");
    if (!dir) {
        printf("1..0 # SKIP RLHOST_FIXTURE_DIR not set\n");
        return 77;
    }
    rl__registry reg = {0};
    char want_major[160], want_minor[96];
    snprintf(want_major, sizeof want_major,
             "built for plugin ABI 99.%d but this rlhost speaks %d.%d: rebuild it against the installed rlhost SDK",
             RL_ABI_MINOR, RL_ABI_MAJOR, RL_ABI_MINOR);
    snprintf(want_minor, sizeof want_minor, "needs plugin ABI %d.%d but this rlhost speaks only %d.%d", RL_ABI_MAJOR,
             RL_ABI_MINOR + 1, RL_ABI_MAJOR, RL_ABI_MINOR);
    load(&reg, "bad_major.so", RL_EABI, want_major, "major mismatch");
    load(&reg, "bad_minor.so", RL_EABI, want_minor, "minor too new");
    load(&reg, "short_entry.so", RL_EABI, "rl_plugin_entry struct_size 8 is smaller than", "short entry");
    load(&reg, "no_entry.so", RL_EABI, "is not an rlhost plugin: it does not export 'rlhost_plugin_entry'",
         "missing entry");
    load(&reg, "init_fails.so", RL_EIO, "plugin init failed: no license for this fixture", "init failure");
    load(&reg, "short_desc.so", RL_EABI, "rl_plugin_desc struct_size 8 is smaller", "short descriptor");
    load(&reg, "bad_default.so", RL_EABI,
         "default of option 'count' is invalid: expected an integer in [1, 10], got 99", "bad default");
    load(&reg, "reserved_name.so", RL_EABI, "option name 'optimizations' is reserved for the host",
         "reserved option name");
    load(&reg, "host_name.so", RL_EABI, "option name 'num_envs' is reserved for the host", "a host env option's name");
    load(&reg, "twice_name.so", RL_EABI, "option name 'count' is declared twice", "a duplicate option name");
    load(&reg, "garbage.so", RL_EIO, "cannot load plugin", "not an ELF file");
    load(&reg, "does_not_exist.so", RL_EIO, "cannot load plugin", "missing file");
    ASSERT_EQ(reg.n_refusals, 12, "every refusal recorded");
    ASSERT_EQ(reg.n_plugins, 0, "no plugin registered from broken files");

    /* The good fixture still loads and runs after all of that. */
    load(&reg, "fixture_good.so", RL_OK, NULL, "good plugin");
    ASSERT_EQ(reg.n_plugins, 2, "good .so provides an env and an algo");
    char err[RL_ERR_MAX] = "";
    const rl__plugin *env = rl__registry_find(&reg, RL_KIND_ENV, "fixture_env", "env.plugin", err, sizeof err);
    OK(env != NULL, "find env by name");
    const rl__plugin *p = rl__registry_find(&reg, RL_KIND_ENV, "fixture_algo", "env.plugin", err, sizeof err);
    OK(p == NULL, "an algo is not an env");
    ASSERT_CONTAINS(err, "'fixture_algo' is an algo plugin, but an env is expected (available envs: fixture_env)",
                    "kind mismatch sentence");
    p = rl__registry_find(&reg, RL_KIND_ENV, "fixture_evn", "env.plugin", err, sizeof err);
    ASSERT_CONTAINS(err, "unknown env plugin 'fixture_evn' (did you mean 'fixture_env'?",
                    "unknown name with nearest match");

    /* Loading the same file twice is a no-op; a second file with the same
       names is shadowed (first found wins). */
    load(&reg, "fixture_good.so", RL_OK, NULL, "same file again");
    ASSERT_EQ(reg.n_plugins, 2, "no duplicates from the same file");

    if (env) {
        /* Drive the env through the host's vecenv to prove it is usable. */
        rl_value vals[8] = {0};
        vals[0].i = 3;
        rl__vecenv v;
        int rc = rl__vecenv_create(&v, env->desc, vals, vals, 4, 1, 1, 1, err, sizeof err);
        ASSERT_EQ(rc, RL_OK, "fixture env creates");
        if (rc == RL_OK) {
            rl__vecenv_reset(&v);
            for (int i = 0; i < 4; i++) ((int32_t *)v.actions)[i] = 1;
            ASSERT_EQ(rl__vecenv_step(&v, err, sizeof err), RL_OK, "fixture env steps");
            ASSERT_EQ(v.stats.episodes, 4, "four one-step episodes");
            ((int32_t *)v.actions)[2] = 2;
            ASSERT_EQ(rl__vecenv_step(&v, err, sizeof err), RL_EINVAL, "out-of-range action refused");
            ASSERT_CONTAINS(err, "algo chose action 2 for env 2, outside [0, 2)", "action range sentence");
            rl__vecenv_destroy(&v);
        }
        vals[0].i = 7;
        rc = rl__vecenv_create(&v, env->desc, vals, vals, 4, 1, 1, 1, err, sizeof err);
        ASSERT_EQ(rc, RL_EINVAL, "env create failure is reported");
        ASSERT_CONTAINS(err, "env 'fixture_env': count 7 is unlucky", "env create failure sentence");
        /* an observation description is checked before any buffer is sized from it */
        vals[0].i = 6;
        rc = rl__vecenv_create(&v, env->desc, vals, vals, 4, 1, 1, 1, err, sizeof err);
        ASSERT_EQ(rc, RL_EINVAL, "shape and size that disagree are refused");
        ASSERT_CONTAINS(err, "env 'fixture_env' reported observation shape 64x64x3 (12288 elements) but obs_size 3",
                        "shape against size sentence");
        vals[0].i = 5;
        rc = rl__vecenv_create(&v, env->desc, vals, vals, 4, 1, 1, 1, err, sizeof err);
        ASSERT_EQ(rc, RL_EINVAL, "a row over the limit is refused");
        ASSERT_CONTAINS(err, "reported observation shape 65536x16384: a row must hold 1 element to 67108864 bytes",
                        "row limit sentence");
    }
    rl__registry_destroy(&reg);
    return tap_done();
}
