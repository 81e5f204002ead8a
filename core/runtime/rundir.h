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

/* Creates dir if needed and locks it; on success *fd holds the lock (close
   it to release).  Stale temporary files ("NAME.tmp.PID") are removed.
   RL_ECONFIG when another process holds the lock or mode is NEW and dir
   holds a run (the user's call), RL_EIO otherwise; a sentence in err. */
int rl__rundir_open(const char *dir, rl__rundir_mode mode, int *fd, char *err, size_t errlen);

/* The files a run directory holds for its readers (eval, play, the
   embedding API): config.cfg, the checkpoint and the previous one beside
   it (the fallback when the newest is missing or damaged). */
#define RL__PATH_MAX 4200
typedef struct rl__run_paths {
    char config[RL__PATH_MAX], checkpoint[RL__PATH_MAX], prev[RL__PATH_MAX];
} rl__run_paths;
/* 1 when path is a directory (taken as a run directory; *p filled), 0 for
   anything else (a config or checkpoint file, or nothing: *p untouched). */
int rl__run_paths_of(const char *path, rl__run_paths *p);

/* The TensorBoard event file of a run with run.tensorboard. */
#define RL__TB_FILE "events.out.tfevents.rlhost"
/* Every file name a run writes (*n of them). */
const char *const *rl__rundir_files(size_t *n);

#endif
