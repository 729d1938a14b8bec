"""``VectorEnv``: many tables of one profile stepped in one call, on the engine directly (Pgx's manner).

Every table is an engine state; ``step(actions)`` applies one decision at each table, settles rewards, deals a
finished table again (auto-reset) and writes every table's next observation and mask into arrays allocated once.
The games, rewards and seeds are those of the AEC env (``rummy_env.envs.session`` states the shared rules);
``docs/guides/vector.md`` is the user's page.
"""

from __future__ import annotations

import inspect
import threading
from functools import cache
from typing import Any

import numpy as np

from ..encoding import fast
from ..engine import IllegalActionError
from ..engine.continental import deprecated_deals
from ..envs.base import ConcurrentUseError, NotResetError, busy_message
from ..envs.session import (
    REWARD_SCALE,
    add_step_rewards,
    check_reward_mode,
    next_seed,
    reward_modes,
    seed_stream,
    session_results,
)
from ..registry import game
from .sampling import EmptyMaskError
from .table import TableEnv

#: AEC-env arguments that have no meaning for a batched env (no rendering, no truncation, illegal actions raise)
AEC_ONLY_KEYS = ("render_mode", "illegal_action", "max_steps", "max_cycles", "illegal_reward", "flat_observation")


class VectorConfigError(ValueError):
    """A bad ``VectorEnv`` argument (``num_envs``, ``seed``, an env_config key)."""


@cache
def _encode_takes_out(observer_type: type) -> bool:
    try:
        return "out" in inspect.signature(observer_type.encode).parameters
    except (TypeError, ValueError):  # pragma: no cover - builtins without a signature
        return False


def _encode_into(observer: Any, state: Any, seat: int, out_row: np.ndarray) -> None:
    """Write ``seat``'s observation of ``state`` into ``out_row`` (the one place that calls the observer; ``_write_all``
    takes the observer's fast path itself): ``encode_state`` where the observer has it (the built-in observers:
    straight from the state, ``rummy_env.encoding.fast``), else ``encode(state, seat)``."""
    encode_state = getattr(observer, "encode_state", None)
    if encode_state is not None:
        encode_state(state, seat, out=out_row)
    elif _encode_takes_out(type(observer)):
        observer.encode(state, seat, out=out_row)
    else:
        out_row[...] = observer.encode(state, seat)


def _check_seed(seed: Any, what: str) -> int | None:
    if seed is None:
        return None
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, (bool, np.bool_)) or seed < 0:
        raise VectorConfigError(f"{what}={seed!r}; allowed: None or a non-negative integer")
    return int(seed)


class VectorEnv:
    """``num_envs`` tables of ``profile`` stepped together; see ``docs/guides/vector.md``.

    ``VectorEnv(profile, num_envs, seed=None, **env_config)``: ``env_config`` takes the AEC env's keys ``reward``
    (the profile's reward modes), ``rounds`` (session length; continental also the old spelling ``deals``),
    ``num_players`` where the profile allows it, and rule overrides (fields of the rules object, e.g.
    ``turn_cap=200``). ``seed`` is the seed of the first ``reset()`` that gives none.

    Arrays (allocated once, REUSED: every ``reset`` / ``step`` overwrites them in place; copy what you keep):
    ``obs`` float32 ``(num_envs, obs_size)``, ``mask`` bool ``(num_envs, num_actions)``, ``seat`` int64
    ``(num_envs,)``, ``rewards`` float32 ``(num_envs, num_players)``, ``done`` bool ``(num_envs,)``.
    ``observe_seats`` bool ``(num_envs, num_players)``, all True at first, is yours to set: where
    ``observe_seats[i, seat[i]]`` is False, ``obs[i]`` is left zeros (the observer is not run for that decision).
    Replaced by an array of another shape or a non-integer dtype, ``step`` / ``reset`` raise ``VectorConfigError``
    before any table moves.

    One ``VectorEnv`` is used from one thread at a time: ``step``, ``reset`` or a read that fills the engine's caches
    (``random_actions``, ``observe``, ``public_view``, ``legal_actions``) entered while another runs raises
    ``ConcurrentUseError`` (nothing done by it). ``copy.deepcopy`` and ``pickle`` give an independent env that plays
    on identically (same tables, generators and seed streams).
    """

    def __init__(self, profile: str, num_envs: int, seed: int | None = None, **env_config: Any):
        self.game = game(profile)  # UnknownProfileError (a ValueError) naming the profiles
        self.profile = self.game.id
        if not isinstance(num_envs, (int, np.integer)) or isinstance(num_envs, (bool, np.bool_)) or num_envs < 1:
            raise VectorConfigError(f"num_envs={num_envs!r}; allowed: a positive integer")
        self.num_envs = int(num_envs)
        self._seed = _check_seed(seed, "seed")
        config = dict(env_config)
        aec_only = sorted(k for k in config if k in AEC_ONLY_KEYS)
        if aec_only:
            raise VectorConfigError(
                f"{aec_only}: AEC-env arguments with no meaning for VectorEnv (no rendering, no truncation; an "
                "illegal action always raises). VectorEnv takes reward=, rounds=, num_players= and rule overrides"
            )
        #: the reward modes this profile offers (the first is the default) and the one in use
        self.reward_modes = reward_modes(self.game.score_name)
        self.reward_mode = check_reward_mode(config.pop("reward", None), self.reward_modes)
        self.reward_scale = REWARD_SCALE
        rounds = config.pop("rounds", None)
        if "deals" in config:
            if self.game.units != "deals":  # the old spelling exists where a unit of the session is a deal
                raise VectorConfigError(f"deals= is continental's old spelling of rounds=; profile {profile!r} "
                                        "takes rounds=")
            rounds = deprecated_deals(rounds, config.pop("deals"))
        #: the frozen rules object (``ValueError`` for a bad override) and the session length
        self.rules = self.game.rules(**config)
        self.rounds = rounds
        self.game.engine.check_session_length(self.rules, rounds)
        self.num_players = int(self.rules.num_players)
        #: the action table and the observer (what every action id / observation entry means)
        self.layout = self.game.layout(self.rules)
        self.observer = self.game.observer(self.rules, rounds)
        # one observer per table: an observer keeps its last table / known-cards encodings and reuses them while they
        # are unchanged, which only pays when it sees one table's successive views (tables[i] -> _observers[i])
        self._observers = [self.observer] + [self.game.observer(self.rules, rounds) for _ in range(self.num_envs - 1)]
        self.num_actions = int(self.layout.num_actions)
        self.obs_size = int(self.observer.size)
        e, n = self.num_envs, self.num_players
        self.obs = np.zeros((e, self.obs_size), dtype=np.float32)
        self.mask = np.zeros((e, self.num_actions), dtype=bool)
        self.seat = np.full(e, -1, dtype=np.int64)
        self.rewards = np.zeros((e, n), dtype=np.float32)
        self.done = np.zeros(e, dtype=bool)
        self._bind_rows()
        #: the observer's fast path (``rummy_env.encoding.fast``): the name of its function, and the engine class it
        #: was last checked for (``observer.fast_fits``)
        self._fast_name: str | None = getattr(self.observer, "FAST_FUNCTION", None)
        self._fast_class: type | None = None
        #: per table and seat: write the observation when that seat is to move (False: the row is zeros instead;
        #: for seats played by bots that read ``table(i)``, which saves the observer's time). All True at first.
        self.observe_seats = np.ones((e, n), dtype=bool)
        self._all_observed = self.observe_seats.tobytes()
        #: per table: the ``results()`` dict of its last finished session (None until one finishes)
        self.final_results: list[dict[str, Any] | None] = [None] * e
        #: per table: sessions finished since the last ``reset``
        self.sessions_done = np.zeros(e, dtype=np.int64)
        self._states: list[Any] = []
        self._streams: list[np.random.Generator | None] = [None] * e
        self._nres = [0] * e
        self._was_reset = False
        #: held while ``step`` / ``reset`` runs: a second one entered meanwhile (another thread) raises
        self._busy = threading.Lock()

    def _bind_rows(self) -> None:
        """The per-table rows of ``obs`` and ``mask`` (views into them) the writers use; the fast path's typed
        views of them are made on first use (``_make_views``)."""
        self._obs_rows = list(self.obs)
        self._mask_rows = list(self.mask)
        #: per table, the views of its observation row and of its mask row (as uint8) that the fast path writes
        #: through, made by the implementation of ``rummy_env.encoding.fast`` selected when they were made
        #: (``_views_of``: its ``write_mask``; they are made again when it differs, e.g. after an unpickle)
        self._mask_bytes = list(self.mask.view(np.uint8))
        self._views_of: Any = None
        self._obs_views: list[Any] = []
        self._mask_views: list[Any] = []

    def _exclusive(self, call: str, fn: Any, *args: Any) -> Any:
        """``fn(*args)`` holding the env's lock: ``ConcurrentUseError`` (nothing done) if another call holds it, i.e.
        runs in another thread (``step``, ``reset`` and the reads that fill the engine's caches hold it)."""
        lock = self._busy
        if not lock.acquire(False):
            raise ConcurrentUseError(busy_message(call, "VectorEnv"))
        try:
            return fn(*args)
        finally:
            lock.release()

    # copies and pickles: the row views are views of ``obs`` / ``mask`` (a copy must write into its own arrays) and
    # the fast path's typed views neither copy nor pickle, so all are made again; the lock is new
    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k not in _REBUILT}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._bind_rows()
        self._busy = threading.Lock()

    # sessions -------------------------------------------------------------------------------------------------
    def _deal(self, i: int, game_seed: int | None) -> Any:
        st = self.game.new_state(self.rules, seed=game_seed, rounds=self.rounds)
        self._nres[i] = len(st.round_results)
        return st

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Deal every table again: ``(obs, mask, seat)`` of each table's first decision (the reused arrays).

        ``seed=s``: table i plays the game of seed ``s + i`` (as an AEC env after ``reset(seed=s + i)``).
        ``seed=None``: the constructor's seed on the first reset; later, each table's next game of its seeded
        stream (as an AEC env's ``reset()`` without a seed); never seeded: fresh random games.
        """
        return self._exclusive("VectorEnv.reset()", self._reset, seed)

    def _reset(self, seed: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        seed = _check_seed(seed, "seed")
        self._check_observe_seats()
        if seed is None and not self._was_reset:
            seed = self._seed
        states = []
        for i in range(self.num_envs):
            if seed is not None:
                self._streams[i] = seed_stream(seed + i)
                game_seed: int | None = seed + i
            elif self._streams[i] is not None:
                game_seed = next_seed(self._streams[i])  # type: ignore[arg-type]
            else:
                game_seed = None
            states.append(self._deal(i, game_seed))
        self._states = states
        self._was_reset = True
        self.final_results = [None] * self.num_envs
        self.sessions_done[:] = 0
        self.rewards.fill(0.0)
        self.done.fill(False)
        self._write_all()
        return self.obs, self.mask, self.seat

    def _write_all(self) -> None:
        """Every table's seat to move, mask and observation into the arrays (one pass, after ``reset`` / ``step``).

        The mask row and the observation are written by ``rummy_env.encoding.fast`` (compiled when the twins are
        selected): the observation straight from the engine state, as ``observer.encode_state`` (identical to
        ``observer.encode(st.public_view(seat))``), where the observer offers it for this engine class. Looked up
        once per pass: the fast path's ``write_mask`` (the rows' views made again when they were made by another, e.g.
        after an unpickle), its encoder by name (so a caller that wraps it, as ``rummy bench`` does, is seen), and
        ``observe_seats`` as lists (None while every seat is observed)."""
        write_mask = fast.write_mask
        if write_mask is not self._views_of:
            self._make_views()
        fast_fn = getattr(fast, self._fast_name) if self._fast_name else None
        observe = self.observe_seats
        # a byte comparison costs a twentieth of ``observe.all()``; any other content, dtype or shape: the lists
        observed = None if observe.tobytes() == self._all_observed else observe.tolist()
        seats, mask_views, obs_rows = self.seat, self._mask_views, self._obs_rows
        obs_views, observers = self._obs_views, self._observers
        for i, st in enumerate(self._states):
            seat = st.current_player
            seats[i] = seat
            write_mask(mask_views[i], st.legal_actions())
            if observed is None or observed[i][seat]:
                if st.__class__ is not self._fast_class:
                    obs = self.observer
                    fits = self._fast_name and obs.fast_fits(st) and st.n == obs.n
                    self._fast_class = st.__class__ if fits else None
                if self._fast_class is not None:
                    fast_fn(observers[i], st, seat, obs_rows[i], obs_views[i])
                else:
                    _encode_into(observers[i], st, seat, obs_rows[i])
            else:
                obs_rows[i].fill(0.0)

    def _make_views(self) -> None:
        """The rows' views for the fast path's functions (``fast.float_view`` / ``fast.byte_view``): the twin takes
        its own typed views back at no cost, where a fresh buffer would be validated at every call."""
        self._views_of = fast.write_mask
        self._obs_views = [fast.float_view(r) for r in self._obs_rows]
        self._mask_views = [fast.byte_view(r) for r in self._mask_bytes]

    def _check_observe_seats(self) -> None:
        """``observe_seats`` (which the caller may replace) is an integer or bool array of shape ``(num_envs,
        num_players)``; else ``VectorConfigError``, raised before any table moves."""
        o = self.observe_seats
        want = (self.num_envs, self.num_players)
        if o.__class__ is not np.ndarray or o.shape != want or o.dtype.kind not in "biu":
            got = f"shape {o.shape} and dtype {o.dtype}" if isinstance(o, np.ndarray) else type(o).__name__
            raise VectorConfigError(
                f"observe_seats must be a bool (or integer) array of shape {want} (num_envs, num_players); got "
                f"{got}. Set its entries in place (vec.observe_seats[i, p] = False) or assign an array of that shape"
            )

    # stepping -------------------------------------------------------------------------------------------------
    def _check_actions(self, actions: Any) -> list[int]:
        """``actions`` as a list of ints if every table's is legal (and ``observe_seats`` usable); else
        ``IllegalActionError`` naming the table (``VectorConfigError``). Nothing is applied here, so a refused step
        changes no table."""
        if not self._was_reset:
            raise NotResetError("VectorEnv.step() before reset(): call vec.reset(seed=...) first")
        self._check_observe_seats()
        a = actions if isinstance(actions, np.ndarray) else np.asarray(actions)
        e = self.num_envs
        if a.shape != (e,) or a.dtype.kind not in "iu":
            raise IllegalActionError(
                f"actions must be an integer array of shape ({e},) (one action id 0..{self.num_actions - 1} per "
                f"table); got shape {a.shape} and dtype {a.dtype}"
            )
        acts = a.tolist()
        # each table's legal actions (the engine's list, which its mask row was written from): a list lookup per
        # table costs less than a fancy index of the mask, and ``step`` then applies without checking again
        states = self._states
        for i, act in enumerate(acts):
            if act not in states[i].legal_actions():
                break
        else:
            return acts
        bad = [i for i, act in enumerate(acts) if act not in states[i].legal_actions()]
        i = bad[0]
        try:  # the engine's message names the legal actions; an illegal action leaves its state unchanged
            states[i].apply(acts[i])
            msg = "the engine accepted it"  # pragma: no cover - apply refuses exactly what legal_actions lacks
        except IllegalActionError as exc:
            msg = str(exc)
        more = f"; also illegal at tables {bad[1:11]}" + (" ..." if len(bad) > 11 else "") if len(bad) > 1 else ""
        raise IllegalActionError(f"table {i} (seat {int(self.seat[i])}): {msg}{more}; no table was stepped")

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Apply ``actions[i]`` (the decision of ``seat[i]``) at every table i: ``(obs, mask, seat, rewards, done)``.

        ``rewards[i, p]``: what seat p of table i received from this step (round / deal ends, and the session's
        end in mode ``win``), as the AEC env's ``rewards``. ``done[i]``: table i's session ended with this step;
        its ``results()`` dict is ``final_results[i]`` and the table was dealt again (its next game, as the AEC
        env's ``reset()`` without a seed), so ``obs[i]``, ``mask[i]``, ``seat[i]`` are the new session's first
        decision. An illegal action anywhere: ``IllegalActionError`` naming the table, nothing applied.
        """
        lock = self._busy  # ``_exclusive`` inlined: the hot call
        if not lock.acquire(False):
            raise ConcurrentUseError(busy_message("VectorEnv.step()", "VectorEnv"))
        try:
            return self._step(actions)
        finally:
            lock.release()

    def _step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        acts = self._check_actions(actions)
        rewards, done = self.rewards, self.done
        rewards.fill(0.0)
        done.fill(False)
        states, nres = self._states, self._nres
        for i, act in enumerate(acts):
            st = states[i]
            st.apply_legal(act)  # ``_check_actions`` found it in the table's legal actions
            if len(st.round_results) != nres[i] or st.is_terminal():
                self._settle(i, st)  # a finished session's table is dealt again (``states[i]`` replaced)
        self._write_all()  # the tables are independent: all applied, then all written
        return self.obs, self.mask, self.seat, rewards, done

    def random_actions(self, rng: np.random.Generator) -> np.ndarray:
        """One uniformly random legal action per table, int64 ``(num_envs,)``: the same actions as
        ``random_legal_actions(vec.mask, rng)`` from the same ``rng`` state (one ``rng.random(num_envs)`` draw; row
        i's pick is its ``floor(u[i] * count)``-th legal id in ascending order), drawn from each table's sorted
        legal list instead of a scan of the mask (the benchmarks' random player). It reads the tables, not
        ``mask``: a mask the caller edited is not taken into account. A table without a legal action (none, while
        every finished session is dealt again) raises ``EmptyMaskError`` as ``random_legal_actions`` does."""
        return self._exclusive("VectorEnv.random_actions()", self._random_actions, rng)

    def _random_actions(self, rng: np.random.Generator) -> np.ndarray:
        if not self._was_reset:
            raise NotResetError("VectorEnv.random_actions() before reset(): call vec.reset(seed=...) first")
        picks = []
        for st, u in zip(self._states, rng.random(self.num_envs).tolist()):
            legal = st.legal_actions()
            if not legal:
                empty = [i for i, t in enumerate(self._states) if not t.legal_actions()]
                raise EmptyMaskError(f"tables {empty[:10]} have no legal action")
            picks.append(legal[int(u * len(legal))])
        return np.array(picks, dtype=np.int64)

    def _settle(self, i: int, st: Any) -> Any:
        """Rewards of the rounds that ended at table ``i``; a finished session recorded and dealt again."""
        results = st.round_results
        over = st.is_terminal()
        row = [0.0] * self.num_players
        add_step_rewards(row, results[self._nres[i]:], st.winners() if over else None, self.reward_mode,
                         self.reward_scale)
        self.rewards[i] = row
        self._nres[i] = len(results)
        if not over:
            return st
        self.done[i] = True
        self.final_results[i] = session_results(st)
        self.sessions_done[i] += 1
        stream = self._streams[i]
        st = self._deal(i, next_seed(stream) if stream is not None else None)
        self._states[i] = st
        return st

    # read-only accessors --------------------------------------------------------------------------------------
    def _table(self, i: int) -> Any:
        if not self._was_reset:
            raise NotResetError("VectorEnv accessor before reset(): call vec.reset(seed=...) first")
        if not isinstance(i, (int, np.integer)) or isinstance(i, bool) or not 0 <= i < self.num_envs:
            raise VectorConfigError(f"table {i!r}; allowed: 0..{self.num_envs - 1}")
        return self._states[int(i)]

    def results(self, i: int) -> dict[str, Any]:
        """Table ``i``'s current session so far, as the AEC env's ``results()``."""
        return session_results(self._table(i))

    def game_state(self, i: int) -> dict[str, Any]:
        """Table ``i``'s engine state as JSON (the scenario format)."""
        return self._table(i).to_json()

    def _seat_arg(self, seat: Any) -> int:
        """``seat`` as an int if it is a seat of the tables (an integer, never a bool); else ``VectorConfigError``."""
        if not isinstance(seat, (int, np.integer)) or isinstance(seat, bool) or not 0 <= seat < self.num_players:
            raise VectorConfigError(f"seat {seat!r}; allowed: an integer 0..{self.num_players - 1}")
        return int(seat)

    def public_view(self, i: int, seat: int) -> Any:
        """Everything ``seat`` at table ``i`` may know (``rummy_env.engine.view``)."""
        return self._exclusive("VectorEnv.public_view()", self._public_view, i, seat)

    def _public_view(self, i: int, seat: int) -> Any:
        st = self._table(i)
        return st.public_view(self._seat_arg(seat))

    def observe(self, i: int, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        """The observation of ``seat`` at table ``i`` now, whoever is to move (the AEC env's
        ``observe(agent)["observation"]``): a new float32 array, or written into ``out`` (a float32 C-contiguous
        array of ``obs_size`` items, e.g. a row of a batch). Training reads it to value a seat's position
        off-turn."""
        return self._exclusive("VectorEnv.observe()", self._observe, i, seat, out)

    def _observe(self, i: int, seat: int, out: np.ndarray | None) -> np.ndarray:
        st = self._table(i)
        seat = self._seat_arg(seat)
        row = np.zeros(self.obs_size, dtype=np.float32) if out is None else out
        _encode_into(self.observer, st, seat, row)
        return row

    def table(self, i: int) -> TableEnv:
        """Table ``i`` as an env-like object for bots: ``bot.act(vec.table(i), agent)`` plays the seat to move
        there (``rummy_env.vector.table.TableEnv``: ``public_view``, ``action_mask``, ``observe``,
        ``agent_selection``; a live, read-only view of the table)."""
        self._table(i)
        return TableEnv(self, int(i))

    def legal_actions(self, i: int) -> list[int]:
        """The legal action ids at table ``i`` (the ones ``mask[i]`` marks)."""
        return self._exclusive("VectorEnv.legal_actions()", lambda: list(self._table(i).legal_actions()))

    def describe_action(self, i: int, action: int) -> str:
        """The engine's readable description of ``action`` for the seat to move at table ``i``."""
        return self._table(i).describe_action(int(action))

    def close(self) -> None:
        """Nothing to release."""

    def __repr__(self) -> str:
        return (f"VectorEnv({self.profile!r}, num_envs={self.num_envs}, num_players={self.num_players}, "
                f"reward={self.reward_mode!r}, rounds={self.rounds!r})")


#: what ``VectorEnv.__getstate__`` leaves out and ``__setstate__`` makes again (``_bind_rows``, the lock)
_REBUILT = frozenset(("_obs_rows", "_mask_rows", "_mask_bytes", "_views_of", "_obs_views", "_mask_views", "_busy"))


__all__ = ["AEC_ONLY_KEYS", "ConcurrentUseError", "VectorConfigError", "VectorEnv"]
