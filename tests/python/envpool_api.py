"""rlhost.envpool against what CleanRL's ppo_atari_envpool.py reads from
EnvPool, call for call: make(task, env_type="gym", num_envs, episodic_life,
reward_clip); attributes set on the env; reset() -> obs; step(zeros) ->
(obs, reward, done, info) with info["lives"], info["reward"] (raw),
info["terminated"] (the real game over); one env's action_space (.n) and
observation_space (.shape); shapes and dtypes.  Then the script's own
bookkeeping (its RecordEpisodeStatistics, less gym.Wrapper) over whole
games: an episode's return is the game's raw score.  Also the Gymnasium
face and refusals.  Usage: envpool_api.py RLHOST SOURCE_ROOT"""

import numpy as np
from tap import done, ok  # tests/python/tap.py

from rlhost import envpool

n = 4
envs = envpool.make("Breakout-v5", env_type="gym", num_envs=n, episodic_life=True, reward_clip=True, seed=1)
envs.num_envs = n
envs.single_action_space = envs.action_space
envs.single_observation_space = envs.observation_space
ok(
    envs.single_action_space.n == 4 and envs.single_observation_space.shape == (4, 84, 84),
    f"one env's spaces: {envs.single_action_space}, {envs.single_observation_space.shape}",
)
obs = envs.reset()
ok(
    isinstance(obs, np.ndarray) and obs.shape == (n, 4, 84, 84) and obs.dtype == np.uint8,
    f"reset() gives the observations alone, (n, 4, 84, 84) uint8: {getattr(obs, 'shape', obs)}",
)
out = envs.step(np.zeros(n, dtype=int))
ok(len(out) == 4, "step gives (obs, reward, done, info), the gym API the script was written for")
obs, rew, dn, info = out
ok(
    obs.shape == (n, 4, 84, 84) and rew.shape == (n,) and dn.shape == (n,) and dn.dtype == bool,
    "shapes and dtypes of a step",
)
keys = {"lives", "reward", "terminated", "elapsed_step", "env_id", "players"}
ok(keys <= set(info) and info["lives"].shape == (n,) and info["lives"].sum() > 0, f"info keys {sorted(info)}")

# the script's RecordEpisodeStatistics (has_lives), over whole games
episode_returns = np.zeros(n, np.float32)
raw_total = np.zeros(n)
rng = np.random.default_rng(1)
games, clipped_ok, returns_ok, life_dones = 0, True, True, 0
for t in range(6000):
    acts = rng.integers(0, 4, n)
    obs, rew, dn, info = envs.step(acts)
    clipped_ok &= bool(np.all(np.abs(rew) <= 1))
    episode_returns += info["reward"]
    raw_total += info["reward"]
    returned = episode_returns.copy()
    all_lives_exhausted = info["lives"] == 0
    episode_returns *= 1 - all_lives_exhausted
    for i, d in enumerate(dn):
        if d and info["lives"][i] == 0:
            games += 1
            returns_ok &= bool(info["terminated"][i]) and returned[i] >= 0
        elif d:
            life_dones += 1
            returns_ok &= not info["terminated"][i]
    if games >= 3:
        break
ok(clipped_ok, "rewards are clipped (reward_clip=True); info['reward'] is the raw one")
ok(
    games >= 3 and life_dones > 0 and returns_ok,
    f"episodic_life: {life_dones} lost lives end episodes without a game over, {games} games end with "
    "lives 0 and terminated",
)
ok(raw_total.max() > 0, f"the raw rewards add up to games' scores (best {raw_total.max()})")
envs.close()

g = envpool.make("Pong-v5", env_type="gymnasium", num_envs=2, seed=3)
o, i = g.reset()
out = g.step(np.zeros(2, dtype=int))
ok(len(out) == 5 and "lives" in i and o.shape == (2, 4, 84, 84), "env_type='gymnasium': (obs, info) and 5-tuples")
g.close()
for bad, kw, *want in (
    ("a task that is no Atari game", dict(task_id="CartPole-v1")),
    ("batch_size below num_envs", dict(task_id="Pong-v5", num_envs=4, batch_size=2)),
    ("an unknown option", dict(task_id="Pong-v5", stack_nums=4)),
    ("env_type dm", dict(task_id="Pong-v5", env_type="dm")),
    ("num_envs as a string", dict(task_id="Pong-v5", num_envs="2"), "num_envs must be an int, got str '2'"),
    ("num_envs 2.5", dict(task_id="Pong-v5", num_envs=2.5), "num_envs must be an int, got float 2.5"),
    ("max_episode_steps -1", dict(task_id="Pong-v5", num_envs=2, max_episode_steps=-1), "max_episode_steps is -1"),
):
    want = want[0] if want else ""
    try:
        envpool.make(**kw)
        ok(False, f"{bad}: refused")
    except (ValueError, TypeError) as e:
        ok(want in str(e), f"{bad}: refused ({e})")
done()
