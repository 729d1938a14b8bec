"""A fast rollout policy for the contract profile: the heuristic's rules on cheap hand measures, played on the engine.

The ``heuristic`` decides from a ``PublicView`` (a frozen copy of what the seat may know, built per decision) and
measures a hand with ``contract_hand.contract_structure`` weighted by the unseen copies of every card: about 60 us a
decision, most of a round's rollout. ``FastContractPolicy`` keeps the heuristic's decisions -- take or buy a card
that fills a missing slot while the round is young, open as soon as the contract is in hand, lay off the dearest
cards, discard the least useful card weighted by its penalty, not feeding the next player -- on cheaper measures:

| measure | heuristic | fast policy |
|---|---|---|
| missing cards, group contracts | weighted by unseen copies of the rank | the count of missing cards (13 ranks, no weights) |
| missing cards, contracts with runs | ``contract_structure`` weighted by the unseen copies | ``contract_structure`` with every card equally likely, memoised by hand |
| fits the table | lay-off chains through the hand (``playable``) | a card that fits a meld end now (``fits_table``) |
| the opening | the plan leaving the cheapest rest | the legal meld with fewest jokers and the dearest cards |
| round 7 | three-run target (``final_structure``) | same-suit neighbours of a card |

It reads, of the engine state, the mover's own hand and the public facts only (table, discard pile, known cards,
hand sizes, who opened, turn), so a rollout seat plays on its own knowledge; it draws no random numbers (its ties go
to the lowest card), so a rollout depends only on the determinization and the engine's generator.
``play_out(state, policy, ...)`` plays a state on to the end of its round with it; ``FAST_POLICIES`` names the
profiles it plays (others roll out with their heuristic). Strength against ``heuristic``, its agreement with the
heuristic's decisions and rollouts/s: ``docs/guides/bots.md`` ("Fast rollouts").
"""

from __future__ import annotations

from itertools import compress
from typing import Any

from ..core.cards import JOKER, NUM_KINDS, NUM_RANKS, PENALTY
from ..core.melds import GROUP, MAX_POS
from .canonical import canonical_state
from .contract_hand import contract_structure
from .heuristic_contract import ContractStyle
from .rollout_continental import FastContinentalPolicy

#: every card taken as equally likely (two unseen copies) in the memoised contract measure of run contracts
_FLAT_LIVE = [2] * NUM_KINDS
#: the heuristic's numbers (``ContractStyle``: take / buy thresholds, danger, penalty weight, keep values)
_STYLE = ContractStyle()
#: the heuristic's weight of a missing card with n unseen copies (``contract_hand.slot_weight``)
_SLOT_W = tuple(1.0 + 2.0 / (1 + n) for n in range(16))
_DRAW, _BUY, _ACT, _OPENING, _PLACE = "draw", "buy", "act", "opening", "place_joker"


def _rank_counts(hand: list[int]) -> list[int]:
    return list(map(sum, zip(hand[0:13], hand[13:26], hand[26:39], hand[39:52])))


#: cards a first / second group of a rank still misses, by the natural count of the rank (groups of 3, two decks)
_FIRST = (3, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
_SECOND = (3, 3, 3, 3, 2, 1, 0, 0, 0, 0, 0, 0, 0)


def group_missing(n: list[int], g: int, jokers: int) -> int:
    """``group_target``'s missing cards alone (the hot question of a rollout: does a card fill a slot?): the ``g``
    smallest of every rank's first and second group (a second never costs less than its first, so the smallest
    values never take a second without its first)."""
    vals = list(map(_FIRST.__getitem__, n))
    if g > 1:
        vals += map(_SECOND.__getitem__, n)
    vals.sort()
    missing = sum(vals[:g]) - jokers
    return missing if missing > 0 else 0


def group_gain(n: list[int], g: int, jokers: int, q: int) -> bool:
    """Does one more natural of rank ``q`` lower ``group_missing(n, g, jokers)``? One value of the multiset of
    first and second groups' missing cards drops by one (the first group's while the rank has fewer than 3, else the
    second's while fewer than 6): the ``g`` smallest lose a card iff that value is at most the ``g``-th smallest,
    and the jokers do not already fill every missing card."""
    c = n[q]
    if c >= 6:
        return False
    vals = list(map(_FIRST.__getitem__, n))
    if g > 1:
        vals += map(_SECOND.__getitem__, n)
    vals.sort()
    if sum(vals[:g]) <= jokers:
        return False
    return (_FIRST[c] if c < 3 else _SECOND[c]) <= vals[g - 1]


def group_target(
    n: list[int], g: int, jokers: int, size: int = 3, rank_w: list[float] | None = None
) -> tuple[int, tuple[int, ...]]:
    """Group contracts: (missing cards after jokers, the ranks of the ``g`` cheapest groups) from the natural
    count ``n`` of each rank; a second group of one rank (two decks) costs what the first leaves short. With
    ``rank_w`` (the heuristic's ``slot_weight`` of each rank's unseen copies) the ranks are chosen by weighted
    missing cards, as the heuristic does."""
    opts = []
    for q in range(NUM_RANKS):
        c = n[q]
        w = rank_w[q] if rank_w is not None else 1.0
        m1 = size - c if c < size else 0
        opts.append((m1 * w, 0, q, m1))
        if g > 1:
            m2 = (2 * size - c if c < 2 * size else 0) - m1
            opts.append((m2 * w + 1e-6, 1, q, m2))
    opts.sort()
    chosen = opts[:g]
    missing = sum(o[3] for o in chosen) - jokers
    return (missing if missing > 0 else 0), tuple(o[2] for o in chosen)


def live_ranks(st: Any, p: int) -> list[int]:
    """Unseen copies of each rank for seat ``p`` of the engine state ``st``: the shoe's copies less its hand, the
    discard pile, the table and the cards publicly known to be in other hands (the heuristic's ``view.unseen``)."""
    seen = [0] * (NUM_RANKS + 1)  # the last counts the jokers, which have no rank
    rank = _RANK_OF
    for k in st.discard:
        seen[rank[k]] += 1
    for m in st.table:
        for k in m.cards:
            seen[rank[k]] += 1
    for s, row in enumerate(st.known):
        if s != p and any(row):
            for k in compress(range(JOKER), row):
                seen[rank[k]] += row[k]
    copies = 4 * st.rules.decks
    return [copies - a - b for a, b in zip(seen, _rank_counts(st.hands[p]))]


#: the rank index of each kind (the joker: 13)
_RANK_OF = tuple(k % NUM_RANKS for k in range(JOKER)) + (NUM_RANKS,)


def reach_kinds(table: list[Any], hand: list[int]) -> tuple[set[int], set[int], set[int]]:
    """(cards of ``hand`` that can reach the table -- a group's rank, a run end, and on from there through the
    hand's own cards, as the heuristic's ``playable`` chains them --, cards one gap from a run end, the cards that fit
    a meld end now: ``fit_kinds``), in one pass over the table."""
    out: set[int] = set()
    gap: set[int] = set()
    fits: set[int] = set()
    for m in table:
        if m.kind == GROUP:
            q = m.rank - 1
            out.update((q, q + 13, q + 26, q + 39))
            fits.update((q, q + 13, q + 26, q + 39))
            continue
        base = m.suit * NUM_RANKS
        pos = m.low - 1
        if pos >= 1:
            fits.add(base + pos - 1)
        while pos >= 1:
            k = base + pos - 1
            out.add(k)
            if not hand[k]:
                if pos >= 2:
                    gap.add(k - 1)
                break
            pos -= 1
        pos = m.low + len(m.cards)
        if pos <= MAX_POS:
            fits.add(base + (0 if pos == MAX_POS else pos - 1))
        while pos <= MAX_POS:
            k = base + (0 if pos == MAX_POS else pos - 1)
            out.add(k)
            if not hand[k]:
                if pos < MAX_POS:
                    gap.add(base + (0 if pos + 1 == MAX_POS else pos))
                break
            pos += 1
    if table:
        out.add(JOKER)
        fits.add(JOKER)
    return out, gap, fits


def fit_kinds(table: list[Any]) -> set[int]:
    """The cards that fit a table meld end now (a group's rank, the positions just outside a run; the joker when
    any meld is on the table): ``layoff_fits`` for the contract profile's rules (no group maximum)."""
    out: set[int] = set()
    for m in table:
        if m.kind == GROUP:
            q = m.rank - 1
            out.update((q, q + 13, q + 26, q + 39))
            continue
        base = m.suit * NUM_RANKS
        lo, hi = m.low - 1, m.low + len(m.cards)
        if lo >= 1:
            out.add(base + lo - 1)
        if hi <= MAX_POS:
            out.add(base + (0 if hi == MAX_POS else hi - 1))
    if table:
        out.add(JOKER)
    return out


def run_neighbours(hand: list[int], kind: int) -> float:
    """Same-suit cards of ``hand`` one (1.0) or two (0.6) positions from ``kind`` (the heuristic's measure)."""
    if kind == JOKER:
        return 100.0
    suit, q = divmod(kind, NUM_RANKS)
    base = suit * NUM_RANKS
    best = 0.0
    for p in (1, MAX_POS) if q == 0 else (q + 1,):
        near = 0.0
        for d, w in ((1, 1.0), (2, 0.6)):
            for p2 in (p - d, p + d):
                if 1 <= p2 <= MAX_POS and hand[base + (0 if p2 == MAX_POS else p2 - 1)]:
                    near += w
        best = max(best, near)
    return best


def feed_risk(st: Any, p: int, fits: Any) -> Any:
    """The heuristic's ``feeds_next`` for seat ``p``, as a function of the card: the risk that the next player takes
    it -- it fits the table (``fits``) and he is down, or he publicly collects its rank (group contracts) or its suit
    nearby (run contracts); 1 for a joker. Made once per decision (the next player's known cards read once)."""
    nxt = (p + 1) % st.n
    table = fits if (st.opened[nxt] and not st._final) else ()
    known = st.known[nxt]
    ranks: set[int] = set()
    near: set[int] = set()
    if any(known):
        g, r = st._contract
        for k in compress(range(JOKER), known):
            suit, q = divmod(k, NUM_RANKS)
            if g:
                ranks.add(q)
            if r:
                near.update(suit * NUM_RANKS + q + d for d in (-2, -1, 1, 2) if 0 <= q + d < NUM_RANKS)

    def risk(kind: int) -> float:
        if kind == JOKER:
            return 1.0
        return (1.0 if kind in table else 0.0) + (1.0 if kind % NUM_RANKS in ranks else 0.0) + (
            0.7 if kind in near else 0.0)

    return risk


class FastContractPolicy:
    """The contract heuristic's rules on cheap measures (module docstring): ``decide(state, legal) -> action`` for
    the engine state's player to move. Keeps a memo of hand measures (a pure cache): share one instance across
    the rollouts of a search."""

    def __init__(self) -> None:
        self._memo: dict[Any, tuple[float, tuple[int, ...]]] = {}
        self._groups: dict[tuple[int, ...], tuple[list[int], int, bool]] = {}  # (g, *hand): rank counts, g-th, short
        self._rules: Any = None

    # hand measures ------------------------------------------------------------------------------------------
    def cost(self, hand: list[int], g: int, r: int) -> float:
        """Missing cards to the contract (``g`` groups, ``r`` runs) of ``hand`` before it is down."""
        if r == 0:
            return group_missing(_rank_counts(hand), g, hand[JOKER])
        return self._structure(hand, g, r)[0]

    def _structure(self, hand: list[int], g: int, r: int) -> tuple[float, tuple[int, ...]]:
        """(cost, cards used) of the memoised flat-weight ``contract_structure`` (contracts with runs)."""
        key = (tuple(hand), g, r)
        got = self._memo.get(key)
        if got is None:
            if len(self._memo) > 50_000:
                self._memo.clear()
            s = contract_structure(hand, g, r, _FLAT_LIVE, self._rules, max_windows=6)
            got = self._memo[key] = (s.cost, s.used)
        return got

    def _gains(self, st: Any, p: int, card: int) -> bool:
        """Before opening: does ``card`` lower the missing cards of ``p``'s hand by a whole card (``take_gain``)?"""
        hand = st.hands[p]
        g, r = st._contract
        if r == 0:
            key = (g, *hand)  # a hand is asked again at each buy window until it changes: memoised
            summary = self._groups.get(key)
            if summary is None:
                if len(self._groups) > 50_000:
                    self._groups.clear()
                n = _rank_counts(hand)
                vals = list(map(_FIRST.__getitem__, n))
                if g > 1:
                    vals += map(_SECOND.__getitem__, n)
                vals.sort()
                summary = self._groups[key] = (n, vals[g - 1], sum(vals[:g]) > hand[JOKER])
            n, gth, short = summary
            if card == JOKER or not short:
                return short
            c = n[card % NUM_RANKS]  # ``group_gain`` on the memoised multiset
            return c < 6 and (_FIRST[c] if c < 3 else _SECOND[c]) <= gth
        before = self.cost(hand, g, r)
        if before == 0:
            return False
        hand[card] += 1  # measured in place and restored: the engine's list is not kept
        try:
            after = self.cost(hand, g, r)
        finally:
            hand[card] -= 1
        return after <= before - _STYLE.take_gain

    def _danger(self, st: Any, p: int) -> float:
        """The heuristic's ``danger``: the round's age, opponents down, extra cards in hand."""
        opened = sum(st.opened) - st.opened[p]
        extra = max(0, st.hand_size[p] - st.rules.hand_sizes[st.rounds[st.round_index] - 1])
        return st.turn / _STYLE.danger_turns + _STYLE.danger_per_opened * opened + _STYLE.danger_per_extra_card * extra

    # decisions ----------------------------------------------------------------------------------------------
    def decide(self, st: Any, legal: list[int]) -> int:
        """The chosen action among ``legal`` (the engine's legal actions, more than one) for ``st.current_player``."""
        self._rules = st.rules
        phase = st.phase
        p = st.current_player
        lay = st.layout
        if phase == _BUY:
            return lay.BUY if lay.BUY in legal and self._worth_buying(st, p) else lay.PASS
        if phase == _DRAW:
            if lay.DRAW_DISCARD in legal and self._wants(st, p, st.discard[-1]):
                return lay.DRAW_DISCARD
            return lay.DRAW_STOCK
        if phase == _PLACE:
            return legal[0]
        if phase == _OPENING:
            return self._opening_meld(st, legal)
        if st._final:
            return lay.GO_OUT if lay.GO_OUT in legal else self._discard_final(st, p, legal)
        if not st.opened[p]:
            if legal[0] < lay.LAY_OFF and legal[0] >= lay.MELD:
                return self._opening_meld(st, legal)
            return self._discard_before_opening(st, p, legal)
        return self._act_opened(st, p, legal)

    def _wants(self, st: Any, p: int, card: int) -> bool:
        """Take the discard top: it fills a missing card, or (opened) fits the table now, or (round 7) sits next to
        a same-suit card of the hand."""
        if st._final:
            return card == JOKER or run_neighbours(st.hands[p], card) >= 1.0
        if st.opened[p]:
            return card in fit_kinds(st.table)
        return self._gains(st, p, card)

    def _worth_buying(self, st: Any, p: int) -> bool:
        """Buy (before opening) a card that fills a missing card while the round is young enough."""
        if st.opened[p]:
            return False
        card = st.discard[-1]
        danger = self._danger(st, p)
        if st._final:
            return danger < _STYLE.buy_danger and run_neighbours(st.hands[p], card) >= 1.6
        if danger >= _STYLE.buy_danger_if_completes or not self._gains(st, p, card):
            return False
        if danger < _STYLE.buy_danger:
            return True
        g, r = st._contract  # between the two dangers: only a card that completes the contract
        hand = st.hands[p]
        hand[card] += 1
        try:
            return self.cost(hand, g, r) == 0
        finally:
            hand[card] -= 1

    def _opening_meld(self, st: Any, legal: list[int]) -> int:
        """The legal meld with the fewest jokers, then the dearest natural cards (they leave the hand)."""
        lay = st.layout
        best, best_key = -1, None
        n_groups = len(lay.groups)
        for a in legal:
            if not lay.MELD <= a < lay.LAY_OFF:
                continue
            i = a - lay.MELD
            kinds = lay.meld_kinds[i]
            jokers = kinds.count(JOKER)
            key = (jokers, -sum(PENALTY[k] for k in kinds if k != JOKER), i >= n_groups, a)
            if best_key is None or key < best_key:
                best, best_key = a, key
        return best if best >= 0 else legal[0]

    def _act_opened(self, st: Any, p: int, legal: list[int]) -> int:
        """Opened: lay off the dearest natural, swap for a joker, lay off a joker, then discard."""
        lay = st.layout
        best, best_key = -1, None
        for a in legal:
            if a >= lay.DISCARD:
                break
            if lay.LAY_OFF <= a < lay.SWAP:
                kind = lay.decode_lay_off(a)[0]
                key = (2, PENALTY[kind], -a) if kind != JOKER else (0, 0, -a)
            elif lay.SWAP <= a < lay.PLACE:
                key = (1, 0, -a)
            else:
                continue
            if best_key is None or key > best_key:
                best, best_key = a, key
        if best >= 0:
            return best
        hand = st.hands[p]
        reach, gap, fits = reach_kinds(st.table, hand)

        feeds = feed_risk(st, p, fits)

        def score(k: int) -> float:
            if k == JOKER:
                return -100.0
            keep = (4.0 if k in reach else 0.0) + (0.5 if k in gap else 0.0)
            return PENALTY[k] / 5.0 - keep - _STYLE.feed_weight * feeds(k)

        return self._pick_discard(lay, legal, score)

    def _discard_before_opening(self, st: Any, p: int, legal: list[int]) -> int:
        """A card outside the contract target, the least useful weighted by its penalty, not feeding the next
        player (the heuristic's ``discard_by_priority``); if every card is in the target, the cheapest loss."""
        lay = st.layout
        hand = st.hands[p]
        g, r = st._contract
        opened = sum(st.opened) - st.opened[p]
        pen_weight = _STYLE.penalty_weight * (1 + opened)
        fits = fit_kinds(st.table)
        feeds = feed_risk(st, p, fits)
        live = live_ranks(st, p)
        if r == 0:
            n = _rank_counts(hand)
            _, ranks = group_target(n, g, hand[JOKER], rank_w=[_SLOT_W[x] if x < 16 else 1.0 for x in live])
            target_ranks = set(ranks)
            spare_of = {q: n[q] - 3 * ranks.count(q) for q in target_ranks}

            def is_spare(k: int) -> bool:
                q = k % NUM_RANKS
                return q not in target_ranks or spare_of[q] > 0
        else:
            _, used = self._structure(hand, g, r)
            target_ranks = set()

            def is_spare(k: int) -> bool:
                return hand[k] > used[k]

        def score(k: int) -> float:
            if k == JOKER:
                return -100.0
            q = k % NUM_RANKS
            keep = 0.0
            if g:
                same = n_rank(q) - 1
                keep += _STYLE.pair_keep * (same if same < 2 else 2) * min(1.0, live[q] / 2.0)
            if r:
                keep += run_neighbours(hand, k)
            if q in target_ranks or k in fits:
                keep += _STYLE.attach_keep
            return pen_weight * PENALTY[k] - keep - _STYLE.feed_weight * feeds(k)

        def n_rank(q: int) -> int:
            return hand[q] + hand[q + 13] + hand[q + 26] + hand[q + 39]

        kinds = [a - lay.DISCARD for a in legal if a >= lay.DISCARD and a < lay.DISCARD + NUM_KINDS]
        spare = [k for k in kinds if k != JOKER and is_spare(k)]
        if not spare:
            spare = kinds
        return self._pick_discard(lay, [lay.DISCARD + k for k in spare], score)

    def _discard_final(self, st: Any, p: int, legal: list[int]) -> int:
        """Round 7: the card with the fewest same-suit neighbours, the dearest first."""
        hand = st.hands[p]
        return self._pick_discard(st.layout, legal, lambda k: PENALTY[k] / 10.0 - run_neighbours(hand, k))

    @staticmethod
    def _pick_discard(lay: Any, legal: Any, score: Any) -> int:
        """The discard action of the highest-scoring kind among ``legal`` (ties: the lowest card)."""
        best, best_score = -1, 0.0
        base = lay.DISCARD
        for a in legal:
            if base <= a < base + NUM_KINDS:
                s = score(a - base)
                if best < 0 or s > best_score + 1e-9:
                    best, best_score = a, s
        return best if best >= 0 else legal[-1]


def play_out(st: Any, policy: FastContractPolicy, round_index: int, max_decisions: int = 10_000) -> int:
    """Play ``st`` on in place with ``policy`` at every seat until round ``round_index`` is over (or the session,
    or ``max_decisions``); the decisions played."""
    results = st.round_results
    done = 0
    decide = policy.decide
    while done < max_decisions and len(results) <= round_index and st.current_player >= 0:
        legal = st.legal_actions()
        st.apply_legal(legal[0] if len(legal) == 1 else decide(st, legal))
        done += 1
    return done


class FastRolloutBot:
    """The profile's fast rollout policy (``FAST_POLICIES``: contract, continental) as a bot
    (``py:rummy_env.bots.rollout.FastRolloutBot`` in a tournament): it decides on the canonical position of its seat
    (``search.canonical_json``: the hidden cards redealt in a fixed order), so it reads nothing its seat cannot see. For
    measuring a rollout policy against ``heuristic``."""

    name = "fast_rollout"

    def __init__(self, seed: int | None = 0):
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        """A new session (the policies draw no random numbers; their memos are pure caches)."""
        self.seed = seed
        self.policies: dict[str, Any] = {}

    def act(self, env: Any, agent: str) -> int:
        """The fast policy's legal action for ``agent`` (the player to move)."""
        raw = env.unwrapped
        view = raw.public_view(agent)
        if not view.legal:
            raise ValueError(f"{agent} has no legal action: it is not its decision")
        if len(view.legal) == 1:
            return int(view.legal[0])
        policy = self.policies.get(raw.profile)
        if policy is None:
            if raw.profile not in FAST_POLICIES:
                raise ValueError(f"no fast rollout policy for profile {raw.profile!r}; there is one for {sorted(FAST_POLICIES)}")
            policy = self.policies[raw.profile] = FAST_POLICIES[raw.profile]()
        st = canonical_state(raw, view.seat, seed=0)
        return int(policy.decide(st, st.legal_actions()))


#: the profiles with a fast rollout policy (a factory each); the others roll out with their heuristic
FAST_POLICIES: dict[str, Any] = {"contract": FastContractPolicy, "continental": FastContinentalPolicy}


__all__ = ["FastContractPolicy", "FastRolloutBot", "FAST_POLICIES", "play_out", "group_target", "group_missing", "group_gain", "fit_kinds", "reach_kinds", "live_ranks", "feed_risk", "run_neighbours"]
