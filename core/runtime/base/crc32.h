/* CRC-32 (IEEE 802.3, as zlib's crc32 and Python's zlib.crc32), for the
   checkpoints' per-tensor checks. */
#ifndef RLHOST_BASE_CRC32_H
#define RLHOST_BASE_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* The CRC-32 of n bytes at p, continuing from crc (0 to start). */
uint32_t rl__crc32(uint32_t crc, const void *p, size_t n);

#endif
