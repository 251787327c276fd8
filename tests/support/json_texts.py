"""Hypothesis strategies for JSON *text* (not Python values), and a type-exact comparison.

Records must be generated as text because the interesting numbers cannot be
Python values: ``1e400`` (would be infinity), ``1e-400`` (would be 0.0), an
integer of 1,000 digits written as such.  Each strategy gives ``(text,
refused)``: whether SPEC 6.3 makes the value unreadable (a non-integer
number whose nearest double is infinite, or zero while the number is not).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from hypothesis import strategies as st

from twenty48_replay.core.record import BigInteger

#: Every code point, lone surrogates and C0/C1 controls included.
ANY_CHARACTER = st.characters(min_codepoint=0, max_codepoint=0x10FFFF, blacklist_categories=())
ANY_TEXT = st.text(ANY_CHARACTER, max_size=12)

_NUMBER = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")


def number_refused(text: str) -> bool:
    """SPEC 6.3: a fraction/exponent number that overflows or underflows a double."""
    if re.fullmatch(r"-?(0|[1-9][0-9]*)", text):
        return False
    value = float(text)
    significand = re.split("[eE]", text)[0]
    return math.isinf(value) or (value == 0.0 and any(c in "123456789" for c in significand))


numbers = st.one_of(
    st.from_regex(r"\A-?(0|[1-9][0-9]{0,30})(\.[0-9]{1,20})?([eE][-+]?[0-9]{1,3})?\Z"),
    st.from_regex(r"\A-?[1-9][0-9]{600,1200}\Z"),  # past Python's quick int() range
    st.sampled_from(
        [
            "1e400",
            "-1e400",
            "1e-400",
            "-1e-400",
            "0e-999",
            "-0.0",
            "5e-324",
            "2.4e-324",
            "1.7976931348623157e308",
            "1.7976931348623159e308",
            "0.1",
            "1E2",
            "-0",
        ]
    ),
).map(lambda t: (t, number_refused(t)))

strings = st.builds(
    lambda s, ascii_only: (json.dumps(s, ensure_ascii=ascii_only), False), ANY_TEXT, st.booleans()
)
scalars = st.one_of(
    st.sampled_from([("null", False), ("true", False), ("false", False)]), numbers, strings
)


def _array(items: list[tuple[str, bool]]) -> tuple[str, bool]:
    return "[" + ",".join(t for t, _ in items) + "]", any(r for _, r in items)


def _object(members: dict[str, tuple[str, bool]]) -> tuple[str, bool]:
    text = ",".join(json.dumps(k) + ":" + t for k, (t, _) in members.items())
    return "{" + text + "}", any(r for _, r in members.values())


json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4).map(_array),
        st.dictionaries(ANY_TEXT, inner, max_size=4).map(_object),
    ),
    max_leaves=12,
)


def typed(value: Any) -> Any:
    """``value`` with every scalar tagged by its JSON type, so 1, 1.0, True and -0.0 differ."""
    if isinstance(value, dict):
        return ("object", [(k, typed(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("array", [typed(v) for v in value])
    if isinstance(value, bool) or value is None:
        return ("literal", value)
    if isinstance(value, float):
        return ("float", value.hex())
    if isinstance(value, BigInteger):
        return ("integer", value.digits)
    if isinstance(value, int):
        return ("integer", str(value))
    return ("string", value)


def reference_value(text: str) -> Any:
    """What ``text`` means by SPEC 6.3, parsed independently (integers exact, floats nearest)."""
    return json.loads(
        text,
        parse_int=lambda t: BigInteger(t) if len(t) > 640 else int(t),
        parse_float=float,
    )
