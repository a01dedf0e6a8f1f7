"""Hand-written textbook Python games and solvers: the yardstick for gdl's compiled games.

Each game is a module with the textbook interface (Russell & Norvig's ``Game``): ``initial()``,
``to_move(state)``, ``actions(state)``, ``result(state, action)``, ``terminal(state)``,
``utility(state)`` (for the first player, MAX), plus ``is_chance``/``chance_outcomes``/
``evaluate`` where the game needs them. States are tuples. Nothing here imports gdl.
"""
