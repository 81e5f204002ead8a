/* TensorBoard event files: the rows of metrics.csv and evals.csv as scalar
   summaries ("train/COLUMN", "eval/COLUMN"), in TensorFlow's record format
   (length, masked CRC-32C of it, an Event protocol buffer, its masked
   CRC-32C), the protocol buffers encoded here: Event{wall_time, step,
   file_version | summary{value{tag, simple_value}}}.  The file is built in
   memory from the CSV text and written atomically with it, so a resume cut
   back to its checkpoint cuts the events alike. */
#ifndef RLHOST_TBEVENTS_H
#define RLHOST_TBEVENTS_H

#include <stddef.h>
#include <stdint.h>

#include <rlhost/plugin.h>

#include <stdint.h>

#include "base/text.h"

/* CRC-32C (Castagnoli) of n bytes; exposed for the unit test. */
uint32_t rl__crc32c(const void *data, size_t n);

/* Appends to out the events of every data row of csv (a header line, then
   rows whose first column is the step), "prefix/COLUMN" for each column
   but the step and wall_s, a non-number (nan, inf) left out; wall_s is
   added to t0 (seconds since the epoch) for the event's time.  The first
   call on an empty out writes the file-version event first. */
void rl__tb_from_csv(rl__sbuf *out, const char *csv, size_t len, const char *prefix, double t0);

#endif
