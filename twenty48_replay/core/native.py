"""Which engine runs: the compiled native core or the pure-Python engine.

This module is the one place that decides.  The native core is an
optional C extension (``twenty48_replay._core``, built from
``twenty48_replay/_native/`` when a compiler is there); the pure-Python
engine is always installed and stays the reference.  Both give identical
results, byte for byte; the tests run the whole suite with each.

``TWENTY48_ENGINE`` chooses: ``python`` forces pure Python, ``native``
forces the native core, and unset (or empty) means the native core when it
is built, else pure Python.  A forced ``native`` where it is not built, or
any other value, is an :class:`EngineUnavailableError` (exit 2): raised by
:func:`require`, which the command line calls before anything else, and by
every engine entry point, so a library caller never runs the engine it did
not ask for.

The modules that branch on the choice (``engine``, ``game``, ``rng``,
``board``) read :data:`core`: the extension module, or None for pure Python.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType
from typing import Any, ClassVar, Final

from twenty48_replay.core.errors import EXIT_UNUSABLE, Twenty48Error
from twenty48_replay.core.i18n import N_, _

ENV_VAR: Final = "TWENTY48_ENGINE"
ENGINES: Final = ("python", "native")
#: The longest value of TWENTY48_ENGINE echoed back in an error (it is untrusted input).
_SHOWN_CHARS: Final = 200


class EngineUnavailableError(Twenty48Error):
    """The engine asked for by ``TWENTY48_ENGINE`` cannot run here (exit 2)."""

    exit_code: ClassVar[int] = EXIT_UNUSABLE
    NOT_BUILT: ClassVar[str] = N_(
        "TWENTY48_ENGINE=native, but the native core is not built in this installation; "
        "reinstall with a C compiler, or set TWENTY48_ENGINE=python"
    )
    BROKEN: ClassVar[str] = N_(
        "TWENTY48_ENGINE=native, but the native core does not load ({why}); "
        "reinstall it, or set TWENTY48_ENGINE=python"
    )
    BAD_VALUE: ClassVar[str] = N_("TWENTY48_ENGINE must be python or native, not {value}")

    def __init__(self, template: str, **values: str) -> None:
        self.template = template
        self.values = values
        super().__init__(template.format(**values))

    def translated(self) -> str:
        return _(self.template).format(**self.values)


def _import_native(name: str) -> tuple[ModuleType | None, str]:
    """The extension module ``twenty48_replay.<name>``, or None and why not."""
    try:
        return importlib.import_module(f"twenty48_replay.{name}"), ""
    except ModuleNotFoundError:
        return None, ""
    except ImportError as exc:  # built but broken, e.g. a sanitizer build without its runtime
        return None, _shown(str(exc), quoted=False)


def _shown(value: str, *, quoted: bool = True) -> str:
    """Untrusted text as an error shows it: escaped, bounded (and quoted)."""
    from twenty48_replay.core.text import printable

    short = value if len(value) <= _SHOWN_CHARS else value[:_SHOWN_CHARS] + "..."
    return printable(repr(short) if quoted else short)


def _unavailable(why: str) -> EngineUnavailableError:
    """The error for a native module that is missing (no ``why``) or does not load."""
    if not why:
        return EngineUnavailableError(EngineUnavailableError.NOT_BUILT)
    return EngineUnavailableError(EngineUnavailableError.BROKEN, why=why)


def _choose() -> tuple[str, ModuleType | None, EngineUnavailableError | None]:
    """(engine name, native module or None, the problem with the setting or None)."""
    wanted = os.environ.get(ENV_VAR, "")
    if wanted not in ("", *ENGINES):
        problem = EngineUnavailableError(EngineUnavailableError.BAD_VALUE, value=_shown(wanted))
        return "python", None, problem
    if wanted == "python":
        return "python", None, None
    module, why = _import_native("_core")
    if module is not None:
        return "native", module, None
    if wanted == "native":
        return "python", None, _unavailable(why)
    return "python", None, None


ENGINE: str
core: Any
#: What is wrong with ``TWENTY48_ENGINE``, if anything (then no engine runs).
problem: EngineUnavailableError | None
ENGINE, core, problem = _choose()


def require() -> None:
    """Raise :class:`EngineUnavailableError` if ``TWENTY48_ENGINE`` asks for what cannot run."""
    if problem is not None:
        raise problem


def module(name: str) -> Any:
    """Another native module (``"_solver"``) under the same choice, or None for pure Python.

    None when the engine is pure Python, or when the native engine runs but
    that module was not built (its compile failed); with ``TWENTY48_ENGINE=native``
    a missing module is an :class:`EngineUnavailableError`.
    """
    require()
    if core is None:
        return None
    found, why = _import_native(name)
    if found is None and os.environ.get(ENV_VAR) == "native":
        raise _unavailable(why)
    return found


def describe() -> str:
    """The engine in a few words, for ``--version`` and summaries: ``native (sha-ni)``."""
    if core is None:
        return "python"
    return f"native ({core.sha256_impl()})"
