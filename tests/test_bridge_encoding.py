"""gdl.bridges.encoding: the numbers and sizes OpenSpiel and PettingZoo are given. No framework
is needed for these; the frameworks' own checks are in test_openspiel.py and test_pettingzoo.py."""

import sys
from fractions import Fraction

import pytest
from helpers import DATA, GAMES

import gdl
from gdl.bridges.encoding import EncodingError, GameEncoding, move_limit, truncated_returns
from gdl.moves import play
from gdl.protocol import CHANCE


def encode(name: str, **params) -> GameEncoding:
    return GameEncoding(gdl.load(GAMES / name, params or None))


def test_rule_game_actions_are_the_ground_actions_and_bounds_come_from_the_rules():
    encoding = encode("tictactoe.game")
    game = encoding.game
    # Nine cells, numbered row by row as the rules declare `place(r, c)`.
    assert encoding.num_actions == 9
    assert [game.action_name(encoding.action(i)) for i in (0, 4, 8)] == ["place(0,0)", "place(1,1)",
                                                                          "place(2,2)"]
    assert encoding.num_chance_outcomes == 0
    assert encoding.max_decisions == 9                 # `max-length 9`
    assert encoding.utility_range == (-1, 1)           # from `1 if ... else -1 if ... else 0`
    # The vector: the player to move (2) and nine cells of three values each.
    assert encoding.tensor_size == 2 + 9 * 3
    state = play(game, ["place(1,1)"])
    ones = encoding.tensor_ones(state)
    assert len(ones) == 1 + 9 and ones[0] == 1          # O to move; one value per cell
    assert encoding.legal_ids(state) == [0, 1, 2, 3, 5, 6, 7, 8]


def test_utility_range_analysis_matches_the_centipede_payoffs():
    # McKelvey & Palfrey's four-move centipede: payoffs run from 10 (the small pile at once) to
    # 640 (the large pile after four passes); nothing is declared, the rules' arithmetic says so.
    encoding = encode("centipede.game")
    assert encoding.utility_range == (10, 640)
    assert encoding.max_decisions == 4                 # four passes at most (walked)
    assert encoding.utility_sum is None                # general-sum


def test_chance_outcomes_are_numbered_per_value_with_exact_probabilities():
    encoding = encode("pig.game")                      # a three-sided die
    game = encoding.game
    state = game.apply(game.initial_state(), game.legal_actions(game.initial_state())[0])   # roll
    assert game.current_player(state) == CHANCE
    assert encoding.num_chance_outcomes == 3
    assert encoding.chance_ids(state) == [(0, Fraction(1, 3)), (1, Fraction(1, 3)), (2, Fraction(1, 3))]
    assert [encoding.id_name(state, CHANCE, i) for i in range(3)] == ["d=1", "d=2", "d=3"]
    assert encoding.max_decisions == 2000              # `max-length 2 * horizon`
    assert encoding.utility_range == (-102, 102)       # `utility in` declared


def test_a_quantifier_over_a_range_from_an_outer_binder_is_left_to_the_walk():
    # `v in u..2` has bounds from `u`: the rules' range analysis leaves it (it raised TypeError)
    # and the walk finds the one end: n == 2, the pairs u <= v of 0..2 with u + v > 2 are
    # (1, 2) and (2, 2), so A gets 2 and B -2
    text = ("game \"q\"\nplayers A, B\nvar n in 0..2 = 0\n"
            "action up\n    requires n < 2\n    effect n = n + 1\n"
            "terminal n == 2\nutility A = count u in 0..2, v in u..2: u + v > n\nzero-sum\n")
    assert GameEncoding(gdl.loads(text, backend="interpret")).utility_range == (-2, 2)


def test_state_dependent_probabilities_keep_outcome_numbers():
    # The random ghost takes each open way with equal probability: a walled way drops out, but the
    # ways keep their numbers (north, south, west, east), so a number means the same way everywhere.
    encoding = encode("pacman-random.game")
    game = encoding.game
    state = play(game, ["move(west)", "wander"])     # Pacman steps away; the ghost wanders
    assert game.current_player(state) == CHANCE
    names = {encoding.id_name(state, CHANCE, i): p for i, p in encoding.chance_ids(state)}
    assert sum(names.values()) == 1
    assert encoding.num_chance_outcomes == 4
    # The ghost starts at row 0, column 3: walls west, nothing north; open south and east.
    assert names == {"d=south": Fraction(1, 2), "d=east": Fraction(1, 2)}


def test_explicit_tree_is_walked_labels_numbered_as_met():
    encoding = encode("aima-fig5-2.game")
    # a1..a3, then b1..b3, c1..c3, d1..d3: twelve labels, two moves deep.
    assert encoding.num_actions == 12
    assert [encoding.action(i) for i in range(4)] == ["a1", "a2", "a3", "b1"]
    assert encoding.max_decisions == 2
    # Leaves 2..14 for MAX, and MIN's utility is their negation (zero-sum).
    assert encoding.utility_range == (-14, 14)
    game = encoding.game
    leaf = game.apply(game.apply(game.initial_state(), "a2"), "c1")
    assert encoding.text(leaf) == "game over: MAX 2, MIN -2\nafter a2 c1"
    assert encoding.tensor_size == 13                  # 1 root + 3 MIN nodes + 9 leaves


def test_text_names_the_mover_and_every_variable():
    encoding = encode("connect4.game")
    text = encoding.text(encoding.game.initial_state())
    assert text.splitlines()[0] == "Red to move"
    assert "height = [0, 0, 0, 0]" in text and "winner = nobody" in text


def test_a_game_that_can_repeat_a_position_has_no_longest_play():
    # serve, hit, hit brings (B, 0) back: a play can go round that loop for ever.
    encoding = GameEncoding(gdl.load(DATA / "deep" / "ping-pong.game"))
    assert encoding.max_decisions is None and encoding.can_repeat is True
    assert encoding.utility_range == (-1, 1)           # `1 if mover == A else -1`, zero-sum
    assert [encoding.game.action_name(encoding.action(i)) for i in range(3)] == ["serve", "hit", "miss"]


@pytest.mark.parametrize("name, params", [("piglet.game", {}), ("ring-chase.game", {}),
                                          ("pig100.game", {})])
def test_the_walk_for_a_length_stops_at_the_first_cycle(name, params):
    # Pig to 100 has about two million positions; a walk limited to 50 still finds that a play
    # can repeat one (a 1 on the die, twice, brings the start back), because it stops there.
    encoding = GameEncoding(gdl.load(GAMES / "cyclic" / name, params or None), walk_limit=50)
    assert encoding.max_decisions is None and encoding.can_repeat is True


COUNT = ('game "count"\nplayers A, B\nvar n in 0..200 = 0\naction inc effect n = n + 1\n'
         'terminal n == 200\nzero-sum\n')


def test_a_game_too_large_to_walk_has_no_known_length_but_keeps_its_utility_bounds():
    # 201 positions and no max-length: more than a walk of 100 may see, so whether plays are
    # bounded is unknown (None, not refused); the utilities' bounds come from the rules.
    encoding = GameEncoding(gdl.loads(COUNT + "utility A = 1 if n % 2 == 0 else -1\n"), walk_limit=100)
    assert encoding.max_decisions is None and encoding.can_repeat is None
    assert encoding.utility_range == (-1, 1)
    walked = GameEncoding(gdl.loads(COUNT + "utility A = 1\n"))
    assert walked.max_decisions == 200 and walked.can_repeat is False


def test_utilities_beyond_the_range_analysis_of_a_game_too_large_to_walk_are_refused_with_the_fix():
    # `%` is beyond the range analysis, and 201 positions are more than a walk of 100 sees.
    encoding = GameEncoding(gdl.loads(COUNT + "utility A = n % 7\n"), walk_limit=100)
    with pytest.raises(EncodingError, match=r"declare `utility in LO\.\.HI`"):
        _ = encoding.utility_range
    # the one reachable end is n = 200: A 200 % 7 = 4, B -4
    assert GameEncoding(gdl.loads(COUNT + "utility A = n % 7\n")).utility_range == (-4, 4)
    # Nim's result comes from `when stuck`, which no range analysis reads: 6 * 9 * 14 positions.
    with pytest.raises(EncodingError, match="utility in"):
        _ = GameEncoding(gdl.load(GAMES / "nim.game", {"a": 5, "b": 8, "c": 13}), walk_limit=100).utility_range


def test_a_play_cut_short_is_worth_the_endless_value_else_a_draw():
    # docs/language.md: `when endless draw` gives every player an equal share of the declared sum.
    assert truncated_returns(gdl.load(GAMES / "cyclic" / "ring-chase.game").info) == (0, 0)
    with_value = (GAMES / "cyclic" / "ring-chase.game").read_text().replace(
        "when endless draw", "when endless (-1, 1)")        # the mouse wins by running for ever
    assert truncated_returns(gdl.loads(with_value).info) == (-1, 1)
    # No declaration: a draw. Zero-sum: 0 each; take-away for three, constant-sum 1: a third each;
    # the centipede, general-sum: 0 each.
    assert truncated_returns(gdl.load(GAMES / "cyclic" / "piglet.game").info) == (0, 0)
    assert truncated_returns(gdl.load(GAMES / "takeaway3.game").info) == (Fraction(1, 3),) * 3
    assert truncated_returns(gdl.load(GAMES / "centipede.game").info) == (0, 0)


@pytest.mark.parametrize("bad", [0, -3, 1.5, True, "10"])
def test_a_move_limit_must_be_a_positive_whole_number(bad):
    with pytest.raises(ValueError, match="max_moves must be a positive whole number"):
        move_limit(bad)
    assert move_limit(None) is None and move_limit(7) == 7


def test_fuzz_openspiel_without_the_extra_is_a_usage_error(monkeypatch, capsys):
    # As on a machine without OpenSpiel: importing pyspiel fails.
    from gdl.cli import main

    monkeypatch.setitem(sys.modules, "pyspiel", None)
    for module in ("gdl.bridges.crosscheck", "gdl.bridges.openspiel"):
        monkeypatch.delitem(sys.modules, module, raising=False)
    assert main(["fuzz", str(GAMES / "nim.game"), "--openspiel", "--examples", "1"]) == 2
    assert "pip install 'gdl[openspiel]'" in capsys.readouterr().err


def test_a_random_inside_a_let_block_is_numbered_too():
    # The rules' `random` statements are found wherever they are nested; a `let` in an effect
    # names a value for the rest of its block, and a `random` after it sits in that block.
    text = ('game "let-dice"\nplayers A\nvar n in 0..9 = 0\nvar done in bool = false\n'
            'action roll requires not done effect let k = n + 1; random d in {1: 1/2, 2: 1/2}; '
            'n = k + d; done = true\n'
            'terminal done\nutility A = n\n')
    encoding = GameEncoding(gdl.loads(text))
    assert encoding.num_chance_outcomes == 2     # the two faces, numbered
    game = encoding.game
    after = game.apply(game.initial_state(), game.legal_actions(game.initial_state())[0])
    assert game.current_player(after) == CHANCE
    assert sorted(p for _, p in game.chance_outcomes(after)) == [Fraction(1, 2), Fraction(1, 2)]


def test_a_tree_too_large_to_walk_is_refused_with_the_fix():
    # An explicit tree is numbered by walking it: Figure 5.2 has 13 nodes, more than 5.
    with pytest.raises(EncodingError, match="write it with `var` and `action` rules"):
        GameEncoding(gdl.load(GAMES / "aima-fig5-2.game"), walk_limit=5)


# ---- simultaneous moves and hidden information ---------------------------------------------------

def _wide(name: str) -> GameEncoding:
    from wide_rules import WIDE

    return GameEncoding(gdl.loads(WIDE[name], f"<{name}>"))


def test_a_joint_move_is_one_decision_and_every_move_counts_toward_an_information_state():
    # Call the coin: both call at once (one decision), then the coin is thrown (chance)
    encoding = _wide("coin")
    assert encoding.max_decisions == 1
    assert encoding.information_steps == 2
    assert encoding.utility_range == (-1, 1)
    # a game written in Python against the protocol is walked through its joint moves too
    from imperfect_games import rock_paper_scissors

    walked = GameEncoding(rock_paper_scissors())
    assert walked.max_decisions == 1 and walked.num_actions == 3
    assert walked.utility_range == (-1, 1)


def test_the_moves_waiting_for_chance_in_a_joint_move_are_all_shown():
    encoding = _wide("coin")
    game = encoding.game
    start = game.initial_state()
    heads, tails = game.legal_actions_of(start, 0)
    assert encoding.text(start).splitlines()[0] == "A and B choose at once"
    waiting = [game.apply_joint(start, (a, b)) for a in (heads, tails) for b in (heads, tails)]
    assert game.current_player(waiting[1]) == CHANCE
    assert encoding.text(waiting[1]).splitlines()[0] == "chance: (say(heads), say(tails))"
    # four joint moves waiting for the throw: four texts, four vectors
    assert len({encoding.text(s) for s in waiting}) == 4
    assert len({tuple(encoding.tensor_ones(s)) for s in waiting}) == 4


def test_an_information_state_reads_as_what_the_player_saw():
    encoding = _wide("hide")
    game = encoding.game
    start = game.initial_state()
    (heads, _) = game.legal_actions(start)
    after = game.apply(start, heads)
    seeker = (game.observation(start, 1), game.move_observation(start, 1, heads),
              game.observation(after, 1))
    hider = (game.observation(start, 0), game.move_observation(start, 0, heads),
             game.observation(after, 0))
    # the hidden coin is in neither player's cells; the hider knows its own move, the seeker not
    assert encoding.information_text(1, seeker) == "Seeker saw: turn=Hider guess=none | ?: turn=Seeker"
    assert encoding.information_text(0, hider) == \
        "Hider saw: turn=Hider guess=none | place(heads): turn=Seeker"
    assert encoding.observation_text(1, seeker[-1]) == "Seeker sees: turn=Seeker guess=none"
    # its vector: the observation of the start, then the move (a decision, hidden) and the next
    # observation; nothing of the coin
    ones = encoding.information_ones(1, seeker, [start])
    size, block = encoding.tensor_size, encoding.information_size
    assert len(ones) == 2 + 1 + 1 + 2 and max(ones) < block
    assert block == size + encoding.information_steps * (
        3 + encoding.num_chance_outcomes + 2 * (encoding.num_actions + 1) + size)


def test_private_entries_are_named_by_their_player():
    encoding = GameEncoding(gdl.load(GAMES / "kuhn.game"))
    game = encoding.game
    state = game.initial_state()
    while game.current_player(state) == CHANCE:
        state = game.apply(state, game.chance_outcomes(state)[-1][0])
    text = encoding.observation_text(1, game.observation(state, 1))
    assert text.startswith("Second sees: turn=First card[Second]=")
    assert "card[First]" not in text and "stake[0]=1 stake[1]=1" in text
