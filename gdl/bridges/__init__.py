"""gdl games inside other frameworks: OpenSpiel (``gdl.bridges.openspiel``) and PettingZoo
(``gdl.bridges.pettingzoo``).

Both rest on ``gdl.bridges.encoding``, which numbers a game's actions and chance outcomes, bounds
its length and utilities, and turns its states, and in games with hidden information or
simultaneous moves each player's observation and information state, into text and tensors:
everything those frameworks ask of a game up front, computed from the game and its checked
rules. The framework
modules are optional extras (``pip install 'gdl[openspiel]'``, ``'gdl[pettingzoo]'``); nothing in
gdl imports this package except the command line, and only when asked to
(``gdl fuzz FILE --openspiel`` runs gdl.bridges.crosscheck: OpenSpiel's searches, or its CFR+
on a game with hidden information or simultaneous moves, as one more solver).
"""
