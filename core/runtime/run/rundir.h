/* The run directory: one writer at a time (an flock held for the run's
   lifetime), no silent overwrite of another run, and no temporary files
   left by killed writers. */
#ifndef RLHOST_RUNDIR_H
#define RLHOST_RUNDIR_H

#include <stddef.h>

typedef enum rl__rundir_mode {
    RL__RUNDIR_NEW,    /* refuse a directory that holds a run */
    RL__RUNDIR_FORCE,  /* remove the run it holds */
    RL__RUNDIR_RESUME, /* continue the run it holds */
} rl__rundir_mode;

/* A locked run directory, held open for the run: every write names its
   files relative to fd. */
typedef struct rl__rundir {
    int fd; /* -1 when not open; closing it releases the lock */
    rl__rundir_mode mode;
    int created;                 /* made by rl__rundir_open */
    int claimed;                 /* rl__rundir_claim ran: the directory is the run's */
    unsigned long long dev, ino; /* what was opened */
} rl__rundir;

/* Creates dir if needed, opens and locks it.  Nothing in it is removed or
   changed: a run that is then refused leaves it as it was.  RL_ECONFIG
   when another process holds the lock or mode is NEW and dir holds a run
   (the user's call), RL_EIO otherwise; a sentence in err. */
int rl__rundir_open(const char *dir, rl__rundir_mode mode, rl__rundir *rd, char *err, size_t errlen);
/* Everything that can refuse has run: with --force the old run's files go,
   and temporary files a stopped rlhost left (".NAME.HEX.tmp" for a NAME a
   run writes, a regular file of this user) are removed. */
int rl__rundir_claim(rl__rundir *rd, const char *dir, char *err, size_t errlen);
/* Releases the lock; a directory this run created but never claimed (the
   run was refused) is removed again when still empty. */
void rl__rundir_close(rl__rundir *rd, const char *dir);

/* The TensorBoard event file of a run with run.tensorboard. */
/* Every file name a run writes (*n of them). */
const char *const *rl__rundir_files(size_t *n);

#endif
