"""The reference interpreter: checked game (gdl.lang.ir) → an object implementing the game protocol.

It is the oracle every faster backend is compared with, so it stays plain: each IR node becomes a
small Python closure once, at build time, and running the game calls the closures. No cleverness
about state layout: the state is the flat tuple described in gdl.lang.ir.

Chance inside an effect: `random d in {...}` suspends the action. The state after the decision is
the state *before* the action plus ``(action_id,)``; each chance outcome appends its value. To go
on, the effect is replayed from the start with the outcomes chosen so far, which is exact because
effects are deterministic given those outcomes. When the effect finishes, the suffix is dropped.

Simultaneous moves (`simultaneous`): the players with a legal action choose at once; the joint
move runs their effects in the players' order, each with ``mover`` set to its player, in one
run (so a `random` anywhere suspends the whole joint move: the chance state is the state before
it plus the joint's action ids, then the outcomes), then the `then` block; the turn does not
rotate. Hidden information (`private`, `hidden`): a player's observation of a state is the
tuple of the cells it may see; of a move, its own actions and the others' that are not hidden
(a hidden one shows as -1); chance outcomes are seen only through the state.

Arithmetic: ``/`` is floor division and ``%`` its remainder (Python's ``//`` and ``%``), so
``a == (a / b) * b + a % b`` always holds and ``-7 / 2 == -4``, ``-7 % 2 == 1``.
"""

from __future__ import annotations

from collections.abc import Callable

from gdl.backends.tree import TreeGame
from gdl.errors import Diagnostic, GameRuntimeError, Source
from gdl.lang import ir
from gdl.lang.evaluate import EvalError, bindings_fn, expr_fn, flat_index
from gdl.lang.values import live_outcomes, show_value
from gdl.protocol import CHANCE, SIMULTANEOUS, TERMINAL, GameInfo
from gdl.span import NOWHERE

ROTATE = -1  # `pass`: the turn goes on in rotation


class _NeedChance(Exception):
    """Raised inside an effect when it reaches a random choice whose outcome is not known yet."""

    def __init__(self, distribution):
        self.distribution = distribution


# ---- statements --------------------------------------------------------------------------------

class _Run:
    """One execution of an effect: the cells being changed, the turn, the chance outcomes."""

    __slots__ = ("cells", "cursor", "outcomes", "turn")

    def __init__(self, cells: list, outcomes: tuple):
        self.cells, self.turn, self.outcomes, self.cursor = cells, ROTATE, outcomes, 0


Step = Callable[[_Run, dict], None]


def stmt_fn(st: ir.Stmt, show: Callable) -> Step:
    if isinstance(st, ir.Assign):
        var, value = st.var, expr_fn(st.value)
        slot, allowed, span = var.slot, frozenset(var.values), st.span
        offset = (flat_index([expr_fn(i) for i in st.indices], var.shape, var.name, span)
                  if st.indices else (lambda s, env: 0))

        def assign(run: _Run, env: dict) -> None:
            cells = run.cells
            v = value(cells, env)
            if v not in allowed:
                raise EvalError("E301", f"'{var.name}' would become {show(v, var.type)}, outside its "
                                f"domain", span)
            cells[slot + offset(cells, env)] = v

        return assign
    if isinstance(st, ir.If):
        cond, then, otherwise = expr_fn(st.cond), block_fn(st.then, show), block_fn(st.otherwise, show)
        return lambda run, env: then(run, env) if cond(run.cells, env) else otherwise(run, env)
    if isinstance(st, ir.For):
        body, combos_in = block_fn(st.body, show), bindings_fn(st.binders)

        def loop(run: _Run, env: dict) -> None:
            inner = dict(env)
            for combo in combos_in(run.cells, env):
                inner.update(combo)
                body(run, inner)

        return loop
    if isinstance(st, ir.Pass):
        def pass_turn(run: _Run, env: dict) -> None:
            run.turn = ROTATE
        return pass_turn
    if isinstance(st, ir.Next):
        player = expr_fn(st.player)

        def next_turn(run: _Run, env: dict) -> None:
            run.turn = player(run.cells, env)
        return next_turn
    if isinstance(st, ir.Random):
        return _random_fn(st, show)
    if isinstance(st, ir.Repeat):
        body, bound = block_fn(st.body, show), st.bound

        def repeat(run: _Run, env: dict) -> None:
            for _ in range(bound):
                before = list(run.cells)
                body(run, env)
                if run.cells == before:   # a pass that changed nothing: the fixpoint
                    return

        return repeat
    if isinstance(st, ir.LetStmt):
        value, rest, name = expr_fn(st.value), block_fn(st.body, show), st.name
        return lambda run, env: rest(run, {**env, name: value(run.cells, env)})
    raise AssertionError(f"unknown statement {st!r}")


def _random_fn(st: ir.Random, show: Callable) -> Step:
    outcomes = [(expr_fn(v), expr_fn(p)) for v, p in st.outcomes]
    body, name, index, span = block_fn(st.body, show), st.name, st.index, st.span

    def random(run: _Run, env: dict) -> None:
        if run.cursor < len(run.outcomes):
            value = run.outcomes[run.cursor]
            run.cursor += 1
            body(run, {**env, name: value})
            return
        pairs = [(v(run.cells, env), p(run.cells, env)) for v, p in outcomes]
        live, problem = live_outcomes(pairs, lambda v: show(v, st.type))
        if problem:
            raise EvalError("E305", problem, span)
        raise _NeedChance([((index, v), p) for v, p in live])

    return random


def block_fn(stmts, show: Callable) -> Step:
    steps = [stmt_fn(st, show) for st in stmts]

    def block(run: _Run, env: dict) -> None:
        for step in steps:
            step(run, env)

    return block


# ---- the game ----------------------------------------------------------------------------------

class InterpretedGame:
    """The game protocol over a checked rule game (see gdl.protocol)."""

    def __init__(self, game: ir.Game, source: Source | None = None):
        self.ir, self.source = game, source
        n = len(game.players)
        self.num_players = n
        self.info = GameInfo(
            name=game.title, players=game.players, has_chance=game.has_chance,
            sum_kind=game.sum_kind,
            utility_sum=game.sum_total if game.sum_kind != "general-sum" else None,
            utility_bounds=game.utility_bounds, has_evaluate=bool(game.evaluations),
            has_quiescence=game.quiet is not None, max_length=game.max_length,
            endless_value=game.endless_values, simultaneous=game.simultaneous is not None,
            hidden=bool(game.private_vars or game.hidden_vars or game.hidden_actions))
        self._base = len(game.initial)
        simultaneous = game.simultaneous
        self._simultaneous_when = (None if simultaneous is None else
                                   expr_fn(simultaneous.cond) if simultaneous.cond is not None
                                   else (lambda s, env: True))
        self._then = None if simultaneous is None else simultaneous.then
        self._visible = visible_cells(game)
        self._hidden_actions = frozenset(
            i for i, g in enumerate(game.ground_actions) if g.action.name in game.hidden_actions)
        assert game.terminal is not None, "a checked game has a terminal condition"
        self._terminal = expr_fn(game.terminal)
        self._utilities = [expr_fn(u) if u is not None else None for u in game.utilities]
        self._evaluations = [expr_fn(u) if u is not None else None for u in game.evaluations]
        self._quiet = expr_fn(game.quiet) if game.quiet is not None else None
        if game.tier is not None:       # only a game that declares `tier` has the method
            self.tier = self._tier_of(expr_fn(game.tier))
        self._names = [g.name for g in game.ground_actions]
        self._random_names = {st.index: (st.name, st.type) for st in ir.random_statements(game)}
        effects = {id(a): block_fn(a.effect, self.show) for a in game.actions}
        requires = {id(a): expr_fn(a.requires) if a.requires is not None else (lambda s, env: True)
                    for a in game.actions}
        self._effects = []
        self._candidates: list[list] = [[] for _ in range(n)]
        for action_id, ground in enumerate(game.ground_actions):
            env = {name: value for (name, _, _), value in zip(ground.action.params, ground.args)}
            self._effects.append((effects[id(ground.action)], env, ground))
            for player in range(n):
                if ground.action.by is None or player in ground.action.by:
                    self._candidates[player].append((action_id, requires[id(ground.action)], env))
        initial = tuple(game.initial)
        if game.setup is not None:   # `init`: the set-up effect (perhaps a chance node at the root)
            self._initial = self.apply(initial, game.setup)
        else:
            self._initial = self._settle(initial, initial[0]) if n else initial
        # `display` hints, keyed like the values variables() returns (symbols by name).
        self.display = {name: {self._shown_key(name, key): glyph for key, glyph in glyphs.items()}
                        for name, glyphs in game.display.items()}

    # -- errors carry the rule's position and the state where it happened
    def _fail(self, error: EvalError, state, action=None) -> GameRuntimeError:
        """A located error; ``state`` is where it happened and ``action`` the one being applied."""
        failure = GameRuntimeError(Diagnostic(error.code, error.message, error.span or NOWHERE),
                                   self.source)
        failure.state = state
        failure.action = None if action is None else self.action_name(action)
        return failure

    def show(self, value, type_: str) -> str:
        return show_value(value, type_, self.ir.symbols)

    # -- reading a state (for people: boards, dumps; not used by solvers)
    def _shown_key(self, name: str, key):
        var = next((v for v in self.ir.variables if v.name == name), None)
        return self.ir.symbols[key] if var is not None and var.type == ir.SYM else key

    def variables(self, state) -> dict:
        """Every variable's value in ``state``, in declaration order: ints and bools as they
        are, symbols (players included) by name, arrays as nested lists (first index outermost).
        A state waiting for chance shows the values from before the pending action."""
        values = {}
        for var in self.ir.variables:
            cells = state[var.slot:var.slot + var.size]
            cells = [self.ir.symbols[c] for c in cells] if var.type == ir.SYM else list(cells)
            for extent in reversed(var.shape[1:]):
                cells = [cells[i:i + extent] for i in range(0, len(cells), extent)]
            values[var.name] = cells if var.shape else cells[0]
        return values

    # -- the protocol
    def initial_state(self):
        return self._initial

    def is_terminal(self, state) -> bool:
        if len(state) != self._base:
            return False
        if self._rules_end(state):
            return True
        # `when stuck lose | win`: a player with no legal action ends the game
        return self.ir.stuck_end is not None and not self._legal(state, state[0])

    def _rules_end(self, state) -> bool:
        """The declared terminal condition."""
        try:
            return bool(self._terminal(state, {}))
        except EvalError as error:
            raise self._fail(error, state) from None

    def current_player(self, state) -> int:
        if len(state) != self._base:
            return CHANCE
        if self.is_terminal(state):
            return TERMINAL
        acting = self._acting(state)
        if acting is None:
            return state[0]
        return acting[0] if len(acting) == 1 else SIMULTANEOUS

    def _acting(self, state) -> tuple[int, ...] | None:
        """At a state where `simultaneous` applies, the players with a legal action (None
        elsewhere: the turn decides)."""
        when = self._simultaneous_when
        if when is None:
            return None
        try:
            if not when(state, {}):
                return None
        except EvalError as error:
            raise self._fail(error, state) from None
        acting = tuple(p for p in range(self.num_players) if self._legal_of(state, p))
        if not acting:
            span = self.ir.simultaneous.span if self.ir.simultaneous else NOWHERE
            raise self._fail(EvalError(
                "E304", "a simultaneous move where no player has a legal action, but the "
                "terminal condition is false (make `terminal` cover this)", span), state)
        return acting

    def acting_players(self, state) -> tuple[int, ...]:
        """At a SIMULTANEOUS state: the players who choose, in player order."""
        return self._acting(state) or ()

    def _legal_of(self, state, player: int) -> list[int]:
        """``player``'s legal actions as if it were to move (``mover`` is that player)."""
        return self._legal(state if state[0] == player else (player,) + state[1:], player)

    def legal_actions_of(self, state, player: int) -> list[int]:
        if len(state) != self._base or self.is_terminal(state):
            return []
        return self._legal_of(state, player)

    def _legal(self, state, player: int) -> list[int]:
        try:
            return [action_id for action_id, requires, env in self._candidates[player]
                    if requires(state, env)]
        except EvalError as error:
            raise self._fail(error, state) from None

    def legal_actions(self, state) -> list[int]:
        if len(state) != self._base or self.is_terminal(state):
            return []
        acting = self._acting(state)
        if acting is not None:
            return self._legal_of(state, acting[0]) if len(acting) == 1 else []
        actions = self._legal(state, state[0])
        if not actions:
            span = self.ir.spans.get("terminal", NOWHERE)
            raise self._fail(EvalError(
                "E304", f"{self.ir.players[state[0]]} is to move and has no legal action, but the "
                "terminal condition is false (add `when stuck lose` or `when stuck pass`, or make "
                "`terminal` cover this)",
                span), state)
        return actions

    def apply(self, state, action):
        setup = self.ir.setup
        if len(state) == self._base:
            acting = None if action == setup else self._acting(state)
            if acting is not None:               # one player with a move where moves are joint
                return self._run_joint(state, acting, (action,), (), state, action)
            return self._run(state, action, (), state, action)
        base = state[:self._base]
        # the set-up (`init`), waiting for chance, is one effect whatever moves come after
        acting = None if state[self._base] == setup else self._acting(base)
        if acting is not None:
            k = len(acting)
            return self._run_joint(base, acting, state[self._base:self._base + k],
                                   state[self._base + k:] + (action[1],), state, action)
        action_id = state[self._base]
        return self._run(base, action_id, state[self._base + 1:] + (action[1],), state, action)

    def apply_joint(self, state, joint: tuple):
        """The state after every acting player's action, in ``acting_players`` order."""
        acting = self.acting_players(state)
        if len(joint) != len(acting):
            raise ValueError(f"{len(joint)} actions for {len(acting)} acting players")
        return self._run_joint(state, acting, tuple(joint), (), state, joint)

    def _run_joint(self, base, acting: tuple, joint: tuple, outcomes: tuple, state, move):
        """Every acting player's effect in one run, in player order, each with ``mover`` set
        to its player, then the `then` block; a `random` anywhere suspends the whole move."""
        run = _Run(list(base), outcomes)
        try:
            self._joint_effects(run, base, acting, joint)
        except _NeedChance:
            return base + tuple(joint) + outcomes
        except EvalError as error:
            raise self._fail(error, state, move if not isinstance(move, tuple) else None) from None
        following = base[0] if run.turn == ROTATE else run.turn   # joint moves do not rotate
        if not 0 <= following < self.num_players:
            raise self._fail(EvalError("E301", f"`next` names {self.show(following, ir.SYM)}, "
                                       "which is not a player", self.ir.simultaneous.span
                                       if self.ir.simultaneous else NOWHERE), state)
        run.cells[0] = following
        return tuple(run.cells)

    def _joint_effects(self, run: _Run, base, acting: tuple, joint) -> None:
        """The effects of a joint move, run in order (the acting players', each as ``mover``,
        then the `then` block); may raise _NeedChance."""
        for player, action_id in zip(acting, joint):
            effect, env, _ = self._effects[action_id]
            run.cells[0] = player
            effect(run, env)
        run.cells[0] = base[0]
        if self._then is not None:
            effect, env, _ = self._effects[self._then]
            effect(run, env)

    def _run(self, base, action_id: int, outcomes: tuple, state, action):
        effect, env, _ = self._effects[action_id]
        run = _Run(list(base), outcomes)
        try:
            effect(run, env)
        except _NeedChance:
            return base + (action_id,) + outcomes
        except EvalError as error:
            raise self._fail(error, state, action) from None
        mover = base[0]
        following = (mover + 1) % self.num_players if run.turn == ROTATE else run.turn
        if not 0 <= following < self.num_players:
            raise self._fail(EvalError("E301", f"`next` names {self.show(following, ir.SYM)}, "
                                       "which is not a player", self._effects[action_id][2].action.span),
                             state, action)
        cells = run.cells
        cells[0] = following
        return self._settle(tuple(cells), following)

    def _settle(self, state, player: int):
        """With `when stuck pass`, a player without a legal action is skipped, in rotation."""
        if not self.ir.stuck_pass or self.is_terminal(state):
            return state
        for step in range(self.num_players):
            candidate = (player + step) % self.num_players
            moved = (candidate,) + state[1:]
            if self._legal(moved, candidate):
                return moved
        return state  # nobody can move: legal_actions reports the dead end

    def chance_outcomes(self, state):
        base = state[:self._base]
        acting = None if state[self._base] == self.ir.setup else self._acting(base)
        if acting is not None:
            k = len(acting)
            run = _Run(list(base), state[self._base + k:])
            try:
                self._joint_effects(run, base, acting, state[self._base:self._base + k])
            except _NeedChance as need:
                return need.distribution
            except EvalError as error:
                raise self._fail(error, state) from None
            raise AssertionError("a chance state whose effect needs no outcome")
        action_id = state[self._base]
        effect, env, _ = self._effects[action_id]
        try:
            effect(_Run(list(base), state[self._base + 1:]), env)
        except _NeedChance as need:
            return need.distribution
        except EvalError as error:
            raise self._fail(error, state) from None
        raise AssertionError("a chance state whose effect needs no outcome")

    def _per_player(self, fns, state) -> tuple:
        try:
            values = [fn(state, {}) if fn is not None else None for fn in fns]
        except EvalError as error:
            raise self._fail(error, state) from None
        if None in values:
            missing = values.index(None)
            values[missing] = self.ir.sum_total - sum(v for v in values if v is not None)
        return tuple(values)

    def returns(self, state) -> tuple:
        if self.ir.stuck_end is not None and not self._rules_end(state):
            return self.ir.stuck_values[state[0]]   # terminal because the mover is stuck
        return self._per_player(self._utilities, state)

    def evaluate(self, state) -> tuple:
        if not self._evaluations:
            raise ValueError("the game declares no evaluation")
        return self._per_player(self._evaluations, state)

    def _tier_of(self, rule):
        def tier(state) -> int:
            """The declared tier of a state (an integer no move lowers)."""
            try:
                return int(rule(state, {}))
            except EvalError as error:
                raise self._fail(error, state) from None
        return tier

    def is_quiet(self, state) -> bool:
        if self._quiet is None:
            return True
        try:
            return bool(self._quiet(state, {}))
        except EvalError as error:
            raise self._fail(error, state) from None

    # -- hidden information
    def observation(self, state, player: int) -> tuple:
        """What ``player`` sees of ``state``: the cells it may see (of the state before a move
        that waits for chance; the move itself is seen as a move)."""
        return tuple(state[i] for i in self._visible[player])

    def move_observation(self, state, player: int, move):
        """What ``player`` sees of ``move`` made at ``state``: its own actions and the others'
        that are not hidden (a hidden one is -1); a chance outcome is seen only through the
        state (None)."""
        kind = self.current_player(state)
        if kind == CHANCE:
            return None
        if kind == SIMULTANEOUS:
            acting = self.acting_players(state)
            return tuple(a if q == player or a not in self._hidden_actions else -1
                         for q, a in zip(acting, move))
        return move if kind == player or move not in self._hidden_actions else -1

    def action_name(self, action) -> str:
        if isinstance(action, tuple):
            name, type_ = self._random_names[action[0]]
            return f"{name}={self.show(action[1], type_)}"
        return self._names[action]


def visible_cells(game: ir.Game) -> tuple[tuple[int, ...], ...]:
    """Per player, the state cells it sees: all but the `hidden` variables' and the other
    players' entries of the `private` ones (a private variable's first index is the player)."""
    n = len(game.players)
    unseen: list[set[int]] = [set() for _ in range(n)]
    for var in game.variables:
        cells = range(var.slot, var.slot + var.size)
        if var.name in game.hidden_vars:
            for player in range(n):
                unseen[player].update(cells)
        elif var.name in game.private_vars:
            share = var.size // var.shape[0]
            for owner in range(n):
                entry = range(var.slot + owner * share, var.slot + (owner + 1) * share)
                for player in range(n):
                    if player != owner:
                        unseen[player].update(entry)
    return tuple(tuple(i for i in range(len(game.initial)) if i not in unseen[player])
                 for player in range(n))


def build(game: ir.Game, source: Source | None = None):
    """The interpreted game for a checked IR; explicit trees become a TreeGame."""
    if game.tree is not None:
        from gdl.backends.tree import tree_info

        root = game.tree.root
        info = tree_info(game.title, game.players, root, game.sum_kind,
                         game.sum_total if game.sum_kind != "general-sum" else None)
        return TreeGame(root, info)
    return InterpretedGame(game, source)
