"""gdl: games written as text, solved by generic search."""
