/* Growable text and what the host writes into it: JSON, XML, libconfig
   and comment escapes, doubles that read back bit-exact, UTF-8 checks, and
   paths shortened to fit a message. */
#ifndef RLHOST_BASE_TEXT_H
#define RLHOST_BASE_TEXT_H

#include <stdarg.h>
#include <stddef.h>

/* Growable NUL-terminated text buffer.  After an allocation failure the
   buffer keeps failing (oom set) so callers check once at the end. */
typedef struct rl__sbuf {
    char *data;
    size_t len, cap;
    int oom;
} rl__sbuf;

void rl__sbuf_printf(rl__sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rl__sbuf_vprintf(rl__sbuf *b, const char *fmt, va_list ap);
void rl__sbuf_puts(rl__sbuf *b, const char *s);
/* Appends n bytes, NULs included (binary contents; still NUL-terminated). */
void rl__sbuf_append(rl__sbuf *b, const void *d, size_t n);
/* Appends s as a JSON string literal (quotes and escapes). */
void rl__sbuf_json_str(rl__sbuf *b, const char *s);
/* The offset of the first byte of text[0..len) that breaks UTF-8
   (overlong forms, surrogates and code points past U+10FFFF included), or
   len when it is all UTF-8.  Checkpoint headers must be UTF-8 (JSON). */
size_t rl__utf8_prefix(const char *text, size_t len);
/* Appends s as XML text or attribute content (& < > ' " escaped, other
   control characters as '?'). */
void rl__sbuf_xml_str(rl__sbuf *b, const char *s);
/* Appends s for a one-line comment: control characters (a newline in a
   path) become '?'. */
void rl__sbuf_comment_str(rl__sbuf *b, const char *s);
/* Appends s as a libconfig string literal. */
void rl__sbuf_cfg_str(rl__sbuf *b, const char *s);
/* Appends a double that reads back bit-exact; "nan"/"inf" become JSON null
   when json != 0. */
void rl__sbuf_double(rl__sbuf *b, double v, int json);
/* Members of a JSON object that b holds from its "{": the separator, the
   escaped key, then the value (a string escaped, a number or null, or a
   literal written as given: true, false, an array of numbers). */
void rl__json_str(rl__sbuf *b, const char *key, const char *v);
void rl__json_num(rl__sbuf *b, const char *key, double v);
void rl__json_u64(rl__sbuf *b, const char *key, unsigned long long v);
void rl__json_raw(rl__sbuf *b, const char *key, const char *literal);
/* Closes the object, prints it as one line on stdout and frees b. */
void rl__json_print(rl__sbuf *b);
void rl__sbuf_free(rl__sbuf *b);

/* A path as a message in a fixed buffer (RL_ERR_MAX) shows it: whole up to
   RL__BRIEF_MAX - 1 bytes, else its start and end around "...", so the
   reason after it always fits.  Returns buf, or path when it is short. */
#define RL__BRIEF_MAX 200
const char *rl__brief(const char *path, char *buf);

#endif
