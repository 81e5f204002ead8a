/* CRC-32; see crc32.h.  Slicing by 8: eight tables, eight bytes a step. */
#include "base/crc32.h"

#include <pthread.h>
#include <string.h>

static uint32_t table[8][256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void make_tables(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
        table[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++)
        for (int t = 1; t < 8; t++) table[t][i] = (table[t - 1][i] >> 8) ^ table[0][table[t - 1][i] & 0xff];
}

uint32_t rl__crc32(uint32_t crc, const void *p, size_t n)
{
    pthread_once(&once, make_tables);
    const unsigned char *b = p;
    crc = ~crc;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    for (; n >= 8; n -= 8, b += 8) {
        uint32_t lo, hi;
        memcpy(&lo, b, 4);
        memcpy(&hi, b + 4, 4);
        lo ^= crc; /* the first four bytes are the low word */
        crc = table[7][lo & 0xff] ^ table[6][(lo >> 8) & 0xff] ^ table[5][(lo >> 16) & 0xff] ^ table[4][lo >> 24] ^
            table[3][hi & 0xff] ^ table[2][(hi >> 8) & 0xff] ^ table[1][(hi >> 16) & 0xff] ^ table[0][hi >> 24];
    }
#endif
    while (n--) crc = table[0][(crc ^ *b++) & 0xff] ^ (crc >> 8);
    return ~crc;
}
