"""Where something is in a rule file. Its own small module so that the run-time side (errors,
compiled games) can name positions without importing the whole syntax tree."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Span:
    line: int
    column: int
    end_line: int
    end_column: int

    def __str__(self) -> str:
        return f"{self.line}:{self.column}"


NOWHERE = Span(0, 0, 0, 0)
