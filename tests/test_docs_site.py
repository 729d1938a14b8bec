"""The documentation site's sources (mkdocs.yml, docs/) hold together without building it (CI runs
``mkdocs build --strict``):

- every page in the nav exists and every Markdown page under docs/ is in the nav;
- docs/ stays small (at most 2 MB: pictures a guide shows, no experiment logs);
- every code block that calls ``gymnasium.make("rummy_env/...")`` imports rummy_env first (the import registers the
  ids);
- the shipped checkpoints' bot ids are documented where users look for bot ids.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def _nav_pages(node: object) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, list):
        return [p for item in node for p in _nav_pages(item)]
    if isinstance(node, dict):
        return [p for value in node.values() for p in _nav_pages(value)]
    return []


def _config() -> dict:
    return yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))


def test_nav_and_pages_agree() -> None:
    config = _config()
    assert config["docs_dir"] == "docs" and config["site_dir"] == "site"
    nav = _nav_pages(config["nav"])
    missing = [p for p in nav if not (DOCS / p).is_file()]
    assert not missing, f"mkdocs.yml names pages that do not exist: {missing}"
    pages = sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md"))
    orphans = [p for p in pages if p not in nav]
    assert not orphans, f"pages under docs/ that the nav does not list: {orphans}"


def test_docs_folder_is_small() -> None:
    size = sum(p.stat().st_size for p in DOCS.rglob("*") if p.is_file())
    assert size <= 2 * 1024 * 1024, f"docs/ holds {size / 1e6:.2f} MB; keep it under 2 MB"


def _code_blocks(text: str) -> list[str]:
    return re.findall(r"```[a-z]*\n(.*?)```", text, re.S)


@pytest.mark.parametrize("page", sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")))
def test_gymnasium_snippets_import_rummy_env_first(page: str) -> None:
    for block in _code_blocks((DOCS / page).read_text(encoding="utf-8")):
        at = block.find('make("rummy_env/')
        if at < 0 or "pettingzoo.make" in block[max(0, at - 20) : at + 5]:
            continue
        before = block[:at]
        assert re.search(r"^\s*import rummy_env\b", before, re.M), (
            f"{page}: a gymnasium.make snippet without import rummy_env"
        )


def test_shipped_checkpoint_ids_documented() -> None:
    text = (DOCS / "guides" / "bots.md").read_text(encoding="utf-8") + (DOCS / "guides" / "training.md").read_text(
        encoding="utf-8"
    )
    for name in ("contract", "contract_gamerules", "continental"):
        assert f"checkpoint:{name}" in text
    for api in ("resolve_checkpoint", "shipped_names", "shipped_dir", 'load_checkpoint("contract")'):
        assert api in text
