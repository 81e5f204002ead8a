/* The host's log; see log.h. */
#include "base/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

static rl_log_level g_log_level = RL_LOG_INFO;

rl_log_level rl__log_get_level(void)
{
    return g_log_level;
}

void rl__log_set_level(rl_log_level max_level)
{
    g_log_level = max_level;
}

static rl__log_sink g_log_sink;
static void *g_log_ctx;
static char *g_capture;
static size_t g_capture_cap;

void rl__log_capture(char *buf, size_t cap)
{
    g_capture = cap ? buf : NULL;
    g_capture_cap = cap;
    if (g_capture) g_capture[0] = 0;
}

void rl__log_set_sink(rl__log_sink sink, void *ctx)
{
    g_log_sink = sink;
    g_log_ctx = ctx;
}

static void host_vlog(rl_log_level level, const char *who, const char *fmt, va_list ap)
{
    if (level > g_log_level) return;
    static const char *const tag[] = {"error", "warning", "info", "debug"};
    char line[1024];
    vsnprintf(line, sizeof line, fmt, ap);
    if (level == RL_LOG_ERROR && g_capture && !g_capture[0])
        snprintf(g_capture, g_capture_cap, "%s%s%s", who ? who : "", who ? ": " : "", line);
    if (g_log_sink) {
        char msg[1100];
        snprintf(msg, sizeof msg, "%s%s%s", who ? who : "", who ? ": " : "", line);
        g_log_sink(g_log_ctx, (int)level, msg);
    } else if (level <= RL_LOG_WARN)
        fprintf(stderr, "rlhost: %s%s%s: %s\n", who ? who : "", who ? ": " : "", tag[level], line);
    else
        fprintf(stderr, "%s%s%s\n", who ? who : "", who ? ": " : "", line);
}

void rl__log(rl_log_level level, const char *who, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    host_vlog(level, who, fmt, ap);
    va_end(ap);
}

/* kind 0: a line (stderr), 1: a status line in place (stderr), 2: a result (stdout) */
static void report_v(int kind, const char *fmt, va_list ap)
{
    if (kind != 2 && RL_LOG_INFO > g_log_level) return;
    char line[2048];
    vsnprintf(line, sizeof line, fmt, ap);
    if (g_log_sink) {
        g_log_sink(g_log_ctx, (int)RL_LOG_INFO, line);
        return;
    }
    if (kind == 1) {
        fprintf(stderr, "\r%s\x1b[K", line);
        fflush(stderr);
    } else if (kind == 2) {
        fprintf(stdout, "%s\n", line);
        fflush(stdout);
    } else
        fprintf(stderr, "%s\n", line);
}

void rl__say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report_v(0, fmt, ap);
    va_end(ap);
}

void rl__status(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report_v(1, fmt, ap);
    va_end(ap);
}

void rl__status_end(void)
{
    if (!g_log_sink && RL_LOG_INFO <= g_log_level) fputc('\n', stderr);
}

void rl__result(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report_v(2, fmt, ap);
    va_end(ap);
}

int rl__log_tty(void)
{
    return !g_log_sink && isatty(STDERR_FILENO);
}

void rl__result_text(const char *text)
{
    if (g_log_sink) {
        g_log_sink(g_log_ctx, (int)RL_LOG_INFO, text);
        return;
    }
    fputs(text, stdout);
    fflush(stdout);
}

void rl__log_flush(void)
{
    fflush(stdout);
    fflush(stderr);
}
