#!/usr/bin/env bash
# Checkpoints that explain themselves: for each kind of network rlhost trains
# (DQN, dueling DQN on uint8 snake windows, PPO with separate and shared
# towers, observation normalization, LSTMs, CNN encoders, the SDK's A2C), a NumPy reader that knows only
# the checkpoint (tests/python/policy_read.py) rebuilds the greedy policy from
# its metadata and picks the actions `rlhost eval --trace` took; and PPO's
# initial weights are what ortho_init says.  (TAP)
# Usage: checkpoint_read.sh RLHOST SOURCE_ROOT
set -u
RLHOST=$1 SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../lib.sh"
need_python "$SRC" numpy
C="$SRC/configs"
check() { # NAME CONFIG ARGS...: train briefly, evaluate with a trace, read back
  local name=$1 cfg=$2; shift 2
  expect_rc 0 "$name: train" -- "$RLHOST" run "$cfg" "$@" --set run.quiet=true --set run.eval_episodes=4 --out "$T/$name"
  # fewer episodes than the run evaluated: the checkpoint loads for any count
  expect_rc 0 "$name: eval --trace" -- "$RLHOST" eval "$T/$name" --episodes 3 --trace "$T/$name.csv"
  py_tap "" "$PY" "$SRC/tests/python/policy_read.py" "$T/$name/checkpoint.safetensors" "$T/$name.csv" "$name"
}
check dqn "$C/cartpole_dqn.cfg" --set run.steps=20000
check dueling_snake_window "$C/cartpole_dueling_dqn.cfg" --set env.plugin=snake --set env.observation=window \
  --set env.num_envs=8 --set run.steps=20000
# the mean op (a distributional head's reduction): the DQN's last layer split
# into two values per action whose means are its Q values, read back
for axis in 1 0; do
  "$PY" "$SRC/tests/python/mean_op.py" "$T/dqn/checkpoint.safetensors" "$T/mean$axis.safetensors" $axis
  py_tap "mean over axis $axis: " "$PY" "$SRC/tests/python/policy_read.py" "$T/mean$axis.safetensors" "$T/dqn.csv" dqn
done
check ppo "$C/cartpole_ppo.cfg" --set run.steps=20480
check ppo_shared_snake "$C/snake_ppo.cfg" --set algo.shared=true --set run.steps=16384
check rppo_normalized "$C/cartpole_nov_rppo.cfg" --set run.steps=8192 --set run.eval_episodes=16
check rppo_tmaze "$C/tmaze_rppo.cfg" --set run.steps=8192
# CNN encoders: PPO (shared) on gridworld planes; dueling DQN on snake's grid
# with a strided Nature-style layer; recurrent PPO on a snake window
check ppo_cnn "$C/gridworld_cnn_ppo.cfg" --set run.steps=4096
check dueling_cnn_snake_grid "$C/snake_dqn.cfg" --set 'env.observation="grid"' --set env.flood_fill=false \
  --set 'algo.plugin="dueling_dqn"' --set 'algo.encoder="cnn"' --set 'algo.cnn_channels=[8, 8]' \
  --set 'algo.cnn_kernels=[4, 3]' --set 'algo.cnn_strides=[2, 1]' --set 'algo.cnn_padding=[0, 1]' \
  --set run.steps=6000 --set algo.learning_starts=1000 --set run.eval_interval=0
check rppo_cnn_snake_window "$C/snake_ppo.cfg" --set 'algo.plugin="recurrent_ppo"' --set 'env.observation="window"' \
  --set env.flood_fill=false --set env.num_envs=16 --set algo.batch_size=256 --set algo.bptt_horizon=16 \
  --set 'algo.encoder="cnn"' --set 'algo.cnn_channels=[8]' --set 'algo.cnn_kernels=[3]' \
  --set 'algo.cnn_strides=[1]' --set 'algo.cnn_padding=[0]' --set run.steps=4096
# box actions: SAC's (TQC's, CrossQ's) squashed mean, TD3's tanh, PPO's Gaussian mean (clipped into the box)
check sac_pendulum "$C/pendulum_sac.cfg" --set run.steps=1500 --set algo.hidden=[32]
check tqc_pendulum "$C/pendulum_tqc.cfg" --set run.steps=1500 --set algo.hidden=[32]
# CrossQ's actor renormalizes each layer's input by its running statistics
check crossq_pendulum "$C/pendulum_crossq.cfg" --set run.steps=1500 --set algo.hidden=[32] --set algo.critic_hidden=[32]
check sac_sde_mountain_car "$C/mountain_car_continuous_sac_sde.cfg" --set run.steps=1500 --set algo.hidden=[32]
check td3_pendulum "$C/pendulum_td3.cfg" --set run.steps=1500 --set algo.hidden=[32] --set algo.learning_starts=500
check ppo_pendulum "$C/pendulum_ppo.cfg" --set run.steps=4096 --set algo.normalize_reward=false
# the SDK's A2C example describes its policy with rl_policy_meta, as the built-in plugins do
check a2c_normalized "$C/cartpole_a2c.cfg" --set run.steps=5000 --set algo.normalize_obs=true
check a2c_pendulum "$C/pendulum_a2c.cfg" --set run.steps=4000
# hybrid actions: each component's argmax over its logits, then the box's means clipped (PPO and A2C on Platform)
check ppo_platform "$C/platform_ppo.cfg" --set run.steps=8192
check a2c_platform "$C/platform_a2c.cfg" --set run.steps=8192
# action masks: the greedy action among the allowed ones, for DQN and PPO (snake's deadly moves masked)
check dqn_masked "$C/snake_dqn.cfg" --set 'env.action_mask="deadly"' --set run.steps=6000
check ppo_masked "$C/snake_ppo.cfg" --set 'env.action_mask="deadly"' --set run.steps=16384
check a2c_masked "$C/cartpole_a2c.cfg" --set env.plugin=snake --set 'env.action_mask="reverse"' --set run.steps=4000
# PPO's two initializations, before any update (lr 0, fewer steps than a rollout)
for init in true false; do
  expect_rc 0 "ppo init: ortho_init=$init" -- "$RLHOST" run "$C/pendulum_ppo.cfg" --set run.steps=4 \
    --set run.eval_episodes=1 --set run.quiet=true --set algo.ortho_init=$init --out "$T/init_$init"
done
py_tap "" "$PY" "$SRC/tests/python/ppo_init.py" "$T/init_true/checkpoint.safetensors" \
  "$T/init_false/checkpoint.safetensors"
echo "1..$n"
[ $failed = 0 ]
