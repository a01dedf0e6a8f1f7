"""The page of `gdl serve`: play a game against the solver, see every move's value, the search
tree, and edit the rules with their located errors. ``workbench`` is the model (JSON-ready data),
``server`` the standard library's HTTP server around it, ``static/`` the page itself."""
