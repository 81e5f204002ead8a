/* "Did you mean"; see nearest.h. */
#include "base/nearest.h"

#include <string.h>

#include <rlhost/rlcore.h>

const char *rl__nearest(const char *s, const char *const *names, size_t n)
{
    const char *best = NULL;
    size_t best_d = (size_t)-1;
    for (size_t i = 0; i < n; i++) {
        size_t d = rl_edit_distance(s, names[i]);
        if (d < best_d) {
            best_d = d;
            best = names[i];
        }
    }
    /* Suggest only plausible typos: a third of the length, at least 2. */
    size_t len = strlen(s);
    size_t limit = len / 3 > 2 ? len / 3 : 2;
    return best_d <= limit ? best : NULL;
}
