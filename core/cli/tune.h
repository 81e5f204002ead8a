/* rlhost tune and rlhost study (tune.c): the space is read and checked
   here, then the Python driver takes over. */
#ifndef RLHOST_TUNE_H
#define RLHOST_TUNE_H

int rl__cmd_tune(int argc, char **argv);
int rl__cmd_study(int argc, char **argv);

#endif
