/* The host's log: stderr, or a sink an embedder sets; a level threshold;
   the first error captured for rlh_run's message.  Library code logs here
   and never prints by itself. */
#ifndef RLHOST_BASE_LOG_H
#define RLHOST_BASE_LOG_H

#include <stddef.h>

#include <rlhost/plugin.h>

/* Logging to stderr.  Level threshold settable (quiet runs show warnings). */
void rl__log(rl_log_level level, const char *who, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void rl__log_set_level(rl_log_level max_level);
/* Messages go to sink instead of stderr (NULL: stderr again). */
typedef void (*rl__log_sink)(void *ctx, int level, const char *message);
void rl__log_set_sink(rl__log_sink sink, void *ctx);
/* Copies the first error-level message from now on into buf (cap bytes);
   rl__log_capture(NULL, 0) stops.  One capture at a time (rlh_run's). */
void rl__log_capture(char *buf, size_t cap);
rl_log_level rl__log_get_level(void);

/* The run's own report, through the same sink (which gets each as an info
   message): a line for whoever watches (stderr), a status line redrawn in
   place on a terminal (stderr, no newline; rl__status_end closes it), and
   a result for the caller (stdout, whatever the level).  librlhost writes
   to the terminal through these and rl__log only. */
void rl__say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void rl__status(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void rl__status_end(void);
void rl__result(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Whether the report goes to a terminal (stderr is one, and no sink is set):
   status lines are then redrawn in place. */
int rl__log_tty(void);
/* A result of any length, as it is (its own newlines). */
void rl__result_text(const char *text);
/* Everything said so far, out (before the process exits). */
void rl__log_flush(void);

#endif
