/* Where an atari env's ROM comes from: env.rom, else <game>.bin in
   $ALE_ROM_DIR, else in an installed ale-py package's roms/ (its wheel
   carries them): an active virtual environment's, the checkout's .venv,
   the user's and the system's site-packages.  rlhost ships and downloads
   no ROM. */
#ifndef RLHOST_ROMS_H
#define RLHOST_ROMS_H

#include <stddef.h>

/* Largest ROM file read (Atari 2600 cartridges are at most tens of KB). */
#define ATARI_ROM_MAX_BYTES (1u << 20)

/* 0 with the ROM's path in path (cap bytes), or -1 with one sentence in
   err: a missing or unreadable file, or an unknown game with the nearest
   names of the games found. */
int atari_rom_find(const char *game, const char *rom, char *path, size_t cap, char *err, size_t errlen);

#endif
