/* The accessors <rlhost/plugin.h> defines inline, out of line under the same
   names and from the same definitions: plugins built against the headers of
   ABI 1.4 and before call three of them in librlcore. */
#define RL__ACCESSORS_OUT_OF_LINE
#include <rlhost/plugin.h>
