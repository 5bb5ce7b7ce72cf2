"""Mimic equations (``openrave.md`` §11): OpenRAVE's name substitution, the function-parser
grammar (fparser 4.5 plus OpenRAVE's ``polyrootsN``/``SSSA``/``SASA``/``SASS``), and the
question roboio needs answered: is the equation affine in the joints it names?

OpenRAVE first replaces every joint name in the text by ``joint<index>`` (left to right; at
each position the earliest match wins, the longest name among matches at the same position),
then parses the result; every identifier that is not a function or an inline variable
(``name := expr;``) must then be ``joint<N>`` or ``joint<N>_<axis>``. :func:`parse_equation`
does the same and returns an :class:`Equation` whose ``variables`` are ``(joint index, axis)``
pairs; :meth:`Equation.affine` gives ``(constant, {variable: coefficient})`` or None, and
:meth:`Equation.evaluate` computes a value from variable values (None for multi-valued
functions such as ``polyroots``, whose root order roboio does not reproduce).
"""
from __future__ import annotations

import math
import re
from typing import Optional

__all__ = ["search_and_replace", "parse_equation", "Equation", "MimicSyntaxError", "equation_text"]


class MimicSyntaxError(ValueError):
    """The equation does not parse, or names something that is not a joint."""


def search_and_replace(text: str, pairs: list) -> str:
    """OpenRAVE's ``utils::SearchAndReplace``: scanning left to right, replace the earliest
    occurrence of any key (ties: the longest key) by its value. Empty keys are skipped."""
    pairs = sorted((p for p in pairs if p[0]), key=lambda p: -len(p[0]))
    out = []
    start = 0
    while start < len(text):
        best = None
        for key, value in pairs:
            i = text.find(key, start)
            if i >= 0 and (best is None or i < best[0]):
                best = (i, key, value)
        if best is None:
            out.append(text[start:])
            break
        i, key, value = best
        out.append(text[start:i])
        out.append(value)
        start = i + len(key)
    return "".join(out)


# name -> number of arguments
_FUNCTIONS = {
    "abs": 1, "acos": 1, "acosh": 1, "arg": 1, "asin": 1, "asinh": 1, "atan": 1, "atan2": 2,
    "atanh": 1, "cbrt": 1, "ceil": 1, "conj": 1, "cos": 1, "cosh": 1, "cot": 1, "csc": 1,
    "exp": 1, "exp2": 1, "floor": 1, "hypot": 2, "if": 3, "imag": 1, "int": 1, "log": 1,
    "log2": 1, "log10": 1, "max": 2, "min": 2, "polar": 2, "pow": 2, "real": 1, "sec": 1,
    "sin": 1, "sinh": 1, "sqrt": 1, "tan": 1, "tanh": 1, "trunc": 1,
    "SSSA": 3, "SASA": 3, "SASS": 3}
_FUNCTIONS.update({f"polyroots{d}": d + 1 for d in range(2, 9)})

_TOKEN = re.compile(r"\s*(?:(?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)"
                    r"|(?P<id>[A-Za-z_][A-Za-z0-9_]*)"
                    r"|(?P<op>:=|<=|>=|!=|[-+*/%^(),;=<>!&|]))")
_JOINTVAR = re.compile(r"joint(\d+)(?:_(\d+))?\Z")


class Equation:
    """A parsed mimic equation. ``tree`` is a nested tuple AST; ``variables`` the
    ``(joint index, axis)`` pairs in order of first appearance; ``text`` what was parsed."""

    def __init__(self, tree, variables, text):
        self.tree = tree
        self.variables = variables
        self.text = text

    # -- affine analysis ---------------------------------------------------------------
    def affine(self) -> Optional[tuple]:
        """``(c, {var: a})`` with value ``c + sum(a * var)`` if the equation is affine in its
        variables (constant sub-expressions folded), else None."""
        try:
            c, coeffs = _linear(self.tree, {})
        except _NonLinear:
            return None
        return c, {k: v for k, v in coeffs.items() if v != 0.0}

    def evaluate(self, values: dict) -> Optional[float]:
        """The value for ``values`` (``{(joint, axis): value}``), or None when it cannot be
        computed (multi-valued functions, math errors)."""
        try:
            return float(_eval(self.tree, values, {}))
        except (_NonLinear, ValueError, ZeroDivisionError, OverflowError, KeyError):
            return None


class _NonLinear(Exception):
    pass


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.tokens = []
        pos = 0
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if not m or m.end() == pos:
                if text[pos:].strip() == "":
                    break
                raise MimicSyntaxError(f"unexpected character {text[pos:].strip()[:1]!r} "
                                       f"at position {pos}")
            kind = m.lastgroup
            self.tokens.append((kind, m.group(kind), m.start(kind)))
            pos = m.end()
        self.i = 0
        self.locals: set = set()
        self.variables: list = []

    def peek(self, value=None):
        if self.i >= len(self.tokens):
            return None
        tok = self.tokens[self.i]
        if value is not None and tok[1] != value:
            return None
        return tok

    def take(self, value=None):
        tok = self.peek(value)
        if tok is None:
            where = "end of text" if self.i >= len(self.tokens) else repr(self.tokens[self.i][1])
            raise MimicSyntaxError(f"expected {value!r}, found {where}" if value else
                                   f"unexpected {where}")
        self.i += 1
        return tok

    def function(self):
        defs = []
        while (self.i + 1 < len(self.tokens) and self.tokens[self.i][0] == "id"
               and self.tokens[self.i + 1][1] == ":="):
            name = self.tokens[self.i][1]
            if name in _FUNCTIONS:
                raise MimicSyntaxError(f"cannot define {name!r}: it is a function")
            self.i += 2
            expr = self.expr()
            self.take(";")
            self.locals.add(name)
            defs.append((name, expr))
        body = self.expr()
        if self.i != len(self.tokens):
            raise MimicSyntaxError(f"unexpected {self.tokens[self.i][1]!r} after the expression")
        for name, expr in reversed(defs):
            body = ("let", name, expr, body)
        return body

    def expr(self):
        left = self.and_()
        while self.peek("|"):
            self.take()
            left = ("|", left, self.and_())
        return left

    def and_(self):
        left = self.cmp()
        while self.peek("&"):
            self.take()
            left = ("&", left, self.cmp())
        return left

    def cmp(self):
        left = self.add()
        while self.peek() and self.peek()[1] in ("=", "!=", "<", "<=", ">", ">="):
            op = self.take()[1]
            left = (op, left, self.add())
        return left

    def add(self):
        left = self.mul()
        while self.peek() and self.peek()[1] in ("+", "-"):
            op = self.take()[1]
            left = (op, left, self.mul())
        return left

    def mul(self):
        left = self.unary()
        while self.peek() and self.peek()[1] in ("*", "/", "%"):
            op = self.take()[1]
            left = (op, left, self.unary())
        return left

    def unary(self):
        if self.peek("-"):
            self.take()
            return ("neg", self.unary())
        if self.peek("!"):
            self.take()
            return ("not", self.unary())
        return self.power()

    def power(self):
        base = self.primary()
        if self.peek("^"):
            self.take()
            return ("^", base, self.unary())      # right associative, x^-y allowed
        return base

    def primary(self):
        tok = self.take()
        kind, value, pos = tok
        if kind == "num":
            return ("num", float(value))
        if value == "(":
            e = self.expr()
            self.take(")")
            return e
        if kind == "id":
            if value in _FUNCTIONS:
                self.take("(")
                args = [self.expr()]
                while self.peek(","):
                    self.take()
                    args.append(self.expr())
                self.take(")")
                if len(args) != _FUNCTIONS[value]:
                    raise MimicSyntaxError(f"{value}() takes {_FUNCTIONS[value]} arguments, "
                                           f"got {len(args)}")
                return ("call", value, args)
            if value in self.locals:
                return ("local", value)
            m = _JOINTVAR.match(value)
            if not m:
                raise MimicSyntaxError(f"unknown name {value!r}")
            var = (int(m.group(1)), int(m.group(2) or 0))
            if var not in self.variables:
                self.variables.append(var)
            return ("var", var)
        raise MimicSyntaxError(f"unexpected {value!r}")


def parse_equation(text: str) -> Equation:
    """Parse an equation whose joint names were already replaced by ``joint<N>``."""
    if len(text) > 100_000:
        raise MimicSyntaxError("equation longer than 100000 characters")
    p = _Parser(text)
    if not p.tokens:
        raise MimicSyntaxError("empty equation")
    try:
        tree = p.function()
    except RecursionError:
        raise MimicSyntaxError("equation nested too deeply") from None
    return Equation(tree, p.variables, text)


def _linear(node, env):
    kind = node[0]
    if kind == "num":
        return node[1], {}
    if kind == "var":
        return 0.0, {node[1]: 1.0}
    if kind == "local":
        return env[node[1]]
    if kind == "let":
        env = dict(env)
        env[node[1]] = _linear(node[2], env)
        return _linear(node[3], env)
    if kind == "neg":
        c, a = _linear(node[1], env)
        return -c, {k: -v for k, v in a.items()}
    if kind in ("+", "-"):
        c0, a0 = _linear(node[1], env)
        c1, a1 = _linear(node[2], env)
        s = 1.0 if kind == "+" else -1.0
        out = dict(a0)
        for k, v in a1.items():
            out[k] = out.get(k, 0.0) + s * v
        return c0 + s * c1, out
    if kind == "*":
        c0, a0 = _linear(node[1], env)
        c1, a1 = _linear(node[2], env)
        if a0 and a1:
            raise _NonLinear
        if not a0:
            return c0 * c1, {k: c0 * v for k, v in a1.items()}
        return c0 * c1, {k: c1 * v for k, v in a0.items()}
    if kind == "/":
        c0, a0 = _linear(node[1], env)
        c1, a1 = _linear(node[2], env)
        if a1 or c1 == 0:
            raise _NonLinear
        return c0 / c1, {k: v / c1 for k, v in a0.items()}
    # anything else is affine only when constant
    value = _eval(node, None, {k: _const(v) for k, v in env.items()})
    return float(value), {}


def _const(lin):
    c, a = lin
    if a:
        raise _NonLinear
    return c


def _eval(node, values, env):
    kind = node[0]
    if kind == "num":
        return node[1]
    if kind == "var":
        if values is None:
            raise _NonLinear
        return values[node[1]]
    if kind == "local":
        return env[node[1]]
    if kind == "let":
        env = dict(env)
        env[node[1]] = _eval(node[2], values, env)
        return _eval(node[3], values, env)
    if kind == "neg":
        return -_eval(node[1], values, env)
    if kind == "not":
        return 1.0 if _fint(_eval(node[1], values, env)) == 0 else 0.0
    if kind == "call":
        return _call(node[1], [_eval(a, values, env) for a in node[2]])
    a = _eval(node[1], values, env)
    b = _eval(node[2], values, env)
    if kind == "+":
        return a + b
    if kind == "-":
        return a - b
    if kind == "*":
        return a * b
    if kind == "/":
        return a / b
    if kind == "%":
        return math.fmod(a, b)
    if kind == "^":
        return math.pow(a, b)
    eps = 1e-14        # fparser's comparison epsilon for doubles
    if kind == "=":
        return 1.0 if abs(a - b) <= eps else 0.0
    if kind == "!=":
        return 1.0 if abs(a - b) > eps else 0.0
    if kind == "<":
        return 1.0 if a < b - eps else 0.0
    if kind == "<=":
        return 1.0 if a <= b + eps else 0.0
    if kind == ">":
        return 1.0 if a > b + eps else 0.0
    if kind == ">=":
        return 1.0 if a >= b - eps else 0.0
    if kind == "&":
        return 1.0 if _fint(a) != 0 and _fint(b) != 0 else 0.0
    if kind == "|":
        return 1.0 if _fint(a) != 0 or _fint(b) != 0 else 0.0
    raise _NonLinear


def _fint(x):
    return math.floor(x + 0.5) if x >= 0 else math.ceil(x - 0.5)


def _call(name, args):
    f = {"abs": abs, "acos": math.acos, "acosh": math.acosh, "asin": math.asin,
         "asinh": math.asinh, "atan": math.atan, "atan2": math.atan2, "atanh": math.atanh,
         "cbrt": lambda x: math.copysign(abs(x) ** (1.0 / 3.0), x), "ceil": math.ceil,
         "cos": math.cos, "cosh": math.cosh, "cot": lambda x: 1.0 / math.tan(x),
         "csc": lambda x: 1.0 / math.sin(x), "exp": math.exp, "exp2": lambda x: 2.0 ** x,
         "floor": math.floor, "hypot": math.hypot, "int": _fint, "log": math.log,
         "log2": math.log2, "log10": math.log10, "max": max, "min": min, "pow": math.pow,
         "sec": lambda x: 1.0 / math.cos(x), "sin": math.sin, "sinh": math.sinh,
         "sqrt": math.sqrt, "tan": math.tan, "tanh": math.tanh, "trunc": math.trunc,
         "real": lambda x: x, "conj": lambda x: x, "imag": lambda x: 0.0,
         "arg": lambda x: 0.0 if x >= 0 else math.pi}.get(name)
    if name == "if":
        return args[1] if _fint(args[0]) != 0 else args[2]
    if name == "SSSA":
        a, b, c = args
        f_ = (a * a + b * b - c * c) / (2 * b)
        return math.atan2(math.sqrt(a * a - f_ * f_), b - f_)
    if name == "SASA":
        a, gamma, b = args
        return math.atan2(a * math.sin(gamma), b - a * math.cos(gamma))
    if name == "SASS":
        a, gamma, b = args
        return math.sqrt(a * a + b * b - 2 * a * b * math.cos(gamma))
    if f is None:           # polyroots and polar: several values or complex
        raise _NonLinear
    return float(f(*args))


_INFIX = {"+": "+", "-": "-", "*": "*", "/": "/", "%": "%", "<": "<", "<=": "<=", ">": ">",
          ">=": ">=", "=": "=", "!=": "!=", "and": "&", "or": "|"}


def equation_text(expr, names, number) -> str:
    """The function-parser text of a model expression (:mod:`roboio.model.coupling`):
    argument ``k`` written as ``names[k]``, numbers with ``number`` (exact text), every
    operation parenthesised; ``clamp`` as ``min(max(x,lo),hi)``."""
    from ...model.coupling import Arg, Const

    def t(e):
        if isinstance(e, Const):
            s = number(e.value)
            return f"({s})" if s.startswith("-") else s
        if isinstance(e, Arg):
            return names[e.k]
        a = [t(c) for c in e.children]
        if e.name in _INFIX:
            return f"({a[0]}{_INFIX[e.name]}{a[1]})"
        if e.name == "neg":
            return f"(-{a[0]})"
        if e.name == "not":
            return f"(!{a[0]})"
        if e.name == "clamp":
            return f"min(max({a[0]},{a[1]}),{a[2]})"
        return f"{e.name}({','.join(a)})"
    return t(expr)
