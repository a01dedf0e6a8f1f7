"""Write docs/api.md, the API reference, from the docstrings of what `gdl` exports.

    python docs/build_api.py           # rewrite docs/api.md
    python docs/build_api.py --check   # exit 1 if docs/api.md is out of date (CI runs this)

Only the public API (``gdl.__all__``) is documented: everything else may change.
"""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import gdl  # noqa: E402

TARGET = ROOT / "docs" / "api.md"


def _doc(obj: object) -> str:
    return inspect.cleandoc(obj.__doc__ or "").strip()


def _signature(obj: object) -> str:
    try:
        return str(inspect.signature(obj))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return ""


# Type aliases of the protocol, which carry no docstring of their own.
ALIASES = {
    "Value": "int | Fraction: every value gdl reports is exact.",
    "State": "Hashable: a position; for rule games a flat tuple of small ints, immutable.",
    "Action": "Hashable: a legal action; for rule games an int, named by `game.action_name`.",
}


def _section(name: str, obj: object) -> list[str]:
    lines: list[str] = []
    if name in ALIASES:
        lines += [f"### `{name}` (type alias)", "", ALIASES[name], ""]
    elif inspect.isclass(obj):
        kind = "protocol" if getattr(obj, "_is_protocol", False) else "class"
        lines.append(f"### `{name}` ({kind})")
        lines += ["", _doc(obj) or "(no docstring)", ""]
        if dataclasses.is_dataclass(obj):
            lines.append("| field | type | default |")
            lines.append("|---|---|---|")
            for f in dataclasses.fields(obj):
                if f.default is not dataclasses.MISSING:
                    default = repr(f.default)
                elif f.default_factory is not dataclasses.MISSING:
                    default = f"{f.default_factory.__name__}()"
                else:
                    default = "required"
                lines.append(f"| `{f.name}` | `{f.type}` | `{default}` |")
            lines.append("")
        for attribute, member in sorted(vars(obj).items()):
            if attribute.startswith("_") or not (inspect.isfunction(member) or isinstance(member, property)):
                continue
            target = member.fget if isinstance(member, property) else member
            sig = "" if isinstance(member, property) else _signature(member)
            lines.append(f"- `{attribute}{sig}`" + (f": {_doc(target)}" if _doc(target) else ""))
        if lines[-1] != "":
            lines.append("")
    elif callable(obj):
        lines += [f"### `{name}{_signature(obj)}`", "", _doc(obj) or "(no docstring)", ""]
    else:
        lines += [f"### `{name}`", "", f"`{obj!r}`", ""]
    return lines


def render() -> str:
    lines = ["# API reference", "",
             "Generated from the docstrings by `python docs/build_api.py`; do not edit by hand.",
             "", _doc(gdl), ""]
    groups = {"Functions": [], "Types": [], "Constants": []}
    for name in sorted(gdl.__all__, key=str.lower):
        obj = getattr(gdl, name)
        if inspect.isclass(obj) or name in ALIASES:
            group = "Types"
        else:
            group = "Functions" if callable(obj) else "Constants"
        groups[group].append(name)
    for title, names in groups.items():
        lines += [f"## {title}", ""]
        for name in names:
            lines += _section(name, getattr(gdl, name))
    return "\n".join(lines).rstrip() + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if docs/api.md is out of date")
    args = parser.parse_args()
    text = render()
    if args.check:
        if not TARGET.exists() or TARGET.read_text(encoding="utf-8") != text:
            print("docs/api.md is out of date: run python docs/build_api.py", file=sys.stderr)
            return 1
        return 0
    TARGET.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
