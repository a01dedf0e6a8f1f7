"""`gdl lsp`: the language server (gdl.lsp.server) on stdin and stdout, for editors."""

from __future__ import annotations

from gdl.cli import UsageError


def cmd_lsp(args) -> int:
    try:
        from gdl.lsp.server import main
    except ImportError as error:
        if (error.name or "").split(".")[0] in ("pygls", "lsprotocol"):
            raise UsageError("the language server needs pygls: pip install 'gdl[lsp]'") from None
        raise
    return main()       # 0 after the client's shutdown and exit, 1 on an exit without one


def register(commands) -> None:
    sub = commands.add_parser(
        "lsp", help="the language server for editors (speaks LSP on stdin/stdout)",
        epilog="Editors start it themselves; see docs/lsp.md (needs the extra: pip install 'gdl[lsp]')")
    sub.set_defaults(run=cmd_lsp)
