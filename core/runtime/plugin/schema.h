/* Option schemas: turning config settings and text into typed rl_values,
   checked against an rl_option_def, and back into config syntax. */
#ifndef RLHOST_SCHEMA_H
#define RLHOST_SCHEMA_H

#include <stddef.h>
#include <stdint.h>

#include <rlhost/plugin.h>

#include <libconfig.h>

#include "base/arena.h"
#include "base/text.h"

/* Converts setting s to a value of def's type.  On failure returns
   RL_ECONFIG and writes what was expected into why ("expected an integer in
   [1, 64], got 0").  Strings and lists are copied into arena a. */
int rl__value_from_setting(const rl_option_def *def, const config_setting_t *s, rl__arena *a, rl_value *out, char *why,
                           size_t whylen);

/* The same from text in config syntax ("3e-4", "[64, 64]", "true").  For
   STRING and ENUM options unquoted text is taken as the string itself, so
   --set env.plugin=snake works. */
int rl__value_from_text(const rl_option_def *def, const char *text, rl__arena *a, rl_value *out, char *why,
                        size_t whylen);

/* Appends v in config syntax. */
void rl__value_format(const rl_option_def *def, const rl_value *v, rl__sbuf *b);

/* Every list option holds at most RL__MAX_LIST elements and every string
   at most RL__MAX_STRING bytes, whatever the plugin's schema says; the
   resolved config as a whole must fit a checkpoint's metadata (see
   config.h). */
#define RL__MAX_LIST 4096
#define RL__MAX_STRING 65536

/* "integer", "float", "one of: a, b, c", ... */
void rl__type_describe(const rl_option_def *def, rl__sbuf *b);

/* Checks a plugin's schema entry: name, type, choices, and that the default
   parses and lies in range.  why gets the first problem. */
int rl__def_check(const rl_option_def *def, char *why, size_t whylen);

/* Index of name in defs, or -1. */
int rl__def_find(const rl_option_def *defs, uint32_t n, const char *name);

#endif
