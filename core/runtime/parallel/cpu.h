/* Hardware detection and BLAS kernel choice.
 *
 * Debian's OpenBLAS (DYNAMIC_ARCH) picks its kernels when it is loaded and
 * treats some AVX-512 CPUs as Haswell (AVX2), halving sgemm speed.  The only
 * switch it offers is OPENBLAS_CORETYPE, read at load time; so when the CPU
 * has AVX-512 and OpenBLAS chose something else, rlhost sets the variable and
 * re-executes itself once, before doing anything else.  Users never set
 * environment variables for speed; an explicit OPENBLAS_CORETYPE wins. */
#ifndef RLHOST_CPU_H
#define RLHOST_CPU_H

/* Call first in main().  Returns only if no re-exec was needed or possible. */
void rl__blas_select_kernels(char **argv);

/* One line describing the choice, e.g. "SkylakeX (AVX-512; rlhost chose it
   over OpenBLAS's own pick, Haswell)". */
const char *rl__blas_choice(void);

#endif
