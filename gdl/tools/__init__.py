"""What people do with games: check --deep, count, fuzz, play sessions, search trees, progress."""
