/* The public headers compile as C99 -pedantic -Werror. */
#include <rlhost/plugin.h>
#include <rlhost/raster.h>
#include <rlhost/text.h>
#include <rlhost/rlcore.h>

int main(void)
{
    rl_plugin_entry e = {{RL_ABI_MAJOR, RL_ABI_MINOR}, sizeof e, 0, 0, 0, 0};
    rl_rng r;
    rl_rng_seed(&r, 1, 2);
    return (int)(e.abi.major != RL_ABI_MAJOR) + (rl_rng_below(&r, 1) != 0);
}
