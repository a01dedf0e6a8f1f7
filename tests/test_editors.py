"""The editor package (editors/nvim) stays in step with the grammar: every word of the language
is highlighted, and no word the language lacks is."""

from __future__ import annotations

from pathlib import Path

from gdl.lsp.index import keywords

NVIM = Path(__file__).resolve().parent.parent / "editors" / "nvim"


def highlighted_words() -> set[str]:
    words: set[str] = set()
    for line in (NVIM / "syntax" / "gdl.vim").read_text(encoding="utf-8").splitlines():
        if line.startswith("syn keyword"):
            words.update(line.split()[3:])
    return words


def test_the_vim_syntax_highlights_every_keyword_of_the_grammar():
    assert highlighted_words() == set(keywords())


def test_the_neovim_package_starts_the_language_server():
    plugin = (NVIM / "ftplugin" / "gdl.lua").read_text(encoding="utf-8")
    assert 'cmd = { "gdl", "lsp" }' in plugin
    assert "game = \"gdl\"" in (NVIM / "ftdetect" / "gdl.lua").read_text(encoding="utf-8")
