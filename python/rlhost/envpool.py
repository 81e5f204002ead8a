"""EnvPool's entry point over rlhost's Atari env, for scripts written
against EnvPool: `from rlhost import envpool` in place of `import envpool`.

    envs = envpool.make("Pong-v5", env_type="gym", num_envs=8, episodic_life=True, reward_clip=True)
    obs = envs.reset()                       # (8, 4, 84, 84) uint8
    obs, rew, done, info = envs.step(acts)   # info: lives, reward, terminated, elapsed_step, env_id, players

As EnvPool's: `action_space` and `observation_space` are one env's;
`env_type="gym"` answers in gym's API (4-tuple steps and spaces from the
`gym` package, or gym >= 0.26's 5-tuple where that is installed) and
`env_type="gymnasium"` in Gymnasium's; an env that ends is reset by the
next step, which ignores its action (EnvPool's autoreset).  Options take
EnvPool's names and defaults (no sticky actions, FIRE at reset, 27,000
steps, 84 x 84 x 4 grayscale, a thread per core); the game is the task
id's ("Pong-v5": pong).  Only synchronous stepping: batch_size must be
num_envs."""

import os
import re

import numpy as np

from .envs import NEXT_STEP, VectorEnv

__all__ = ["make", "make_gym", "make_gymnasium", "list_all_envs"]

# EnvPool's Atari options, their defaults, and rlhost's option each sets
_DEFAULTS = {
    "img_height": 84,
    "img_width": 84,
    "stack_num": 4,
    "gray_scale": True,
    "frame_skip": 4,
    "noop_max": 30,
    "episodic_life": False,
    "zero_discount_on_life_loss": False,
    "reward_clip": False,
    "repeat_action_probability": 0.0,
    "use_fire_reset": True,
    "full_action_space": False,
    "max_episode_steps": 27000,
    "seed": 42,
    "num_threads": 0,
    "thread_affinity_offset": -1,
    "use_inter_area_resize": True,
    "max_num_players": 1,
}


def list_all_envs():
    """Some task ids this entry point makes (any game ALE supports works,
    named as EnvPool names it: "MontezumaRevenge-v5")."""
    return [
        "Pong-v5",
        "Breakout-v5",
        "SpaceInvaders-v5",
        "MsPacman-v5",
        "Qbert-v5",
        "Seaquest-v5",
        "Enduro-v5",
        "BeamRider-v5",
        "Asteroids-v5",
        "Freeway-v5",
    ]


def _game(task_id):
    m = re.fullmatch(r"([A-Za-z0-9]+)-v5", task_id)
    if not m:
        raise ValueError(f"rlhost's envpool makes Atari tasks named as EnvPool names them ('Pong-v5'), not {task_id!r}")
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", m.group(1)).lower()


def _spaces(env_type, vec):
    """One env's spaces, from gym where env_type is gym and gym is there."""
    obs, act = vec.single_observation_space, vec.single_action_space
    if env_type == "gym":
        try:
            import gym

            return (gym.spaces.Box(low=0, high=255, shape=obs.shape, dtype=np.uint8), gym.spaces.Discrete(int(act.n)))
        except ImportError:
            pass
    return obs, act


def _new_gym_api():
    """gym >= 0.26 (5-tuple steps, (obs, info) resets); without gym, the
    older API the EnvPool scripts of its time were written for."""
    try:
        import gym
    except ImportError:
        return False
    major, minor = (int(x) for x in re.findall(r"\d+", gym.__version__)[:2])
    return (major, minor) >= (0, 26)


class AtariEnvPool:
    """What envpool.make returns for an Atari task (see the module)."""

    def __init__(self, task_id, env_type, num_envs, options):
        self.env_type = env_type
        self.num_envs = num_envs
        self.config = dict(_DEFAULTS, **options, num_envs=num_envs, batch_size=num_envs, task_id=task_id)
        c = self.config
        if c["img_height"] != c["img_width"]:
            raise ValueError("rlhost's Atari observations are square: img_height must equal img_width")
        if c["zero_discount_on_life_loss"]:
            raise ValueError(
                "zero_discount_on_life_loss is not offered: episodic_life=True ends the learner's "
                "episode at a lost life, which is what it approximates"
            )
        game_opts = {
            "game": _game(task_id),
            "screen_size": int(c["img_height"]),
            "frame_stack": int(c["stack_num"]),
            "grayscale": bool(c["gray_scale"]),
            "frame_skip": int(c["frame_skip"]),
            "noop_max": int(c["noop_max"]),
            "episodic_life": bool(c["episodic_life"]),
            "reward_clip": bool(c["reward_clip"]),
            "repeat_action_probability": float(c["repeat_action_probability"]),
            "fire_reset": bool(c["use_fire_reset"]),
            "full_action_space": bool(c["full_action_space"]),
            "max_frames": _max_frames(c),
        }
        # EnvPool's num_threads 0: a thread per core, at most one per env
        threads = int(c["num_threads"]) or min(len(os.sched_getaffinity(0)), num_envs)
        game_opts["optimizations"] = {"threads": threads}
        self._vec = VectorEnv("atari", num_envs, seed=int(c["seed"]), autoreset_mode=NEXT_STEP, **game_opts)
        self.observation_space, self.action_space = _spaces(env_type, self._vec)
        self._new_api = env_type == "gymnasium" or _new_gym_api()
        self._elapsed = np.zeros(num_envs, np.int32)
        self._ended = np.zeros(num_envs, bool)
        self.spec = self._vec.spec

    def _info(self, vals):
        ids = np.arange(self.num_envs, dtype=np.int32)
        info = {"env_id": ids, "players": {"env_id": ids.copy()}, "elapsed_step": self._elapsed.copy()}
        for k in ("lives", "reward", "terminated"):
            info[k] = vals[k]
        return info

    def reset(self, env_id=None):
        if env_id is not None and len(np.atleast_1d(env_id)) != self.num_envs:
            raise ValueError("rlhost's envpool resets all envs at once (env_id=None)")
        obs, vals = self._vec.reset()
        self._elapsed[:] = 0
        self._ended[:] = False
        info = self._info(vals)
        return (obs, info) if self._new_api else obs

    def step(self, action, env_id=None):
        if env_id is not None and len(np.atleast_1d(env_id)) != self.num_envs:
            raise ValueError("rlhost's envpool steps all envs at once (env_id=None)")
        obs, rew, term, trunc, vals = self._vec.step(np.asarray(action).reshape(self.num_envs))
        self._elapsed = np.where(self._ended, 0, self._elapsed + 1).astype(np.int32)
        self._ended = term | trunc
        info = self._info(vals)
        rew = rew.astype(np.float32)
        if self._new_api:
            return obs, rew, term, trunc, info
        return obs, rew, term | trunc, info

    def close(self):
        self._vec.close()

    def __len__(self):
        return self.num_envs


def _max_frames(c):
    """max_episode_steps (agent steps, EnvPool's unit) in frames, each checked
    as given, so a refusal names the user's own value."""
    from ._checks import check_int

    steps = check_int(c["max_episode_steps"], "max_episode_steps", 1, 1 << 30)
    return steps * check_int(c["frame_skip"], "frame_skip", 1, 64)


def make(task_id, env_type="gymnasium", **kwargs):
    """envpool.make: env_type "gym" or "gymnasium" ("dm" is not offered)."""
    if env_type not in ("gym", "gymnasium"):
        raise ValueError(f"env_type {env_type!r}: rlhost's envpool offers 'gym' and 'gymnasium'")
    from ._checks import check_int

    num_envs = check_int(kwargs.pop("num_envs", 1), "num_envs", 1, 1 << 24)  # not "2", not 2.5
    batch = kwargs.pop("batch_size", None)
    if batch not in (None, 0, num_envs):
        raise ValueError(
            f"batch_size {batch}: rlhost's envpool steps all {num_envs} envs together (EnvPool's synchronous mode)"
        )
    unknown = sorted(set(kwargs) - set(_DEFAULTS))
    if unknown:
        raise TypeError(f"unknown EnvPool option(s) {', '.join(unknown)} (known: {', '.join(sorted(_DEFAULTS))})")
    return AtariEnvPool(task_id, env_type, num_envs, kwargs)


def make_gym(task_id, **kwargs):
    return make(task_id, env_type="gym", **kwargs)


def make_gymnasium(task_id, **kwargs):
    return make(task_id, env_type="gymnasium", **kwargs)
