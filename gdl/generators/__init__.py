"""Test games and inputs, generated: what `gdl fuzz` and the test suite feed the solvers, the
back ends and the front end.

- ``gdl.generators.trees``: small explicit game trees (hypothesis strategies).
- ``gdl.generators.rules``: small rule files valid by construction, and games full of
  transpositions.
- ``gdl.generators.intervals``: number expressions with proven bounds, and expression probes.
- ``gdl.generators.cyclic``: games that can repeat a position, as graphs and as rule files.
- ``gdl.generators.syntax``: any rule file the grammar can express, meaningful or not.
- ``gdl.generators.mutants``: near-miss rule files, small edits to real ones.

Generators build games and text; they solve nothing and check nothing (that is ``gdl.tools.fuzz``
and ``gdl.tools.mutate``).
"""
