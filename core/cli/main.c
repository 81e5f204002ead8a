/* rlhost command line: run, check, list, info.  Exit codes: 0 ok, 1 run
   failed, 2 usage or config error (130/143 for a run stopped by a signal). */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rlhost/rlcore.h>

#include "args.h"
#include "bench/bench.h"
#include "checkpoint/safetensors.h"
#include "cli.h"
#include "evalcmd.h"
#include "plugin/config.h"
#include "parallel/cpu.h"
#include "run/eval.h"
#include "parallel/replicas.h"
#include "env/vecenv.h"
#include "plugin/loader.h"
#include "play.h"
#include "plot.h"
#include "tune.h"
#include "driver.h"
#include "run/rundir.h"
#include "checkpoint/source.h"
#include "run/run.h"
#include "parallel/world.h"
#include "base/files.h"
#include "base/text.h"
#include "base/nearest.h"
#include "base/log.h"

static const char usage_text[] =
    "usage: rlhost COMMAND [ARGS]\n"
    "\n"
    "Trains reinforcement-learning agents; environments and algorithms are plugins.\n"
    "\n"
    "commands:\n"
    "  run CONFIG [--set KEY=VALUE]... [--out DIR] [--force]\n"
    "                                                train as the config says\n"
    "  run --resume OUT_DIR [--set KEY=VALUE]...     continue a run from its checkpoint\n"
    "  eval CONFIG|OUT_DIR [--checkpoint FILE]       greedy evaluation of a checkpoint\n"
    "  check CONFIG [--set KEY=VALUE]...             validate; print the resolved config\n"
    "  list                                          list the plugins found\n"
    "  info NAME                                     a plugin's options and stages\n"
    "  play CONFIG [--checkpoint FILE] [--fps F]     watch env 0 play in the terminal\n"
    "  plot OUT_DIR... [-o FILE.svg] [--column COL]   learning curves as SVG\n"
    "  bench CONFIG | nn | env NAME | search NAME    measured speed (see bench --help)\n"
    "  tune CONFIG [--trials N] [--jobs J] [--out DIR]\n"
    "                                                search hyperparameters (Optuna; tune --help)\n"
    "  study CONFIG... --seeds N [--out DIR]         seeds side by side, aggregate statistics\n"
    "  export RUN_DIR|CHECKPOINT --format onnx|c [-o PATH]\n"
    "                                                the policy as ONNX or one C file (export --help)\n"
    "\n"
    "options for every command:\n"
    "  --plugin-path DIR   look for plugins in DIR first (repeatable)\n"
    "  -h, --help          help for rlhost or for COMMAND\n"
    "  --version           print the version\n"
    "\n"
    "Plugins are searched in --plugin-path, $RLHOST_PLUGIN_PATH (colon-separated),\n"
    "the build tree when rlhost runs from it, then " RLHOST_PLUGINDIR ".\n";

static const char run_help[] =
    "usage: rlhost run CONFIG [--set KEY=VALUE]... [--out DIR] [--force] [--plugin-path DIR]\n"
    "       rlhost run --resume OUT_DIR [--set KEY=VALUE]...\n"
    "\n"
    "Trains the env/algo pair CONFIG names and writes config.cfg, metrics.csv,\n"
    "episodes.csv and summary.json into run.out_dir.  --set overrides any key\n"
    "(algo.lr=3e-4, env.optimizations.threads=2); --out DIR is --set\n"
    "run.out_dir=DIR.\n"
    "A checkpoint.safetensors is written every run.checkpoint_interval steps and\n"
    "at the end.  Ctrl-C stops after the current step and still writes the\n"
    "checkpoint and outputs.  --resume continues from OUT_DIR's checkpoint with\n"
    "its config.cfg; options that differ from the checkpoint's config are\n"
    "refused unless given with --set.  The run directory is locked while a run\n"
    "writes it; a directory holding another run is refused unless --force\n"
    "(which removes that run's files).\n"
    "A resumed run ends as an uninterrupted one does: the same CSV rows but\n"
    "their timings, the same final evaluation, every checkpoint tensor byte for\n"
    "byte (the files' metadata differs), when the env saves its state (all\n"
    "shipped envs do) and, for DQN, with algo.save_replay = true; without the\n"
    "replay it is close, not identical.  resume-check.sh in the SDK checks it.\n";

static const char plot_help[] =
    "usage: rlhost plot OUT_DIR... [-o FILE.svg] [--column return|score|length] [--window STEPS]\n"
    "\n"
    "Draws the learning curves of one or more runs as an SVG: return against\n"
    "steps (with several runs, their mean and the min-max spread shaded) and\n"
    "steps/s below.  Default output: the first OUT_DIR's curve.svg.\n"
    "Without --column the curve is metrics.csv's return_mean, the mean of the\n"
    "last 100 episodes at each logged step.  --column COL draws episodes.csv's\n"
    "column COL instead, at each step the mean over the episodes that ended in\n"
    "the last STEPS steps (--window; default a twentieth of the longest run).\n"
    "score is the env's game score (Atari: whole games, raw, where return is\n"
    "clipped and per life with episodic_life).\n";

static const char eval_help[] =
    "usage: rlhost eval CONFIG|OUT_DIR [--checkpoint FILE] [--episodes N] [--json] [--trace FILE]\n"
    "                   [--opponent SPEC] [--search N|KEY=VALUE,...]\n"
    "                   [--set K=V]...\n"
    "\n"
    "Greedy evaluation of a trained policy: with OUT_DIR, its config.cfg and\n"
    "checkpoint.safetensors; with CONFIG, the --checkpoint given (or the\n"
    "untrained policy).  Prints return mean/std/min/max, episode length and the\n"
    "env's score; --json one object.  Default: run.eval_episodes episodes.\n"
    "--trace FILE writes every step of every episode as CSV: env, episode, t,\n"
    "action, reward, terminated, truncated, then the observation the action was\n"
    "chosen on (obs_0, obs_1, ...).\n"
    "An env with seats (connect_four) plays each of seats.eval_opponents, or\n"
    "each --opponent SPEC (seats.opponent's syntax; repeatable), from every seat, and prints the\n"
    "learner's wins, draws and losses and its Elo-style rating (in --json, as\n"
    "the fractions of evals.csv's columns: vs_OPPONENT_seatK_win and so on, elo).\n"
    "--search N plays each of the policy's moves by a tree search of N simulations\n"
    "through the env's own rules, the policy's probabilities and value head guiding\n"
    "it (an env that declares itself searchable; an algorithm with a value head);\n"
    "KEY=VALUE,... sets simulations, c_puct, temperature, max_mib and threads\n"
    "(docs/search.md).\n";

static const char check_help[] = "usage: rlhost check CONFIG [--set KEY=VALUE]... [--plugin-path DIR]\n"
                                 "\n"
                                 "Validates CONFIG against the plugins' schemas and prints the fully resolved\n"
                                 "config (every default filled in).  Runs nothing.\n";

static const char list_help[] = "usage: rlhost list [--plugin-path DIR]\n"
                                "\n"
                                "Lists every plugin found: kind, name, version, file and description, and the\n"
                                "files that were refused, with the reason.\n";

static const char bench_help[] =
    "usage: rlhost bench CONFIG [--stage NAME]... [--steps N] [--repeat K] [--busy N] [--json]\n"
    "                    [--set K=V]...\n"
    "       rlhost bench nn [--json] [--repeat K]\n"
    "       rlhost bench env NAME [--set env.KEY=VALUE]... [--steps N] [--repeat K] [--json]\n"
    "       rlhost bench search NAME [--set env.KEY=VALUE]... [--search SPEC] [--repeat K] [--json]\n"
    "\n"
    "bench nn measures, side by side in one run, raw sgemm throughput for the shapes\n"
    "of an MLP update and the throughput of the full update (forward, backward,\n"
    "Adam), then splits small-batch inference time into BLAS and everything else.\n"
    "bench env steps env NAME (num_envs 1024 unless --set) with random actions,\n"
    "observations written, with 1 thread and with every core, interleaved.\n"
    "bench search searches from the positions of 64 envs of NAME (a searchable\n"
    "env) with random rollouts (--search's spec, default 1000 simulations), with 1\n"
    "thread and with every core, interleaved: simulations per second.\n"
    "bench CONFIG trains CONFIG for N steps (default: its steps, at most 100000)\n"
    "with each optimization stage off and on, interleaved K times (default 3),\n"
    "and prints the median steps/s, the on/off ratio with its min-max, and where\n"
    "the time went.  Without --stage it measures every stage that promises\n"
    "unchanged results; --stage NAME (repeatable) picks any.  Then (or with\n"
    "--stage floor alone) the arithmetic floor: the run's matrix products,\n"
    "counted by shape, replayed through cblas_sgemm alone, against the run.\n"
    "--busy N starts N processes that spin at normal priority for the whole\n"
    "measurement: the machine a user has is never idle.  --stage KEY=VALUE\n"
    "compares the config's value of any KEY with VALUE (env.action_mask=\"reverse\"\n"
    "prices a mask), as a stage.  --stage replicas\n"
    "compares 1 replica with --set run.replicas=R (default auto).\n"
    "--json prints one object per line.\n";

static const char play_help[] =
    "usage: rlhost play CONFIG|OUT_DIR [--checkpoint FILE] [--episodes N] [--fps F] [--follow]\n"
    "                   [--human] [--opponent SPEC] [--search N|KEY=VALUE,...] [--set K=V]...\n"
    "\n"
    "Shows env 0 of CONFIG played by the config's algorithm (greedy), redrawn in\n"
    "place at F frames per second on a terminal (default 10), printed frame after\n"
    "frame otherwise.  Stops after N episodes (default 1).\n"
    "--follow OUT_DIR watches a training run learn: waits for the run and its first\n"
    "checkpoint, then before each episode loads the newest checkpoint the training\n"
    "has written; plays until Ctrl-C (or N episodes).\n"
    "An env with seats (connect_four) seats the policy against the first of\n"
    "seats.eval_opponents, or --opponent SPEC; --human seats you: type each move's\n"
    "number when asked (the policy and you change seats every game).\n"
    "--search N: the policy searches at each of its moves, as in rlhost eval.\n";

static const char info_help[] = "usage: rlhost info NAME [--plugin-path DIR]\n"
                                "\n"
                                "Documents plugin NAME: every option and optimization stage with its type,\n"
                                "default, range and help.  NAME may also be 'run' for the run group, or\n"
                                "'seats' for the seats group.\n";

static void warn_refusals(const rl__registry *reg)
{
    for (size_t i = 0; i < reg->n_refusals; i++) rl__log(RL_LOG_WARN, NULL, "%s", reg->refusals[i]);
}

/* --checkpoint FILE, else the CHECKPOINT given in the config's place, else
   OUT_DIR/checkpoint.safetensors when the argument
   is a run directory (then *prev gets the previous checkpoint beside it, the
   fallback), else NULL. */
static const char *checkpoint_for(const cli *c, char *buf, char *prev, size_t n)
{
    rl__run_paths p;
    rl__source_kind kind = rl__source_of(c->positional[0], &p);
    prev[0] = 0;
    if (c->checkpoint) return c->checkpoint;
    if (kind == RL__SOURCE_OTHER) return NULL;
    snprintf(buf, n, "%s", p.checkpoint);
    snprintf(prev, n, "%s", p.prev);
    return buf;
}

/* A checkpoint named where a config goes: eval and play read the config
   its metadata holds (never following an @include in it); the others say
   what to give instead. */
static int load_checkpoint_config(const cli *c, const char *path, int readers, rl__registry *reg, rl__config *cfg,
                                  rl__sbuf *errors)
{
    if (!readers) {
        rl__sbuf_printf(errors,
                        "%s is a checkpoint, not a config: 'rlhost run --resume OUT_DIR' continues its "
                        "run, and 'rlhost eval %s' evaluates it\n",
                        path, path);
        return RL_ECONFIG;
    }
    return rl__source_checkpoint_config(cfg, path, c->overrides, c->n_overrides, reg, errors);
}

static int load_config(const cli *c, rl__registry *reg, rl__config *cfg)
{
    rl__registry_discover(reg, c->plugin_paths, c->n_paths);
    warn_refusals(reg);
    rl__sbuf errors = {0};
    /* CONFIG, OUT_DIR standing for OUT_DIR/config.cfg, or a checkpoint */
    const char *arg = c->resume ? c->resume : c->positional[0];
    rl__run_paths src;
    rl__source_kind kind = rl__source_of(arg, &src);
    const char *path = kind == RL__SOURCE_RUN_DIR ? src.config : arg;
    int readers = !strcmp(c->cmd, "eval") || !strcmp(c->cmd, "play");
    int rc = kind == RL__SOURCE_CHECKPOINT ? load_checkpoint_config(c, path, readers, reg, cfg, &errors)
                                           : rl__config_load(cfg, path, c->overrides, c->n_overrides, reg, &errors);
    if (rc != RL_OK) {
        fprintf(stderr, "%s", errors.data ? errors.data : "rlhost: out of memory\n");
        rl__sbuf_free(&errors);
        return rc == RL_ENOMEM ? rc : RL_ECONFIG;
    }
    rl__sbuf_free(&errors);
    /* a plugin of the same name found earlier in the search order wins:
       say so when the config uses it */
    const rl__plugin *used[2] = {cfg->env, cfg->algo};
    for (size_t i = 0; i < reg->n_plugins; i++)
        for (int k = 0; k < 2; k++)
            if (used[k] && reg->plugins[i].shadowed_by && !strcmp(reg->plugins[i].shadowed_by->path, used[k]->path) &&
                !strcmp(reg->plugins[i].desc->name, used[k]->desc->name))
                rl__log(RL_LOG_WARN, NULL, "plugin '%s' comes from %s, which shadows %s", used[k]->desc->name,
                        used[k]->path, reg->plugins[i].path);
    return RL_OK;
}

static int run_or_check(cli *c, int check_only)
{
    const char *help = check_only ? check_help : run_help;
    if (c->resume && (check_only || c->n_positional))
        return usage_error(help, "--resume takes the run's OUT_DIR instead of a CONFIG%s", "");
    if (c->resume && c->n_overrides < MAX_ARGS) /* the outputs stay where they are */
        c->overrides[c->n_overrides++] = (rl__override){"run.out_dir", c->resume};
    if (!c->resume && c->n_positional != 1) return usage_error(help, "%s needs exactly one CONFIG file", c->cmd);
    rl__registry reg = {0};
    rl__config cfg;
    int rc = load_config(c, &reg, &cfg);
    if (rc == RL_OK) {
        if (check_only) {
            if ((rc = rl__run_check(&cfg)) == RL_OK) { /* what a run makes, made and let go */
                rl__sbuf out = {0};
                rl__config_format(&cfg, &out);
                fputs(out.data ? out.data : "", stdout);
                rl__sbuf_free(&out);
            }
        } else {
            const char *keys[MAX_ARGS];
            rl__run_opts o = {.resume_dir = c->resume, .set_keys = keys, .force = c->force};
            for (size_t i = 0; i < c->n_overrides; i++) keys[o.n_set_keys++] = c->overrides[i].key;
            rc = rl__run(&cfg, &o, NULL);
        }
        rl__config_destroy(&cfg);
    }
    rl__registry_destroy(&reg);
    return rl__exit_code(rc);
}

static int cmd_run(cli *c)
{
    return run_or_check(c, 0);
}

static int cmd_check(cli *c)
{
    return run_or_check(c, 1);
}

static int cmd_list(cli *c)
{
    rl__registry reg = {0};
    rl__registry_discover(&reg, c->plugin_paths, c->n_paths);
    printf("%-5s %-16s %-8s %s\n", "KIND", "NAME", "VERSION", "DESCRIPTION / FILE");
    for (int kind = RL_KIND_ENV; kind <= RL_KIND_ALGO; kind++) {
        for (size_t i = 0; i < reg.n_plugins; i++) {
            const rl__plugin *p = &reg.plugins[i];
            if ((int)p->desc->kind != kind) continue;
            printf("%-5s %-16s %-8s %s\n", rl__kind_name(p->desc->kind), p->desc->name, p->desc->version,
                   p->desc->description);
            printf("%-31s %s%s%s%s\n", "", p->path, p->shadowed_by ? "  (shadowed by " : "",
                   p->shadowed_by ? p->shadowed_by->path : "", p->shadowed_by ? ")" : "");
        }
    }
    if (reg.n_plugins == 0) printf("(no plugins found)\n");
    for (size_t i = 0; i < reg.n_refusals; i++) printf("refused: %s\n", reg.refusals[i]);
    printf("searched:");
    for (size_t i = 0; i < reg.n_searched; i++) printf(" %s", reg.searched[i]);
    printf("\n");
    rl__registry_destroy(&reg);
    return 0;
}

static void print_defs(const char *title, const char *prefix, const rl_option_def *defs, uint32_t n)
{
    if (!n) return;
    printf("%s\n", title);
    for (uint32_t k = 0; k < n; k++) {
        const rl_option_def *d = &defs[k];
        rl__sbuf t = {0};
        rl__type_describe(d, &t);
        printf("  %s%s = %s\n      %s\n      type: %s%s%s\n", prefix, d->name,
               d->default_text ? d->default_text : "(required)", d->help, t.data ? t.data : "",
               (d->flags & RL_OPT_CHANGES_RESULTS) ? "; changes learning results" : "",
               (d->flags & RL_OPT_TRAINING) ? "; training only: evaluations run at the default" : "");
        rl__sbuf_free(&t);
    }
}

static int cmd_info(cli *c)
{
    if (c->n_positional != 1) return usage_error(info_help, "info needs one NAME%s", "");
    const char *name = c->positional[0];
    uint32_t n;
    if (!strcmp(name, "run")) {
        printf("run: the host's run group\n\n");
        const rl_option_def *d = rl__run_schema(&n);
        print_defs("options (run = { ... }):", "", d, n);
        return 0;
    }
    if (!strcmp(name, "seats")) {
        printf("seats: the host's group for an env whose agents play on sides (docs/seats.md)\n\n");
        const rl_option_def *d = rl__seats_schema(&n);
        print_defs("options (seats = { ... }):", "", d, n);
        return 0;
    }
    if (!strcmp(name, "search")) {
        printf("search: the host's group for an algorithm that trains on search (alphazero; docs/search.md)\n\n");
        const rl_option_def *d = rl__search_schema(&n);
        print_defs("options (search = { ... }):", "", d, n);
        return 0;
    }
    rl__registry reg = {0};
    rl__registry_discover(&reg, c->plugin_paths, c->n_paths);
    warn_refusals(&reg);
    int found = 0;
    for (size_t i = 0; i < reg.n_plugins; i++) {
        const rl__plugin *p = &reg.plugins[i];
        if (p->shadowed_by || strcmp(p->desc->name, name) != 0) continue;
        const rl_plugin_desc *d = p->desc;
        const char *kn = rl__kind_name(d->kind);
        if (found) printf("\n");
        found = 1;
        printf("%s %s %s — %s\nfile: %s\n", kn, d->name, d->version, d->description, p->path);
        if (d->kind == RL_KIND_ALGO) {
            char takes[128];
            rl__algo_takes(d, takes, sizeof takes);
            printf("takes: %s\n", takes);
            if (rl__desc_flags(d) & RL_DESC_VALUES)
                printf("search: its probabilities and values guide a tree search (eval --search, docs/search.md)\n");
            if (rl__desc_flags(d) & RL_DESC_SEARCHED)
                printf("trains on: the tree search of every training move (the run's search group: rlhost info "
                       "search)\n");
        } else if (rl__desc_flags(d) & RL_DESC_SEARCHABLE) {
            printf("search: searchable through its own saved state (docs/search.md)\n");
        }
        printf("\n");
        char title[128];
        snprintf(title, sizeof title, "options (%s = { ... }):", kn);
        if (d->kind == RL_KIND_ENV) {
            const rl_option_def *h = rl__env_host_schema(&n);
            print_defs("host options (env = { ... }):", "", h, n);
        }
        print_defs(title, "", d->options, d->n_options);
        snprintf(title, sizeof title, "optimization stages (%s = { optimizations = { ... } }):", kn);
        if (d->kind == RL_KIND_ENV) {
            const rl_option_def *h = rl__env_host_stages(&n);
            print_defs("host stages (env = { optimizations = { ... } }):", "", h, n);
        }
        print_defs(title, "", d->stages, d->n_stages);
    }
    int rc = 0;
    if (!found) {
        const char *names[256];
        size_t nn = 0;
        for (size_t i = 0; i < reg.n_plugins && nn < 256; i++) names[nn++] = reg.plugins[i].desc->name;
        const char *near = rl__nearest(name, names, nn);
        if (near)
            fprintf(stderr, "rlhost: no plugin named '%s' (did you mean '%s'?)\n", name, near);
        else
            fprintf(stderr, "rlhost: no plugin named '%s' (see rlhost list)\n", name);
        rc = EXIT_USAGE;
    }
    rl__registry_destroy(&reg);
    return rc;
}

static int cmd_bench(cli *c)
{
    if (c->n_positional == 1 && !strcmp(c->positional[0], "nn")) return rl__bench_nn(c->json, c->repeat);
    int two = c->n_positional == 2, search = two && !strcmp(c->positional[0], "search");
    if (c->n_positional < 1 || c->n_positional > 2 || (two && !search && strcmp(c->positional[0], "env")))
        return usage_error(bench_help, "bench needs a target: CONFIG, nn, env NAME or search NAME%s", "");
    rl__registry reg = {0};
    rl__registry_discover(&reg, c->plugin_paths, c->n_paths);
    warn_refusals(&reg);
    int rc;
    if (search)
        rc = rl__bench_search(&reg, c->positional[1], c->overrides, c->n_overrides, c->searches ? &c->search : NULL,
                              c->repeat ? c->repeat : 3, c->json);
    else if (two)
        rc = rl__bench_env(&reg, c->positional[1], c->overrides, c->n_overrides, c->steps ? c->steps : 10000000ull,
                           c->repeat ? c->repeat : 3, c->json);
    else
        rc = rl__bench_config(&reg, c->positional[0], c->overrides, c->n_overrides, c->stages, c->n_stages, c->steps,
                              c->repeat ? c->repeat : 3, c->busy, c->json);
    rl__registry_destroy(&reg);
    return rc;
}

/* --follow: a run just started may not have written its config yet. */
static void wait_for_run(const char *dir)
{
    struct stat st;
    char cfgpath[4200];
    snprintf(cfgpath, sizeof cfgpath, "%s/config.cfg", dir);
    int missing = stat(dir, &st) != 0;
    if (missing || (S_ISDIR(st.st_mode) && stat(cfgpath, &st) != 0)) {
        fprintf(stderr, "rlhost: following %s: waiting for the run to start\n", dir);
        for (int i = 0; i < 600 && stat(cfgpath, &st) != 0; i++) usleep(100000);
    }
}

/* play and eval: the config (or run directory) and its checkpoint. */
static int play_or_eval(cli *c, int play)
{
    if (c->n_positional != 1)
        return play ? usage_error(play_help, "play needs exactly one CONFIG%s", "")
                    : usage_error(eval_help, "eval needs one CONFIG or OUT_DIR%s", "");
    if (play && c->follow) wait_for_run(c->positional[0]);
    rl__registry reg = {0};
    rl__config cfg;
    int rc = load_config(c, &reg, &cfg);
    if (rc == RL_OK) {
        char buf[4200], prev[4200];
        const char *ck = checkpoint_for(c, buf, prev, sizeof buf);
        uint32_t episodes = c->episodes ? c->episodes : (uint32_t)cfg.run.vals[RL__RUN_EVAL_EPISODES].i;
        if (play)
            rc = rl__play(&cfg, ck, prev[0] ? prev : NULL,
                          c->episodes     ? c->episodes
                              : c->follow ? 0
                                          : 1,
                          c->fps > 0 ? c->fps : 10.0, c->follow, c->searches ? &c->search : NULL);
        else
            rc = rl__eval_command(&cfg, ck, prev[0] ? prev : NULL, episodes ? episodes : 20, c->json, c->trace,
                                  c->searches ? &c->search : NULL);
        rl__config_destroy(&cfg);
    } else {
        rc = rl__exit_code(rc);
    }
    rl__registry_destroy(&reg);
    return rc;
}

static int cmd_play(cli *c)
{
    return play_or_eval(c, 1);
}

static int cmd_eval(cli *c)
{
    return play_or_eval(c, 0);
}

static int cmd_plot(cli *c)
{
    if (c->n_positional < 1) return usage_error(plot_help, "plot needs at least one OUT_DIR%s", "");
    char out[4200];
    if (!c->output) snprintf(out, sizeof out, "%s/curve.svg", c->positional[0]);
    if (c->window && !c->column) return usage_error(plot_help, "--window needs --column%s", "");
    const rl__plot_opts opts = {c->column, c->window};
    return rl__plot(c->positional, (size_t)c->n_positional, c->output ? c->output : out, &opts);
}

/* Each command: its help, whether it takes --set, and what runs it (after
   its arguments parsed and --help handled). */
typedef struct command {
    const char *name;
    const char *help;
    int allow_set;
    int (*fn)(cli *c);
} command;

static const command commands[] = {
    {"run", run_help, 1, cmd_run},    {"check", check_help, 1, cmd_check}, {"list", list_help, 0, cmd_list},
    {"info", info_help, 0, cmd_info}, {"bench", bench_help, 1, cmd_bench}, {"play", play_help, 1, cmd_play},
    {"eval", eval_help, 1, cmd_eval}, {"plot", plot_help, 0, cmd_plot},
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

static int print_version(void)
{
    printf("rlhost %s (plugin ABI %d.%d)\n", RLHOST_VERSION, RL_ABI_MAJOR, RL_ABI_MINOR);
    if (rl__world_mpi())
        printf("MPI: %s (mpirun -np N rlhost run CONFIG trains N ranks x run.replicas replicas)\n", rl__world_mpi());
    else
        printf("MPI: not built (meson setup -Dmpi=enabled with libopenmpi-dev)\n");
#ifdef RLHOST_MUJOCO_VERSION
    printf("MuJoCo: %s (the mujoco env plugin)\n", RLHOST_MUJOCO_VERSION);
#else
    printf("MuJoCo: not built (scripts/mujoco.sh fetches it; meson setup -Dmujoco=enabled)\n");
#endif
#ifdef RLHOST_ALE_VERSION
    printf("ALE: %s (the atari env plugin; ROMs from ale-py, ALE_ROM_DIR or env.rom)\n", RLHOST_ALE_VERSION);
#else
    printf("ALE: not built (scripts/ale.sh builds it; meson setup -Dale=enabled)\n");
#endif
    return 0;
}

static int cli_main(int argc, char **argv)
{
    rl__blas_select_kernels(argv);
    rl_blas_set_threads(1);
    if (argc < 2) {
        fputs(usage_text, stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
        fputs(usage_text, stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version")) return print_version();
    if (!strcmp(cmd, "tune")) return rl__cmd_tune(argc, argv);
    if (!strcmp(cmd, "study")) return rl__cmd_study(argc, argv);
    if (!strcmp(cmd, "export")) return rl__exec_driver("export", " (and onnx for ONNX)", " onnx", argc, argv, NULL);
    for (size_t i = 0; i < N_COMMANDS; i++) {
        const command *k = &commands[i];
        if (strcmp(cmd, k->name) != 0) continue;
        cli c;
        memset(&c, 0, sizeof c);
        c.cmd = cmd;
        int rc = parse_args(&c, argc, argv, k->help, k->allow_set);
        if (rc) return rc;
        if (c.help) {
            fputs(k->help, stdout);
            return 0;
        }
        return k->fn(&c);
    }
    const char *names[N_COMMANDS];
    for (size_t i = 0; i < N_COMMANDS; i++) names[i] = commands[i].name;
    const char *near = rl__nearest(cmd, names, N_COMMANDS);
    if (near)
        fprintf(stderr, "rlhost: unknown command '%s' (did you mean '%s'?)\n", cmd, near);
    else
        fprintf(stderr, "rlhost: unknown command '%s'\n", cmd);
    fputs(usage_text, stderr);
    return EXIT_USAGE;
}

int main(int argc, char **argv)
{
    /* Under mpirun, every rank joins the job before anything else. */
    if (rl__world_init(&argc, &argv) != 0) {
        fprintf(stderr, "rlhost: error: could not join the MPI job (MPI_Init_thread failed)\n");
        return 1;
    }
    int rc = cli_main(argc, argv);
    rl__world_finalize();
    return rc;
}
