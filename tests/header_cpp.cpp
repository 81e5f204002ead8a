// The public headers compile as C++.
#include <rlhost/plugin.h>
#include <rlhost/raster.h>
#include <rlhost/text.h>
#include <rlhost/rlcore.h>

int main()
{
    rl_plugin_entry e = {{RL_ABI_MAJOR, RL_ABI_MINOR}, sizeof e, nullptr, nullptr, nullptr, nullptr};
    rl_rng r;
    rl_rng_seed(&r, 1, 2);
    return (e.abi.major != RL_ABI_MAJOR) + (rl_rng_below(&r, 1) != 0);
}
