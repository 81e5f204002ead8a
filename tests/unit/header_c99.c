/* Every public header compiles as C99 -pedantic -Werror, and the names of
   older headers still compile for old plugins' sources.  algo.h comes
   first: any one of the ABI's three headers brings the other two. */
#include <rlhost/algo.h>
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

/* C99 has no static assertion: an array of negative size is the error. */
typedef char old_mode_names_alias_new[(RL_ACT_TRAIN == RL_MODE_TRAIN && RL_ACT_EVAL == RL_MODE_EVAL) ? 1 : -1];

int main(void)
{
    rl_plugin_entry e = {{RL_ABI_MAJOR, RL_ABI_MINOR}, sizeof e, 0, 0, 0, 0};
    rl_algo_args args = {0};
    rl_act_batch batch = {sizeof batch, RL_MODE_EVAL, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    rl_env_info info = {0};
    const rl_symmetry *sym;
    rl_rng r;
    args.struct_size = sizeof args;
    info.struct_size = sizeof info;
    rl_rng_seed(&r, 1, 2);
    return (int)(e.abi.major != RL_ABI_MAJOR) + (rl_rng_below(&r, 1) != 0) + (rl_args_replicas(&args) != NULL) +
        rl_args_inference(&args) + (rl_args_act_workers(&args) != 1) +
        !RL_HAS_FIELD(&batch, rl_act_batch, box_actions) + (int)rl_env_info_symmetries(&info, &sym);
}
