"""Small rule files with simultaneous moves or hidden information, for the bridges' tests
(tests/test_bridges_imperfect.py, tests/test_pettingzoo.py, tests/test_bridge_encoding.py)."""

# The nine lines of docs/language.md.
RPS = """
game "Rock, paper, scissors"
players A, B
simultaneous
var hand[players] in {none, rock, paper, scissors} = none
action show(h in {rock, paper, scissors}) effect hand[mover] = h
terminal hand[A] != none
define beats(x, y) = x == rock and y == scissors or x == paper and y == rock or x == scissors and y == paper
utility A = 1 if beats(hand[A], hand[B]) else -1 if beats(hand[B], hand[A]) else 0
zero-sum
"""

# Rock beating scissors pays the first player 3 (tests/test_matrix.py solves the same matrix).
BIASED_RPS = """
game "Biased rock, paper, scissors"
players A, B
simultaneous
var hand[players] in {none, rock, paper, scissors} = none
action show(h in {rock, paper, scissors}) effect hand[mover] = h
terminal hand[A] != none
define beats(x, y) = x == rock and y == scissors or x == paper and y == rock or x == scissors and y == paper
utility A = 3 if hand[A] == rock and hand[B] == scissors
       else 1 if beats(hand[A], hand[B]) else -1 if beats(hand[B], hand[A]) else 0
zero-sum
"""

# A hidden action and a hidden variable: the seeker sees neither where the coin went nor how.
HIDE = """
game "Hide a coin"
players Hider, Seeker
var coin in {none, heads, tails} = none
var guess in {none, heads, tails} = none
hidden coin
hidden place
action place(side in {heads, tails}) by Hider effect coin = side
action seek(side in {heads, tails}) by Seeker effect guess = side
terminal guess != none
utility Hider = 1 if coin != guess else -1
zero-sum
"""

# Chance inside a joint move: the coin is thrown after both have called it.
COIN = """
game "Call the coin"
players A, B
var call[players] in {none, heads, tails} = none
var coin in {none, heads, tails} = none
action say(side in {heads, tails}) effect call[mover] = side
simultaneous then { random c in {heads: 1/3, tails: 2/3}; coin = c }
terminal coin != none
utility A = (1 if call[A] == coin else 0) - (1 if call[B] == coin else 0)
zero-sum
"""

# Private dice, a simultaneous raise, then one player alone guesses the other's die. (`dealt`
# keeps the deal out of the simultaneous phase: the interpreter reads a deal of two `random`s
# in `init` as a joint move when the `simultaneous` condition already holds there.)
DUEL = """
game "Dice duel"
players A, B
var die[players] in 0..2 = 0
var raised[players] in {none, yes, no} = none
var guess in 0..2 = 0
var dealt in bool = false
private die
simultaneous if dealt and raised[A] == none
init { random a in 1..2; die[A] = a; random b in 1..2; die[B] = b; dealt = true }
action say(r in {yes, no}) requires raised[A] == none effect raised[mover] = r
action call(d in 1..2) by A requires raised[A] != none effect guess = d
terminal guess != 0
define stake = 1 + (count p in players: raised[p] == yes)
utility A = (stake if die[A] > die[B] else -stake if die[A] < die[B] else 0)
          + (1 if guess == die[B] else -1)
zero-sum
"""

# A position that repeats: no bound on a play's length.
PENNIES = """
game "Pennies until they match"
players A, B
var coin[players] in {none, heads, tails} = none
var done in bool = false
action show(side in {heads, tails}) effect coin[mover] = side
simultaneous then { done = coin[A] == coin[B]; if not done { coin[A] = none; coin[B] = none } }
terminal done
utility A = 1 if coin[A] == heads else -1
zero-sum
when endless draw
"""

# OpenSpiel's kuhn_poker with players=3, written in the rule language.
KUHN3 = """
game "Kuhn poker, three players"
# Four cards 0..3, one dealt to each player in turn; each antes 1. In turn each passes or bets 1;
# once someone has bet, every other player answers once, in turn: bet (call) or pass (fold). The
# highest card among those who bet (or among all, if nobody bet) takes the pot.
players P0, P1, P2
var card[players] in 0..3 = 0
var bet[players] in bool = false
var bettor in {nobody, P0, P1, P2} = nobody
var acted in 0..5 = 0
private card
const seat = {nobody: 0, P0: 0, P1: 1, P2: 2}
init {
    random a in 0..3; card[P0] = a;
    random b in {0: 1/3 if a != 0 else 0, 1: 1/3 if a != 1 else 0,
                 2: 1/3 if a != 2 else 0, 3: 1/3 if a != 3 else 0};
    card[P1] = b;
    random c in {0: 1/2 if a != 0 and b != 0 else 0, 1: 1/2 if a != 1 and b != 1 else 0,
                 2: 1/2 if a != 2 and b != 2 else 0, 3: 1/2 if a != 3 and b != 3 else 0};
    card[P2] = c
}
action pass effect acted = acted + 1
action bet effect bet[mover] = true; if bettor == nobody { bettor = mover }; acted = acted + 1
terminal bettor == nobody and acted == 3 or bettor != nobody and acted == 3 + seat[bettor]
define in_hand(p) = bettor == nobody or bet[p]
define wins(p) = in_hand(p) and (all q in players: (q == p or not in_hand(q) or card[q] < card[p]))
define stake(p) = 2 if bet[p] else 1
define pot = 3 + (count p in players: bet[p])
utility P0 = pot - stake(P0) if wins(P0) else -stake(P0)
utility P1 = pot - stake(P1) if wins(P1) else -stake(P1)
utility P2 = pot - stake(P2) if wins(P2) else -stake(P2)
zero-sum
utility in -2..4
max-length 8
"""

WIDE = {"rps": RPS, "biased-rps": BIASED_RPS, "hide": HIDE, "coin": COIN, "duel": DUEL,
        "pennies": PENNIES, "kuhn3": KUHN3}
# the games above whose every play ends within a bound (pennies can go on for ever)
BOUNDED = [name for name in WIDE if name != "pennies"]
