"""The Python compiler's parts (gdl.backends.compiler is the entry point).

* ``safe_text``: the only ways anything from a rule file reaches the generated source.
* ``pyexpr``: a Python expression under construction, its text and what is known about it.
* ``optimize``: what can be proved about expressions (folding, guard facts, index bounds) and
  common subexpressions; pure functions on ``pyexpr`` values, tested alone.
* ``irwalk``: walking and measuring the IR (what to unroll, what to inline).
* ``emit``: checked IR → the lines of the generated module (expressions, effects, functions).
"""
