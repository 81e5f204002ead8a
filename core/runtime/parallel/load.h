/* How busy the machine's cores are, from /proc: what replicas = "auto"
   (replicas.c) reads to choose threads or coroutines.  Probes only: no
   policy here. */
#ifndef RLHOST_LOAD_H
#define RLHOST_LOAD_H

/* The machine's busy CPU time (every core; /proc/stat, in seconds) and
   this process's own; 0 when unknown. */
int rl__cpu_times(double *machine, double *own);
/* Threads of other processes runnable right now (/proc/loadavg counts
   every thread of the machine, less this process's runnable ones); -1 when
   unknown. */
int rl__others_running(void);

#endif
