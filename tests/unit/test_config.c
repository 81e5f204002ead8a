/* Config: every error class gives file:line, the key path and what was
   expected; overrides are typed by the schema; the resolved config reads
   back to itself. */
#include <stdlib.h>
#include <unistd.h>

#include "plugin/config.h"
#include "../tap.h"
#include "base/text.h"

static rl__registry reg;
static char path[256];

static void write_cfg(const char *text)
{
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

#define HEAD_ENV "env: { plugin = \"fixture_env\"; needed = 1; };\n"
#define HEAD_ALGO "algo: { plugin = \"fixture_algo\"; needed = 2; };\n"

/* Loads text; returns the status and leaves the error text in *errors. */
static int try_load(const char *text, const rl__override *ov, size_t n_ov, rl__sbuf *errors, rl__config *out)
{
    write_cfg(text);
    rl__sbuf_free(errors);
    rl__config c;
    int rc = rl__config_load(&c, path, ov, n_ov, &reg, errors);
    if (out && rc == RL_OK)
        *out = c;
    else
        rl__config_destroy(&c);
    return rc;
}

static void expect_error(const char *text, const rl__override *ov, size_t n_ov, const char *needle, const char *what)
{
    rl__sbuf e = {0};
    int rc = try_load(text, ov, n_ov, &e, NULL);
    char label[256];
    snprintf(label, sizeof label, "%s: refused", what);
    ASSERT_EQ(rc, RL_ECONFIG, label);
    snprintf(label, sizeof label, "%s: message", what);
    ASSERT_CONTAINS(e.data, needle, label);
    rl__sbuf_free(&e);
}

int main(void)
{
    const char *dir = getenv("RLHOST_FIXTURE_DIR");
    if (!dir) {
        printf("1..0 # SKIP RLHOST_FIXTURE_DIR not set\n");
        return 77;
    }
    rl__registry_scan_dir(&reg, dir, 0);
    snprintf(path, sizeof path, "/tmp/rlhost-test-config-%d.cfg", (int)getpid());
    char where[300];

    /* Syntax error with its line. */
    snprintf(where, sizeof where, "%s:2: syntax error", path);
    expect_error("run: { steps = 10; };\nenv: { plugin = ; };\n", NULL, 0, where, "syntax error");

    /* Unknown key, with the nearest valid key. */
    expect_error(HEAD_ENV "algo: { plugin = \"fixture_algo\"; needed = 2;\n  rat = 0.1; };\n", NULL, 0,
                 "algo.rat: unknown key (did you mean 'rate'?)", "unknown key with suggestion");
    snprintf(where, sizeof where, "%s:3: algo.rat:", path);
    expect_error(HEAD_ENV "algo: { plugin = \"fixture_algo\"; needed = 2;\n  rat = 0.1; };\n", NULL, 0, where,
                 "unknown key has file:line");
    expect_error(HEAD_ENV HEAD_ALGO "run: { stepz = 10; };\n", NULL, 0,
                 "run.stepz: unknown key (did you mean 'steps'?)", "unknown run key");
    expect_error(HEAD_ENV "algo: { plugin = \"fixture_algo\"; needed = 2; optimizations = { workrs = 2; }; };\n", NULL,
                 0, "algo.optimizations.workrs: unknown key (did you mean 'workers'?)", "unknown stage");
    expect_error(HEAD_ENV HEAD_ALGO "rnu: { steps = 10; };\n", NULL, 0, "rnu: unknown group (did you mean 'run'?)",
                 "unknown group");

    /* Wrong types. */
    expect_error("env: { plugin = \"fixture_env\"; needed = 1; count = \"three\"; };\n" HEAD_ALGO, NULL, 0,
                 "env.count: expected an integer in [1, 10], got \"three\"", "string for int");
    expect_error("env: { plugin = \"fixture_env\"; needed = 1; rate = true; };\n" HEAD_ALGO, NULL, 0,
                 "env.rate: expected a number in [0, 1], got true", "bool for float");
    expect_error("env: { plugin = \"fixture_env\"; needed = 1; flag = 1; };\n" HEAD_ALGO, NULL, 0,
                 "env.flag: expected true or false, got 1", "int for bool");
    expect_error("env: { plugin = \"fixture_env\"; needed = 1; sizes = (64, \"x\"); };\n" HEAD_ALGO, NULL, 0,
                 "env.sizes: expected a list of integers in [1, 4096]", "bad list element");
    expect_error("env: { plugin = \"fixture_env\"; needed = 1; count = 2.5; };\n" HEAD_ALGO, NULL, 0,
                 "env.count: expected an integer in [1, 10], got 2.5", "fraction for int");

    /* Out of range. */
    expect_error("env: { plugin = \"fixture_env\"; needed = 1; count = 0; };\n" HEAD_ALGO, NULL, 0,
                 "env.count: expected an integer in [1, 10], got 0", "int below range");
    expect_error("env: { plugin = \"fixture_env\"; needed = 1; rate = 1.5; };\n" HEAD_ALGO, NULL, 0,
                 "env.rate: expected a number in [0, 1], got 1.5", "float above range");
    expect_error("env: { plugin = \"fixture_env\"; needed = 1; num_envs = 0; };\n" HEAD_ALGO, NULL, 0,
                 "env.num_envs: expected an integer in [1, 1048576], got 0", "host option range");

    /* Bad enum value, with the nearest choice. */
    expect_error("env: { plugin = \"fixture_env\"; needed = 1; mode = \"gamme\"; };\n" HEAD_ALGO, NULL, 0,
                 "env.mode: expected one of \"alpha\", \"beta\", \"gamma\", got \"gamme\" (did you mean \"gamma\"?)",
                 "bad enum");

    /* Missing required keys and groups. */
    expect_error("env: { plugin = \"fixture_env\"; };\n" HEAD_ALGO, NULL, 0,
                 "env.needed: missing (required: must be set)", "missing required option");
    expect_error("env: { needed = 1; };\n" HEAD_ALGO, NULL, 0, "env.plugin: missing", "missing plugin");
    expect_error(HEAD_ENV, NULL, 0, "algo: missing group", "missing algo group");

    /* Plugin lookup errors. */
    expect_error("env: { plugin = \"fixture_evn\"; };\n" HEAD_ALGO, NULL, 0,
                 "env.plugin: unknown env plugin 'fixture_evn' (did you mean 'fixture_env'?", "unknown plugin");
    expect_error("env: { plugin = \"fixture_algo\"; };\n" HEAD_ALGO, NULL, 0,
                 "'fixture_algo' is an algo plugin, but an env is expected", "algo where env expected");

    /* Overrides. */
    rl__override ov_bad[] = {{"env.count", "abc"}};
    expect_error(HEAD_ENV HEAD_ALGO, ov_bad, 1, "--set env.count=abc: expected an integer in [1, 10], got 'abc'",
                 "bad override");
    rl__override ov_unknown[] = {{"algo.rat", "0.1"}};
    expect_error(HEAD_ENV HEAD_ALGO, ov_unknown, 1, "--set algo.rat=0.1: unknown key 'rat'", "unknown override key");
    rl__override ov_range[] = {{"algo.optimizations.workers", "0"}};
    expect_error(HEAD_ENV HEAD_ALGO, ov_range, 1,
                 "--set algo.optimizations.workers=0: expected an integer in [1, 64] or \"auto\"",
                 "stage override out of range");

    rl__override ov[] = {{"env.count", "5"},
                         {"env.mode", "gamma"},
                         {"algo.sizes", "[8, 16, 32]"},
                         {"run.steps", "1e4"},
                         {"run.out_dir", "somewhere/else"},
                         {"algo.optimizations.workers", "auto"},
                         {"env.rate", "1"},
                         {"run.seed", "5000000000"}};
    rl__sbuf e = {0};
    rl__config c;
    int rc = try_load(HEAD_ENV HEAD_ALGO "run: { steps = 100; seed = 3; };\n", ov, 8, &e, &c);
    ASSERT_EQ(rc, RL_OK, "overrides apply");
    if (rc == RL_OK) {
        ASSERT_EQ(c.env_opts.vals[0].i, 5, "int override");
        ASSERT_CONTAINS(c.env_opts.vals[2].s, "gamma", "bare-word enum override");
        ASSERT_EQ(c.env_opts.vals[2].i, 2, "enum index");
        ASSERT_EQ(c.algo_opts.vals[4].n, 3, "list override length");
        ASSERT_EQ(c.algo_opts.vals[4].ilist[2], 32, "list override value");
        ASSERT_EQ(c.run.vals[RL__RUN_STEPS].i, 10000, "integral float accepted for int");
        ASSERT_EQ(c.run.vals[RL__RUN_SEED].i, 5000000000LL, "64-bit integer override");
        ASSERT_EQ(c.run.vals[RL__RUN_QUIET].i, 0, "default kept");
        ASSERT_CONTAINS(c.run.vals[RL__RUN_OUT_DIR].s, "somewhere/else", "bare-word string override");
        OK(c.algo_stages.vals[0].is_auto, "auto override");
        ASSERT_NEAR(c.env_opts.vals[1].f, 1.0, 0, "int accepted for float");
        ASSERT_EQ(c.env_host.vals[RL__ENV_NUM_ENVS].i, 1, "host default filled");
        ASSERT_EQ(c.algo_opts.vals[6].i, 0, "bool default filled");
        ASSERT_CONTAINS(c.env_opts.vals[5].slist[0], "ab", "string list default");

        /* The resolved config reads back to the same resolution. */
        rl__sbuf once = {0}, twice = {0};
        rl__config_format(&c, &once);
        FILE *f = fopen(path, "w");
        fputs(once.data, f);
        fclose(f);
        rl__config c2;
        rl__sbuf e2 = {0};
        rc = rl__config_load(&c2, path, NULL, 0, &reg, &e2);
        ASSERT_EQ(rc, RL_OK, "resolved config loads");
        if (rc == RL_OK) {
            rl__config_format(&c2, &twice);
            /* Skip the first (comment) line, which names the source file. */
            OK(strcmp(strchr(once.data, '\n'), strchr(twice.data, '\n')) == 0, "resolved config round-trips");
            rl__config_destroy(&c2);
        }
        rl__sbuf_free(&once);
        rl__sbuf_free(&twice);
        rl__sbuf_free(&e2);
        rl__config_destroy(&c);
    } else {
        printf("# %s\n", e.data);
    }
    rl__sbuf_free(&e);

    /* Derived out_dir default. */
    rc = try_load(HEAD_ENV HEAD_ALGO, NULL, 0, &e, &c);
    ASSERT_EQ(rc, RL_OK, "minimal config loads");
    if (rc == RL_OK) {
        ASSERT_CONTAINS(c.run.vals[RL__RUN_OUT_DIR].s, "runs/fixture_env-fixture_algo", "default out_dir");
        rl__config_destroy(&c);
    }
    rl__sbuf_free(&e);

    /* Several problems are all reported, one line each. */
    rc = try_load("env: { plugin = \"fixture_env\"; needed = 1; count = 0; rate = 2.0; };\n" HEAD_ALGO, NULL, 0, &e,
                  NULL);
    ASSERT_CONTAINS(e.data, "env.count", "first of two errors");
    ASSERT_CONTAINS(e.data, "env.rate", "second of two errors");
    rl__sbuf_free(&e);

    unlink(path);
    rl__registry_destroy(&reg);
    return tap_done();
}
