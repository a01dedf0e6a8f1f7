"""A gdl game numbered for frameworks that want integers and fixed sizes (OpenSpiel, PettingZoo).

Those frameworks see a game as: decision actions numbered 0..A-1, the same number meaning the same
action in every state; chance outcomes numbered 0..C-1; a bound on the number of decisions in a
play; bounds on every utility; and each state as text and as a fixed-length vector. A gdl game
has all of this, but in its own terms, so ``GameEncoding`` computes it once per game:

- Rule games (built from ``.game`` rules, with a checked IR): an action's number is its ground
  action id, which is already the action itself (``place(0,0)`` is 0). A chance outcome
  ``random d in {...}`` whose values are constants gets one number per (statement, value); a
  statement whose values depend on the state numbers its outcomes by position in the state's
  distribution. Lengths and utility bounds come from the rules' declarations, then from a range
  analysis of the utility expressions, then from walking every reachable state. Both are
  computed when first asked for (PettingZoo never asks, so it never walks).
- Any other game (explicit trees, games built in Python): every reachable state is walked once,
  and actions and outcomes are numbered in the order the walk meets them.

A game that can repeat a position (Pig, Piglet, games/cyclic/) has no longest play:
``max_decisions`` is None there, and also where the rules declare no ``max-length`` and the game
is too large to walk (no bound is known). What a framework does about it (truncation after a
number of moves) is the framework module's business; ``truncated_returns`` says what a play cut
short is worth where a framework needs a result.

States as vectors (rule games): the player to move one-hot, then every variable cell one-hot over
its declared values, then (games with chance) the action waiting for chance one-hot, with a last
entry for "none" (in a game with simultaneous moves one such block per player, for a joint move
waiting). Outcomes already drawn for a pending action with two random statements are shown in
the text but not in the vector. Explicit trees: one entry per tree node.

Games with hidden information or simultaneous moves: a player's observation and information
state are gdl's (gdl.solvers.information), here as text (``observation_text``,
``information_text``) and 0/1 vectors (``observation_ones``, ``information_ones``), functions of
them alone that tell apart exactly what they tell apart. A joint move is one decision; an
information state counts every move, chance events too (``information_steps``).

Nothing here imports a framework: the numbering is tested without them.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from fractions import Fraction
from functools import cached_property
from itertools import product
from typing import Any

from gdl.lang import ir
from gdl.lang.values import show_value
from gdl.protocol import CHANCE, CONSTANT_SUM, SIMULTANEOUS, TERMINAL, ZERO_SUM, Value
from gdl.tools.session import describe_values, render

WALK_LIMIT = 200_000    # states walked at most to find a length or utility bound no rule declares


class EncodingError(ValueError):
    """The game cannot be numbered (too large to walk where only a walk can number it or bound its
    utilities)."""


class GameEncoding:
    """Integers and sizes for one gdl game (see the module docstring)."""

    def __init__(self, game, walk_limit: int = WALK_LIMIT):
        self.game = game
        self.info = game.info
        self._walk_limit = walk_limit
        rules = getattr(game, "ir", None)
        self._rules: ir.Game | None = rules if rules is not None and rules.tree is None else None
        self._walked: _Walk | None = None
        # a game without rule actions: the moves from the root to each position (walked)
        self._tree_paths: dict[Hashable, tuple[str, ...]] = {}
        if self._rules is not None:
            self._number_rule_actions(self._rules)
        else:
            walk = self._walked = _Walk(game, walk_limit)
            if not walk.complete:
                raise EncodingError(
                    f"{game.info.name}: more than {walk_limit:,} positions, too many to walk; a game "
                    "without rule actions (an explicit tree, a game written in Python) is numbered "
                    "by walking every position, so write it with `var` and `action` rules "
                    "(docs/language.md), which are numbered without a walk")
            self._number_walked_actions(walk)
            self._tree_paths = walk.paths
        self._layout_tensor()

    # ---- lengths and utility bounds (computed when first asked for) ----------------------------
    @cached_property
    def _length_walk(self) -> _Walk:
        """The walk for a length bound the rules do not declare: it stops at the first cycle
        unless the utilities still need bounds from it."""
        if self._walked is not None:
            return self._walked
        need_range = self.info.utility_bounds is None and (
            self._rules is None or _utility_interval(self._rules) is None)
        self._walked = _Walk(self.game, self._walk_limit, stop_at_cycle=not need_range)
        return self._walked

    @cached_property
    def max_decisions(self) -> int | None:
        """The most decisions (chance outcomes not counted) in any play, or None where no bound is
        known: a play can return to an earlier position, or the game is too large to walk and
        its rules declare no ``max-length``."""
        if self._rules is not None and self.info.max_length is not None:
            return self.info.max_length           # counts chance events too: a bound all the same
        return self._length_walk.longest

    @cached_property
    def can_repeat(self) -> bool | None:
        """True where a play can return to an earlier position (a walk found one), False where it
        cannot (a declared ``max-length``, or a walk of every position), None where unknown."""
        if self._rules is not None and self.info.max_length is not None:
            return False
        walk = self._length_walk
        return True if walk.repeats else False if walk.complete else None

    @cached_property
    def utility_range(self) -> tuple[Value, Value]:
        """Bounds (lo, hi) with lo < hi on every player's utility at every reachable end."""
        known: tuple[Value, Value] | None = None
        if self._rules is not None:
            known = self.info.utility_bounds or _utility_interval(self._rules)
        if known is None:
            walk = self._length_walk
            if not walk.complete:
                raise EncodingError(
                    f"{self.info.name}: more than {self._walk_limit:,} positions, too many to walk "
                    "for bounds on its utilities; declare `utility in LO..HI` in the rules")
            known = walk.utility_range
        lo, hi = known
        # OpenSpiel insists on min < max; a game whose every result is the same is widened.
        return (lo, hi if hi > lo else lo + 1)

    # ---- actions --------------------------------------------------------------------------------
    def _number_rule_actions(self, rules: ir.Game) -> None:
        self.num_actions = len(rules.ground_actions)
        self._action_of_id = list(range(self.num_actions))
        self._id_of_action: dict[Hashable, int] = {a: a for a in self._action_of_id}
        self._static_outcomes: dict = {}   # (statement index, value) -> id
        self._dynamic_base: dict[int, int] = {}   # statement index -> first id of its block
        next_id = 0
        for statement in sorted(ir.random_statements(rules), key=lambda st: st.index):
            values = [value for value, _ in statement.outcomes]
            literals = [v for v in values if isinstance(v, ir.Lit)]
            if len(literals) == len(values):
                for v in literals:
                    if (statement.index, v.value) not in self._static_outcomes:
                        self._static_outcomes[(statement.index, v.value)] = next_id
                        next_id += 1
            else:
                self._dynamic_base[statement.index] = next_id
                next_id += len(values)
        self.num_chance_outcomes = next_id

    def _number_walked_actions(self, walk: _Walk) -> None:
        self._action_of_id = list(walk.actions)
        self._id_of_action = {a: i for i, a in enumerate(self._action_of_id)}
        self.num_actions = len(self._action_of_id)
        self._static_outcomes = {o: i for i, o in enumerate(walk.outcomes)}
        self._dynamic_base = {}
        self.num_chance_outcomes = len(walk.outcomes)

    def action_id(self, action: Hashable) -> int:
        return self._id_of_action[action]

    def action(self, action_id: int) -> Hashable:
        return self._action_of_id[action_id]

    def legal_ids(self, state) -> list[int]:
        """The legal actions' numbers, ascending (OpenSpiel's order)."""
        return sorted(self._id_of_action[a] for a in self.game.legal_actions(state))

    def legal_ids_of(self, state, player: int) -> list[int]:
        """One player's legal actions' numbers, ascending, where several choose at once; empty
        for a player who does not choose there."""
        if self.game.current_player(state) != SIMULTANEOUS:
            return self.legal_ids(state) if self.game.current_player(state) == player else []
        if player not in self.game.acting_players(state):
            return []
        return sorted(self._id_of_action[a] for a in self.game.legal_actions_of(state, player))

    def chance_ids(self, state) -> list[tuple[int, Fraction]]:
        """The chance outcomes as (number, exact probability), ascending by number."""
        outcomes = self.game.chance_outcomes(state)
        return sorted((self._outcome_id(o, position), Fraction(p))
                      for position, (o, p) in enumerate(outcomes))

    def _outcome_id(self, outcome, position: int) -> int:
        if outcome in self._static_outcomes:
            return self._static_outcomes[outcome]
        return self._dynamic_base[outcome[0]] + position

    def chance_outcome(self, state, outcome_id: int):
        """The chance outcome numbered ``outcome_id`` at ``state``."""
        for position, (outcome, _) in enumerate(self.game.chance_outcomes(state)):
            if self._outcome_id(outcome, position) == outcome_id:
                return outcome
        raise ValueError(f"chance outcome {outcome_id} is not possible here")

    def id_name(self, state, player: int, number: int) -> str:
        """The readable name of action (or chance outcome, for CHANCE) ``number``."""
        if player == CHANCE:
            return self.game.action_name(self.chance_outcome(state, number))
        return self.game.action_name(self._action_of_id[number])

    # ---- utilities ------------------------------------------------------------------------------
    @property
    def sum_kind(self) -> str:
        return self.info.sum_kind

    @property
    def utility_sum(self):
        """The constant total of every player's utility, or None for general-sum games."""
        if self.info.sum_kind == ZERO_SUM:
            return 0
        if self.info.sum_kind == CONSTANT_SUM:
            return self.info.utility_sum
        return None

    # ---- states as text ------------------------------------------------------------------------
    def text(self, state) -> str:
        """The whole state, for people and as a perfect-information observation: who is to move
        (or the chance event pending, or the result), then the variables."""
        game = self.game
        player = game.current_player(state)
        if player == TERMINAL:
            head = "game over: " + describe_values(self.info.players, game.returns(state))
        elif player == CHANCE:
            head = "chance: " + self._pending(state) if self._rules is not None else "chance"
        elif player == SIMULTANEOUS:
            head = " and ".join(self.info.players[p] for p in game.acting_players(state)) + \
                " choose at once"
        else:
            head = f"{self.info.players[player]} to move"
        if self._rules is None:
            path = self._tree_paths.get(state)
            return head + "\n" + ("after " + " ".join(path) if path else "at the root")
        body = render(game, state)
        hints = getattr(game, "display", None) or {}
        if hints:   # the boards, then every variable they leave out
            values = game.variables(state)
            rest = "\n".join(f"{name} = {_plain(value)}" for name, value in values.items()
                             if name not in hints)
            body = body + ("\n" + rest if rest else "")
        return head + "\n" + body

    def _pending(self, state) -> str:
        base = self._base
        pending = self._pending_ids(state)
        drawn = state[base + len(pending):]
        text = self.game.action_name(pending[0]) if len(pending) == 1 else \
            "(" + ", ".join(self.game.action_name(a) for a in pending) + ")"
        if drawn:
            text += " (drawn so far: " + ", ".join(str(v) for v in drawn) + ")"
        return text

    def _pending_ids(self, state) -> tuple:
        """The actions waiting for chance at ``state``: one, or a joint move's (one per acting
        player), or none where nothing waits."""
        base = self._base
        if len(state) == base:
            return ()
        before = state[:base]
        # the set-up (`init`) is one effect, whoever would choose at the declared start
        rules = self._rule_game
        if rules.simultaneous is not None and state[base] != rules.setup and \
                self.game.current_player(before) == SIMULTANEOUS:
            return state[base:base + len(self.game.acting_players(before))]
        return state[base:base + 1]

    @property
    def _rule_game(self) -> ir.Game:
        """The checked rules, where the game has rule actions (every caller knows it does)."""
        assert self._rules is not None, "a game without rule actions has no rules to read"
        return self._rules

    # ---- states as vectors ---------------------------------------------------------------------
    def _layout_tensor(self) -> None:
        if self._rules is None:
            self._tree_index = {s: i for i, s in enumerate(self._tree_paths)}
            self.tensor_size = len(self._tree_index)
            return
        rules = self._rules
        offset = len(rules.players)           # the player to move comes first
        self._cells: list[tuple[int, int, dict]] = []     # (slot, first entry, value -> position)
        for var in rules.variables:
            positions = {v: i for i, v in enumerate(var.values)}
            for cell in range(var.size):
                self._cells.append((var.slot + cell, offset, positions))
                offset += len(var.values)
        self._pending_offset = offset
        # the actions waiting for chance: one block, or (simultaneous moves) one per player
        self._pending_blocks = len(rules.players) if rules.simultaneous is not None else 1
        if rules.has_chance:
            offset += self._pending_blocks * (self.num_actions + 1)
        self.tensor_size = offset
        self._base = len(rules.initial)
        self._slot_layout = {slot: (first, positions) for slot, first, positions in self._cells}

    def tensor_ones(self, state) -> list[int]:
        """The positions of the vector for ``state`` that hold 1; every other entry is 0."""
        if self._rules is None:
            return [self._tree_index[state]]
        ones = [state[0]]
        ones.extend(first + positions[state[slot]] for slot, first, positions in self._cells)
        if self._rules.has_chance:
            pending = self._pending_ids(state)
            for block in range(self._pending_blocks):
                action = pending[block] if block < len(pending) else self.num_actions
                ones.append(self._pending_offset + block * (self.num_actions + 1) + action)
        return ones


    # ---- what one player sees (hidden information, simultaneous moves) -------------------------
    # A player's observation and information state are gdl's (gdl.solvers.information): without
    # hidden information the observation is the state itself and the information state the
    # history. Their text and vectors below are functions of them alone, and tell apart exactly
    # what they tell apart, so a framework keyed by them distinguishes what gdl does.

    @cached_property
    def _seen_slots(self) -> tuple[tuple[int, ...], ...] | None:
        """Per player, the state slots its observation lists, in order, in a rule game with
        hidden information; None where an observation is the whole state."""
        if self._rules is None or not self.info.hidden:
            return None
        from gdl.backends.interpret import visible_cells
        return visible_cells(self._rules)

    @cached_property
    def _cell_names(self) -> dict[int, tuple[str, str]]:
        """slot -> (name as the rules write it, the variable's type); slot 0 is the turn."""
        rules = self._rule_game
        names = {0: ("turn", ir.SYM)}
        for var in rules.variables:
            strides = [1] * len(var.shape)
            for i in range(len(var.shape) - 2, -1, -1):
                strides[i] = strides[i + 1] * var.shape[i + 1]
            for cell in range(var.size):
                index = [cell // stride % extent for stride, extent in zip(strides, var.shape)]
                shown = [str(i) for i in index]
                if var.name in rules.private_vars:
                    shown[0] = rules.players[index[0]]
                names[var.slot + cell] = (var.name + "".join(f"[{i}]" for i in shown), var.type)
        return names

    def _cells_seen(self, player: int, observation) -> list[tuple[int, Any]]:
        """(slot, value) for every cell in ``player``'s observation (a rule game's)."""
        slots = self._seen_slots
        if slots is None:
            return list(enumerate(observation[:self._base]))
        return list(zip(slots[player], observation))

    def _cell_text(self, slot: int, value) -> str:
        name, type_ = self._cell_names[slot]
        return f"{name}={show_value(value, type_, self._rule_game.symbols)}"

    def _observed_text(self, player: int, observation, before=None) -> str:
        """The cells of an observation (those that changed since ``before``, where given), and
        in a game without hidden information the moves waiting for chance."""
        cells = self._cells_seen(player, observation)
        if before is not None:
            earlier = dict(self._cells_seen(player, before))
            cells = [(slot, value) for slot, value in cells if earlier[slot] != value]
        text = " ".join(self._cell_text(slot, value) for slot, value in cells)
        if self._seen_slots is None and len(observation) > self._base:
            text += (" " if text else "") + "waiting for chance: " + self._pending(observation)
        return text

    def _move_text(self, observation_before, move_seen) -> str:
        """A move as the player saw it: a move's name, ``?`` for one hidden from it, ``chance``
        for a chance event seen only through the state."""
        game = self.game
        if move_seen is None:
            return "chance"
        if self._seen_slots is None:      # nothing hidden: the state before says what moved
            kind = game.current_player(observation_before)
            if kind == CHANCE:
                return "chance " + game.action_name(move_seen)
        else:
            kind = SIMULTANEOUS if isinstance(move_seen, tuple) else 0
        if kind == SIMULTANEOUS:
            return "(" + ", ".join("?" if a == -1 else game.action_name(a) for a in move_seen) + ")"
        return "?" if move_seen == -1 else game.action_name(move_seen)

    def observation_text(self, player: int, observation) -> str:
        """``player``'s observation (gdl's) as text: its name, then every cell it sees as the
        rules write it (``card[First]=2``); a game without rules: the observation as Python
        writes it."""
        name = self.info.players[player]
        if self._rules is None:
            return f"{name} sees {observation!r}"
        return f"{name} sees: " + self._observed_text(player, observation)

    def information_text(self, player: int, key: tuple) -> str:
        """``player``'s information state (gdl's key: the observation of the start, then of each
        move and of the state after it) as text: what it saw at the start, then ``|`` and each
        move as it saw it, with the cells that move changed in its view (``bet: stake[1]=2``)."""
        name = self.info.players[player]
        if self._rules is None:
            return f"{name} saw {key!r}"
        parts = [f"{name} saw: " + self._observed_text(player, key[0])]
        for i in range(1, len(key), 2):
            step = self._move_text(key[i - 1], key[i])
            changed = self._observed_text(player, key[i + 1], key[i - 1])
            parts.append(step + (": " + changed if changed else ""))
        return " | ".join(parts)

    @cached_property
    def _observation_index(self) -> dict:
        """A game without rules that hides something: every observation any player has of any
        reachable state, numbered (one entry each in the observation vector)."""
        game = self.game
        index: dict = {}
        for state in self._tree_paths:
            for player in range(self.info.num_players):
                index.setdefault(game.observation(state, player), len(index))
        return index

    @property
    def observation_size(self) -> int:
        """The length of an observation vector."""
        if self._rules is None and self.info.hidden:
            return len(self._observation_index)
        return self.tensor_size

    def observation_ones(self, player: int, observation) -> list[int]:
        """The positions of ``player``'s observation vector that hold 1: the state's vector
        (``tensor_ones``) with the cells the player does not see left at 0; a game without rules
        that hides something: the observation's number."""
        if self._seen_slots is None:
            if self._rules is None and self.info.hidden:
                return [self._observation_index[observation]]
            return self.tensor_ones(observation)
        ones = [observation[0]]
        layout = self._slot_layout
        for slot, value in zip(self._seen_slots[player][1:], observation[1:]):
            first, positions = layout[slot]
            ones.append(first + positions[value])
        return ones

    @property
    def has_cells(self) -> bool:
        """Is the game built from `var` and `action` rules (states made of named cells)?"""
        return self._rules is not None

    @cached_property
    def _public_slots(self) -> frozenset | None:
        """The slots every player sees, in a rule game with hidden information (None where
        every player sees all of the state)."""
        if self._seen_slots is None:
            return None
        common = set(self._seen_slots[0])
        for slots in self._seen_slots[1:]:
            common &= set(slots)
        return frozenset(common)

    def _part(self, player: int, observation, part: str) -> list[tuple[int, Any]]:
        """(slot, value) for the cells of ``player``'s observation that every player sees
        (``part`` "public") or that it sees and some other player does not ("private")."""
        if self._rules is None:
            raise EncodingError(f"{self.info.name}: a game without rules has no cells to tell "
                                "public from private")
        public = self._public_slots
        return [(slot, value) for slot, value in self._cells_seen(player, observation)
                if (public is None or slot in public) == (part == "public")]

    def part_text(self, player: int, observation, part: str) -> str:
        """The public part of ``player``'s observation (``public: ...``, the same for every
        player) or its private part (``First's own: card[First]=2``), as text."""
        cells = " ".join(self._cell_text(slot, value)
                         for slot, value in self._part(player, observation, part))
        if part == "private":
            return f"{self.info.players[player]}'s own: {cells}".rstrip()
        if self._seen_slots is None and len(observation) > self._base:
            cells += (" " if cells else "") + "waiting for chance: " + self._pending(observation)
        return f"public: {cells}".rstrip()

    def part_ones(self, player: int, observation, part: str) -> list[int]:
        """The positions that hold 1 in the vector of that part (the state's layout, the other
        cells left at 0)."""
        if part == "public" and self._seen_slots is None:
            return self.tensor_ones(observation)
        layout = self._slot_layout
        ones = []
        for slot, value in self._part(player, observation, part):
            if slot == 0:
                ones.append(value)
            else:
                first, positions = layout[slot]
                ones.append(first + positions[value])
        return ones

    @cached_property
    def information_steps(self) -> int | None:
        """The most moves (chance events included) in any play of a rule game, which bounds an
        information state's length; None where unknown (a game that can repeat a position, or
        one too large to walk that declares no ``max-length``, or a game without rules)."""
        if self._rules is None:
            return None
        if self.info.max_length is not None:
            return self.info.max_length
        return self._length_walk.longest_moves

    @property
    def _move_block(self) -> int:
        # a move seen: its kind (a decision, a joint move, chance), the chance outcome where it
        # is seen, then one entry per player's action (or "hidden") in acting order
        return 3 + self.num_chance_outcomes + self.info.num_players * (self.num_actions + 1)

    @property
    def information_size(self) -> int | None:
        """The length of an information-state vector, None where no bound is known."""
        steps = self.information_steps
        if steps is None:
            return None
        return self.tensor_size + steps * (self._move_block + self.tensor_size)

    def information_ones(self, player: int, key: tuple, befores) -> list[int]:
        """The positions of ``player``'s information-state vector that hold 1: the observation
        of the start, then for each move a block for the move as the player saw it and one for
        the observation after it. ``befores`` are the states each move was made at (they number
        a chance outcome the player sees, by its place among the state's outcomes, as
        ``chance_ids`` does)."""
        steps, most = (len(key) - 1) // 2, self.information_steps
        if most is None:
            raise EncodingError(f"{self.info.name}: no bound on the length of a play is known, "
                                "so information states have no vector; declare `max-length`")
        if steps > most:
            raise EncodingError(
                f"{self.info.name}: a play longer than the {self.information_steps} moves the "
                "rules declare (`max-length`); `gdl check --deep` reports it (E408)")
        size, block = self.tensor_size, self._move_block
        ones = list(self.observation_ones(player, key[0]))
        actions = self.num_actions + 1
        for step, before in zip(range(steps), befores):
            offset = size + step * (block + size)
            seen = key[2 * step + 1]
            kind = self.game.current_player(before)
            if seen is None:
                ones.append(offset + 2)
            elif kind == CHANCE:
                outcomes = [o for o, _ in self.game.chance_outcomes(before)]
                number = self._outcome_id(seen, outcomes.index(seen))
                ones.extend((offset + 2, offset + 3 + number))
            else:
                joint = seen if kind == SIMULTANEOUS else (seen,)
                first = offset + 3 + self.num_chance_outcomes
                ones.append(offset + (1 if kind == SIMULTANEOUS else 0))
                ones.extend(first + j * actions + (self.num_actions if a == -1 else a)
                            for j, a in enumerate(joint))
            ones.extend(offset + block + i for i in self.observation_ones(player, key[2 * step + 2]))
        return ones


def truncated_returns(info) -> tuple[Value, ...]:
    """What a play cut short after a number of moves is worth, where a framework needs a result
    (an OpenSpiel play ends in a terminal state with returns): what the rules say endless play is
    worth (``when endless``) where they say it, else a draw: every player an equal share of a
    zero- or constant-sum total (0 in a zero-sum game), or 0 in a general-sum game."""
    if info.endless_value is not None:
        return tuple(info.endless_value)
    n = info.num_players
    if info.sum_kind == CONSTANT_SUM:
        share = Fraction(info.utility_sum) / n
        return (share.numerator if share.denominator == 1 else share,) * n
    return (0,) * n


def move_limit(max_moves) -> int | None:
    """A number of moves a framework cuts plays short at, checked: None (no limit) or a positive
    integer."""
    if max_moves is None:
        return None
    if isinstance(max_moves, bool) or not isinstance(max_moves, int) or max_moves < 1:
        raise ValueError(f"max_moves must be a positive whole number of moves (or None for no "
                         f"limit); got {max_moves!r}")
    return max_moves


# ---- walking every reachable state (games without rules, and undeclared bounds) -----------------

class _Walk:
    """Every state reachable from the start, depth-first: the actions and chance outcomes met (in
    the order met), the most decisions in any play and the most moves (chance events too), both
    None if a play can return to an earlier position, the least and greatest utility, and for each
    state the first path found to it (its name in an explicit tree). A joint move (players
    choosing at once) is one decision. ``complete`` is False where the walk stopped early: more
    than ``limit`` states, or (``stop_at_cycle``) at the first cycle, when only the length is
    wanted."""

    # a frame: [state, its (label, child) pairs, the most decisions below, the most moves below,
    # the state's kind (its current player)]
    def __init__(self, game, limit: int, stop_at_cycle: bool = False):
        actions: dict = {}
        outcomes: dict = {}
        lo: Value | None = None
        hi: Value | None = None
        root = game.initial_state()
        longest: dict = {}        # state -> (most decisions, most moves) from it to an end
        paths: dict = {root: ()}
        on_path = {root}
        stack = [self._frame(game, root, actions, outcomes)]
        self.repeats = False
        self.complete = True
        while stack:
            frame = stack[-1]
            state, children, _, _, kind = frame
            step = next(children, None)
            if step is None:
                stack.pop()
                on_path.discard(state)
                here = (frame[2] + (kind != CHANCE and kind != TERMINAL), frame[3] + (kind != TERMINAL))
                longest[state] = here
                if kind == TERMINAL:
                    values = game.returns(state)
                    lo = min(values) if lo is None else min(lo, *values)
                    hi = max(values) if hi is None else max(hi, *values)
                if stack:
                    _below(stack[-1], here)
                continue
            label, child = step
            if child in on_path:       # back to a position on this very play: no longest play
                self.repeats = True
                if stop_at_cycle:
                    self.complete = False
                    break
                continue
            if child in longest:
                _below(frame, longest[child])
                continue
            if len(longest) + len(on_path) >= limit:
                self.complete = False
                break
            paths.setdefault(child, paths[state] + (_label_name(game, label, kind),))
            on_path.add(child)
            stack.append(self._frame(game, child, actions, outcomes))
        self.actions, self.outcomes = tuple(actions), tuple(outcomes)
        known = self.complete and not self.repeats
        self.longest = longest[root][0] if known else None
        self.longest_moves = longest[root][1] if known else None
        self.utility_range: tuple[Value, Value] = \
            (lo, hi) if lo is not None and hi is not None else (0, 1)
        self.paths = paths

    @staticmethod
    def _frame(game, state, actions: dict, outcomes: dict) -> list:
        player = game.current_player(state)
        if player == TERMINAL:
            return [state, iter(()), 0, 0, player]
        if player == CHANCE:
            labels = [o for o, _ in game.chance_outcomes(state)]
            outcomes.update(dict.fromkeys(labels))
            return [state, ((label, game.apply(state, label)) for label in labels), 0, 0, player]
        if player == SIMULTANEOUS:
            each = [list(game.legal_actions_of(state, p)) for p in game.acting_players(state)]
            for own in each:
                actions.update(dict.fromkeys(own))
            return [state, ((joint, game.apply_joint(state, joint)) for joint in product(*each)),
                    0, 0, player]
        labels = list(game.legal_actions(state))
        actions.update(dict.fromkeys(labels))
        return [state, ((label, game.apply(state, label)) for label in labels), 0, 0, player]


def _below(frame: list, lengths: tuple[int, int]) -> None:
    """A child's longest plays, met again from ``frame``'s state."""
    frame[2] = max(frame[2], lengths[0])
    frame[3] = max(frame[3], lengths[1])


def _label_name(game, label, kind: int) -> str:
    """A move as people read it; a joint move as its actions in the acting players' order."""
    if kind == SIMULTANEOUS:
        return "(" + ", ".join(game.action_name(a) for a in label) + ")"
    return game.action_name(label)


# ---- bounds on utilities from the rules ------------------------------------------------------------

def _utility_interval(rules: ir.Game) -> tuple[Value, Value] | None:
    """Bounds on every player's utility from the utility expressions alone (constants, variable
    domains, arithmetic, conditionals), or None where an expression is beyond this analysis."""
    intervals = [None if u is None else _interval(u, {}) for u in rules.utilities]
    known = [i for i in intervals if i is not None]
    if len(known) < len([u for u in rules.utilities if u is not None]) or not known:
        return None
    if None in intervals:   # a player's utility derived from a zero- or constant-sum declaration
        lo_rest = sum(i[0] for i in known)
        hi_rest = sum(i[1] for i in known)
        known.append((rules.sum_total - hi_rest, rules.sum_total - lo_rest))
    return min(i[0] for i in known), max(i[1] for i in known)


def _interval(expr, env: dict) -> tuple[int, int] | None:
    if isinstance(expr, ir.Lit):
        value = expr.value
        return (value, value) if expr.type == ir.INT and isinstance(value, int) else None
    if isinstance(expr, ir.Local):
        return env.get(expr.name)
    if isinstance(expr, ir.VarRef):
        return (min(expr.var.values), max(expr.var.values)) if expr.type == ir.INT else None
    if isinstance(expr, ir.ConstRef):
        if expr.type != ir.INT:
            return None
        values = list(_flatten(expr.const.value))
        return min(values), max(values)
    if isinstance(expr, ir.IfExpr):
        then, otherwise = _interval(expr.then, env), _interval(expr.otherwise, env)
        if then is None or otherwise is None:
            return None
        return min(then[0], otherwise[0]), max(then[1], otherwise[1])
    if isinstance(expr, ir.Unary):
        operand = _interval(expr.operand, env) if expr.op == "-" else None
        return None if operand is None else (-operand[1], -operand[0])
    if isinstance(expr, ir.Binary) and expr.op in ("+", "-", "*"):
        a, b = _interval(expr.left, env), _interval(expr.right, env)
        if a is None or b is None:
            return None
        if expr.op == "+":
            return a[0] + b[0], a[1] + b[1]
        if expr.op == "-":
            return a[0] - b[1], a[1] - b[0]
        corners = [x * y for x in a for y in b]
        return min(corners), max(corners)
    if isinstance(expr, ir.Builtin):
        args = [bound for a in expr.args if (bound := _interval(a, env)) is not None]
        if len(args) < len(expr.args):
            return None
        if expr.name == "abs":
            lo, hi = args[0]
            return (lo, hi) if lo >= 0 else (-hi, -lo) if hi <= 0 else (0, max(-lo, hi))
        pick = min if expr.name == "min" else max
        return pick(a[0] for a in args), pick(a[1] for a in args)
    if isinstance(expr, ir.Call):
        return _interval(expr.define.body, {name: _interval(arg, env)
                                            for name, arg in zip(expr.define.params, expr.args)})
    if isinstance(expr, ir.Quantifier) and expr.kind in ("count", "sum", "min", "max"):
        combinations = 1
        inner = dict(env)
        for name, domain in expr.binders:
            if isinstance(domain, ir.Range):    # bounds from an outer binder: not analysed
                return None
            combinations *= len(domain)
            inner[name] = (min(domain), max(domain)) if domain else None
        if expr.kind == "count":
            return 0, combinations
        body = _interval(expr.body, inner)
        if body is None:
            return None
        if expr.kind == "sum":
            return min(0, combinations * body[0]), max(0, combinations * body[1])
        return body
    return None


def _flatten(value) -> Iterator[int]:
    if isinstance(value, tuple | list):
        for item in value:
            yield from _flatten(item)
    else:
        yield value


def _plain(value) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_plain(v) for v in value) + "]"
    return str(value).lower() if isinstance(value, bool) else str(value)
