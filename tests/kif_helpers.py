"""Shared by the KIF tests: the two reasoners side by side on every reachable state."""

import gdl
from gdl.kif import agreement


def load_both(text, filename="game.kif"):
    """The Datalog interpreter's game and the translated game of the same KIF text."""
    interpreted = gdl.loads(text, filename, backend="interpret")
    compiled = gdl.loads(text, filename, backend="compile")
    assert hasattr(compiled, "kif"), getattr(compiled, "native_note", "not translated")
    return interpreted, compiled


def disagreements(text, filename="game.kif", limit=20_000):
    """gdl.kif.agreement.disagreements of KIF text: (problems, states visited)."""
    return agreement.disagreements(*load_both(text, filename), limit)
