"""The rule language's grammar files, shipped inside the package as ``gdl.grammars``."""
