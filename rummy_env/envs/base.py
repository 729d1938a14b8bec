"""The PettingZoo AEC environment shared by every profile: one engine state, one action table, one observer.

A profile's env module (``contract_v0``, ...) only supplies how to build its engine state and observer.

Conventions for stock RL clients (docs/guides/engine.md, "Conventions for RL clients"):

* ``env()`` ends the game on an illegal action as PettingZoo's classic envs do (``TerminateIllegalWrapper``: the
  offender gets ``illegal_reward`` = -1, every agent is terminated, a warning is logged); ``raw_env()`` keeps
  ``illegal_action="raise"`` (an ``IllegalActionError`` naming the legal actions, state unchanged) for debugging.
* ``metadata["is_parallelizable"]`` is False (turn-based): use ``turn_based_aec_to_parallel``.
* ``reset(seed=s)`` deals the game of seed ``s``; a later ``reset()`` without a seed continues that seeded stream
  (Gymnasium's ``np_random`` convention), so a run seeded once is reproducible.
* Every step's ``infos[agent]`` has the same keys (``INFO_KEYS``) with int / bool values; round and session results
  are ``env.unwrapped.results()``.
* ``state()`` / ``state_space``: the full-information vector for centralised critics (``STATE_DOC``).
* ``flat_observation=True`` (default False): ``observe`` returns the float32 vector alone (``observation_space`` is
  its ``Box``) and every ``infos[agent]`` gains ``"action_mask"`` (int8, all zeros for an agent whose decision it is
  not), where AgileRL's multi-agent algorithms and TorchRL's ``PettingZooWrapper`` look for it.
"""

from __future__ import annotations

import threading
import warnings
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers.order_enforcing import AECOrderEnforcingIterable, AECOrderEnforcingIterator

from ..core.cards import NUM_KINDS, Shoe, card_str
from ..encoding.fingerprint import layout_fingerprint
from ..engine import IllegalActionError
from ..engine.view import view_builder
from ..registry import game
from .picture import render_frame
from .session import (
    REWARD_MODES_BY_SCORE,
    add_step_rewards,
    check_reward_mode,
    next_seed,
    seed_stream,
    session_results,
)

REWARD_MODES = REWARD_MODES_BY_SCORE["penalty"]
ILLEGAL_MODES = ("raise", "terminate")
#: the keys ``reset(options=...)`` understands
RESET_OPTIONS = ("scenario",)
#: the keys of every ``infos[agent]`` after every ``reset`` and ``step`` (int or bool values); with
#: ``flat_observation=True`` also ``INFO_MASK_KEY``
INFO_KEYS = ("round", "round_over", "turn_cap", "session_over", "illegal_move")
#: the info key of the action mask under ``flat_observation=True`` (int8, zeros for an agent not to move)
INFO_MASK_KEY = "action_mask"
#: what ``env.state()`` holds, in order (docs/guides/engine.md, "Conventions for RL clients")
STATE_DOC = (
    "hands (n, 53): every seat's hand, copies per card kind, absolute seat order; "
    "stock (53,): the stock as counts per kind (not its order); "
    "to_move (n,): the seat whose decision it is, one-hot (zeros once the session is over); "
    "public (obs_size,): the observation of seat 0 (its hand and every public piece)"
)


class NotResetError(RuntimeError):
    """``step()`` / ``last()`` on an env that was never reset."""


class ConcurrentUseError(RuntimeError):
    """A call of an env (``step``, ``reset`` or a read of the decision: ``last``, ``observe``, ``action_mask``,
    ``public_view``) entered while another one is running on it in another thread: an env is used from one thread
    at a time. The refused call changed nothing."""


def busy_message(call: str, what: str) -> str:
    """The ``ConcurrentUseError`` message of ``call`` on a busy env of kind ``what``."""
    return (
        f"{call} was called while another call of this {what} (a step, a reset or a read of its decision) is "
        f"running in another thread: an env is not thread-safe, and this call changed nothing. Use one {what} per "
        "thread, or serialise the calls (docs/guides/engine.md, 'Threads, copies and pickles')"
    )


class OneThreadAtATime:
    """The lock of an env used from one thread at a time (``ConcurrentUseError`` for a second caller), left out of
    copies and pickles (``copy.deepcopy(env)``, ``pickle.dumps(env)``), which get a new one. ``_LOCK`` is the lock
    type: re-entrant where the env's own methods call each other under it."""

    _LOCK: Any = threading.RLock

    def _new_lock(self) -> None:
        self._busy = self._LOCK()

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "_busy"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._new_lock()


class EnvArgumentError(ValueError):
    """A bad argument to an env method (unknown agent, malformed ``options``)."""


def as_action(action: Any, num_actions: int) -> int:
    """``action`` as a Python int, or ``IllegalActionError`` naming its type.

    Only integers are actions: a Python ``int``, a numpy integer or a 0-d integer array; ``bool``, floats (even
    integral ones), strings and arrays with elements are refused.
    """
    if action.__class__ is int:
        return action
    if isinstance(action, (bool, np.bool_)):
        pass
    elif isinstance(action, (int, np.integer)):
        return int(action)
    elif isinstance(action, np.ndarray) and action.ndim == 0 and np.issubdtype(action.dtype, np.integer):
        return int(action)
    shape = f" of shape {action.shape} and dtype {action.dtype}" if isinstance(action, np.ndarray) else ""
    raise IllegalActionError(
        f"an action is an integer id 0..{num_actions - 1} (int, numpy integer or 0-d integer array); got "
        f"{type(action).__name__}{shape}: {action!r}"
    )



def agent_seat(env: Any, agent: Any) -> int:
    """The seat of ``agent`` (an agent name of ``env.agent_name_mapping``); ``EnvArgumentError`` naming the agents
    otherwise. Shared by the AEC env and ``VectorEnv.table(i)``."""
    seat = env.agent_name_mapping.get(agent) if isinstance(agent, str) else None
    if seat is None:
        raise EnvArgumentError(f"unknown agent {agent!r}; the agents are {env.possible_agents}")
    return seat

class RummyAECEnv(OneThreadAtATime, AECEnv):
    """AEC environment over a rummy engine state: one atomic decision per ``step``."""

    metadata = {
        "render_modes": ["human", "ansi", "rgb_array"],
        "name": "rummy_v0",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    #: the reward scale: penalties (or payments) are divided by this
    reward_scale = 100.0
    #: reward modes this profile offers (the first is the default)
    reward_modes: tuple[str, ...] = REWARD_MODES

    #: ``rgb_array`` frames show the table from this seat (None: the seat to move; ``rummy_env.envs.picture``)
    render_seat: int | None = None

    #: the profile id; its ``Game`` descriptor (``rummy_env.registry``) supplies rules, engine, actions, observer
    profile: str = ""

    def __init__(
        self,
        rules: Any,
        rounds: Any = None,
        render_mode: str | None = None,
        reward: str | None = None,
        illegal_action: str = "raise",
        max_steps: int | None = None,
        illegal_reward: float = -1.0,
        max_cycles: int | None = None,
        flat_observation: bool = False,
    ):
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode={render_mode!r}; allowed: None, 'human', 'ansi', 'rgb_array'")
        reward = check_reward_mode(reward, self.reward_modes)
        if illegal_action not in ILLEGAL_MODES:
            raise ValueError(f"illegal_action={illegal_action!r}; allowed: {list(ILLEGAL_MODES)}")
        if max_steps is not None and (not isinstance(max_steps, int) or isinstance(max_steps, bool) or max_steps < 1):
            raise ValueError(f"max_steps={max_steps!r}; allowed: None or a positive integer")
        if max_cycles is not None:
            if not isinstance(max_cycles, int) or isinstance(max_cycles, bool) or max_cycles < 1:
                raise ValueError(f"max_cycles={max_cycles!r}; allowed: None or a positive integer")
            if max_steps is not None:
                raise ValueError(f"max_cycles={max_cycles} and max_steps={max_steps}: give one of them")
        if not isinstance(flat_observation, (bool, np.bool_)):
            raise ValueError(f"flat_observation={flat_observation!r}; allowed: True or False")
        #: True: ``observe`` returns the float32 vector alone and the mask is ``infos[agent]["action_mask"]``
        self.flat_observation = bool(flat_observation)
        self.game = game(self.profile)
        self.rules = rules
        self.rounds = rounds
        # the session length is checked here, before any reset, as the engine checks it
        self.game.engine.check_session_length(rules, rounds)
        self.render_mode = render_mode
        self.reward_mode = reward
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.max_steps = max_steps
        #: the engine state (private: read it through the accessors below and ``public_view``)
        self._state: Any = None
        n = rules.num_players
        self.max_cycles = max_cycles
        if max_cycles is not None:  # PettingZoo's cycle: as many decisions as there are agents
            self.max_steps = max_cycles * n
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        self.layout = self.game.layout(rules)
        self.observer = self.game.observer(rules, rounds)
        #: the observer's ``encode_state(state, seat)`` (identical to ``encode(state.public_view(seat))``, without
        #: the view: ``rummy_env.encoding.fast``), or None for an observer without one
        self._encode_state: Any = getattr(self.observer, "encode_state", None)
        self.num_actions = self.layout.num_actions
        box = spaces.Box(low=self.observer.low, high=self.observer.high, shape=(self.observer.size,), dtype=np.float32)
        obs_space: spaces.Space = box if self.flat_observation else spaces.Dict(
            {"observation": box, "action_mask": spaces.Box(low=0, high=1, shape=(self.num_actions,), dtype=np.int8)}
        )
        copies = np.asarray(Shoe(rules.decks, rules.jokers).copies_list(), dtype=np.float32)
        self.state_space = spaces.Box(
            low=np.zeros(n * NUM_KINDS + NUM_KINDS + n + self.observer.size, dtype=np.float32),
            high=np.concatenate([np.tile(copies, n + 1), np.ones(n, dtype=np.float32), self.observer.high]),
            dtype=np.float32,
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.num_actions) for a in self.possible_agents}
        # the view builder of the engine state's class (``engine.view.view_builder``), looked up once per class
        self._view_class: type | None = None
        self._view_of: Any = None
        # True while ``rewards`` is this step's all-zero dict and every ``infos[agent]`` the info of a step that ended
        # nothing in the current round: a step that again ends nothing then leaves both as they are (same values)
        self._quiet = False
        self.agents: list[str] = []
        # the generator of the seeds of unseeded resets after a seeded one (None: never seeded)
        self._seed_stream: np.random.Generator | None = None
        self._was_reset = False
        #: held while ``step``, ``reset`` or a read of the decision runs: one entered meanwhile from another thread
        #: raises (re-entrant: ``last`` calls ``observe``, which calls ``action_mask``, as a subclass may override)
        self._new_lock()

    def _new_state(self, seed: int | None, scenario: dict[str, Any] | None = None) -> Any:
        if scenario is not None:
            return self.game.load_state(scenario, self.rules, seed=seed)
        return self.game.new_state(self.rules, seed=seed, rounds=self.rounds)

    # documented read-only accessors (everything above the env reads these, never the engine state) ------------
    @property
    def state_(self) -> Any:
        """Deprecated: the private engine state. Use ``public_view(agent)``, ``game_state()`` and the accessors."""
        warnings.warn(
            "env.unwrapped.state_ is private; read public_view(agent), game_state(), session_over, round_results, "
            "scores, current_seat or turn instead",
            DeprecationWarning,
            stacklevel=2,
        )
        return self._state

    @state_.setter
    def state_(self, state: Any) -> None:
        warnings.warn("env.unwrapped.state_ is private; start positions with reset(options={'scenario': ...})",
                      DeprecationWarning, stacklevel=2)
        self._state = state
        self._quiet = False  # the next step writes its rewards and infos afresh

    @property
    def session_over(self) -> bool:
        """The session has ended (every round played, or the turn cap / a terminating illegal action hit)."""
        return self._state is not None and self._state.is_terminal()

    @property
    def scores(self) -> tuple[int, ...]:
        """Cumulative score per seat (penalties or payments, ``game.score_name``) of the finished rounds."""
        return tuple(self._state.scores) if self._state is not None else ()

    @property
    def current_seat(self) -> int:
        """The seat whose decision it is (-1 once the session is over or before ``reset``)."""
        return -1 if self._state is None or self._state.is_terminal() else int(self._state.current_player)

    @property
    def turn(self) -> int:
        """Turns taken in the current round (a progress counter: it grows while the game moves)."""
        return int(self._state.turn) if self._state is not None else 0

    def public_view(self, agent: str) -> Any:
        """Everything ``agent`` may know, as a typed frozen view (``rummy_env.engine.view``)."""
        lock = self._busy
        if not lock.acquire(False):
            raise ConcurrentUseError(busy_message("public_view()", "env"))
        try:
            return self._public_view(agent)
        finally:
            lock.release()

    def _public_view(self, agent: str) -> Any:
        seat = self.agent_name_mapping.get(agent) if agent.__class__ is str else None
        if seat is None:
            seat = self._seat(agent)  # raises, naming the agents
        return self._view(self._state, seat)

    def _view(self, st: Any, seat: int) -> Any:
        """``st.public_view(seat)`` through the builder of ``st``'s engine class (looked up once per class)."""
        if st.__class__ is not self._view_class:
            self._view_of = view_builder(st)
            self._view_class = st.__class__
        return self._view_of(st, seat)

    @property
    def layout_fingerprint(self) -> str:
        """sha256 (hex) of the action table and the observation layout: what every action id and observation
        entry means (``rummy_env.encoding.fingerprint``); checkpoints record it and ``load_checkpoint`` checks it."""
        return layout_fingerprint(self.layout, self.observer)

    # spaces -------------------------------------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Space:
        """The observation space of ``agent``: ``{"observation": Box, "action_mask": Box(int8)}`` (with
        ``flat_observation=True``: the ``Box`` alone)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        """The fixed ``Discrete(N)`` action space of the profile."""
        return self.action_spaces[agent]

    # core API -----------------------------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new session (or the ``options["scenario"]`` position) seeded by ``seed``.

        ``seed=None`` after a seeded reset continues that seeded stream (the next game's seed is drawn from a
        generator seeded by the last explicit seed); never seeded: a fresh random game. ``options``: None or a dict
        with the key ``"scenario"`` (a JSON state); other keys are ignored with a warning (PettingZoo's ``api_test``
        passes ``{"options": 1}`` to check that reset accepts the argument).
        """
        lock = self._busy
        if not lock.acquire(False):
            raise ConcurrentUseError(busy_message("reset()", "env"))
        try:
            self._reset(seed, options)
        finally:
            lock.release()

    def _reset(self, seed: Any, options: Any) -> None:
        scenario = self._scenario_option(options)
        if seed is not None:
            if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or seed < 0:
                raise EnvArgumentError(f"seed={seed!r}; allowed: None or a non-negative integer")
            seed = int(seed)
            # a generator of its own (not the game's PCG64(seed) stream) for the unseeded resets that follow
            self._seed_stream = seed_stream(seed)
            game_seed: int | None = seed
        elif self._seed_stream is not None:
            game_seed = next_seed(self._seed_stream)
        else:
            game_seed = None
        self._state = self._new_state(game_seed, scenario)
        self._was_reset = True
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: self._blank_info() for a in self.agents}
        self.num_steps = 0
        self._quiet = False
        for i, space in enumerate(self.action_spaces.values()):
            if seed is not None:
                space.seed(seed + i)
        self._after_move(rounds_before=len(self._state.round_results))

    def _scenario_option(self, options: Any) -> dict[str, Any] | None:
        if options is None:
            return None
        if not isinstance(options, dict):
            raise EnvArgumentError(
                f"options={options!r}; allowed: None or a dict with the key 'scenario' (a JSON state, "
                "docs/guides/engine.md), e.g. reset(seed=0, options={'scenario': env.unwrapped.game_state()})"
            )
        unknown = sorted(str(k) for k in options if k not in RESET_OPTIONS)
        if unknown:
            warnings.warn(
                f"reset(options=...): ignoring unknown key(s) {unknown}; the env understands {list(RESET_OPTIONS)}",
                stacklevel=4,
            )
        scenario = options.get("scenario")
        if scenario is not None and not isinstance(scenario, dict):
            raise EnvArgumentError(
                f"options['scenario'] must be a JSON state dict (docs/guides/engine.md 'JSON state'), got {type(scenario).__name__}"
            )
        return scenario

    def _seat(self, agent: Any) -> int:
        return agent_seat(self, agent)

    def _check_reset(self, what: str) -> None:
        if not self._was_reset:
            raise NotResetError(f"{what} before reset(): call env.reset(seed=...) first")

    def observe(self, agent: str) -> Any:
        """``{"observation": float32 vector from agent's seat, "action_mask": int8}`` (mask zero off turn); with
        ``flat_observation=True`` the float32 vector alone (the mask is then ``infos[agent]["action_mask"]``).

        Both arrays are new on every call (the caller may keep them); the legal actions behind the mask and the
        view are the engine's, listed once per decision."""
        lock = self._busy
        if not lock.acquire(False):
            raise ConcurrentUseError(busy_message("observe()", "env"))
        try:
            return self._observe(agent)
        finally:
            lock.release()

    def _observe(self, agent: str) -> Any:
        seat = self.agent_name_mapping.get(agent) if agent.__class__ is str else None
        if seat is None:
            seat = self._seat(agent)  # raises, naming the agents
        if self.flat_observation:
            if self._encode_state is not None:
                return self._encode_state(self._state, seat)
            return self.observer.encode(self._view(self._state, seat))
        mask = self._action_mask(agent)  # first: the view's legal actions then come from the engine's cache
        encode_state = self._encode_state
        if encode_state is not None:  # the built-in observers: straight from the state, as encode(view) writes it
            return {"observation": encode_state(self._state, seat), "action_mask": mask}
        return {"observation": self.observer.encode(self._view(self._state, seat)), "action_mask": mask}

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """PettingZoo's ``last()``; ``NotResetError`` before the first ``reset()``. (Its one read of the engine state
        is ``observe``, which holds the env's lock.)"""
        if not self._was_reset:
            raise NotResetError("last() before reset(): call env.reset(seed=...) first")
        agent = self.agent_selection
        assert agent is not None
        return (
            self.observe(agent) if observe else None,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def state(self) -> np.ndarray:
        """The full-information state vector (``state_space``) for centralised training (e.g. a MAPPO critic).

        It CONTAINS HIDDEN INFORMATION — every seat's hand and the stock's contents (as counts per kind, not its
        order) — so it must never be fed to a policy that acts; layout ``STATE_DOC``.
        """
        st = self._state
        n = st.n
        out = np.zeros(self.state_space.shape, dtype=np.float32)
        for p in range(n):
            out[p * NUM_KINDS : (p + 1) * NUM_KINDS] = st.hands[p]
        base = n * NUM_KINDS
        if st.stock:
            out[base : base + NUM_KINDS] = np.bincount(st.stock, minlength=NUM_KINDS)
        base += NUM_KINDS
        cur = st.current_player
        if cur >= 0 and not st.is_terminal():
            out[base + cur] = 1.0
        out[base + n :] = self.observer.encode(st.public_view(0))
        return out

    def results(self) -> dict[str, Any]:
        """The round and session results so far: ``round_results`` (one dict per finished round / deal, with
        ``round``, ``winner``, ``reason`` and ``penalties`` or ``payments``), ``scores`` (cumulative, per seat),
        ``session_over`` and ``winners`` (seats, once the session is over; else None)."""
        return session_results(self._state)

    @property
    def round_results(self) -> list[dict[str, Any]]:
        """The results of every finished round / deal (``results()["round_results"]``)."""
        return self.results()["round_results"]

    def action_mask(self, agent: str) -> np.ndarray:
        """int8 mask of ``agent``'s legal actions (all zeros when it is not ``agent``'s decision); a new array on
        every call, written from the engine's legal actions of this decision (listed once, cached by the engine)."""
        lock = self._busy
        if not lock.acquire(False):
            raise ConcurrentUseError(busy_message("action_mask()", "env"))
        try:
            return self._action_mask(agent)
        finally:
            lock.release()

    def _action_mask(self, agent: str) -> np.ndarray:
        st = self._state
        seat = self.agent_name_mapping.get(agent) if agent.__class__ is str else None
        if seat is None:
            seat = self._seat(agent)  # raises, naming the agents
        mask = np.zeros(self.num_actions, dtype=np.int8)
        if st.current_player != seat or not self.agents or self.terminations.get(agent) or self.truncations.get(agent):
            return mask
        legal = st.legal_actions()
        if len(legal) > _SHORT_MASK:
            mask.put(legal, 1)
        else:  # a few item writes cost less than converting the list to an index array
            for a in legal:
                mask[a] = 1
        return mask

    def step(self, action: int | None) -> None:
        """Apply the current agent's atomic decision (an integer id; ``None`` only for a dead agent).

        A non-integer action raises ``IllegalActionError`` naming its type in every mode. An integer the mask
        refuses (or ``None`` for a live agent): ``illegal_action="raise"`` raises ``IllegalActionError`` naming the
        legal actions (state unchanged); ``"terminate"`` ends the game with ``illegal_reward`` for the offender.
        """
        lock = self._busy
        if not lock.acquire(False):
            raise ConcurrentUseError(busy_message("step()", "env"))
        try:
            self._step(action)
        finally:
            lock.release()

    def _step(self, action: Any) -> None:
        if not self._was_reset:
            raise NotResetError("step() before reset(): call env.reset(seed=...) first")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        st = self._state
        rounds_before = len(st.round_results)
        if action is not None and action.__class__ is not int:
            action = as_action(action, self.num_actions)
        if action is None or action not in st.legal_actions():
            if self.illegal_action == "terminate":
                self._terminate_illegal(agent)
                return
            if action is None:
                raise IllegalActionError(
                    f"{agent} must act (got None) in phase '{st.phase}'; None is only for a terminated or truncated "
                    "agent. Pick an action of observe(agent)['action_mask']"
                )
            st.apply(action)  # raises IllegalActionError (a ValueError) naming the legal actions
        else:
            st.apply_legal(action)  # checked above against the same legal actions
        self.num_steps += 1
        self._cumulative_rewards[agent] = 0.0
        self._after_move(rounds_before)

    def _blank_info(self) -> dict[str, Any]:
        """The info of every agent after every reset / step: the same keys (``INFO_KEYS``), int or bool values."""
        st = self._state
        return {
            "round": int(st.round),
            "round_over": False,
            "turn_cap": False,
            "session_over": bool(st.is_terminal()),
            "illegal_move": False,
        }

    def _terminate_illegal(self, agent: str) -> None:
        """As PettingZoo's TerminateIllegalWrapper: the offender gets ``illegal_reward``, the game ends."""
        EnvLogger.warn_on_illegal_move()
        self._quiet = False
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: 0.0 for a in self.agents}
        self.rewards[agent] = self.illegal_reward
        self.terminations = {a: True for a in self.agents}
        for a in self.agents:
            self.infos[a] = self._blank_info()
            self.infos[a]["illegal_move"] = a == agent
        if self.flat_observation:
            self._mask_infos()
        self._accumulate_rewards()

    def _after_move(self, rounds_before: int) -> None:
        """The PettingZoo bookkeeping after a move (or a reset): rewards, infos, terminations / truncations, the
        next agent. A move that ends no round, no session and no step budget leaves every reward 0 and every info
        as the step before: then the dicts of that step stay (no new dicts, the same values)."""
        st = self._state
        results = st.round_results
        if (
            len(results) == rounds_before
            and not st.is_terminal()
            and (self.max_steps is None or self.num_steps < self.max_steps)
        ):
            if not self._quiet:
                self.rewards = {a: 0.0 for a in self.possible_agents if a in self.agents}
                info = self._blank_info()
                for a in self.agents:
                    self.infos[a] = dict(info)
                self._quiet = True
            # adding the zero rewards to the cumulative ones would change nothing (no value here is -0.0)
            self.agent_selection = self.possible_agents[st.current_player]
            if self.flat_observation:
                self._mask_infos()
            if self.render_mode == "human":
                self.render()
            return
        self._quiet = False
        capped = any(res["reason"] == "turn_cap" for res in results[rounds_before:])
        done = st.is_terminal()
        step = [0.0] * len(self.possible_agents)
        add_step_rewards(step, results[rounds_before:], st.winners() if done else None, self.reward_mode,
                         self.reward_scale)
        self.rewards = {a: step[i] for i, a in enumerate(self.possible_agents) if a in self.agents}
        info = self._blank_info()
        info["round_over"] = len(results) > rounds_before
        info["turn_cap"] = capped
        for a in self.agents:
            self.infos[a] = dict(info)
        if done:
            self.terminations = {a: True for a in self.agents}
        elif self.max_steps is not None and self.num_steps >= self.max_steps:
            self.truncations = {a: True for a in self.agents}
        if not done:
            cur = self.possible_agents[st.current_player]
            self.agent_selection = cur
        elif not hasattr(self, "agent_selection") or self.agent_selection not in self.agents:
            self.agent_selection = self.agents[0]
        if self.flat_observation:
            self._mask_infos()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _mask_infos(self) -> None:
        """``flat_observation=True``: every agent's info gets its mask of this decision (``INFO_MASK_KEY``; zeros
        but for the agent to move). The info dicts are new ones: a client may keep the dicts of an earlier step."""
        infos = self.infos
        for a in self.agents:
            info = dict(infos[a])
            info[INFO_MASK_KEY] = self._action_mask(a)
            infos[a] = info

    # extras -------------------------------------------------------------------------------------------------
    def describe_action(self, action: int) -> str:
        """The engine's readable description of ``action`` for the player to move (before the first ``reset``:
        as at the start of the seed-0 session)."""
        return self._described_state().describe_action(int(action))

    def action_info(self, action: int) -> dict[str, Any]:
        """Structured description of ``action`` (schema in docs/environments/<profile>.md; before the first ``reset`` as in
        ``describe_action``)."""
        return self._described_state().action_info(int(action))

    def _described_state(self) -> Any:
        # the action table's meaning does not depend on the deal: before any reset, describe against a seed-0 game
        if self._state is not None:
            return self._state
        if getattr(self, "_describe_state", None) is None:
            self._describe_state = self._new_state(seed=0)
        return self._describe_state

    def game_state(self) -> dict[str, Any]:
        """The engine's JSON state (the scenario format): hands, piles, table, scores, phase."""
        return self._state.to_json()

    def observation_pieces(self, agent: str) -> dict[str, np.ndarray]:
        """The observation of ``agent`` as a dict of named, shaped views."""
        return self.observer.pieces.views(self.observer.encode(self._state.public_view(self._seat(agent))))

    def render(self) -> str | None:
        """``ansi``: return the table as text; ``human``: print it; ``rgb_array``: return its picture (an H x W x 3
        uint8 array, ``rummy_env.envs.picture``)."""
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("You are calling render without specifying a render_mode.")
            return None
        if self.render_mode == "rgb_array":
            return render_frame(self)
        text = self.state_text()
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def state_text(self) -> str:
        """The table as text (the ``ansi`` render), seen by the seat to move: seats, melds, scores, the discard top,
        the decision and that seat's hand (no hand once the session is over)."""
        st = self._state
        over = st.is_terminal()
        return self.table_text(st.public_view(0 if over else st.current_player), st.winners() if over else None)

    def view_text(self, agent: str) -> str:
        """The table as ``agent`` sees it: the text of its public view (``public_view(agent)``), with its hand."""
        view = self.public_view(agent)
        return self.table_text(view, self.results()["winners"] if view.session_over else None)

    def table_text(self, view: Any, winners: list[int] | None = None) -> str:  # pragma: no cover - per profile
        """The text of a public view (``winners``: the session's winners once it is over)."""
        raise NotImplementedError

    def close(self) -> None:
        """Nothing to release."""


#: masks of up to this many legal actions are written item by item, longer ones with one ``ndarray.put``
_SHORT_MASK = 6


def hand_text(view: Any) -> str:
    """The viewer's hand as a line of the table text: ``Hand: 7♣ 7♦ ...`` when it is the viewer's decision, else
    ``Hand of P<seat>: ...``."""
    cards = " ".join(card_str(k, symbols=True) for k, c in enumerate(view.hand) for _ in range(c))
    return ("Hand: " if view.seat == view.current else f"Hand of P{view.seat}: ") + cards


class OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper`` with direct paths, once reset, for what every decision calls.

    ``last()``, ``step()`` and ``agent_iter()`` behave as the base class's (the same checks, errors and results);
    after ``reset()`` they go to the raw env directly instead of through the base's attribute forwarding
    (``__getattr__`` per attribute read), which cost more per decision than the env's own bookkeeping. Before
    ``reset()`` everything is the base class's. ``str(env)`` is the raw env's, as for the base class.
    """

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """The raw env's ``last()`` (before ``reset()``: the base class's error)."""
        if self._has_reset:
            return self.env.last(observe)
        return super().last(observe)

    def step(self, action: Any) -> None:
        """The raw env's ``step()`` while agents are left (otherwise, and before ``reset()``, the base class's)."""
        if self._has_reset and self.env.agents:
            self._has_updated = True
            self.env.step(action)
        else:
            super().step(action)

    def agent_iter(self, max_iter: int = 2**63) -> Any:
        """As the base class's ``agent_iter`` (the same order check), reading the raw env's agents directly."""
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return _AgentIterable(self, max_iter)

    def __str__(self) -> str:
        return str(self.env)


class _AgentIterable(AECOrderEnforcingIterable):
    def __iter__(self) -> _AgentIterator:
        return _AgentIterator(self.env, self.max_iter)


class _AgentIterator(AECOrderEnforcingIterator):
    def __next__(self) -> str:
        # AECOrderEnforcingIterator.__next__ with the raw env read once
        wrapper = self.env
        raw = wrapper.env
        if not raw.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        agent = raw.agent_selection
        assert wrapper._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        wrapper._has_updated = False
        return agent


def wrap(env: AECEnv) -> AECEnv:
    """PettingZoo's ``OrderEnforcingWrapper`` around the raw env (``OrderEnforcing``, a subclass with direct paths
    for ``last`` / ``step`` / ``agent_iter``).

    Illegal actions terminate or raise natively, and the raw env checks an action's type and range itself (an
    ``IllegalActionError``, also under ``python -O``), so PettingZoo's assert-based ``AssertOutOfBoundsWrapper``
    is not used.
    """
    return OrderEnforcing(env)
