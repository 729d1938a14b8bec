"""The web replay: one self-contained HTML page (inline CSS and JavaScript, the frames as inline JSON).

``write_html(log, path)`` re-plays the log (``rummy_env.replay.replay``: this validates it) and writes a page that
loads nothing from anywhere -- no script, style sheet, font or image from outside, no request at all -- so it opens
from disk, from an e-mail attachment or offline. The page steps through the frames: buttons and keys (right / left
arrow: next / previous position; page down / page up: next / previous round; home / end: first / last; space:
play / pause; ``h``: hide / show the hands), a slider, every seat's hand (or the card backs when hidden), the
table's melds by owner, the discard pile's top card, the stock, the move just made and the last moves, per-seat
buys, pickups and joker swaps of the round, the scores of every finished round and the final totals.
"""

from __future__ import annotations

import html
import json
import os
from pathlib import Path
from typing import Any

from ..core.files import refuse_overwrite, write_text_atomic
from .replay import Replay, replay

_CSS = """
:root { --bg: #0f3d2e; --felt: #15573f; --ink: #f3f1e8; --dim: #b9c9bf; --card: #fffdf6; --red: #c0262d;
        --black: #1b1b1b; --accent: #f2c14e; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.35 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
       background: var(--bg); color: var(--ink); }
header { padding: 10px 16px 4px; }
h1 { font-size: 18px; margin: 0 0 2px; }
.sub { color: var(--dim); font-size: 12px; }
#controls { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; padding: 6px 16px;
            position: sticky; top: 0; background: var(--bg); z-index: 2; border-bottom: 1px solid #0a2a20; }
button { background: #24694f; color: var(--ink); border: 1px solid #3c8a6c; border-radius: 5px;
         padding: 4px 10px; font: inherit; cursor: pointer; }
button:hover { background: #2f7d5f; }
button:focus-visible { outline: 2px solid var(--accent); }
#slider { flex: 1 1 200px; min-width: 120px; }
#step { min-width: 110px; text-align: right; font-variant-numeric: tabular-nums; }
.keys { color: var(--dim); font-size: 12px; padding: 0 16px 6px; }
main { display: grid; grid-template-columns: minmax(0, 3fr) minmax(260px, 1fr); gap: 12px; padding: 8px 16px 16px; }
@media (max-width: 900px) { main { grid-template-columns: 1fr; } }
#status { background: var(--felt); border-radius: 8px; padding: 8px 12px; margin-bottom: 10px; display: flex;
          flex-wrap: wrap; gap: 6px 18px; align-items: center; }
#status .label { color: var(--dim); }
#move { background: #20324a; border-radius: 8px; padding: 8px 12px; margin-bottom: 10px; min-height: 2.4em; }
#move.round-end { background: #5a3d12; }
#move.final { background: #5b1f4a; }
#seats { display: grid; grid-template-columns: repeat(auto-fill, minmax(330px, 1fr)); gap: 10px; }
.seat { background: var(--felt); border-radius: 8px; padding: 8px 10px; border: 2px solid transparent; }
.seat.to-move { border-color: var(--accent); }
.seat-head { display: flex; justify-content: space-between; gap: 8px; margin-bottom: 4px; }
.seat-name { font-weight: 600; }
.badge { font-size: 11px; padding: 1px 6px; border-radius: 9px; background: #0b2c21; color: var(--dim);
         margin-left: 4px; }
.badge.on { background: var(--accent); color: #222; }
.tally { color: var(--dim); font-size: 12px; margin-bottom: 4px; }
.hand, .meld { display: flex; flex-wrap: wrap; gap: 3px; min-height: 34px; align-items: center; }
.melds { margin-top: 6px; display: flex; flex-direction: column; gap: 4px; }
.meld { background: #0e4631; border-radius: 6px; padding: 3px 5px; }
.meld .kind { color: var(--dim); font-size: 11px; margin-right: 4px; width: 34px; }
.card { display: inline-flex; align-items: center; justify-content: center; min-width: 30px; height: 32px;
        padding: 0 4px; background: var(--card); color: var(--black); border-radius: 4px;
        border: 1px solid #999; font-weight: 700; font-size: 14px; }
.card.red { color: var(--red); }
.card.joker { color: #6a2bb0; }
.card.wild small { font-weight: 400; font-size: 10px; margin-left: 2px; color: #6a2bb0; }
.card.known { box-shadow: 0 0 0 2px var(--accent); }
.card.back { background: repeating-linear-gradient(45deg, #2a4d8f, #2a4d8f 4px, #3b62a8 4px, #3b62a8 8px);
             border-color: #1c335f; min-width: 22px; }
.card.legend { min-width: 0; height: 18px; font-size: 11px; padding: 0 3px; margin: 0 2px; }
.hidden-note { color: var(--dim); font-size: 12px; margin-left: 6px; }
aside section { background: var(--felt); border-radius: 8px; padding: 8px 10px; margin-bottom: 10px; }
aside h2 { font-size: 14px; margin: 0 0 6px; }
table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
th, td { padding: 2px 6px; text-align: right; border-bottom: 1px solid #0e4631; }
th:first-child, td:first-child { text-align: left; }
tr.total td { font-weight: 700; border-top: 2px solid var(--dim); }
td.win { color: var(--accent); font-weight: 700; }
#log { list-style: none; margin: 0; padding: 0; font-size: 12px; max-height: 360px; overflow: auto; }
#log li { padding: 1px 0; border-bottom: 1px solid #0e4631; }
#log li.event { color: var(--accent); }
#final { background: #5b1f4a; border-radius: 8px; padding: 8px 12px; margin-bottom: 10px; }
#final[hidden] { display: none; }
"""

_BODY = """
<header>
  <h1 id="title"></h1>
  <div class="sub" id="subtitle"></div>
</header>
<div id="controls">
  <button id="first" title="first position (Home)">&#x25C0;&#x25C0; first</button>
  <button id="prev-round" title="previous round (Page Up)">&#x21E4; round</button>
  <button id="prev" title="previous position (left arrow)">&#x25C0; prev</button>
  <button id="next" title="next position (right arrow)">next &#x25B6;</button>
  <button id="next-round" title="next round (Page Down)">round &#x21E5;</button>
  <button id="last" title="last position (End)">last &#x25B6;&#x25B6;</button>
  <button id="play" title="play / pause (space)">play</button>
  <button id="toggle-hands" title="hide / show the hands (h)">hide hands</button>
  <input id="slider" type="range" min="0" value="0" aria-label="position">
  <span id="step"></span>
</div>
<div class="keys">keys: &#x2190; &#x2192; step &middot; Page Up / Page Down round &middot; Home / End
  &middot; space play &middot; h hands &middot; <span class="card known legend">A&#x2660;</span> outlined: publicly
  known (taken from the discard pile or bought)</div>
<main>
  <div>
    <div id="final" hidden></div>
    <div id="status"></div>
    <div id="move"></div>
    <div id="seats"></div>
  </div>
  <aside>
    <section><h2 id="scores-title">Scores per round</h2><table id="scores"></table></section>
    <section><h2>Last moves</h2><ul id="log"></ul></section>
  </aside>
</main>
"""

_JS = r"""
"use strict";
const DATA = JSON.parse(document.getElementById("replay-data").textContent);
const FRAMES = DATA.frames;
const N = DATA.players.length;
const SUITS = {C: ["\u2663", false], D: ["\u2666", true], H: ["\u2665", true], S: ["\u2660", false]};
let pos = 0;
let showHands = true;
let timer = null;

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}
function seatName(s) { return "P" + s + " " + DATA.entrants[s]; }
function symbols(code) {
  const s = code.slice(-1);
  return SUITS[s] ? code.slice(0, -1) + SUITS[s][0] : code;
}
function cardEl(code, known) {
  const e = el("span", "card");
  // a wild card on the table carries what it stands for: JK(8C), or continental's wild 2: 2D(JH)
  const m = code.match(/^([^(]*)\((.*)\)$/);
  const base = m ? m[1] : code;
  if (base === "JK") {
    e.classList.add("joker");
    e.textContent = "JK";
  } else {
    const suit = base.slice(-1);
    const info = SUITS[suit] || [suit, false];
    e.textContent = base.slice(0, -1) + info[0];
    if (info[1]) e.classList.add("red");
  }
  if (m) {
    e.classList.add("wild");
    e.appendChild(el("small", "", symbols(m[2])));
  }
  if (known) e.classList.add("known");
  e.title = code + (known ? " (publicly known)" : "");
  return e;
}
function backEl() { const e = el("span", "card back"); e.title = "hidden card"; return e; }
function fmt(v) { return (v > 0 && !DATA.lower_is_better ? "+" : "") + v; }
function tallyText(f, s) {
  const t = f.tally;
  return "buys " + t.buys[s] + " \u00b7 pickups " + t.pickups[s] + " \u00b7 swaps " + t.swaps[s];
}

function renderSeats(f) {
  const box = document.getElementById("seats");
  box.textContent = "";
  for (let s = 0; s < N; s++) {
    const seat = el("div", "seat");
    seat.dataset.seat = s;
    if (f.to_move === s) seat.classList.add("to-move");
    const head = el("div", "seat-head");
    const name = el("span", "seat-name", seatName(s));
    if (s === f.dealer) name.appendChild(el("span", "badge", "dealer"));
    if (f.opened.includes(s)) name.appendChild(el("span", "badge on", "down"));
    if (f.to_move === s) name.appendChild(el("span", "badge on", "to move"));
    head.appendChild(name);
    head.appendChild(el("span", "seat-score", DATA.score_name + " " + f.scores[s]));
    seat.appendChild(head);
    seat.appendChild(el("div", "tally", f.hands[s].length + " cards \u00b7 " + tallyText(f, s)));
    const hand = el("div", "hand");
    hand.dataset.seat = s;
    const known = (f.known[s] || []).slice();
    if (showHands) {
      for (const c of f.hands[s]) {
        const k = known.indexOf(c);
        if (k >= 0) known.splice(k, 1);
        hand.appendChild(cardEl(c, k >= 0));
      }
    } else {
      // the publicly known cards face up, then one back per other card: no position in the sorted hand shows
      let backs = 0;
      for (const c of f.hands[s]) {
        const k = known.indexOf(c);
        if (k >= 0) { known.splice(k, 1); hand.appendChild(cardEl(c, true)); } else backs++;
      }
      for (let b = 0; b < backs; b++) hand.appendChild(backEl());
      hand.appendChild(el("span", "hidden-note", "hidden"));
    }
    seat.appendChild(hand);
    const melds = f.table.filter(m => m.owner === s);
    if (melds.length) {
      const mbox = el("div", "melds");
      for (const m of melds) {
        const row = el("div", "meld");
        row.appendChild(el("span", "kind", m.kind));
        for (const c of m.cards) row.appendChild(cardEl(c, false));
        mbox.appendChild(row);
      }
      seat.appendChild(mbox);
    }
    box.appendChild(seat);
  }
}

function renderStatus(f) {
  const st = document.getElementById("status");
  st.textContent = "";
  const add = (label, value) => {
    const span = el("span");
    span.appendChild(el("span", "label", label + " "));
    if (value instanceof Node) span.appendChild(value); else span.appendChild(document.createTextNode(value));
    st.appendChild(span);
  };
  add(DATA.unit, String(f.round) + " (" + f.goal + ")");
  add("phase", f.kind === "final" ? "session over" : f.phase);
  add("to move", f.to_move >= 0 ? seatName(f.to_move) : "-");
  add("stock", String(f.stock_size));
  const top = f.top ? cardEl(f.top, false) : document.createTextNode("empty");
  top.id = "discard-top";
  add("discard", top);
  add("pile", String(f.discard_size));
}

function moveText(f) {
  if (!f.move) return null;
  return seatName(f.move.seat) + ": " + f.move.text;
}
function renderMove(f, i) {
  const box = document.getElementById("move");
  box.className = f.kind === "round_end" ? "round-end" : f.kind === "final" ? "final" : "";
  let text;
  if (f.kind === "deal") text = DATA.unit + " " + f.round + " dealt (" + f.goal + "); " + seatName(f.to_move) + " to move";
  else if (f.kind === "round_end") {
    const r = DATA.round_results[f.results_done - 1];
    const how = r.winner !== null && r.winner !== undefined ? seatName(r.winner) + " went out" : r.reason;
    text = moveText(f) + " \u2014 " + DATA.unit + " " + r.round + " over: " + how;
  } else if (f.kind === "final") text = "Session over.";
  else text = moveText(f);
  box.textContent = text;
}

function renderScores(f) {
  const tab = document.getElementById("scores");
  tab.textContent = "";
  const head = el("tr");
  head.appendChild(el("th", "", DATA.unit));
  for (let s = 0; s < N; s++) head.appendChild(el("th", "", "P" + s));
  tab.appendChild(head);
  const rows = DATA.round_results.slice(0, f.results_done);
  for (const r of rows) {
    const tr = el("tr");
    tr.appendChild(el("td", "", String(r.round) + (r.reason !== "out" ? " (" + r.reason + ")" : "")));
    const vals = r.penalties || r.payments;
    for (let s = 0; s < N; s++) tr.appendChild(el("td", s === r.winner ? "win" : "", fmt(vals[s])));
    tab.appendChild(tr);
  }
  const tot = el("tr", "total");
  tot.id = "totals-row";
  tot.appendChild(el("td", "", f.kind === "final" ? "final" : "total"));
  for (let s = 0; s < N; s++) {
    const win = f.kind === "final" && DATA.winners.includes(s);
    tot.appendChild(el("td", win ? "win" : "", fmt(f.scores[s])));
  }
  tab.appendChild(tot);
  document.getElementById("scores-title").textContent =
    DATA.score_name + " per " + DATA.unit + " (" + (DATA.lower_is_better ? "lower" : "higher") + " is better)";
}

function renderFinal(f) {
  const box = document.getElementById("final");
  if (f.kind !== "final") { box.hidden = true; box.textContent = ""; return; }
  box.hidden = false;
  box.textContent = "";
  box.appendChild(el("strong", "", "Final totals: "));
  const parts = [];
  for (let s = 0; s < N; s++) parts.push(seatName(s) + " " + fmt(DATA.totals[s]));
  box.appendChild(el("span", "final-totals", parts.join(", ")));
  const w = DATA.winners.map(seatName).join(", ");
  box.appendChild(el("div", "", (DATA.winners.length > 1 ? "winners: " : "winner: ") + w));
}

function renderLog(i) {
  const ul = document.getElementById("log");
  ul.textContent = "";
  const items = [];
  for (let k = i; k >= 0 && items.length < 14; k--) {
    const f = FRAMES[k];
    if (f.move) {
      const li = el("li", ["buy", "draw_discard", "pickup", "swap_joker", "meld", "go_out", "declare",
                           "discard_declare"].includes(f.move.kind) ? "event" : "", moveText(f));
      items.push(li);
    } else if (f.kind === "deal") items.push(el("li", "event", "\u2014 " + DATA.unit + " " + f.round + " dealt \u2014"));
  }
  for (const li of items) ul.appendChild(li);
}

function render() {
  const f = FRAMES[pos];
  document.getElementById("step").textContent = "position " + pos + " / " + (FRAMES.length - 1);
  document.getElementById("slider").value = pos;
  document.getElementById("toggle-hands").textContent = showHands ? "hide hands" : "show hands";
  document.body.dataset.pos = pos;
  document.body.dataset.kind = f.kind;
  renderFinal(f);
  renderStatus(f);
  renderMove(f, pos);
  renderSeats(f);
  renderScores(f);
  renderLog(pos);
}
function go(i) { pos = Math.max(0, Math.min(FRAMES.length - 1, i)); render(); }
function roundStart(i) { let k = i; while (k > 0 && FRAMES[k].kind !== "deal") k--; return k; }
function nextRound() { let k = pos + 1; while (k < FRAMES.length - 1 && FRAMES[k].kind !== "deal") k++; go(k); }
function prevRound() { const k = roundStart(pos); go(k === pos ? roundStart(Math.max(0, pos - 1)) : k); }
function play() {
  if (timer) { clearInterval(timer); timer = null; }
  else timer = setInterval(() => { if (pos >= FRAMES.length - 1) play(); else go(pos + 1); }, 350);
  document.getElementById("play").textContent = timer ? "pause" : "play";
}
function toggleHands() { showHands = !showHands; render(); }

document.getElementById("title").textContent = "rummy_env replay \u2014 " + DATA.title;
document.getElementById("subtitle").textContent = DATA.players.length + " seats: " +
  DATA.entrants.map((e, s) => "P" + s + " " + e).join(", ") + " \u00b7 seed " + DATA.seed + " \u00b7 " +
  DATA.round_results.length + " " + DATA.unit + "(s), " + (FRAMES.length - 1) + " positions \u00b7 log " +
  DATA.format + " v" + DATA.version;
document.getElementById("slider").max = FRAMES.length - 1;
document.getElementById("slider").addEventListener("input", e => go(Number(e.target.value)));
document.getElementById("first").addEventListener("click", () => go(0));
document.getElementById("last").addEventListener("click", () => go(FRAMES.length - 1));
document.getElementById("prev").addEventListener("click", () => go(pos - 1));
document.getElementById("next").addEventListener("click", () => go(pos + 1));
document.getElementById("prev-round").addEventListener("click", prevRound);
document.getElementById("next-round").addEventListener("click", nextRound);
document.getElementById("play").addEventListener("click", play);
document.getElementById("toggle-hands").addEventListener("click", toggleHands);
document.addEventListener("keydown", e => {
  if (e.target instanceof HTMLInputElement && e.key !== " ") return;
  const keys = {ArrowRight: () => go(pos + 1), ArrowLeft: () => go(pos - 1), Home: () => go(0),
                End: () => go(FRAMES.length - 1), PageDown: nextRound, PageUp: prevRound, " ": play,
                h: toggleHands, H: toggleHands};
  const fn = keys[e.key];
  if (fn) { e.preventDefault(); fn(); }
});
render();
"""


def render_html(source: Any) -> str:
    """The replay page of ``source`` (a game log path or dict, re-played and validated, or a ``Replay``)."""
    rep = source if isinstance(source, Replay) else replay(source)
    data = rep.page_data()
    # inside <script>: "<" escaped, so no "</script>" or "<!--" can end the block early
    payload = json.dumps(data, separators=(",", ":")).replace("<", "\\u003c")
    title = html.escape(f"rummy_env replay: {data['profile']}, seed {data['seed']}")
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        # no favicon request: the page loads nothing
        '<link rel="icon" href="data:,">\n'
        f"<title>{title}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n{_BODY}\n"
        f'<script id="replay-data" type="application/json">{payload}</script>\n'
        f"<script>{_JS}</script>\n</body>\n</html>\n"
    )


def write_html(source: Any, path: str | os.PathLike[str]) -> Path:
    """Write the replay page of ``source`` (``render_html``) to ``path``, atomically (a temporary file in the same
    folder renamed over it); returns the path. A ``path`` that is the game log itself is refused with an
    ``OutputFileError`` (a ``ValueError``) before anything is replayed or written."""
    log_file = source.source if isinstance(source, Replay) else source
    if isinstance(log_file, (str, os.PathLike)):
        refuse_overwrite(path, [log_file], flag="the replay page")
    return write_text_atomic(Path(path), render_html(source))


__all__ = ["render_html", "write_html"]
