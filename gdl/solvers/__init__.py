"""Generic solvers over the game protocol (gdl.protocol). They never see the parser."""
