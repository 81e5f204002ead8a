/* The Atari env's INTER_AREA resize (envs/atari/area.c): the vector pass
   against the scalar loop, byte for byte, over sizes that leave every tail
   and tap count, on random, few-valued and smooth screens. The scalar loop
   is the one matched against OpenCV through Gymnasium (atari_gym). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "area.h"
#include "../tap.h"

enum { SH = 210, SW = 160 };

/* test_area --resize SH SW DH DW CN: one screen from stdin, resized, to
   stdout (tests/python/area_cv2.py holds it against OpenCV). */
static int resize_io(char **argv)
{
    uint32_t v[5];
    for (int i = 0; i < 5; i++) v[i] = (uint32_t)strtoul(argv[i], NULL, 10);
    area_plan p;
    if (area_plan_init(&p, v[0], v[1], v[2], v[3], v[4])) return 2;
    size_t n = (size_t)v[0] * v[1] * v[4], m = (size_t)v[2] * v[3] * v[4];
    uint8_t *src = malloc(n), *dst = malloc(m);
    float *scratch = malloc(area_scratch_floats(&p) * sizeof(float));
    int rc = 1;
    while (fread(src, 1, n, stdin) == n) {
        area_resize(&p, scratch, src, dst);
        if (fwrite(dst, 1, m, stdout) != m) break;
        rc = 0;
    }
    free(src), free(dst), free(scratch);
    area_plan_free(&p);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc == 7 && !strcmp(argv[1], "--resize")) return resize_io(argv + 2);
    static const uint32_t sizes[][2] = {{84, 84},   {64, 64},  {42, 42},   {100, 100}, {1, 1},   {17, 33},
                                        {210, 160}, {105, 80}, {160, 120}, {200, 159}, {7, 150}, {84, 9}};
    uint8_t *src = malloc(SH * SW * 3);
    uint32_t state = 12345;
    for (uint32_t cn = 1; cn <= 3; cn += 2)
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
            uint32_t dh = sizes[i][0], dw = sizes[i][1];
            area_plan p;
            char what[96];
            snprintf(what, sizeof what, "%ux%u x%u: a plan", dh, dw, cn);
            if (!OK(area_plan_init(&p, SH, SW, dh, dw, cn) == 0, what)) continue;
            size_t n = (size_t)dh * dw * cn;
            uint8_t *a = malloc(n), *b = malloc(n);
            float *sa = malloc(area_scratch_floats(&p) * sizeof(float));
            float *sb = malloc(area_scratch_floats(&p) * sizeof(float));
            int same = 1;
            for (int round = 0; round < 30 && same; round++) {
                for (size_t k = 0; k < (size_t)SH * SW * cn; k++) {
                    state = state * 1664525u + 1013904223u;
                    src[k] = round % 3 == 0 ? (uint8_t)(state >> 24)
                        : round % 3 == 1    ? (uint8_t)((state >> 30) * 85)
                                            : (uint8_t)(k / 7);
                }
                area_resize(&p, sa, src, a);
                area_resize_scalar(&p, sb, src, b);
                same = !memcmp(a, b, n);
            }
            snprintf(what, sizeof what, "%ux%u x%u: the same bytes as the scalar loop on 30 screens", dh, dw, cn);
            OK(same, what);
            free(a), free(b), free(sa), free(sb);
            area_plan_free(&p);
        }
    area_plan p;
    OK(area_plan_init(&p, SH, SW, 211, 84, 1) == -1, "a plan that would grow a side is refused");
    free(src);
    printf("1..%d\n", tap_count);
    return tap_failed != 0;
}
