"""MathML mimic formulas (``<formula>`` of a kinematics model), as OpenRAVE reads them.

:func:`parse` turns a MathML element into a small expression tree; ``csymbol
encoding="COLLADA"`` leaves are joint references, resolved by the caller's ``joint_of(ref,
element)`` into a :class:`JointRef` (the joint's name and the factor that converts the joint's
value to file units: 1 for revolute joints and metre files). The tree then gives

* :func:`to_equation`: OpenRAVE's function-parser text, exactly as its COLLADA reader builds
  it (``(0+m1)``, ``pow(a,b)``, ``floor(a/b)``, ...), with joint names as variables;
* :func:`affine`: ``(joint, scale, offset)`` when the formula is ``offset + scale * joint`` in
  one joint (every corpus formula is), else None;
* :func:`evaluate`: the value for given joint values (tests, non-linear couplings).

Values are in OpenRAVE's internal units (radians, metres). Element names are compared
without namespace prefix. Anything OpenRAVE's reader rejects, and malformed structure it
would trip over (wrong argument counts), is a :class:`FormatError` naming the element.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Optional, Union

from ._dom import kids, ln, text

__all__ = ["JointRef", "Num", "Var", "Apply", "parse", "to_equation", "affine", "evaluate",
           "variables"]

PI_TEXT = "3.14159265358979323846"


@dataclass(frozen=True)
class JointRef:
    """A joint used in a formula: its name and ``unit`` (metres per file length unit for a
    prismatic joint, 1 otherwise)."""

    name: str
    unit: float = 1.0


@dataclass
class Num:
    text: str

    @property
    def value(self) -> float:
        return float(self.text)


@dataclass
class Var:
    """A joint (``csymbol``) or a free identifier (``ci``, kept as text)."""

    joint: Optional[JointRef]
    name: str


@dataclass
class Apply:
    op: str
    args: list


Expr = Union[Num, Var, Apply]

_NARY = {"plus": "+", "times": "*", "and": "&", "or": "|"}
_BINARY = {"divide": "/", "rem": "%", "eq": "=", "neq": "!=", "gt": ">", "lt": "<", "geq": ">=",
           "leq": "<="}
_UNARY_FUNCS = {"floor": "floor", "ceiling": "ceil", "ln": "log", "arcsin": "asin", "arccos": "acos",
                "arctan": "atan", "arccosh": "acosh", "arccot": "acot", "arccoth": "acoth",
                "arccsc": "acsc", "arccsch": "acsch", "arcsec": "asec", "arcsech": "asech",
                "arcsinh": "asinh", "arctanh": "atanh"}
_UNSUPPORTED = {"implies", "forall", "exists", "conjugate", "arg", "real", "imaginary", "lcm",
                "factorial", "xor"}
_TEXT_FUNCS = {"INRANGE": 3, "SSSA": 3, "SASA": 3, "SASS": 3, "atan2": 2}


def parse(el, doc, joint_of: Callable[[str, object], JointRef], depth: int = 0) -> Optional[Expr]:
    """Expression tree of MathML element ``el`` (``math`` or one of its operands); None for an
    empty ``<apply/>``."""
    doc.ctx.check_depth(depth, getattr(el, "sourceline", None), what="MathML nesting")
    name = ln(el)
    children = kids(el)
    if name == "math":
        expr = None
        for c in children:
            cname = ln(c)
            if cname not in ("apply", "csymbol", "cn", "ci"):
                raise doc.error(f"MathML: <{cname}> is not supported directly inside <math>", c)
            expr = parse(c, doc, joint_of, depth + 1)     # OpenRAVE keeps the last one
        if expr is None:
            raise doc.error("MathML: <math> holds no expression", el)
        return expr
    if name == "apply":
        if not children:
            return None
        head = ln(children[0])
        args = children[1:]

        def sub(i):
            e = parse(args[i], doc, joint_of, depth + 1)
            if e is None:
                raise doc.error("MathML: empty <apply/> used as an operand", args[i])
            return e

        def need(lo, hi=None):
            hi = lo if hi is None else hi
            if not lo <= len(args) <= hi:
                want = str(lo) if lo == hi else f"{lo} to {hi}"
                raise doc.error(f"MathML: <{head}> takes {want} operand(s), got {len(args)}", el)

        if head in _NARY:
            return Apply(head, [sub(i) for i in range(len(args))])
        if head in _BINARY or head in ("quotient", "power"):
            need(2)
            return Apply(head, [sub(0), sub(1)])
        if head == "minus":
            need(1, 2)
            return Apply(head, [sub(i) for i in range(len(args))])
        if head == "not":
            need(1)
            return Apply(head, [sub(0)])
        if head in _UNARY_FUNCS:
            need(1)
            return Apply(head, [sub(0)])
        if head == "root":
            need(2)
            degree, num = None, None
            for a in args:
                if ln(a) == "degree":
                    inner = kids(a)
                    if not inner:
                        raise doc.error("MathML: <degree> is empty", a)
                    degree = parse(inner[0], doc, joint_of, depth + 2)
                else:
                    num = parse(a, doc, joint_of, depth + 1)
            if degree is None or num is None:
                raise doc.error("MathML: <root> needs a <degree> and an operand", el)
            return Apply("root", [num, degree])
        if head == "log":
            need(1, 2)
            base, num = Num("10"), None
            for a in args:
                if ln(a) == "logbase":
                    inner = kids(a)
                    if not inner:
                        raise doc.error("MathML: <logbase> is empty", a)
                    base = parse(inner[0], doc, joint_of, depth + 2)
                else:
                    num = parse(a, doc, joint_of, depth + 1)
            if num is None:
                raise doc.error("MathML: <log> needs an operand", el)
            return Apply("log", [num, base])
        if head in _UNSUPPORTED:
            raise doc.error(f"MathML: <{head}> in <apply> is not supported (OpenRAVE rejects it too)", children[0])
        if head == "csymbol":
            sym = children[0]
            enc = sym.get("encoding")
            if enc == "text/xml":
                fname = _text_function_name(sym, doc)
                if fname not in _TEXT_FUNCS:
                    raise doc.error(f"MathML: csymbol function {fname!r} is not supported "
                                    f"(known: {', '.join(_TEXT_FUNCS)})", sym)
                need(_TEXT_FUNCS[fname])
                return Apply("fn:" + fname, [sub(i) for i in range(len(args))])
            if enc != "COLLADA":
                raise doc.error(f"MathML: csymbol with unknown encoding {enc!r}", sym)
            return parse(sym, doc, joint_of, depth + 1)
        # any other operator is a function call, as in OpenRAVE
        return Apply("call:" + head, [sub(i) for i in range(len(args))])
    if name == "csymbol":
        enc = el.get("encoding")
        if enc is None or enc != "COLLADA":
            raise doc.error(f"MathML: <csymbol> {text(el).strip()!r} must have encoding=\"COLLADA\" "
                            f"to name a joint (got {enc!r})", el)
        ref = text(el).strip()
        joint = joint_of(ref, el)
        return Var(joint, joint.name)
    if name == "cn":
        t = text(el).strip()
        try:
            float(t)
        except ValueError:
            raise doc.error(f"MathML: <cn>{t}</cn> is not a number", el) from None
        return Num(t)
    if name == "ci":
        return Var(None, text(el).strip())
    if name == "pi":
        return Num(PI_TEXT)
    raise doc.error(f"MathML: <{name}> is not supported", el)


def _text_function_name(sym, doc) -> str:
    url = sym.get("definitionURL")
    if url:
        target = doc.url_or_none(sym, "definitionURL")
        if target is not None and ln(target) == "formula":
            return target.get("name") or text(sym).strip()
    if sym.get("type") == "function":
        return text(sym).strip()
    return text(sym).strip()


def _fmt_unit(u: float) -> str:
    return repr(float(u))


def to_equation(e: Expr) -> str:
    """OpenRAVE's function-parser text of ``e`` (what its COLLADA reader stores)."""
    if isinstance(e, Num):
        return e.text
    if isinstance(e, Var):
        if e.joint is not None and e.joint.unit != 1:
            return f"({_fmt_unit(1.0 / e.joint.unit)}*{e.name})"
        return e.name
    op, a = e.op, e.args
    if op in _NARY:
        return "(" + _NARY[op].join(to_equation(x) for x in a) + ")"
    if op == "quotient":
        return f"floor({to_equation(a[0])}/{to_equation(a[1])})"
    if op in _BINARY:
        return f"({to_equation(a[0])}{_BINARY[op]}{to_equation(a[1])})"
    if op == "minus":
        if len(a) == 1:
            return f"(-{to_equation(a[0])})"
        return f"({to_equation(a[0])}-{to_equation(a[1])})"
    if op == "power":
        return f"pow({to_equation(a[0])},{to_equation(a[1])})"
    if op == "not":
        return f"(!{to_equation(a[0])})"
    if op in _UNARY_FUNCS:
        return f"{_UNARY_FUNCS[op]}({to_equation(a[0])})"
    if op == "root":
        num, deg = to_equation(a[0]), to_equation(a[1])
        try:
            d = int(deg)
        except ValueError:
            d = None
        if d == 1:
            return f"({num})"
        if d == 2:
            return f"sqrt({num})"
        if d == 3:
            return f"cbrt({num})"
        return f"pow({num},1.0/{deg})"
    if op == "log":
        num, base = to_equation(a[0]), to_equation(a[1])
        try:
            b = int(base)
        except ValueError:
            b = None
        if b == 10:
            return f"log10({num})"
        if b == 2:
            return f"log2({num})"
        return f"(log({num})/log({base}))"
    if op == "fn:INRANGE":
        x, lo, hi = (to_equation(v) for v in a)
        return f"(({x}>={lo})&({x}<={hi}))"
    if op.startswith("fn:"):
        return f"{op[3:]}(" + ",".join(to_equation(v) for v in a) + ")"
    if op.startswith("call:"):
        return f"{op[5:]}(" + ",".join(to_equation(v) for v in a) + ")"
    raise ValueError(f"unknown operator {op}")


def variables(e: Expr) -> list:
    """The joint references of ``e`` in order of first use."""
    out: list = []

    def walk(x):
        if isinstance(x, Var):
            if x.joint is not None and x.joint not in out:
                out.append(x.joint)
        elif isinstance(x, Apply):
            for y in x.args:
                walk(y)
    walk(e)
    return out


def _lin(e: Expr):
    """``(coefficients {JointRef: k}, constant)`` when ``e`` is affine in its joints, else None."""
    if isinstance(e, Num):
        return {}, e.value
    if isinstance(e, Var):
        if e.joint is None:
            return None
        return {e.joint: 1.0 / e.joint.unit}, 0.0
    op, a = e.op, e.args
    if op == "plus" or (op == "minus" and len(a) == 2):
        parts = [_lin(x) for x in a]
        if any(p is None for p in parts):
            return None
        sign = [1.0] + [(-1.0 if op == "minus" else 1.0)] * (len(parts) - 1)
        coef: dict = {}
        const = 0.0
        for s, (c, k) in zip(sign, parts):
            const += s * k
            for j, v in c.items():
                coef[j] = coef.get(j, 0.0) + s * v
        return coef, const
    if op == "minus":
        p = _lin(a[0])
        return None if p is None else ({j: -v for j, v in p[0].items()}, -p[1])
    if op == "times":
        parts = [_lin(x) for x in a]
        if any(p is None for p in parts):
            return None
        coef, const = {}, 1.0
        for c, k in parts:
            if c and coef:
                return None              # product of two joint terms: not affine
            if c:
                coef = {j: v * const for j, v in c.items()}
                const = const * k
            else:
                coef = {j: v * k for j, v in coef.items()}
                const *= k
        return coef, const
    if op == "divide":
        num, den = _lin(a[0]), _lin(a[1])
        if num is None or den is None or den[0] or den[1] == 0:
            return None
        return {j: v / den[1] for j, v in num[0].items()}, num[1] / den[1]
    return None


def affine(e: Expr, target_unit: float = 1.0):
    """``(JointRef, scale, offset)`` such that the mimic value (internal units) is
    ``offset + scale * value(joint)``, when ``e`` depends affinely on exactly one joint;
    ``target_unit`` is the mimic joint's own unit factor (OpenRAVE multiplies the formula by
    it). None otherwise (constant formulas, several joints, non-linear operators)."""
    r = _lin(e)
    if r is None:
        return None
    coef, const = r
    coef = {j: v for j, v in coef.items() if v != 0.0}
    if len(coef) != 1:
        return None
    (j, k), = coef.items()
    return j, k * target_unit, const * target_unit


def evaluate(e: Expr, values: dict) -> float:
    """Value of ``e`` with joint values ``values`` (name -> internal units)."""
    if isinstance(e, Num):
        return e.value
    if isinstance(e, Var):
        v = values[e.name]
        return v / e.joint.unit if e.joint is not None else v
    a = [evaluate(x, values) for x in e.args]
    op = e.op
    if op == "plus":
        return sum(a)
    if op == "times":
        return math.prod(a)
    if op == "minus":
        return -a[0] if len(a) == 1 else a[0] - a[1]
    if op == "divide":
        return a[0] / a[1]
    if op == "quotient":
        return math.floor(a[0] / a[1])
    if op == "rem":
        return math.fmod(a[0], a[1])
    if op == "power":
        return a[0] ** a[1]
    if op == "root":
        return a[0] ** (1.0 / a[1])
    if op == "log":
        return math.log(a[0]) / math.log(a[1])
    simple = {"floor": math.floor, "ceiling": math.ceil, "ln": math.log, "arcsin": math.asin,
              "arccos": math.acos, "arctan": math.atan, "arccosh": math.acosh, "arcsinh": math.asinh,
              "arctanh": math.atanh, "arccot": lambda x: math.atan(1 / x),
              "arcsec": lambda x: math.acos(1 / x), "arccsc": lambda x: math.asin(1 / x),
              "arccoth": lambda x: math.atanh(1 / x), "arcsech": lambda x: math.acosh(1 / x),
              "arccsch": lambda x: math.asinh(1 / x)}
    if op in simple:
        return float(simple[op](a[0]))
    logic = {"and": lambda: float(all(a)), "or": lambda: float(any(a)), "not": lambda: float(not a[0]),
             "eq": lambda: float(a[0] == a[1]), "neq": lambda: float(a[0] != a[1]),
             "gt": lambda: float(a[0] > a[1]), "lt": lambda: float(a[0] < a[1]),
             "geq": lambda: float(a[0] >= a[1]), "leq": lambda: float(a[0] <= a[1]),
             "fn:INRANGE": lambda: float(a[1] <= a[0] <= a[2]), "fn:atan2": lambda: math.atan2(a[0], a[1])}
    if op in logic:
        return logic[op]()
    fn = op.split(":", 1)[-1]
    if hasattr(math, fn):
        return float(getattr(math, fn)(*a))
    raise ValueError(f"cannot evaluate {fn}()")
