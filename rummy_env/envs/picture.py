"""``render_mode="rgb_array"``: a picture of the table from one seat, as an ``H x W x 3`` ``uint8`` numpy array.

PettingZoo classic's convention: ``env = rummy_env.make("contract", render_mode="rgb_array")``, then
``env.render()`` returns a frame for Gymnasium / PettingZoo video recorders (``render_fps`` in the metadata). The
frame is drawn from the *public view* of the viewing seat (``env.unwrapped.public_view(agent)``), never from the
engine's private state, so it shows exactly what that seat may know:

* a header: profile, round (deal) and its contract, turn, dealer, whose decision it is and which one;
* one band per seat: its hand size, with the cards nobody may see drawn face down and the cards publicly known to
  be in that hand (picked up from the discard pile or bought) face up, whether it opened, its score (penalties or
  balance) and its melds on the table (Contract-family profiles), jokers marked with the card they stand for;
* the stock (face down, with its size), the discard pile's top and size, the card offered in a buy window;
* the viewing seat's own hand, face up, at the bottom.

The viewing seat is the seat whose decision it is (seat 0 once the session is over); set
``env.unwrapped.render_seat = p`` to watch the whole game from seat ``p`` (``None`` again: the seat to move).
``draw_view(view)`` draws any public view (e.g. one kept from an earlier step). Every text fits its box: where
the full wording would not (a seat's ``15 cards, balance -12, first turn to come``, a long score), a shorter one
is chosen (``fit_text``), and a text that still does not fit ends in ``…`` instead of being cut mid-word.

Drawing uses numpy only, with glyphs rasterised once per process from the DejaVu Sans Mono font that ships with
matplotlib (a package dependency; its Agg canvas draws the glyph sheet): a frame is a copy of a cached background
plus alpha-blended glyph strips and filled rectangles, a few milliseconds per frame (``python -m
rummy_env.envs.picture`` prints the figure for each profile; ``python -m rummy_env.envs.picture FILE.png`` writes
the sample frame in docs/guides/watching.md).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from .. import bots
from ..core.cards import JOKER, NUM_RANKS, RANKS, SUIT_SYMBOLS
from ..registry import GAMES, game
from ..rules.continental import RUN_LENGTH_PATTERNS

#: frame size (width, height): multiples of 16, as video encoders prefer
WIDTH, HEIGHT = 1024, 720
#: the characters the glyph sheet holds (anything else is drawn as ``?``)
CHARSET = "".join(chr(c) for c in range(32, 127)) + SUIT_SYMBOLS + "·>—×…"

FELT = (22, 92, 52)
PANEL = (16, 70, 40)
TEXT = (240, 240, 230)
DIM = (170, 200, 175)
GOLD = (250, 210, 80)
CARD_FACE = (250, 250, 245)
CARD_EDGE = (60, 60, 60)
CARD_BACK = (40, 70, 150)
CARD_BACK_EDGE = (200, 210, 240)
KNOWN_EDGE = (250, 210, 80)
RED = (200, 30, 40)
BLACK = (20, 20, 20)
JOKER_INK = (130, 40, 160)

#: pixel sizes of the two fonts (line heights follow from the glyph sheet)
SMALL, LARGE = 13, 17


class RenderSeatError(ValueError):
    """``render_seat`` is not a seat of the table."""


class _Font:
    """A monospace glyph sheet: one alpha mask per character of ``CHARSET``, all of one size."""

    def __init__(self, px: int):
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
        from matplotlib.font_manager import FontProperties

        cell = 2 * px
        fig = Figure(figsize=(len(CHARSET) * cell / 100, cell / 100), dpi=100)
        fig.patch.set_facecolor("black")
        prop = FontProperties(family="DejaVu Sans Mono", size=px * 72 / 100)
        base = int(cell * 0.35)
        for i, ch in enumerate(CHARSET):
            fig.text(i * cell + 4, base, ch, fontproperties=prop, color="white", transform=None,
                     ha="left", va="baseline")  # fmt: skip
        canvas = FigureCanvasAgg(fig)
        canvas.draw()
        sheet = np.asarray(canvas.buffer_rgba())[..., 0].astype(np.float32) / 255.0
        rows = np.flatnonzero(sheet.max(axis=1) > 0.05)
        top, bottom = int(rows.min()), int(rows.max()) + 1
        #: advance per character (DejaVu Sans Mono: 0.602 em)
        self.advance = max(1, round(px * 0.602))
        self.height = bottom - top
        self.glyphs = {
            ch: np.ascontiguousarray(sheet[top:bottom, i * cell + 4 : i * cell + 4 + self.advance])
            for i, ch in enumerate(CHARSET)
        }

    def strip(self, text: str) -> np.ndarray:
        """The alpha mask of ``text`` on one line."""
        g = self.glyphs
        unknown = g["?"]
        return np.concatenate([g.get(ch, unknown) for ch in text], axis=1)

    def width(self, text: str) -> int:
        """Pixel width of ``text``."""
        return len(text) * self.advance


@lru_cache(maxsize=8)
def _font(px: int) -> _Font:
    return _Font(px)


def fit_text(max_width: int, *wordings: str, px: int = SMALL) -> str:
    """The first of ``wordings`` (the fullest first) that is at most ``max_width`` pixels wide in the ``px`` font;
    when none is, the last one cut to fit with a closing ``…`` (empty if not even that fits)."""
    font = _font(px)
    for text in wordings:
        if font.width(text) <= max_width:
            return text
    room = max_width // font.advance
    return wordings[-1][: room - 1] + "…" if room >= 2 else ""


class Canvas:
    """An RGB ``uint8`` image with the few drawing operations a table picture needs."""

    def __init__(self, image: np.ndarray):
        self.img = image

    def rect(self, x: int, y: int, w: int, h: int, color: tuple[int, int, int]) -> None:
        """Fill a rectangle (clipped to the image)."""
        H, W = self.img.shape[:2]
        x0, y0, x1, y1 = max(0, x), max(0, y), min(W, x + w), min(H, y + h)
        if x1 > x0 and y1 > y0:
            self.img[y0:y1, x0:x1] = np.asarray(color, dtype=np.uint8)

    def box(self, x: int, y: int, w: int, h: int, fill: tuple[int, int, int], edge: tuple[int, int, int]) -> None:
        """A filled rectangle with a one-pixel border."""
        self.rect(x, y, w, h, edge)
        self.rect(x + 1, y + 1, w - 2, h - 2, fill)

    def frame(self, x: int, y: int, w: int, h: int, color: tuple[int, int, int], width: int = 1) -> None:
        """The outline of a rectangle, ``width`` pixels thick."""
        self.rect(x, y, w, width, color)
        self.rect(x, y + h - width, w, width, color)
        self.rect(x, y, width, h, color)
        self.rect(x + w - width, y, width, h, color)

    def blit(self, x: int, y: int, tile: np.ndarray) -> None:
        """Copy an RGB ``tile`` with its top-left corner at ``(x, y)`` (clipped to the image)."""
        H, W = self.img.shape[:2]
        h, w = tile.shape[:2]
        x0, y0, x1, y1 = max(0, x), max(0, y), min(W, x + w), min(H, y + h)
        if x1 > x0 and y1 > y0:
            self.img[y0:y1, x0:x1] = tile[y0 - y : y1 - y, x0 - x : x1 - x]

    def text(self, x: int, y: int, text: str, color: tuple[int, int, int] = TEXT, px: int = SMALL,
             max_width: int | None = None) -> int:  # fmt: skip
        """Draw ``text`` with its top-left corner at ``(x, y)`` on the flat colour found at that corner; returns its
        width. Text wider than ``max_width`` pixels is cut with a closing ``…`` (``fit_text``: the frame's own texts
        choose a wording that fits, so this is a last resort)."""
        if max_width is not None:
            text = fit_text(max_width, text, px=px)
        if not text:
            return 0
        H, W = self.img.shape[:2]
        if not (0 <= x < W and 0 <= y < H):
            return 0
        bg = tuple(int(c) for c in self.img[y, x])
        tile = _text_tile(text, tuple(color), px, bg)
        self.blit(x, y, tile)
        return tile.shape[1]


@lru_cache(maxsize=8192)
def _text_tile(text: str, color: tuple[int, ...], px: int, bg: tuple[int, ...]) -> np.ndarray:
    """``text`` in ``color`` on a flat ``bg``, as an RGB tile (cached: most strings recur frame after frame)."""
    a = _font(px).strip(text)[..., None]
    bgf = np.asarray(bg, dtype=np.float32)
    tile = (bgf + (np.asarray(color, dtype=np.float32) - bgf) * a).astype(np.uint8)
    tile.flags.writeable = False
    return tile


# cards ----------------------------------------------------------------------------------------------------------
def _ink(kind: int) -> tuple[int, int, int]:
    if kind == JOKER:
        return JOKER_INK
    return RED if kind // NUM_RANKS in (1, 2) else BLACK


def _face_text(kind: int) -> tuple[str, str]:
    """Rank and suit texts of a card face."""
    if kind == JOKER:
        return "JK", ""
    return RANKS[kind % NUM_RANKS], SUIT_SYMBOLS[kind // NUM_RANKS]


def draw_card(cv: Canvas, x: int, y: int, kind: int, w: int, h: int, stands_for: str = "",
              edge: tuple[int, int, int] = CARD_EDGE) -> None:  # fmt: skip
    """A card face: rank over suit (a joker: ``JK`` over the card it stands for, when it is on the table)."""
    cv.blit(x, y, _card_tile(kind, w, h, stands_for, edge))


def draw_back(cv: Canvas, x: int, y: int, w: int, h: int) -> None:
    """A card face down."""
    cv.blit(x, y, _back_tile(w, h))


@lru_cache(maxsize=4096)
def _card_tile(kind: int, w: int, h: int, stands_for: str, edge: tuple[int, int, int]) -> np.ndarray:
    tile = Canvas(np.zeros((h, w, 3), dtype=np.uint8))
    tile.box(0, 0, w, h, CARD_FACE, edge)
    px = LARGE if w >= 34 else SMALL
    rank, suit = _face_text(kind)
    ink = _ink(kind)
    tile.text(3, 2, rank, ink, px)
    line = _font(px).height
    if suit:
        tile.text(3, 2 + line, suit, ink, px)
    elif stands_for:  # what a joker stands for, in the largest font that fits the card (``10♥`` on a mini card)
        small = next((p for p in (SMALL, 11, 10, 9) if _font(p).width(stands_for) <= w - 3), 9)
        tile.text(2, 2 + line, stands_for, ink, small, max_width=w - 3)
    tile.img.flags.writeable = False
    return tile.img


@lru_cache(maxsize=64)
def _back_tile(w: int, h: int) -> np.ndarray:
    tile = Canvas(np.zeros((h, w, 3), dtype=np.uint8))
    tile.box(0, 0, w, h, CARD_BACK, CARD_BACK_EDGE)
    tile.rect(3, 3, w - 6, h - 6, (60, 95, 180))
    tile.img.flags.writeable = False
    return tile.img


def _step(n: int, width: int, avail: int, gap: int = 3) -> int:
    """The advance between ``n`` cards of ``width`` pixels in ``avail`` pixels (they overlap when short of room)."""
    if n <= 1:
        return width + gap
    return max(4, min(width + gap, (avail - width) // (n - 1)))


def _kinds(counts: tuple[int, ...] | list[int]) -> list[int]:
    return [k for k, c in enumerate(counts) for _ in range(c)]


def _meld_faces(m: Any) -> list[tuple[int, str]]:
    """(kind, what a joker stands for) per card of a table meld (``TableMeld`` or ``Meld``)."""
    out = []
    if m.kind == "group":
        j = 0
        for k in m.cards:
            if k == JOKER:
                s = m.jsuits[j] if j < len(m.jsuits) else -1
                j += 1
                out.append((k, RANKS[m.rank - 1] + (SUIT_SYMBOLS[s] if s >= 0 else "")))
            else:
                out.append((k, ""))
        return out
    for i, k in enumerate(m.cards):
        pos = m.low + i
        out.append((k, (RANKS[0] if pos == 14 else RANKS[pos - 1]) + SUIT_SYMBOLS[m.suit] if k == JOKER else ""))
    return out


# the picture ----------------------------------------------------------------------------------------------------
#: layout: top of the first seat band, the seats' column width, where the melds and the piles start
TOP, LEFT_W, X_MELDS, RIGHT_X = 50, 250, 262, 800


def _band(num_players: int) -> int:
    """Height of one seat band."""
    return min(88, (470 - TOP) // num_players)


@lru_cache(maxsize=8)
def _background(num_players: int) -> np.ndarray:
    """The felt with every seat band drawn inactive (a frame starts as a copy of it)."""
    cv = Canvas(np.empty((HEIGHT, WIDTH, 3), dtype=np.uint8))
    cv.img[:] = FELT
    band = _band(num_players)
    for p in range(num_players):
        cv.box(6, TOP + p * band, RIGHT_X - 14, band - 6, PANEL, PANEL)
    cv.img.flags.writeable = False
    return cv.img


def round_text(number: int, rounds: tuple[int, ...]) -> str:
    """``round 2 of 7``; a session of chosen rounds: ``round 6 (2 of 3 played)``."""
    if tuple(rounds) == tuple(range(1, len(rounds) + 1)):
        return f"round {number} of {len(rounds)}"
    k = rounds.index(number) + 1 if number in rounds else 0
    return f"round {number} ({k} of {len(rounds)} played)"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def draw_view(view: Any, winners: list[int] | None = None) -> np.ndarray:
    """The picture of a public view (``PublicView`` or ``ContinentalView``): an ``HEIGHT x WIDTH x 3`` uint8 array.

    Only the view's fields are drawn, so two states that look the same from the view's seat give the same frame.
    ``winners``: the session's winners, shown once it is over."""
    v = view
    continental = hasattr(v, "num_deals")
    img = _background(v.num_players).copy()
    cv = Canvas(img)
    _draw_header(cv, v, continental, winners)
    band = _band(v.num_players)
    for p in range(v.num_players):
        _draw_seat_band(cv, v, continental, p, TOP + p * band, band)
    _draw_piles(cv, v, continental)
    _draw_viewer_hand(cv, v, continental)
    return img


def _draw_header(cv: Canvas, v: Any, continental: bool, winners: list[int] | None) -> None:
    """The title (profile, round, contract), the status line and the viewing seat."""
    sp, lp = _font(SMALL), _font(LARGE)
    if continental:
        title = f"{v.profile} · deal {v.round} of {v.num_deals}"
    else:
        g, r = v.contract
        title = f"{v.profile} · {round_text(v.round, v.rounds)} · contract {_plural(g, 'group')} + {_plural(r, 'run')}"
    viewing = f"viewing seat P{v.seat}"
    viewing_x = WIDTH - 10 - sp.width(viewing)
    cv.text(10, 8, title, GOLD, LARGE, max_width=viewing_x - 20)
    if v.session_over:
        who = ", ".join(f"P{p}" for p in winners) if winners else "-"
        status = f"session over · winner(s) {who}"
    else:
        status = f"turn {v.turn} · dealer P{v.dealer} · decision: P{v.current} ({v.phase})"
        if v.current != v.active:
            status += f" · turn of P{v.active}"
    cv.text(10, 10 + lp.height, status, TEXT, SMALL, max_width=WIDTH - 20)
    cv.text(viewing_x, 10, viewing, DIM, SMALL)


def _draw_seat_band(cv: Canvas, v: Any, continental: bool, p: int, y: int, band: int) -> None:
    """Seat ``p``'s band at height ``y``: name, counts, its hand (known cards face up) and, by owner, its melds."""
    sp, lp = _font(SMALL), _font(LARGE)
    left_w, x_melds, right_x = LEFT_W, X_MELDS, RIGHT_X
    mini_w, mini_h = 22, 32
    active = p == v.current and not v.session_over
    if active:
        cv.frame(6, y, right_x - 14, band - 6, GOLD, 2)
    name = f"P{p}" + (" (viewer)" if p == v.seat else "")
    cv.text(14, y + 5, (">" if active else " ") + name, GOLD if active else TEXT, LARGE)
    cards = _plural(v.hand_sizes[p], "card")
    if continental:  # no melds: the line may run on over the melds column
        first = v.turns_taken[p] == 0 and not v.session_over
        more = (", first turn to come", ", first turn next", ", 1st turn next") if first else ("",)
        wordings = [f"{cards}, balance {v.scores[p]}{m}" for m in more]
        wordings.append(f"{cards}, bal {v.scores[p]}{more[-1]}")
        room = right_x - 28
    else:
        opened = "opened" if v.opened[p] else "not opened"
        wordings = [f"{cards}, score {v.scores[p]}, {opened}", f"{cards}, {v.scores[p]} pts, {opened}",
                    f"{cards}, {v.scores[p]} pts, {'down' if v.opened[p] else 'not down'}"]  # fmt: skip
        room = x_melds - 14 - 8
    cv.text(14, y + 8 + lp.height, fit_text(room, *wordings), DIM, SMALL, max_width=room)
    # the hand: known cards face up, the rest face down (the viewer's own hand is drawn below)
    yc = y + 12 + lp.height + sp.height
    ch = max(14, min(mini_h, band - (yc - y) - 10))
    known = [] if p == v.seat else _kinds(v.known[p])
    hidden = 0 if p == v.seat else max(0, v.hand_sizes[p] - len(known))
    total = len(known) + hidden
    if total:
        step = _step(total, mini_w, left_w - 14, gap=2)
        x = 14
        for _ in range(hidden):
            draw_back(cv, x, yc, mini_w, ch)
            x += step
        for k in known:
            draw_card(cv, x, yc, k, mini_w, ch, edge=KNOWN_EDGE)
            x += step
    elif p == v.seat:
        cv.text(14, yc + 2, "(hand below)", DIM, SMALL)
    # melds by owner
    if not continental:
        melds = v.seat_melds[p]
        if melds:
            _draw_melds(cv, melds, x_melds, y + 6, right_x - 14 - x_melds, band - 16, mini_w, mini_h)
        else:
            cv.text(x_melds, y + 8, "no melds", DIM, SMALL)


def _draw_piles(cv: Canvas, v: Any, continental: bool) -> None:
    """The stock and the discard pile, then the notes on the table (buy window, taken card, opening, wilds)."""
    sp = _font(SMALL)
    top = TOP
    x = RIGHT_X + 10
    cv.text(x, top, "stock", DIM, SMALL)
    if v.stock_size:
        draw_back(cv, x, top + sp.height + 4, 48, 68)
    cv.text(x, top + sp.height + 76, _plural(v.stock_size, "card"), TEXT, SMALL)
    x2 = x + 100
    cv.text(x2, top, "discard", DIM, SMALL)
    if v.discard:
        draw_card(cv, x2, top + sp.height + 4, v.discard[-1], 48, 68)
    cv.text(x2, top + sp.height + 76, _plural(len(v.discard), "card"), TEXT, SMALL)
    y = top + sp.height + 100
    notes: list[str | tuple[str, ...]] = []  # a tuple: wordings, the fullest first (``fit_text``)
    offered = getattr(v, "offered", -1)
    if offered >= 0:
        notes.append(f"buy window: {_card_text(offered)} offered")
    if v.taken_discard >= 0:
        notes.append(f"P{v.active} took {_card_text(v.taken_discard)} from the pile")
    must_place = getattr(v, "must_place", -1)
    if must_place >= 0:
        notes.append(f"{_card_text(must_place)} must reach the table")
    if not continental and v.opening_left:
        g, r = v.opening_left
        notes.append(f"opening: {g}g + {r}r to lay")
    if continental:
        notes.append("wild: every 2 and JK")
    notes.append(("gold edge: publicly known card", "gold edge: known card"))
    room = WIDTH - x - 6
    for note in notes:
        cv.text(x, y, fit_text(room, *note) if isinstance(note, tuple) else note, TEXT, SMALL, max_width=room)
        y += sp.height + 4


def _draw_viewer_hand(cv: Canvas, v: Any, continental: bool) -> None:
    """The viewing seat's own hand, face up, along the bottom (and, at continental, the deal's run patterns)."""
    lp = _font(LARGE)
    y = 480
    hand = _kinds(v.hand)
    cv.text(10, y, f"hand of P{v.seat} ({_plural(len(hand), 'card')})", GOLD, LARGE, max_width=WIDTH - 20)
    cw, chh = 44, 64
    step = _step(len(hand), cw, WIDTH - 20, gap=4)
    x = 10
    yc = y + lp.height + 8
    for k in hand:
        draw_card(cv, x, yc, k, cw, chh)
        x += step
    if continental:
        pats = getattr(v.rules, "patterns", RUN_LENGTH_PATTERNS)
        text = "go out with runs of " + " / ".join("+".join(map(str, pt)) for pt in pats)
        cv.text(10, yc + chh + 12, text, DIM, SMALL, max_width=WIDTH - 20)


def _card_text(kind: int) -> str:
    rank, suit = _face_text(kind)
    return rank + suit


def _draw_melds(cv: Canvas, melds: Any, x0: int, y0: int, avail_w: int, avail_h: int, w: int, h: int) -> None:
    """Melds left to right, wrapping to a second row; cards overlap when a row is short of room."""
    gap = 10
    rows_fit = max(1, (avail_h + 4) // (h + 4))
    faces = [_meld_faces(m) for m in melds]
    step = w + 1
    while step > 6:
        rows, x = 1, 0
        for f in faces:
            need = (len(f) - 1) * step + w
            if x and x + need > avail_w:
                rows, x = rows + 1, 0
            x += need + gap
        if rows <= rows_fit:
            break
        step -= 2
    x, y = x0, y0
    for f in faces:
        need = (len(f) - 1) * step + w
        if x > x0 and x - x0 + need > avail_w:
            x, y = x0, y + h + 4
        for k, stands in f:
            draw_card(cv, x, y, k, w, min(h, avail_h), stands_for=stands)
            x += step
        x += w - step + gap


def render_frame(env: Any) -> np.ndarray:
    """The ``rgb_array`` frame of a ``RummyAECEnv``: the table from ``env.render_seat`` (None: the seat to move;
    seat 0 once the session is over)."""
    seat = getattr(env, "render_seat", None)
    n = len(env.possible_agents)
    if seat is None:
        seat = env.current_seat if env.current_seat >= 0 else 0
    elif isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < n:
        raise RenderSeatError(f"render_seat={seat!r}; allowed: None (the seat to move) or a seat 0..{n - 1}")
    view = env.public_view(env.possible_agents[int(seat)])
    winners = env.results()["winners"] if view.session_over else None
    return draw_view(view, winners)


def _bench() -> None:  # pragma: no cover - a measurement, run by hand
    """Milliseconds per frame for each profile (a random game, the first 200 decisions)."""
    import time

    for profile in sorted(GAMES):
        env = game(profile).make_env(render_mode="rgb_array")  # ``rummy_env.make``
        env.reset(seed=0)
        env.render()  # the glyph sheets are drawn once
        rng = np.random.default_rng(0)
        frames, spent = 0, 0.0
        for _agent in env.agent_iter(max_iter=200):
            obs, _, term, trunc, _ = env.last()
            t = time.perf_counter()
            env.render()
            spent += time.perf_counter() - t
            frames += 1
            legal = np.flatnonzero(obs["action_mask"])
            env.step(None if term or trunc else int(rng.choice(legal)))
        print(f"{profile}: {1000 * spent / frames:.2f} ms per frame ({frames} frames, {WIDTH}x{HEIGHT})")


def sample_frame(path: str) -> None:  # pragma: no cover - writes docs/render_rgb_array.png
    """Write a PNG of a contract table with melds on it (heuristic bots, seed 4) from the seat to move."""
    from PIL import Image

    env = game("contract").make_env(render_mode="rgb_array", rounds=(1, 4, 7))  # ``rummy_env.make``
    env.reset(seed=4)
    players = [bots.load("heuristic", seed=i) for i in range(4)]
    for agent in env.agent_iter(max_iter=2000):
        view = env.unwrapped.public_view(agent)
        known = any(any(row) for p, row in enumerate(view.known) if p != view.seat)
        if sum(map(len, view.seat_melds)) >= 4 and known and view.phase == "draw":
            break
        env.step(int(players[env.unwrapped.current_seat].act(env, agent)))
    Image.fromarray(env.render()).save(path, optimize=True)


if __name__ == "__main__":  # pragma: no cover
    import sys

    if len(sys.argv) > 1:
        sample_frame(sys.argv[1])
    else:
        _bench()


__all__ = ["HEIGHT", "WIDTH", "RenderSeatError", "draw_view", "render_frame"]
