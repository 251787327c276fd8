"""Player names that cannot pass for one another: the refusals and the comparison key.

A score server shows names to strangers, so two names that look alike in
a browser must be the same name.  Two rules:

* **Refused in every name** (:class:`NameRefusedError`): characters that
  show nothing or change how others show -- controls, format characters
  (zero-width joiners, bidirectional controls), every Default_Ignorable
  code point (U+3164 HANGUL FILLER, U+115F, U+034F COMBINING GRAPHEME
  JOINER, the variation selectors U+FE00..U+FE0F and their kin), blanks
  that render as nothing (U+2800 BRAILLE PATTERN BLANK), every space but
  one ordinary space between words, unassigned and private-use code
  points, and more than :data:`MAX_MARKS` combining marks on one letter;
  and check marks and their look-alikes (:data:`REGISTERED_MARKS`), which
  the pages use for "registered": "alice ✓" read as the registered "alice".
* **Compared by their skeletons** (:func:`claim_keys`): two names collide
  when any of their keys agree.  The key :func:`name_key` is the Unicode
  TS #39 confusable skeleton of the NFKC case-folded name, so that "alice",
  "ALICE", "ａｌｉｃｅ" and "аlice" (Cyrillic а) are one name.  Case-folding
  first hides what capitals look like, and TS #39 defines the skeleton on
  the text as written: "AIice" (capital I) reads as "Alice" in most
  sans-serif fonts but folds to "aiice".  So two more keys are compared:
  :func:`written_key`, the skeleton of the name as written, then folded
  but for a capital L ("AIice" -> "alice"; "URI" stays apart from "URL");
  and the skeletons, unfolded, of the name as written and of the name in
  capitals, which meet when one name looks like the other written in
  capitals ("ALlCE" with a small l looks like "ALICE", the capitals of
  "alice").  What this refuses that case-folding alone did not
  is listed in docs/server.md, "Player names".

The confusable mappings are Unicode's own data file, ``confusables.txt``
(Unicode Security Mechanisms, version 13.0.0), shipped verbatim as package
data in ``twenty48_replay/unicode`` under the Unicode license (its header
says so).  Why the data file and not a library: the PyPI package
``confusable_homoglyphs`` (MIT, last release 2024) keeps the pairs without
their direction, so a TS #39 skeleton cannot be computed from it, and
``confusables`` (MIT, last release 2021) ships the same file with a
different matching of its own.  Parsing the file is ~30 lines and costs
about 10 ms once per process.  A newer ``confusables.txt`` can replace the
file as it is.
"""

from __future__ import annotations

import functools
import unicodedata
from pathlib import Path
from typing import Final

from twenty48_replay.core.reasons import Param, Reason

#: The longest name, in characters as given (after trimming spaces at the ends).
MAX_NAME: Final = 64
#: The most combining marks on one letter ("ệ" has two; Zalgo text has dozens).
MAX_MARKS: Final = 2
#: The longest key stored (an NFKC form can be longer than the name: U+FDFA is 18 letters).
MAX_KEY: Final = 1024

CONFUSABLES: Final = Path(__file__).resolve().parents[1] / "unicode" / "confusables.txt"

#: Default_Ignorable_Code_Point (Unicode DerivedCoreProperties.txt), which
#: Python's unicodedata does not expose: code points a renderer may show as
#: nothing at all.
_DEFAULT_IGNORABLE: Final = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
#: Visible-nothing characters that are not Default_Ignorable: braille and
#: other blanks, and the Hangul and Khmer fillers' relatives.
_BLANKS: Final = frozenset("\u2800\u3000\u1680\u180e\u2062\u2063\u2064\u115f\u1160\uffa0")
#: Check marks and what passes for one (square roots, radicals, ballot boxes with a check),
#: anywhere in a name: a registered name's mark on the leaderboard is a check, and a name
#: ending in one read as another, registered, name.  The page draws its mark apart from the
#: name (a badge, no character), and no name may hold one either.  Every code point whose
#: Unicode name says CHECK MARK, BALLOT BOX WITH (BOLD) CHECK, SQUARE/CUBE/FOURTH ROOT or
#: RADICAL SYMBOL BOTTOM (tests/fairplay/test_registered_marks.py compares with the names).
REGISTERED_MARKS: Final = frozenset(
    "\u2713\u2714\u2705\u237b\U00010102\U0001f5f8\U0001fbb1"  # check marks
    "\u2611\U0001f5f9"  # ballot boxes with a check
    "\u221a\u221b\u221c\u0606\u0607\u23b7"  # roots and the radical sign
)
#: General categories refused outright: controls, format, surrogates,
#: private use, unassigned, line and paragraph separators.
_REFUSED_CATEGORIES: Final = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


#: Kept out of the written key's case-fold (see :func:`written_key`).
_CAPITAL_L: Final = "L"


class NameRefusedError(ValueError):
    """A name that may not be used; the message says which character and why.

    ``reason`` is the same as a code with parameters (``name.*``), so that a
    page can say it in its reader's language.
    """

    def __init__(self, code: str, **params: Param) -> None:
        self.reason = Reason(code, params)
        super().__init__(str(self.reason))


def _ignorable(code: int) -> bool:
    return any(low <= code <= high for low, high in _DEFAULT_IGNORABLE)


def _describe(char: str) -> str:
    name = unicodedata.name(char, "")
    return f"U+{ord(char):04X}" + (f" {name}" if name else "")


def _passes_for_a_mark(char: str) -> bool:
    """Whether ``char`` is, or folds or is confusable to, one of :data:`REGISTERED_MARKS`."""
    if char in REGISTERED_MARKS:
        return True
    forms = (unicodedata.normalize("NFKC", char), _prototypes().get(char, ""))
    return any(mark in form for form in forms for mark in REGISTERED_MARKS)


def check_name(raw: str) -> str:
    """The name as it is kept (spaces at the ends trimmed), or :class:`NameRefusedError`.

    Length is counted on the name as given; every character is judged, so
    one refused character anywhere refuses the whole name.
    """
    name = raw.strip(" ")
    if not name:
        raise NameRefusedError("name.empty")
    if len(name) > MAX_NAME:
        raise NameRefusedError("name.too_long", limit=MAX_NAME)
    marks = 0
    for char in unicodedata.normalize("NFD", name):
        code = ord(char)
        category = unicodedata.category(char)
        if category in _REFUSED_CATEGORIES or _ignorable(code) or char in _BLANKS:
            raise NameRefusedError("name.invisible", character=_describe(char))
        if category == "Zs" and char != " ":
            raise NameRefusedError("name.space", character=_describe(char))
        if _passes_for_a_mark(char):
            raise NameRefusedError("name.check_mark", character=_describe(char))
        if category in ("Mn", "Me", "Mc"):
            marks += 1
            if marks > MAX_MARKS:
                raise NameRefusedError("name.marks", limit=MAX_MARKS)
        else:
            marks = 0
    if "  " in name:
        raise NameRefusedError("name.double_space")
    if not any(unicodedata.category(char)[0] in "LN" for char in name):
        raise NameRefusedError("name.no_letter")
    if len(name_key(name)) > MAX_KEY:
        raise NameRefusedError("name.key_too_long")
    return name


@functools.cache
def _prototypes() -> dict[str, str]:
    """Source character -> prototype string, from ``confusables.txt``."""
    table: dict[str, str] = {}
    with CONFUSABLES.open(encoding="utf-8-sig") as lines:
        for line in lines:
            data = line.split("#", 1)[0].strip()
            if not data:
                continue
            fields = [field.strip() for field in data.split(";")]
            if len(fields) < 2:
                continue
            source = "".join(chr(int(code, 16)) for code in fields[0].split())
            target = "".join(chr(int(code, 16)) for code in fields[1].split())
            if len(source) == 1:
                table[source] = target
    return table


#: Letters whose dot a combining dot above (U+0307) only repeats (Unicode's Soft_Dotted
#: letters, as the skeleton leaves them: Cyrillic і and ј have become i and j by then).
_SOFT_DOTTED: Final = frozenset("ij")
_DOT_ABOVE: Final = "\u0307"


def _without_repeated_dots(text: str) -> str:
    """``text`` (NFD) without a dot above on a letter that has its dot already.

    A browser draws "eri\u0307k" (i, combining dot above) and "erik" the same,
    and the case fold of "İ" (U+0130) is that i with a dot above: the
    confusables data has no entry for the pair, so a registered "erik" would
    otherwise sit beside a look-alike on the leaderboard.
    """
    kept: list[str] = []
    base = ""
    for char in text:
        if char == _DOT_ABOVE and base in _SOFT_DOTTED:
            continue
        if not unicodedata.category(char).startswith("M"):
            base = char
        kept.append(char)
    return "".join(kept)


def skeleton(text: str) -> str:
    """The TS #39 skeleton: NFD, each character replaced by its prototype, NFD again.

    One addition: a combining dot above is dropped from i and j, which
    have their dot already (:func:`_without_repeated_dots`).  (Default
    ignorables, which TS #39 removes first, never reach here:
    :func:`check_name` refuses them.)
    """
    table = _prototypes()
    mapped = "".join(table.get(char, char) for char in unicodedata.normalize("NFD", text))
    return _without_repeated_dots(unicodedata.normalize("NFD", mapped))


def _nfkc_casefold(text: str) -> str:
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())


def name_key(name: str) -> str:
    """What two names are compared by: the skeleton of the NFKC case-folded name.

    Applied until it no longer changes (at most a few rounds): a prototype
    may itself be an upper-case letter or a compatibility character, whose
    case-folded form has a skeleton of its own.
    """
    key = skeleton(_nfkc_casefold(name))
    for _ in range(4):
        again = skeleton(_nfkc_casefold(key))
        if again == key:
            break
        key = again
    return key


def written_key(name: str) -> str:
    """The skeleton of the name as written, then NFKC case-folded -- but for a capital L.

    TS #39 maps a capital I to a small l, as most sans-serif fonts draw
    them alike, so "AIice" and "alice" get the same written key where
    :func:`name_key`, which folds the I to i first, keeps them apart.
    Folding the skeleton's capital L too would make every capital I one
    letter with a capital L ("URI" and "URL", "Ian" and "Lan", which look
    nothing alike): the skeleton's L is kept apart, and each stretch
    between two of them is folded (to a fixed point, as :func:`name_key`).
    """
    shapes = skeleton(unicodedata.normalize("NFKC", name))
    return _CAPITAL_L.join(name_key(part) for part in shapes.split(_CAPITAL_L))


def glyph_keys(name: str) -> frozenset[str]:
    """The skeletons, case kept, of the name as written and of the name in capitals.

    Two names with one glyph key in common look the same once one of them
    is written in capitals, which a case-insensitive name allows: "ALlCE"
    (small l) as written and "alice" in capitals are both "ALlCE".
    """
    written = unicodedata.normalize("NFKC", name)
    capitals = unicodedata.normalize("NFKC", written.upper())
    return frozenset({skeleton(written), skeleton(capitals)})


def claim_keys(name: str) -> frozenset[str]:
    """Every key a registered name claims; two names collide when they share one.

    Each kind of key has its own prefix, so that only keys of one kind
    meet: ``f:`` :func:`name_key`, ``w:`` :func:`written_key`, ``g:`` each
    of :func:`glyph_keys`.  The database keeps these (hashed) under a
    unique index, which makes "collides with a registered name" one
    look-up and lets the database refuse the second of two racing
    look-alike registrations.
    """
    glyphs = frozenset(f"g:{key}" for key in glyph_keys(name))
    return frozenset({f"f:{name_key(name)}", f"w:{written_key(name)}"}) | glyphs


def collide(first: str, second: str) -> bool:
    """Whether two names may not both be registered (or one played as the other)."""
    return not claim_keys(first).isdisjoint(claim_keys(second))
