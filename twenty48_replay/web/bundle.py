"""Inline the ES modules of ``web/js`` into one script, with no bundler and no npm.

A self-contained HTML page (opened from ``file://``, offline) cannot load
``import`` statements from other files, so its code must be one script.  The
modules follow a strict style (web_contract: one-line relative imports,
``export`` only on declarations, top-level names unique across modules), which
makes bundling a text operation: order the modules so that each comes after the
modules it imports, drop the import lines and the leading ``export`` keywords,
and wrap everything in one function so nothing leaks into the page's globals
except ``globalThis.twenty48``, an object holding every exported name.

Indentation, blank lines and whole-line ``//`` comments are dropped (outside
multi-line template literals, found by counting backticks: so a module must not
hold an odd number of backticks in a string or a comment), which takes the
verifier from about 78 kB of source to about 56 kB.

The result works as an inline classic script or as an inline module script.
Anything outside the style (``export default``, ``export { ... }``, a
multi-line or non-relative import, an import cycle, two modules declaring the
same top-level name, text that would end an inline ``<script>``) is refused
with :class:`BundleError` rather than producing a page that breaks at run time.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from importlib import resources
from typing import Final

#: The global the bundle defines: every exported name of every included module.
GLOBAL_NAME: Final = "twenty48"

_MODULE_NAME: Final = re.compile(r"[a-z0-9_]+(?:-[a-z0-9_]+)*\.js")
_IMPORT: Final = re.compile(r'import\s*\{([^}]*)\}\s*from\s*"\./([^"]+)";?\s*')
_EXPORT: Final = re.compile(
    r"export\s+(?:(async\s+)?function\*?|const|let|class)\s+([A-Za-z_$][\w$]*)"
)
_TOP_DECL: Final = re.compile(
    r"(?:export\s+)?(?:async\s+)?(?:function\*?|const|let|var|class)\s+([A-Za-z_$][\w$]*)"
)
_FORBIDDEN: Final = re.compile(r"</script|<!--", re.IGNORECASE)
#: ``code; // comment`` whose code holds no quote, backtick or slash: the comment is dropped.
_TRAILING_COMMENT: Final = re.compile(r"^([^\"'`/]*;) +//.*$")


class BundleError(ValueError):
    """A module cannot be bundled: missing, cyclic, or outside the module style."""


def _read_module(name: str) -> str:
    """Text of one module of the package's ``web/js`` folder."""
    if not _MODULE_NAME.fullmatch(name):
        raise BundleError(f"{name!r} is not a module name of web/js (like 'verify.js')")
    path = resources.files("twenty48_replay.web").joinpath("js", name)
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise BundleError(f"no module {name!r} in twenty48_replay/web/js") from None


class _Module:
    """One parsed module: its imports, its body without them, its exported names."""

    def __init__(self, name: str, text: str) -> None:
        self.name = name
        self.imports: list[str] = []
        self.exports: list[str] = []
        self.declared: list[str] = []
        body: list[str] = []
        in_template = False
        for number, line in enumerate(text.splitlines(), 1):
            where = f"{name}:{number}"
            stripped = line.strip()
            if re.match(r"import[\s{]", line):
                match = _IMPORT.fullmatch(stripped)
                if match is None:
                    raise BundleError(
                        f'{where}: imports must be one line: import {{ a }} from "./x.js";'
                    )
                self.imports.append(match.group(2))
                continue
            if re.match(r"\s*import[\s{(*]", line) or stripped.startswith("export {"):
                raise BundleError(f"{where}: only top-level one-line imports are allowed")
            if re.match(r"\s*export\b", line):
                if not line.startswith("export "):
                    raise BundleError(f"{where}: export only at the top level")
                exported = _EXPORT.match(line)
                if exported is None:
                    raise BundleError(
                        f"{where}: export only declarations (no default, no lists, no re-exports)"
                    )
                self.exports.append(exported.group(2))
                line = line[len("export ") :]
            declared = _TOP_DECL.match(line)
            if declared is not None:
                self.declared.append(declared.group(1))
            if _FORBIDDEN.search(line):
                raise BundleError(f"{where}: holds '</script' or '<!--', which would break a page")
            if not in_template:
                # Outside a multi-line template literal, indentation, blank lines and
                # whole-line comments are only for readers: dropping them keeps the
                # page's code well under its 100 kB budget.
                line = line.strip()
                if not line or line.startswith("//"):
                    continue
                # A comment after a statement, where the statement holds no quote, backtick
                # or slash (so the "//" cannot be inside a string or a regular expression).
                line = _TRAILING_COMMENT.sub(r"\1", line)
            if (line.count("`") - line.count("\\`")) % 2:
                in_template = not in_template
            body.append(line)
        self.body = "\n".join(body)


def _ordered(entries: Sequence[str], read: Callable[[str], str]) -> list[_Module]:
    """The modules reachable from ``entries``, each after the modules it imports."""
    done: dict[str, _Module] = {}
    order: list[_Module] = []
    visiting: list[str] = []

    def visit(name: str) -> None:
        if name in done:
            return
        if name in visiting:
            cycle = " -> ".join([*visiting[visiting.index(name) :], name])
            raise BundleError(f"import cycle: {cycle}")
        visiting.append(name)
        module = _Module(name, read(name))
        for dependency in module.imports:
            visit(dependency)
        visiting.pop()
        done[name] = module
        order.append(module)

    for entry in entries:
        visit(entry)
    return order


def bundle(entries: Sequence[str], *, read: Callable[[str], str] = _read_module) -> str:
    """One classic script holding ``entries`` (names in ``web/js``, e.g. ``["verify.js"]``)
    and every module they import, in dependency order.

    The script defines ``globalThis.twenty48``, a frozen object with every
    exported name of every included module (``twenty48.verifyRecord``...).
    ``read`` maps a module name to its text (tests pass their own modules).
    """
    if isinstance(entries, str):
        raise BundleError("entries is a list of module names, not one string")
    if not entries:
        raise BundleError("no entry module given")
    modules = _ordered(entries, read)
    owner: dict[str, str] = {}
    for module in modules:
        for name in module.declared:
            if name in owner and owner[name] != module.name:
                raise BundleError(
                    f"top-level name {name!r} is declared in both {owner[name]} and {module.name}"
                )
            owner[name] = module.name
    exported = [name for module in modules for name in module.exports]
    parts = ["(function () {", '"use strict";']
    for module in modules:
        parts.append(f"// {module.name}")
        parts.append(module.body)
    listing = ", ".join(exported)
    parts.append(f"globalThis.{GLOBAL_NAME} = Object.freeze({{ {listing} }});")
    parts.append("})();")
    return "\n".join(parts) + "\n"
