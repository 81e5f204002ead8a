// Every public header compiles as C++; env.h first brings the ABI's other two.
#include <rlhost/env.h>
#include <rlhost/plugin.h>
#include <rlhost/raster.h>
#include <rlhost/text.h>
#include <rlhost/rlcore.h>
#include <rlhost/nn.h>
#include <rlhost/dist.h>
#include <rlhost/rollout.h>
#include <rlhost/replay.h>
#include <rlhost/norm.h>
#include <rlhost/search.h>
#include <rlhost/host.h>

static_assert(RL_ACT_TRAIN == RL_MODE_TRAIN && RL_ACT_EVAL == RL_MODE_EVAL, "old names alias the new");

int main()
{
    rl_plugin_entry e = {{RL_ABI_MAJOR, RL_ABI_MINOR}, sizeof e, nullptr, nullptr, nullptr, nullptr};
    rl_algo_args args = {};
    args.struct_size = sizeof args;
    rl_rng r;
    rl_rng_seed(&r, 1, 2);
    return (e.abi.major != RL_ABI_MAJOR) + (rl_rng_below(&r, 1) != 0) + (rl_args_replicas(&args) != nullptr) +
        rl_args_inference(&args);
}
