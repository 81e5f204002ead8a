/* The commands a Python driver carries out (tune, study, export): the C
   side checks what it can, then execs the interpreter on the driver. */
#ifndef RLHOST_DRIVER_H
#define RLHOST_DRIVER_H

/* Execs Python on rlhost._MODULE's main with argv[2:] (and, when
   space_json is given, that text on an inherited file descriptor named by
   --space-fd).  need_extra and pip_extra name what the driver needs beyond
   the rlhost package, for the one sentence said when it is missing.
   Returns only on failure, an exit code after the message. */
int rl__exec_driver(const char *module, const char *need_extra, const char *pip_extra, int argc, char **argv,
                    const char *space_json);

#endif
