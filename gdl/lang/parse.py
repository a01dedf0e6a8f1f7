"""Text → syntax tree (gdl.lang.ast), with Lark's LALR parser and friendly syntax errors.

The grammar ships inside the package (``gdl.grammars``). Building the LALR tables costs tens of
milliseconds, so the built parser is cached in a per-user directory (never a shared, predictable
path: the cache is a pickle, and loading one another user could write would run their code).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

import lark
from lark import Token, Transformer, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError

from gdl.errors import Diagnostic, Fix, GdlError, Source, is_control
from gdl.lang import ast
from gdl.lang.grammar import build_parser, reserved_words
from gdl.lang.text import normalize

MAX_LITERAL_DIGITS = 1000

# Readable names for the grammar's terminals, used in "expected ..." messages.
_TERMINAL_WORDS = {
    "NAME": "a name", "INT": "a number", "STRING": 'a quoted string like "Nim"',
    "COMPARE": "a comparison", "MUL_OP": "'*', '/', '//' or '%'", "$END": "the end of the file",
    "MINUS": "'-'", "PLUS": "'+'", "ZERO_SUM": "'zero-sum'", "CONSTANT_SUM": "'constant-sum'",
    "MAX_LENGTH": "'max-length'",
}


def _describe_terminal(parser: lark.Lark, name: str) -> str:
    if name in _TERMINAL_WORDS:
        return _TERMINAL_WORDS[name]
    try:
        pattern = parser.get_terminal(name).pattern
    except KeyError:
        return name.lower()
    if isinstance(pattern, lark.lexer.PatternStr):
        return f"'{pattern.value}'"
    return name.lower()


def _reserved_before(text: str, position: int) -> str | None:
    """The reserved word just before ``position``, if any (a likely cause of a syntax error)."""

    words = re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text[max(0, position - 40):position])
    return words[-1] if words and words[-1] in reserved_words() else None


def _expected(parser: lark.Lark, names) -> str:
    words = sorted({_describe_terminal(parser, n) for n in names})
    if len(words) > 8:
        words = words[:8] + ["..."]
    return ", ".join(words)


# Characters from other languages, and what gdl writes instead.
_FOREIGN_CHARACTERS = {"|": "write `or` (not `||`)", "&": "write `and` (not `&&`)",
                       "!": "write `not` (`!=` is 'not equal')"}
_QUANTIFIER_WORDS = ("any", "all", "count", "sum", "min", "max")


def _newcomer_hint(token: Token, expected: set[str], described: list[str], source: Source) -> str | None:
    """The fix for a syntax error newcomers make first, when the unexpected token shows it."""
    value, before = str(token.value), source.text[:token.start_pos or 0].rstrip()
    if value == "=" and "COMPARE" in expected:
        return "`=` assigns (in an effect); write `==` to compare"
    if token.type == "COMPARE" and value == ">" and before.endswith("<"):
        return "write `!=` for 'not equal' (not `<>`)"
    if token.type == "COMPARE":
        return "comparisons do not chain: write `a < b and b < c`"
    if value == "elif" or before.endswith((" elif", "}elif")):
        return "write `else if`"
    if value == ":" and "'{'" in described:
        return "a block is written in braces, with no ':' before it: `if c { ... }`"
    if value == "effect":
        return "an action has one `effect`: separate its statements with ';'"
    if value == "random" or before.endswith("random"):
        return "`random` is a statement: it belongs in an `effect` or in `init`, not in an expression"
    if value == "let" and "';'" in described:
        return "end the statement before `let` with ';'"
    if value == "," and "';'" in described and re.match(
            r"\s*let\s+\w+\s*=", re.split(r"[;{}]|\beffect\b", before)[-1]):
        return ("a `let` statement names one value: write `let a = ...; let b = ...` (the "
                "expression `let a = ..., b = ...: body` takes several)")
    return None


def _syntax_error(parser: lark.Lark, error: UnexpectedInput, source: Source) -> GdlError:
    line, column = getattr(error, "line", 0) or 0, getattr(error, "column", 0) or 0
    if isinstance(error, UnexpectedCharacters):
        at = error.pos_in_stream
        char = source.text[at] if at is not None and at < len(source.text) else "?"
        span = ast.Span(line, column, line, column + 1)
        hint = f"expected {_expected(parser, error.allowed or [])}"
        decimal = _decimal_number(error.pos_in_stream, source)
        if decimal is not None:
            return GdlError(decimal, source)
        if char in _FOREIGN_CHARACTERS:
            hint = f"{_FOREIGN_CHARACTERS[char]}; {hint}"
        return GdlError(Diagnostic("E101", f"unexpected character {char!r}", span, hint=hint), source)
    stack = _value_stack(error)
    if isinstance(error, UnexpectedEOF) or (
            isinstance(error, UnexpectedToken) and error.token.type == "$END"):
        lines = source.lines()
        span = ast.Span(len(lines), len(lines[-1]) + 1, len(lines), len(lines[-1]) + 1)
        hint = f"expected {_expected(parser, error.expected)}"
        missing_else = _missing_else(stack, set(error.expected), "E102", source)
        if missing_else is not None:
            return GdlError(missing_else, source)
        return GdlError(Diagnostic("E102", "unexpected end of file", span, hint=hint), source)
    assert isinstance(error, UnexpectedToken)
    token = error.token
    span = ast.Span(token.line, token.column, token.end_line or token.line,
                    token.end_column or token.column + len(token))
    expected = set(error.accepts or error.expected)
    described = [_describe_terminal(parser, n) for n in expected]
    hint = f"expected {_expected(parser, expected)}"
    if "';'" in described:
        hint += "; statements in an effect are separated by ';'"
    special = (_misspelt_after_display(stack, source)
               or _python_range(token, described, source)
               or _double_equals(token, expected, source)
               or _nameless_action(stack)
               or _body_before_if(token, stack)
               or _misspelt_keyword(parser, token, expected)
               or (_missing_else(stack, expected, "E100", source)
                   if token.type not in ("LBRACE", "IF") else None))
    if special is not None:
        return GdlError(special, source)
    if "'else'" in described:
        hint += ("; if an `if` on this line or the one before starts a new statement, end the "
                 "statement before it with ';'")
    keyword = _reserved_before(source.text, token.start_pos or 0)
    newcomer = _newcomer_hint(token, expected, described, source)
    if newcomer:
        hint = f"{newcomer}; {hint}"
    elif keyword in _QUANTIFIER_WORDS:
        hint = (f"'{keyword}' starts a quantifier: to use one as an operand, put it in parentheses, "
                f"`({keyword} i in 0..3: ...) + 1`; it cannot be a name; " + hint)
    return GdlError(Diagnostic("E100", f"unexpected {token.value!r}", span, hint=hint), source)


# ---- syntax errors whose fix the text shows -------------------------------------------------------
# Each returns a Diagnostic (its code that of the syntax error, placed where the mistake is, with
# a hint that names the fix and, where the fix is one edit, that edit as ``fix``), or None.

def _value_stack(error: UnexpectedInput) -> list:
    """What the parser had read when it failed (tokens and reduced trees), innermost last."""
    interactive = getattr(error, "interactive_parser", None)
    return list(interactive.parser_state.value_stack) if interactive is not None else []


def _start(item) -> tuple[int, int, int] | None:
    """(line, column, offset) where a token or a reduced tree on the parser's stack starts."""
    if isinstance(item, Token):
        where = (item.line, item.column, item.start_pos)
    else:
        meta = getattr(item, "meta", None)
        if meta is None or getattr(meta, "empty", True):
            return None
        where = (meta.line, meta.column, meta.start_pos)
    line, column, offset = where
    return None if line is None or column is None or offset is None else (line, column, offset)


def _end(item) -> tuple[int, int, int] | None:
    """(line, column, offset) just after a token or a reduced tree on the parser's stack."""
    if isinstance(item, Token):
        where = (item.end_line, item.end_column, item.end_pos)
    else:
        meta = getattr(item, "meta", None)
        if meta is None or getattr(meta, "empty", True):
            return None
        where = (meta.end_line, meta.end_column, meta.end_pos)
    line, column, offset = where
    return None if line is None or column is None or offset is None else (line, column, offset)


def _decimal_number(position: int | None, source: Source) -> Diagnostic | None:
    """`0.5`: numbers are exact, and a probability or a share is written as a fraction, `1/2`."""
    text = source.text
    if position is None or text[position:position + 1] != ".":
        return None
    start = position - len(re.findall(r"[0-9]*$", text[:position])[0])
    after = re.match(r"[0-9]+", text[position + 1:])
    if after is None or (start > 0 and re.match(r"[A-Za-z_.]", text[start - 1])):
        return None
    end = position + 1 + after.end()
    literal = text[start:end]
    exact = Fraction(literal)
    written = str(exact.numerator) if exact.denominator == 1 else f"{exact.numerator}/{exact.denominator}"
    line = text.count("\n", 0, start) + 1
    column = start - (text.rfind("\n", 0, start) + 1) + 1
    span = ast.Span(line, column, line, column + len(literal))
    hint = f"numbers are exact: write `{written}`"
    near = exact.limit_denominator(12)
    if near != exact and abs(near - exact) < Fraction(1, 100):
        hint += f" (or `{near.numerator}/{near.denominator}` if that is what it stands for)"
    return Diagnostic("E101", f"a decimal number, {literal}", span, hint=hint,
                      fix=Fix(span, written))


def _python_range(token: Token, described: list[str], source: Source) -> Diagnostic | None:
    """`i in range(3)`: a range is written `low..high`, both ends included: `0..2`."""
    if "'..'" not in described:
        return None
    before = source.text[:token.start_pos or 0]
    call = re.search(r"\brange\s*\(([^()]*)\)\s*$", before)
    if call is None:
        return None
    args = [a.strip() for a in call[1].split(",")]
    if len(args) not in (1, 2) or not all(args):
        return None
    low, high = ("0", args[0]) if len(args) == 1 else (args[0], args[1])
    high = str(int(high) - 1) if re.fullmatch(r"-?[0-9]+", high) else f"{high} - 1"
    written = f"{low}..{high}"
    text = call[0].rstrip()
    line = source.text.count("\n", 0, call.start()) + 1
    column = call.start() - (source.text.rfind("\n", 0, call.start()) + 1) + 1
    if "\n" in text:
        return None
    span = ast.Span(line, column, line, column + len(text))
    return Diagnostic("E100", f"`{text}` is not a range here", span,
                      hint=f"write `{written}`: a range `low..high` includes both ends",
                      fix=Fix(span, written))


def _double_equals(token: Token, expected: set[str], source: Source) -> Diagnostic | None:
    """`x == 1` where a value is given (an assignment, a declaration's `=`): write one `=`."""
    start = token.start_pos or 0
    if token.value == "==" and "EQUAL" in expected:     # lexed as one comparison
        span = _token_span(token)
    elif token.value == "=" and start > 0 and source.text[start - 1] == "=":   # as '=' twice
        span = ast.Span(token.line or 0, (token.column or 1) - 1, token.line or 0, (token.column or 0) + 1)
    else:
        return None
    return Diagnostic("E100", "`==` where a value is given", span,
                      hint="`==` compares; to assign (in an effect) or to give a declaration its "
                      "value, write one `=`", fix=Fix(span, "="))


def _nameless_action(stack: list) -> Diagnostic | None:
    """`action requires ...`: the clause's keyword was taken for the action's name."""
    if len(stack) < 2 or not isinstance(stack[-1], Token) or not isinstance(stack[-2], Token):
        return None
    name, before = stack[-1], stack[-2]
    if before.type != "ACTION" or name.type != "NAME" or name.value not in ("by", "requires", "effect"):
        return None
    return Diagnostic("E100", f"the action has no name: `{name.value}` is read as its name",
                      _token_span(name),
                      hint=f"name the action first, e.g. `action go {name.value} ...`")


def _body_before_if(token: Token, stack: list) -> Diagnostic | None:
    """`a if any i in 0..2: x[i] == 0 if c else d else e`: the quantifier (or `let`) in a
    condition ends at its comparison, so its body cannot go on with `if ... else`."""
    if token.type != "IF" or not stack or not isinstance(stack[-1], lark.Tree):
        return None
    if stack[-1].data not in ("quantifier", "let_expr"):
        return None
    return Diagnostic("E100", "this `if` cannot continue the body before it",
                      _token_span(token), hint=_QUANTIFIER_IF_HINT)


_QUANTIFIER_IF_HINT = (
    "the body of a quantifier or `let` reaches as far as one comparison, and `a if c else b` "
    "binds more loosely: to make the conditional the body, put it in parentheses, "
    "`sum i in 0..2: (1 if x[i] == 0 else 0)`")


def _missing_else(stack: list, expected: set[str], code: str, source: Source) -> Diagnostic | None:
    """`1 if c` with no `else`: an expression has a value whichever way `c` goes."""
    if "ELSE" not in expected or len(stack) < 3 or not (
            isinstance(stack[-2], Token) and stack[-2].type == "IF"):
        return None
    then, cond = stack[-3], stack[-1]
    first, then_end, cond_start, last, keyword = (
        _start(then), _end(then), _start(cond), _end(cond), _start(stack[-2]))
    if first is None or then_end is None or cond_start is None or last is None or keyword is None:
        return None
    written = source.text[first[2]:last[2]]
    if "\n" in written:     # point at the `if` alone
        first, written = keyword, "if"
    span = ast.Span(first[0], first[1], first[0], first[1] + len(written))
    then_text = source.text[first[2]:then_end[2]]
    cond_text = source.text[cond_start[2]:last[2]]
    if "\n" in then_text + cond_text or written == "if":
        then_text, cond_text = "a", "c"
    better = (f"an expression has a value either way: write `{then_text} if {cond_text} else ...` "
              "with the value when the condition is false")
    if len(stack) >= 5 and isinstance(stack[-4], Token) and stack[-4].type == "EQUAL" and (
            isinstance(stack[-5], lark.Tree) and stack[-5].data == "target"):
        target_start, target_end = _start(stack[-5]), _end(stack[-5])
        target = source.text[target_start[2]:target_end[2]] if target_start and target_end else "x"
        better = (f"an expression has a value either way: write `{then_text} if {cond_text} else "
                  f"{target}` to keep the value otherwise, or the statement `if {cond_text} "
                  f"{{ {target} = {then_text} }}`")
    return Diagnostic(code, "`if` without `else` in an expression", span, hint=better)


def _word_distance(a: str, b: str) -> int:
    """Edits (insert, delete, replace, swap two neighbours) that turn ``a`` into ``b``."""
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        row = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            row[j] = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                row[j] = min(row[j], previous2[j - 2] + 1)
        previous2, previous = previous, row
    return previous[len(b)]


def _misspelt_keyword(parser: lark.Lark, token: Token, expected: set[str]) -> Diagnostic | None:
    """`requries`: a name where a keyword is expected, a letter or two away from one of them."""
    value = str(token.value)
    if token.type != "NAME" or len(value) < 3:
        return None
    keywords = set()
    for name in expected:
        try:
            pattern = parser.get_terminal(name).pattern
        except KeyError:
            continue
        if isinstance(pattern, lark.lexer.PatternStr) and re.fullmatch(r"[a-z][a-z-]*", pattern.value):
            keywords.add(pattern.value)
    allowed = 1 if len(value) <= 4 else 2
    close = sorted((_word_distance(value.lower(), k), k) for k in keywords)
    if not close or close[0][0] > allowed:
        return None
    word = close[0][1]
    said = ("the language's words are lower case: " if value.lower() == word else "") + (
        f"did you mean `{word}`?")
    span = _token_span(token)
    return Diagnostic("E100", f"unexpected {value!r}", span, hint=said, fix=Fix(span, word))


def _misspelt_after_display(stack: list, source: Source) -> Diagnostic | None:
    """`termnal x == 1` on the line after a display: the layout words after a display's map are
    names, so a misspelt declaration keyword there is read as one, and the error comes later.
    The first word of a line among them, a letter or two from a declaration's keyword, is it."""
    words: list[Token] = []
    for item in reversed(stack):
        # the words read so far (Lark keeps the list as a tree of its own), and the last one,
        # not reduced yet
        if isinstance(item, Token) and item.type == "NAME":
            words.append(item)
        elif isinstance(item, lark.Tree) and (item.data == "display_word"
                                               or str(item.data).startswith("__display_decl")):
            words.extend(reversed(list(item.scan_values(lambda v: isinstance(v, Token)))))
        else:
            break
    if not any(isinstance(item, Token) and item.type == "DISPLAY" for item in stack):
        return None
    lines = source.lines()
    for token in reversed(words):
        value = str(token.value)
        if token.type != "NAME" or len(value) < 3 or not token.line or not token.column:
            continue
        if lines[token.line - 1][:token.column - 1].strip():
            continue        # not the first word of its line
        allowed = 1 if len(value) <= 4 else 2
        distance, word = min((_word_distance(value.lower(), k), k) for k in _DECLARATION_KEYWORDS)
        if distance <= allowed:
            span = _token_span(token)
            return Diagnostic("E100", f"unexpected {value!r}", span,
                              hint=f"did you mean `{word}`?", fix=Fix(span, word))
    return None


_DECLARATION_KEYWORDS = ("game", "players", "param", "const", "var", "init", "action", "define",
                         "terminal", "utility", "evaluate", "quiet", "when", "display", "tree",
                         "tier", "simultaneous", "private", "hidden")


# Every later stage (the syntax tree, the checker, both backends) recurses once per level of
# nesting, so deeper input is refused here, with its position, instead of overflowing the stack.
MAX_NESTING = 256


def _too_deep(tree: lark.Tree) -> lark.Tree | None:
    """The first node nested more than MAX_NESTING levels deep, if any (no recursion)."""
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_NESTING:
            return node
        stack.extend((child, depth + 1) for child in node.children if isinstance(child, lark.Tree))
    return None


def _keyword_as_name(error: UnexpectedInput) -> bool:
    """Read a reserved word as a name where only a name fits, and go on (Lark's ``on_error``).

    Declarations follow one another without a separator, so LALR's lookahead after a number
    holds every declaration keyword, and the contextual lexer then takes `players` in
    ``tree A { a: 0 players: 1 }`` for the keyword although only a name fits there. A tree's
    labels may be any word (docs/language.md, "Reserved words"); everywhere else the checker
    refuses a reserved word as a name with E224, which says more than a syntax error."""
    if not isinstance(error, UnexpectedToken) or "NAME" not in (error.accepts or error.expected):
        return False
    token = error.token
    if token.type == "NAME" or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", str(token.value)):
        return False
    error.interactive_parser.feed_token(Token.new_borrow_pos("NAME", str(token.value), token))
    return True


def _nesting_error(node: lark.Tree | None, source: Source) -> GdlError:
    span = ast.Span(1, 1, 1, 2)
    if node is not None:
        token = next((t for t in node.scan_values(lambda v: isinstance(v, Token))), None)
        if token is not None:
            span = _token_span(token)
        elif not getattr(node.meta, "empty", True):
            span = _span_of(node.meta)
    return GdlError(Diagnostic("E103", f"nested more than {MAX_NESTING} levels deep", span,
                               hint="split it up, e.g. with `define`"), source)


# Declarations start with a keyword; a line that starts with one at its first column is where
# parsing can safely start again after a syntax error.
_DECLARATION_START = re.compile(
    r"^(game|players|param|const|var|init|action|define|terminal|utility|zero-sum|constant-sum"
    r"|evaluate|quiet|max-length|when|display|tree|tier|simultaneous|private|hidden)\b", re.M)
MAX_SYNTAX_ERRORS = 5


def _later_syntax_errors(parser: lark.Lark, error: UnexpectedInput, source: Source) -> list:
    """The syntax errors after the first, each found by parsing again from the next line that
    starts a declaration (the text before it blanked out, so every position stays the same):
    reliable, since declarations cannot nest. At most MAX_SYNTAX_ERRORS in all; an E102 (end
    of file) is not repeated."""
    found: list[Diagnostic] = []
    line = getattr(error, "line", 0) or 0
    while line and len(found) < MAX_SYNTAX_ERRORS - 1:
        restart = next((m for m in _DECLARATION_START.finditer(source.text)
                        if source.text.count("\n", 0, m.start()) + 1 > line), None)
        if restart is None:
            break
        rest = re.sub(r"[^\n]", " ", source.text[:restart.start()]) + source.text[restart.start():]
        try:
            parser.parse(rest)
            break
        except UnexpectedInput as later:
            diagnostic = _syntax_error(parser, later, source).diagnostics[0]
            if diagnostic.code == "E102":
                break
            found.append(diagnostic)
            line = getattr(later, "line", 0) or 0
    return found


def parse(text: str, filename: str = "<input>") -> ast.GameFile:
    """Parse a rule file. Raises GdlError (E1xx) with the position of the first syntax error,
    and of the next ones where parsing can start again (at a later declaration)."""
    text = normalize(text, filename)
    source = Source(filename, text)
    parser = build_parser()
    try:
        tree = parser.parse(text, on_error=_keyword_as_name)
    except UnexpectedInput as error:
        first = _syntax_error(parser, error, source)
        more = _later_syntax_errors(parser, error, source)
        if more:
            raise GdlError(first.diagnostics + more, source) from None
        raise first from None
    deep = _too_deep(tree)
    if deep is not None:
        raise _nesting_error(deep, source)
    try:
        return _ToAst().transform(tree)
    except VisitError as error:
        if isinstance(error.orig_exc, GdlError):
            raise error.orig_exc.with_source(source) from None
        if isinstance(error.orig_exc, RecursionError):
            raise _nesting_error(None, source) from None
        raise
    except RecursionError:
        raise _nesting_error(None, source) from None


# ---- Lark tree → gdl.lang.ast -----------------------------------------------------------------------

def _span_of(meta) -> ast.Span:
    if getattr(meta, "empty", False) or not hasattr(meta, "line"):
        return ast.NOWHERE
    return ast.Span(meta.line, meta.column, meta.end_line, meta.end_column)


def _token_span(token: Token) -> ast.Span:
    if token.line is None or token.column is None or token.end_line is None \
            or token.end_column is None:    # a token the parser made up has no place
        return ast.NOWHERE
    return ast.Span(token.line, token.column, token.end_line, token.end_column)


def _fraction(numerator: int, denominator, meta) -> Fraction:
    denominator = _integer(denominator) if denominator is not None else 1
    if denominator == 0:
        raise GdlError(Diagnostic("E221", "division by zero in a number", _span_of(meta)))
    return Fraction(numerator, denominator)


def _string(token: Token) -> str:
    """A quoted string's text. Titles and glyphs are printed to terminals, so a control
    character (an escape sequence could set the window title, clear the screen or write the
    clipboard) or a bidirectional override is refused where it stands (E230)."""
    text = str(token)[1:-1]
    line, start = token.line or 0, token.column or 0     # 0: no place (a made-up token)
    for offset, char in enumerate(text):
        if is_control(char):
            column = start + 1 + offset
            raise GdlError(Diagnostic(
                "E230", f"a control character ({ascii(char)[1:-1]}) inside a string",
                ast.Span(line, column, line, column + 1),
                hint="strings are printed as they are; use visible characters only"))
    return text


def _integer(token: Token) -> int:
    """An integer literal; more than MAX_LITERAL_DIGITS digits is refused (E232) rather than
    met later as a number too large to print or to compute with."""
    digits = str(token)
    if len(digits) > MAX_LITERAL_DIGITS:
        raise GdlError(Diagnostic(
            "E232", f"a number with {len(digits):,} digits, more than {MAX_LITERAL_DIGITS}",
            _token_span(token), hint="numbers in rules are sizes, scores and probabilities"))
    return int(digits)


def _ident(token: Token) -> ast.Ident:
    return ast.Ident(str(token), _token_span(token))


def _word(token: Token) -> ast.Word:
    """A display's word: a name as it is, a string's text (checked as every string is)."""
    if token.type == "STRING":
        return ast.Word(_string(token), True, _token_span(token))
    return ast.Word(str(token), False, _token_span(token))


@dataclass(frozen=True)
class _Glyph:
    """One entry of a display's map while the syntax tree is built."""
    key: str | int | bool
    text: str | None
    picture: ast.Picture | None


@v_args(meta=True)
class _ToAst(Transformer):
    # -- declarations
    def start(self, meta, decls):
        return ast.GameFile(tuple(decls), _span_of(meta))

    def game_decl(self, meta, c):
        return ast.GameDecl(_string(c[0]), _span_of(meta))

    def players_decl(self, meta, c):
        return ast.PlayersDecl(c[0], _span_of(meta))

    def name_list(self, meta, c):
        return tuple(_ident(t) for t in c)

    def param_decl(self, meta, c):
        return ast.ParamDecl(_ident(c[0]), c[1], _span_of(meta))

    def const_decl(self, meta, c):
        return ast.ConstDecl(_ident(c[0]), c[1], _span_of(meta))

    def map_lit(self, meta, c):
        return ast.MapLit(tuple(c), _span_of(meta))

    def map_entry(self, meta, c):
        return (_ident(c[0]), c[1])

    def var_decl(self, meta, c):
        return ast.VarDecl(_ident(c[0]), c[1], c[2], c[3], _span_of(meta))

    def dims(self, meta, c):
        return tuple(c)

    def dim(self, meta, c):
        item = c[0]
        if isinstance(item, Token) and item.type == "PLAYERS":
            return ast.PlayersDomain(_token_span(item))
        return item

    def domain(self, meta, c):
        item = c[0]
        if isinstance(item, Token):
            return (ast.PlayersDomain if item.type == "PLAYERS" else ast.BoolDomain)(_token_span(item))
        return item

    def symbol_set(self, meta, c):
        return ast.SymbolDomain(c[0], _span_of(meta))

    def range(self, meta, c):
        return ast.RangeDomain(c[0], c[1], _span_of(meta))

    def binder(self, meta, c):
        domain = c[1]
        if isinstance(domain, Token):
            domain = ast.PlayersDomain(_token_span(domain))
        return ast.Binder(_ident(c[0]), domain, _span_of(meta))

    def action_decl(self, meta, c):
        name, params, by, requires, effect = c
        params = params or ()
        guards = tuple(guard for _, guard in params)
        return ast.ActionDecl(_ident(name), tuple(binder for binder, _ in params), by, requires,
                              effect or (), _span_of(meta),
                              guards if any(g is not None for g in guards) else ())

    def params(self, meta, c):
        return tuple(c)

    def param(self, meta, c):
        return (c[0], c[1])     # (binder, guard or None)

    def by_clause(self, meta, c):
        return c[0]

    def requires_clause(self, meta, c):
        return c[0]

    def effect_clause(self, meta, c):
        return c[0]

    def define_decl(self, meta, c):
        return ast.DefineDecl(_ident(c[0]), c[1] or (), c[2], _span_of(meta))

    def define_params(self, meta, c):
        return tuple(_ident(t) for t in c)

    def terminal_decl(self, meta, c):
        return ast.TerminalDecl(c[0], _span_of(meta))

    def utility_decl(self, meta, c):
        return ast.UtilityDecl(_ident(c[0]), c[1], _span_of(meta))

    def utility_bounds_decl(self, meta, c):
        return ast.UtilityBoundsDecl(c[0], _span_of(meta))

    def sum_decl(self, meta, c):
        kind = str(c[0])
        total = c[1] if len(c) > 1 else 0
        if isinstance(total, ast.IntLit):
            total = total.value     # a number stays a number: most totals are
        return ast.SumDecl(kind, total, _span_of(meta))

    def evaluate_decl(self, meta, c):
        return ast.EvaluateDecl(_ident(c[0]), c[1], _span_of(meta))

    def quiet_decl(self, meta, c):
        return ast.QuietDecl(c[0], _span_of(meta))

    def tier_decl(self, meta, c):
        return ast.TierDecl(c[0], _span_of(meta))

    def length_decl(self, meta, c):
        return ast.LengthDecl(c[1], _span_of(meta))

    def stuck_decl(self, meta, c):
        return ast.StuckDecl(_ident(c[0]), _span_of(meta))

    def endless_decl(self, meta, c):
        if len(c) == 1 and isinstance(c[0], Token) and c[0].type == "NAME":
            return ast.EndlessDecl(_ident(c[0]), (), _span_of(meta))
        return ast.EndlessDecl(None, tuple(c), _span_of(meta))

    def display_decl(self, meta, c):
        entries = [g for g in c[1:] if isinstance(g, _Glyph)]
        words = tuple(w for w in c[1:] if isinstance(w, ast.Word))
        pictures = tuple(g.picture for g in entries)
        return ast.DisplayDecl(_ident(c[0]), tuple((g.key, g.text) for g in entries),
                               _span_of(meta), pictures if any(pictures) else (), words)

    def glyph(self, meta, c):
        key = c[0]
        if isinstance(key, Token):
            key = {"TRUE": True, "FALSE": False}.get(key.type, str(key))
        text = next((_string(x) for x in c[1:] if isinstance(x, Token)), None)
        picture = next((x for x in c[1:] if isinstance(x, ast.Picture)), None)
        return _Glyph(key, text, picture)

    def picture(self, meta, c):
        return ast.Picture(_word(c[0]), None if c[1] is None else _word(c[1]), _span_of(meta))

    def display_word(self, meta, c):
        return _word(c[0])

    def display_move_decl(self, meta, c):
        names = c[1] if c[1] is not None else None
        cells = tuple(x for x in c[2:] if x is not None)
        return ast.DisplayMoveDecl(_ident(c[0]), names, cells, _span_of(meta))

    def board_cell(self, meta, c):
        return ast.BoardCell(_ident(c[0]), tuple(c[1:]), _span_of(meta))

    # -- trees
    def tree_decl(self, meta, c):
        return ast.TreeDecl(c[0], _span_of(meta))

    def decision_node(self, meta, c):
        return ast.TreeDecision(_ident(c[0]), tuple(c[1:]), _span_of(meta))

    def tree_edge(self, meta, c):
        return (_ident(c[0]), c[1])

    def chance_node(self, meta, c):
        return ast.TreeChance(tuple(c), _span_of(meta))

    def chance_edge(self, meta, c):
        label = _ident(c[0]) if c[0] is not None else None
        return ast.ChanceEdge(label, c[1], c[2], _span_of(meta))

    def probability(self, meta, c):
        return _fraction(_integer(c[0]), c[1], meta)

    def leaf(self, meta, c):
        return ast.TreeLeaf(tuple(c), _span_of(meta))

    def number(self, meta, c):
        return _fraction(c[0], c[1], meta)

    def signed_int(self, meta, c):
        return -_integer(c[1]) if c[0] is not None else _integer(c[1])

    # -- statements
    def statements(self, meta, c):
        return tuple(c)

    def block(self, meta, c):
        return c[0]

    def assign(self, meta, c):
        name, indices = c[0]
        return ast.Assign(name, indices, c[1], _span_of(meta))

    def target(self, meta, c):
        return (_ident(c[0]), tuple(c[1:]))

    def pass_stmt(self, meta, c):
        return ast.Pass(_span_of(meta))

    def next_stmt(self, meta, c):
        return ast.Next(c[0], _span_of(meta))

    def repeat_stmt(self, meta, c):
        return ast.Repeat(c[0], c[1], _span_of(meta))

    def init_decl(self, meta, c):
        return ast.InitDecl(c[0], _span_of(meta))

    def simultaneous_decl(self, meta, c):
        # the optional parts come as None where absent: `if` condition, `then` block
        return ast.SimultaneousDecl(c[0], c[1], _span_of(meta))

    def private_decl(self, meta, c):
        return ast.PrivateDecl(tuple(c[0]), _span_of(meta))

    def hidden_decl(self, meta, c):
        return ast.HiddenDecl(tuple(c[0]), _span_of(meta))

    def member(self, meta, c):
        value, domain = c
        if isinstance(domain, ast.SymbolDomain):
            return ast.Member(value, domain.symbols, None, _span_of(meta))
        return ast.Member(value, None, domain, _span_of(meta))

    def let_stmt(self, meta, c):
        return ast.LetStmt(_ident(c[0]), c[1], _span_of(meta))

    def let_binding(self, meta, c):
        return (_ident(c[0]), c[1])

    def let_expr(self, meta, c):
        return ast.Let(tuple(c[:-1]), c[-1], _span_of(meta))

    def random_stmt(self, meta, c):
        name, choice = c[0], c[1]
        if isinstance(choice, ast.RangeDomain):
            guard = c[2] if len(c) > 2 else None
            return ast.Random(_ident(name), None, choice, _span_of(meta), guard)
        return ast.Random(_ident(name), choice, None, _span_of(meta))

    def distribution(self, meta, c):
        return tuple(c)

    def outcome(self, meta, c):
        return (c[0], c[1])

    def if_stmt(self, meta, c):
        otherwise = c[2]
        if isinstance(otherwise, ast.If):
            otherwise = (otherwise,)
        return ast.If(c[0], c[1], otherwise, _span_of(meta))

    def else_clause(self, meta, c):
        return c[0]

    def for_stmt(self, meta, c):
        return ast.For(tuple(c[:-1]), c[-1], _span_of(meta))

    # -- expressions
    def if_expr(self, meta, c):
        return ast.IfExpr(c[1], c[0], c[2], _span_of(meta))

    def or_op(self, meta, c):
        return ast.Binary("or", c[0], c[1], _span_of(meta))

    def and_op(self, meta, c):
        return ast.Binary("and", c[0], c[1], _span_of(meta))

    def not_op(self, meta, c):
        return ast.Unary("not", c[0], _span_of(meta))

    def quantifier_kind(self, meta, c):
        return str(c[0])

    def quantifier(self, meta, c):
        return ast.Quantifier(c[0], tuple(c[1:-1]), c[-1], _span_of(meta))

    def compare(self, meta, c):
        return ast.Binary(str(c[1]), c[0], c[2], _span_of(meta))

    def binary(self, meta, c):
        return ast.Binary(str(c[1]), c[0], c[2], _span_of(meta))

    def negate(self, meta, c):
        operand = c[1]
        if isinstance(operand, ast.IntLit):  # -3 is a literal, so constants read naturally
            return ast.IntLit(-operand.value, _span_of(meta))
        return ast.Unary("-", operand, _span_of(meta))

    def int_lit(self, meta, c):
        return ast.IntLit(_integer(c[0]), _span_of(meta))

    def true_lit(self, meta, c):
        return ast.BoolLit(True, _span_of(meta))

    def false_lit(self, meta, c):
        return ast.BoolLit(False, _span_of(meta))

    def name(self, meta, c):
        return ast.Name(str(c[0]), _span_of(meta))

    def mover(self, meta, c):
        return ast.Mover(_span_of(meta))

    def call(self, meta, c):
        args = tuple(a for a in c[1:] if a is not None)
        return ast.Call(_ident(c[0]), args, _span_of(meta))

    def index(self, meta, c):
        return ast.Index(c[0], c[1], _span_of(meta))

    def list_lit(self, meta, c):
        return ast.ListLit(tuple(c), _span_of(meta))
