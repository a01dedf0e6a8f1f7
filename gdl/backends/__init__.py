"""Back ends: a checked game (IR) in, an object implementing the game protocol out."""
