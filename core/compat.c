/* What librlcore exports only for plugins built against the headers of ABI
   1.4 and before: the accessors <rlhost/plugin.h> now defines inline, out of
   line under their old names, from the same definitions. */
#define RL__ACCESSORS_OUT_OF_LINE
#include <rlhost/plugin.h>
