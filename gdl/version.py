"""gdl's version: one place, read by the package, ``gdl --version`` and the build (pyproject.toml)."""

__version__ = "0.2.0"
