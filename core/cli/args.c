/* The rlhost command's arguments; see args.h. */
#define _GNU_SOURCE
#include "args.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int usage_error(const char *help, const char *fmt, const char *arg)
{
    fprintf(stderr, "rlhost: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n%s", help);
    return EXIT_USAGE;
}

/* Parses argv after the command; returns 0 or an exit code. */
/* --opponent SPEC: the seats' evaluation opponent, as the override
   seats.eval_opponents = ["SPEC"]. */
/* Each --opponent (and --human) adds to one seats.eval_opponents list. */
static int add_opponent(cli *c, const char *spec, const char *help)
{
    static char list[8 * 600];
    static int used, at = -1;
    if (strchr(spec, '"') || strchr(spec, '\\'))
        return usage_error(help, "--opponent: no quotes or backslashes in '%s'", spec);
    if (used == 8 || strlen(spec) > 590) return usage_error(help, "--opponent '%s': too long or given too often", spec);
    size_t len = strlen(list);
    if (used) list[len - 1] = 0; /* the closing ']' makes way */
    snprintf(list + strlen(list), sizeof list - strlen(list), "%s\"%s\"]", used ? ", " : "[", spec);
    if (at < 0 && c->n_overrides < MAX_ARGS) at = (int)c->n_overrides++;
    if (at >= 0) c->overrides[at] = (rl__override){"seats.eval_opponents", list};
    used++;
    return 0;
}

/* The flags, one meaning each.  cmds: the commands that take it
   (space-separated), NULL for every command; at: the cli field it sets. */
typedef enum flag_kind {
    F_SWITCH, /* int at = 1 */
    F_COUNT,  /* a decimal integer in [1, max] into the unsigned long long, int or unsigned at */
    F_FPS,    /* a number in (0, 1000] */
    F_TEXT,   /* the value as it is */
    F_CURVE,  /* return, score or length */
    F_LIST,   /* appended to a const char * list whose count follows it */
    F_SET,    /* --set KEY=VALUE and --out DIR: overrides, where the command takes them */
    F_OPPONENT,
    F_HUMAN,
    F_SEARCH /* N or key=value,... (rl__search_opts_parse) */
} flag_kind;

typedef struct flag {
    const char *name, *cmds;
    flag_kind kind;
    size_t at;              /* offsetof(cli, ...) */
    int width;              /* F_COUNT: the field's bytes (sizeof) */
    unsigned long long max; /* F_COUNT */
} flag;

#define FIELD(m) offsetof(cli, m), (int)sizeof(((cli *)0)->m)
static const flag flags[] = {
    {"-h", NULL, F_SWITCH, FIELD(help), 0},
    {"--help", NULL, F_SWITCH, FIELD(help), 0},
    {"--json", NULL, F_SWITCH, FIELD(json), 0},
    {"--force", "run", F_SWITCH, FIELD(force), 0},
    {"--follow", "play", F_SWITCH, FIELD(follow), 0},
    {"--repeat", NULL, F_COUNT, FIELD(repeat), 1000},
    {"--steps", NULL, F_COUNT, FIELD(steps), 1ull << 53},
    {"--episodes", "eval play", F_COUNT, FIELD(episodes), 1000000},
    {"--busy", "bench", F_COUNT, FIELD(busy), 64},
    {"--window", "plot", F_COUNT, FIELD(window), 1ull << 53},
    {"--fps", NULL, F_FPS, FIELD(fps), 0},
    {"-o", NULL, F_TEXT, FIELD(output), 0},
    {"--trace", "eval", F_TEXT, FIELD(trace), 0},
    {"--resume", NULL, F_TEXT, FIELD(resume), 0},
    {"--checkpoint", NULL, F_TEXT, FIELD(checkpoint), 0},
    {"--column", "plot", F_CURVE, FIELD(column), 0},
    {"--stage", NULL, F_LIST, FIELD(stages), 0},
    {"--plugin-path", NULL, F_LIST, FIELD(plugin_paths), 0},
    {"--set", NULL, F_SET, FIELD(overrides), 0},
    {"--out", NULL, F_SET, FIELD(overrides), 0},
    {"--opponent", "eval play", F_OPPONENT, 0, 0, 0},
    {"--human", "play", F_HUMAN, 0, 0, 0},
    {"--search", "eval play bench", F_SEARCH, 0, 0, 0},
};
#undef FIELD

/* Whether the command is one of cmds (space-separated; NULL: every one). */
static int takes(const char *cmds, const char *cmd)
{
    size_t n = strlen(cmd);
    for (const char *p = cmds; p && *p; p += strcspn(p, " "), p += *p == ' ')
        if (!strncmp(p, cmd, n) && (p[n] == ' ' || !p[n])) return 1;
    return !cmds;
}

/* A count: a decimal integer in [1, max], written into a field of width bytes. */
static int parse_count(const flag *f, const char *v, void *field)
{
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 10);
    if (end == v || *end || v[0] == '-' || v[0] == '+' || errno || x < 1 || x > f->max) {
        fprintf(stderr, "rlhost: %s: expected an integer in [1, %llu], got '%s'\n", f->name, f->max, v);
        return EXIT_USAGE;
    }
    if (f->width == (int)sizeof(unsigned long long))
        *(unsigned long long *)field = x;
    else if (f->width == (int)sizeof(int))
        *(int *)field = (int)x; /* int and unsigned alike: max fits both */
    return 0;
}

/* One flag with its value v (NULL for a switch); 0 or EXIT_USAGE. */
static int apply(cli *c, const flag *f, char *v, const char *help, int allow_set)
{
    void *field = (char *)c + f->at;
    switch (f->kind) {
    case F_SWITCH:
        *(int *)field = 1;
        return 0;
    case F_COUNT:
        return parse_count(f, v, field);
    case F_FPS: {
        char *end;
        double x = strtod(v, &end);
        if (end == v || *end || !(x > 0 && x <= 1000)) {
            fprintf(stderr, "rlhost: --fps: expected a number in (0, 1000], got '%s'\n", v);
            return EXIT_USAGE;
        }
        c->fps = x;
        return 0;
    }
    case F_TEXT:
        *(const char **)field = v;
        return 0;
    case F_CURVE:
        if (strcmp(v, "return") && strcmp(v, "score") && strcmp(v, "length")) {
            fprintf(stderr, "rlhost: %s: expected return, score or length, got '%s'\n", f->name, v);
            return EXIT_USAGE;
        }
        c->column = v;
        return 0;
    case F_LIST: {
        size_t *n = f->at == offsetof(cli, stages) ? &c->n_stages : &c->n_paths;
        if (*n < MAX_ARGS) ((const char **)field)[(*n)++] = v;
        return 0;
    }
    case F_SET: {
        if (!allow_set) return usage_error(help, "%s is not an option of this command", f->name);
        if (c->n_overrides == MAX_ARGS) return 0;
        rl__override *o = &c->overrides[c->n_overrides];
        if (!strcmp(f->name, "--out"))
            *o = (rl__override){"run.out_dir", v};
        else if (rl__override_parse(v, o) != RL_OK)
            return usage_error(help, "--set needs KEY=VALUE, got '%s'", v);
        c->n_overrides++;
        return 0;
    }
    case F_OPPONENT:
        return add_opponent(c, v, help) != 0 ? EXIT_USAGE : 0;
    case F_HUMAN:
        return add_opponent(c, "human", help) != 0 ? EXIT_USAGE : 0; /* the person is the opponent */
    case F_SEARCH: {
        char err[RL_ERR_MAX];
        c->search = rl__search_defaults();
        c->searches = 1;
        if (rl__search_opts_parse(&c->search, v, "--search", err, sizeof err) == RL_OK) return 0;
        fprintf(stderr, "rlhost: %s\n", err);
        return EXIT_USAGE;
    }
    }
    return 0;
}

int parse_args(cli *c, int argc, char **argv, const char *help, int allow_set)
{
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        const flag *f = NULL;
        for (size_t k = 0; k < sizeof flags / sizeof *flags && !f; k++)
            if (!strcmp(a, flags[k].name) && takes(flags[k].cmds, c->cmd)) f = &flags[k];
        if (!f && !strcmp(a, "--episodes") && !strcmp(c->cmd, "plot"))
            return usage_error(help,
                               "%s counts the episodes of eval and play; plot's curve is --column "
                               "return|score|length",
                               a);
        if (!f && a[0] == '-' && a[1]) return usage_error(help, "unknown option '%s'", a);
        if (!f) {
            if (c->n_positional < 64) c->positional[c->n_positional++] = a;
            continue;
        }
        int valued = f->kind != F_SWITCH && f->kind != F_HUMAN;
        if (valued && i + 1 >= argc) return usage_error(help, "%s needs a value", a);
        int rc = apply(c, f, valued ? argv[++i] : NULL, help, allow_set);
        if (rc) return rc;
    }
    return 0;
}
