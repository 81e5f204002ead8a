/* The rlhost command's arguments: one table of flags, each with one
   meaning, the commands that take it and the field it sets (args.c). */
#ifndef RLHOST_CLI_ARGS_H
#define RLHOST_CLI_ARGS_H

#include <stddef.h>

#include "plugin/config.h"
#include "search/searcher.h"

#define MAX_ARGS 256

typedef struct cli {
    const char *cmd;
    const char *positional[64];
    int n_positional;
    const char *plugin_paths[MAX_ARGS];
    size_t n_paths;
    rl__override overrides[MAX_ARGS];
    size_t n_overrides;
    const char *stages[MAX_ARGS];
    size_t n_stages;
    const char *resume, *checkpoint, *output, *trace;
    const char *column; /* plot --column */
    unsigned long long window;
    int help;
    int json;
    int force;
    int follow;
    int repeat;
    int busy; /* bench: processes that compete for the cores while it measures */
    unsigned long long steps;
    unsigned episodes;
    double fps;
    int searches; /* --search: the learner searches at each of its moves */
    rl__search_opts search;
} cli;

/* "rlhost: " fmt (with arg), then the command's help, on stderr; EXIT_USAGE. */
int usage_error(const char *help, const char *fmt, const char *arg);
/* argv[2..] of command c->cmd into c; allow_set: the command takes --set and
   --out.  0, or EXIT_USAGE with the sentence and help on stderr. */
int parse_args(cli *c, int argc, char **argv, const char *help, int allow_set);

#endif
