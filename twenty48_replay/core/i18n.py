"""The language of text for people: English (the source text) or Danish.

Standard-library gettext over the compiled catalogs shipped in the package
(``locale/<lang>/LC_MESSAGES/twenty48.mo``); Babel only extracts and
compiles them during development, so nothing beyond the standard library is
needed at run time, and importing this module costs next to nothing (the
verify path imports it).

Every message id is the exact English text, so English needs no catalog and
a message missing from a catalog still reads in English.  Machine output
(JSON, records, JSON Lines, exit codes) never goes through here: it must not
change with the language.

The language is chosen once per process: :func:`set_language` (the CLI's
``--lang``), else ``TWENTY48_LANG``, else the locale (the first of
``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``, ``LANG`` that is set, as gettext
reads them: Danish when it starts with ``da``).
"""

from __future__ import annotations

import gettext
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Final

DOMAIN: Final = "twenty48"
LOCALE_DIR: Final = Path(__file__).resolve().parents[1] / "locale"
ENGLISH: Final = "en"
DANISH: Final = "da"
#: Every language there is text for, English first (the source language).
LANGUAGES: Final = (ENGLISH, DANISH)
#: The environment variable that names the language (as ``--lang`` does).
ENV_VAR: Final = "TWENTY48_LANG"

_translations: gettext.NullTranslations | None = None
_language: str | None = None


def language_from_environment(environ: Mapping[str, str] | None = None) -> str:
    """The language the environment asks for: ``TWENTY48_LANG``, else the locale.

    A ``TWENTY48_LANG`` that names no language is ignored here (the CLI
    refuses it as a usage error before anything runs).  For the locale the
    first variable that is set and not empty decides, as in gettext; ``C``,
    ``POSIX`` or anything not Danish means English.
    """
    env = os.environ if environ is None else environ
    chosen = env.get(ENV_VAR, "").strip().lower()
    if chosen in LANGUAGES:
        return chosen
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name, "")
        if value:
            first = value.split(":")[0].strip().lower()
            return DANISH if first.startswith(DANISH) else ENGLISH
    return ENGLISH


def set_language(language: str) -> None:
    """Use ``language`` (one of :data:`LANGUAGES`) from now on in this process.

    Raises ValueError for any other value.  A catalog that is missing from
    the installation falls back to English rather than failing: a game in
    English beats no game.
    """
    global _translations, _language
    if language not in LANGUAGES:
        raise ValueError(f"unknown language {language!r}: choose one of {', '.join(LANGUAGES)}")
    if language == ENGLISH:
        _translations = gettext.NullTranslations()
    else:
        _translations = gettext.translation(
            DOMAIN, localedir=LOCALE_DIR, languages=[language], fallback=True
        )
    _language = language


def translations(language: str) -> gettext.NullTranslations:
    """The catalog of ``language`` without choosing it for the process (a page in
    another language than the command line's); ValueError for an unknown language."""
    if language not in LANGUAGES:
        raise ValueError(f"unknown language {language!r}: choose one of {', '.join(LANGUAGES)}")
    if language == ENGLISH:
        return gettext.NullTranslations()
    return gettext.translation(DOMAIN, localedir=LOCALE_DIR, languages=[language], fallback=True)


def current_language() -> str:
    """The language in use (chosen from the environment on first use)."""
    if _language is None:
        set_language(language_from_environment())
    assert _language is not None
    return _language


def _catalog() -> gettext.NullTranslations:
    if _translations is None:
        set_language(language_from_environment())
    assert _translations is not None
    return _translations


def _(message: str) -> str:
    """``message`` (English) in the current language."""
    return _catalog().gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The singular or plural form for ``n``, in the current language."""
    return _catalog().ngettext(singular, plural, n)


def N_(message: str) -> str:  # noqa: N802 - the conventional name of gettext_noop
    """Mark ``message`` for extraction only; it is translated later, where it is shown.

    For text defined before the language is known (key descriptions in a
    class body, constant help texts).
    """
    return message


def number(value: int) -> str:
    """``value`` with the current language's thousands separator: 7,008 or 7.008."""
    text = f"{value:,}"
    return text.replace(",", ".") if current_language() == DANISH else text


def decimal(value: float, places: int = 1) -> str:
    """``value`` rounded to ``places`` decimals with the language's decimal mark: 8.0 or 8,0.

    No thousands separator, so English reads as it always has (``f"{x:.1f}"``).
    """
    text = f"{value:.{places}f}"
    return text.replace(".", ",") if current_language() == DANISH else text


__all__ = [
    "DANISH",
    "ENGLISH",
    "LANGUAGES",
    "N_",
    "_",
    "current_language",
    "decimal",
    "language_from_environment",
    "ngettext",
    "number",
    "set_language",
    "translations",
]
