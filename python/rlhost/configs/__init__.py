"""The configs rlhost ships, installed with the package:

    import rlhost
    rlhost.configs.names()                      # ['cartpole_dqn', ...]
    rlhost.run(rlhost.configs.path("cartpole_ppo"))
    rlhost.run("configs/cartpole_ppo.cfg")      # the same, from any directory

In a checkout (RLHOST_LIB_DIR set) they are the repository's configs/."""

from pathlib import Path

_HERE = Path(__file__).resolve().parent
DIR = _HERE if any(_HERE.glob("*.cfg")) else _HERE.parent.parent.parent / "configs"


def names() -> list:
    """The shipped configs' names (file names without .cfg), sorted."""
    return sorted(p.stem for p in DIR.glob("*.cfg"))


def path(name: str) -> str:
    """The file of shipped config `name` ("cartpole_ppo" or "cartpole_ppo.cfg")."""
    p = DIR / (name if name.endswith(".cfg") else name + ".cfg")
    if not p.is_file():
        raise FileNotFoundError(f"rlhost ships no config {name!r}; there are: {', '.join(names())}")
    return str(p)
