"""``render_mode="rgb_array"`` (``rummy_env.envs.picture``): an H x W x 3 uint8 frame of the table from the viewing
seat, on every profile and player count; it follows the game, depends on the public view only (the hidden cards
resampled give the same frame) and passes PettingZoo's ``render_test``."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from pettingzoo.test import render_test

import rummy_env
from rummy_env.bots.heuristic import POLICIES
from rummy_env.envs.picture import HEIGHT, WIDTH, RenderSeatError, draw_view
from rummy_env.registry import GAMES, game

CASES = [(profile, n) for profile, g in sorted(GAMES.items()) for n in g.player_counts]
IDS = [f"{p}-{n}p" for p, n in CASES]


def _config(profile: str, n: int) -> dict:
    g = game(profile)
    cfg: dict = {} if g.min_players == g.max_players else {"num_players": n}
    cfg["rounds"] = (1, 7) if g.family == "contract" else 1
    return cfg


def _play(env, steps: int, seed: int = 0) -> None:
    """``steps`` random legal decisions."""
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if env.unwrapped.session_over:
            return
        legal = np.flatnonzero(env.unwrapped.action_mask(env.agent_selection))
        env.step(int(rng.choice(legal)))


@pytest.mark.parametrize(("profile", "n"), CASES, ids=IDS)
def test_frames_are_rgb_arrays_that_follow_the_game(profile: str, n: int) -> None:
    env = rummy_env.make(profile, render_mode="rgb_array", **_config(profile, n))
    assert "rgb_array" in env.metadata["render_modes"] and "rgb_array" in env.unwrapped.metadata["render_modes"]
    env.reset(seed=2)
    first = env.render()
    assert isinstance(first, np.ndarray) and first.dtype == np.uint8 and first.shape == (HEIGHT, WIDTH, 3)
    assert first.std() > 10  # a picture, not a blank frame
    frames = [first]
    for _ in range(6):
        _play(env, 3, seed=len(frames))
        frames.append(env.render())
    changed = sum(not np.array_equal(a, b) for a, b in zip(frames, frames[1:]))
    assert changed == len(frames) - 1, "a frame did not change after three decisions"
    # the frame is the picture of the viewing seat's public view
    raw = env.unwrapped
    assert np.array_equal(env.render(), draw_view(raw.public_view(env.agent_selection)))


@pytest.mark.parametrize(("profile", "n"), CASES, ids=IDS)
def test_frame_does_not_depend_on_hidden_cards(profile: str, n: int) -> None:
    """Resampling every card a seat cannot see (opponents' hidden cards, the stock) leaves its frame identical."""
    g = game(profile)
    cfg = _config(profile, n)
    rules = g.rules(**({"num_players": n} if "num_players" in cfg else {}))
    st = g.new_state(rules, seed=9, rounds=cfg["rounds"] if g.family == "contract" else None)  # every deal
    rng = np.random.default_rng(1)
    policies = [POLICIES[profile](np.random.default_rng(40 + i)) for i in range(n)]
    checked = resampled = 0
    decisions = 0
    while not st.is_terminal() and decisions < 120:
        if decisions % 8 == 0:
            for seat in range(n):
                frame = draw_view(st.public_view(seat))
                other = st.resample_hidden(seat, rng)
                resampled += other.stock != st.stock
                assert np.array_equal(draw_view(other.public_view(seat)), frame), (seat, st.phase)
                checked += 1
        view = st.public_view(st.current_player)
        st.apply(policies[st.current_player].decide(view))
        decisions += 1
    assert checked >= 3 * n and resampled > checked // 2


def test_each_seat_sees_its_own_hand() -> None:
    """The frames of two seats at the same moment differ (each shows its own hand face up)."""
    env = rummy_env.make("contract", render_mode="rgb_array", rounds=(1,))
    env.reset(seed=0)
    raw = env.unwrapped
    frames = [draw_view(raw.public_view(a)) for a in raw.possible_agents]
    assert all(not np.array_equal(frames[0], f) for f in frames[1:])


def test_render_seat_fixes_the_viewpoint_and_is_checked() -> None:
    env = rummy_env.make("contract", render_mode="rgb_array", rounds=(1,))
    env.reset(seed=1)
    raw = env.unwrapped
    raw.render_seat = 3
    for _ in range(4):
        assert np.array_equal(env.render(), draw_view(raw.public_view("player_3")))
        _play(env, 2)
    raw.render_seat = None
    assert np.array_equal(env.render(), draw_view(raw.public_view(env.agent_selection)))
    for bad in (4, -1, "1", True):
        raw.render_seat = bad
        with pytest.raises(RenderSeatError, match="render_seat"):
            env.render()


def test_last_frame_of_a_finished_session() -> None:
    env = rummy_env.make("continental", render_mode="rgb_array", rounds=1)
    env.reset(seed=3)
    _play(env, 5000)
    assert env.unwrapped.session_over
    frame = env.render()
    assert frame.shape == (HEIGHT, WIDTH, 3)
    assert np.array_equal(frame, draw_view(env.unwrapped.public_view("player_0"), env.unwrapped.results()["winners"]))


@pytest.mark.parametrize("profile", sorted(GAMES))
def test_pettingzoo_render_test(profile: str) -> None:
    g = game(profile)
    render_test(lambda **kw: rummy_env.make(profile, **_config(profile, g.default_players), **kw))


def test_other_render_modes_are_unchanged() -> None:
    env = rummy_env.make("contract", render_mode="ansi", rounds=(1,))
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str) and "Round 1" in text and "Hand:" in text
    with pytest.raises(ValueError, match="rgb_array"):
        rummy_env.make("contract", render_mode="video")


def test_single_agent_env_renders_frames() -> None:
    from rummy_env.envs.wrappers import SingleAgentEnv

    env = SingleAgentEnv("contract", opponents=["random"], render_mode="rgb_array", rounds=(1,))
    assert "rgb_array" in env.metadata["render_modes"]
    env.reset(seed=0)
    frame = env.render()
    assert frame.shape == (HEIGHT, WIDTH, 3) and frame.dtype == np.uint8
    assert np.array_equal(frame, draw_view(env.aec.public_view(env.aec.agent_selection)))


def test_readme_gif_example_runs(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The watching guide's "Pictures and video" example (docs/guides/watching.md) writes a GIF of the frames."""
    import re
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "docs" / "guides" / "watching.md").read_text(encoding="utf-8")
    section = readme.split("## Pictures and video", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "watching-gif", "exec"), {})
    from PIL import Image

    with Image.open(tmp_path / "game.gif") as gif:
        assert gif.n_frames > 10 and gif.size == (WIDTH, HEIGHT)


def _drawn_texts(monkeypatch: pytest.MonkeyPatch, view) -> list[tuple[int, str, int, int | None]]:
    """Every ``Canvas.text`` call of ``draw_view(view)``: (x, text, font px, max_width)."""
    from rummy_env.envs import picture

    calls = []
    original = picture.Canvas.text

    def spy(self, x, y, text, color=picture.TEXT, px=picture.SMALL, max_width=None):
        calls.append((x, text, px, max_width))
        return original(self, x, y, text, color, px, max_width)

    monkeypatch.setattr(picture.Canvas, "text", spy)
    picture.draw_view(view)
    return calls


@pytest.mark.parametrize("profile", ["continental", "contract"])
def test_every_status_text_fits_its_box(monkeypatch: pytest.MonkeyPatch, profile: str) -> None:
    """Issue 38: the continental first-turn frame cut 'first turn to come' to 'first tur'. Every text the frame
    draws is measured with the module's own glyph widths: it fits the room it is given and the frame, so nothing is
    cut; the first-turn note is drawn whole."""
    from rummy_env.envs.picture import WIDTH, _font

    env = rummy_env.make(profile, render_mode="rgb_array", **_config(profile, 5 if profile == "continental" else 4))
    env.reset(seed=0)
    view = env.unwrapped.public_view(env.agent_selection)
    wide = (-1200, 2400, -400, -400, -400) if profile == "continental" else (1200, 2400, 1300, 1100)
    view = dataclasses.replace(view, scores=wide)  # the widest balances / scores of a long session
    calls = _drawn_texts(monkeypatch, view)
    for x, text, px, max_width in calls:
        width = _font(px).width(text)
        assert x + width <= WIDTH, text
        if max_width is not None:
            assert width <= max_width, (text, width, max_width)
    texts = [t for _, t, _, _ in calls]
    assert not any(t.endswith("…") for t in texts), texts
    if profile == "continental":
        assert sum("first turn to come" in t for t in texts) == 5  # no seat has had its first turn yet
    else:
        assert any("score 2400" in t or "2400 pts" in t for t in texts)
