"""The rule language: text in, checked IR out (grammar, parse, syntax tree, check, IR, format)."""
