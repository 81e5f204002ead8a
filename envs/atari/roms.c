/* Finding an atari env's ROM (roms.h). */
#define _GNU_SOURCE
#include "roms.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/stat.h>

#include <rlhost/rlcore.h>

/* A path that names a readable regular file of a ROM's size: 0, or -1 with
   the sentence (a FIFO or device would block the read, a huge file is no
   ROM). */
static int rom_file(const char *what, const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(err, errlen, "%s '%s': %s", what, path, strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s '%s' is not a regular file", what, path);
        return -1;
    }
    if (st.st_size <= 0 || (unsigned long long)st.st_size > ATARI_ROM_MAX_BYTES) {
        snprintf(err, errlen, "%s '%s' holds %lld bytes: an Atari 2600 ROM holds 1 to %u", what, path,
                 (long long)st.st_size, ATARI_ROM_MAX_BYTES);
        return -1;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s '%s': %s", what, path, strerror(errno));
        return -1;
    }
    fclose(f);
    return 0;
}

enum { MAX_DIRS = 16 };

typedef struct dirs {
    char path[MAX_DIRS][4096];
    int n;
} dirs;

static void add(dirs *d, const char *p)
{
    struct stat st;
    if (d->n >= MAX_DIRS || stat(p, &st) != 0 || !S_ISDIR(st.st_mode)) return;
    for (int i = 0; i < d->n; i++)
        if (!strcmp(d->path[i], p)) return;
    snprintf(d->path[d->n++], sizeof d->path[0], "%s", p);
}

static void add_glob(dirs *d, const char *pattern)
{
    glob_t g;
    if (glob(pattern, 0, NULL, &g) == 0)
        for (size_t i = 0; i < g.gl_pathc; i++) add(d, g.gl_pathv[i]);
    globfree(&g);
}

static void search_dirs(dirs *d)
{
    char p[4096];
    const char *v = getenv("ALE_ROM_DIR");
    if (v && *v) add(d, v);
    v = getenv("VIRTUAL_ENV");
    if (v && *v) {
        snprintf(p, sizeof p, "%s/lib/python3*/site-packages/ale_py/roms", v);
        add_glob(d, p);
    }
#ifdef RLHOST_SOURCE_ROOT
    add_glob(d, RLHOST_SOURCE_ROOT "/.venv/lib/python3*/site-packages/ale_py/roms");
#endif
    v = getenv("HOME");
    if (v && *v) {
        snprintf(p, sizeof p, "%s/.local/lib/python3*/site-packages/ale_py/roms", v);
        add_glob(d, p);
    }
    add_glob(d, "/usr/local/lib/python3*/*-packages/ale_py/roms");
    add_glob(d, "/usr/lib/python3*/*-packages/ale_py/roms");
}

/* ", the nearest: a, b, c" from the .bin files of the search dirs */
static void nearest(const dirs *d, const char *game, char *out, size_t cap)
{
    char best[3][64] = {"", "", ""};
    size_t score[3] = {SIZE_MAX, SIZE_MAX, SIZE_MAX};
    for (int k = 0; k < d->n; k++) {
        DIR *dir = opendir(d->path[k]);
        struct dirent *e;
        while (dir && (e = readdir(dir))) {
            size_t len = strlen(e->d_name);
            if (len < 5 || len > 60 || strcmp(e->d_name + len - 4, ".bin")) continue;
            char name[64];
            snprintf(name, sizeof name, "%.*s", (int)(len - 4), e->d_name);
            size_t s = rl_edit_distance(game, name);
            for (int i = 0; i < 3; i++) {
                if (!strcmp(best[i], name)) break;
                if (s < score[i]) {
                    for (int j = 2; j > i; j--) {
                        score[j] = score[j - 1];
                        memcpy(best[j], best[j - 1], sizeof best[j]);
                    }
                    score[i] = s;
                    snprintf(best[i], sizeof best[i], "%s", name);
                    break;
                }
            }
        }
        if (dir) closedir(dir);
    }
    out[0] = 0;
    if (!best[0][0]) return;
    snprintf(out, cap, "; the nearest: %s%s%s%s%s", best[0], best[1][0] ? ", " : "", best[1], best[2][0] ? ", " : "",
             best[2]);
}

int atari_rom_find(const char *game, const char *rom, char *path, size_t cap, char *err, size_t errlen)
{
    if (rom && rom[0]) {
        if (rom_file("env.rom", rom, err, errlen)) return -1;
        snprintf(path, cap, "%s", rom);
        return 0;
    }
    for (const char *c = game; *c; c++)
        if (!(islower((unsigned char)*c) || isdigit((unsigned char)*c) || *c == '_') || c - game > 60) {
            snprintf(err, errlen,
                     "env.game '%s' is not a game name (lower-case snake_case, as "
                     "\"space_invaders\")",
                     game);
            return -1;
        }
    dirs d = {.n = 0};
    search_dirs(&d);
    for (int k = 0; k < d.n; k++) {
        snprintf(path, cap, "%s/%s.bin", d.path[k], game);
        struct stat st;
        if (stat(path, &st) == 0) return rom_file("the ROM", path, err, errlen);
    }
    if (d.n == 0) {
        snprintf(err, errlen,
                 "no ROM for game '%s': set env.rom to a ROM file or ALE_ROM_DIR to a folder of "
                 "them, or install ale-py, whose wheel carries the ROMs (scripts/pydeps.sh; their licence is "
                 "yours to check)",
                 game);
        return -1;
    }
    char near[256];
    nearest(&d, game, near, sizeof near);
    snprintf(err, errlen, "unknown game '%s': no %s.bin in %s%s%s", game, game, d.path[0],
             d.n > 1 ? " or the other ROM folders" : "", near);
    return -1;
}
