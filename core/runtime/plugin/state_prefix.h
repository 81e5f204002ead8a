/* An rl_state_io over another that puts and gets every tensor under a
   prefix ("replica1/", "seats/pool/step500/"), the one adapter the rooms
   that nest a plugin's state use; a get of a tensor absent under the
   prefix can fall back to a second table (a snapshot's own file). */
#ifndef RLHOST_STATE_PREFIX_H
#define RLHOST_STATE_PREFIX_H

#include <rlhost/plugin.h>

typedef struct rl__prefixed_io {
    rl_state_io io; /* hand &io to the plugin; valid while this lives */
    const rl_state_io *base, *fallback;
    char prefix[128];
} rl__prefixed_io;

/* p->io puts and gets base's tensors under prefix (cut to 127 bytes);
   fallback (may be NULL) answers a get that base answers RL_ENOENT, by the
   unprefixed name.  No metadata: meta is NULL. */
void rl__prefixed_io_init(rl__prefixed_io *p, const rl_state_io *base, const char *prefix, const rl_state_io *fallback);

#endif
