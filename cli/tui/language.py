"""The TUI's text in the chosen language (:mod:`twenty48_replay.core.i18n`).

Key descriptions are written in class bodies, before the language is known,
so they are marked with ``N_`` there and translated per screen instance.
"""

from __future__ import annotations

from dataclasses import replace

from textual.dom import DOMNode

from twenty48_replay.core.i18n import _


def translate_bindings(node: DOMNode) -> None:
    """Give ``node``'s own copy of its key bindings, descriptions and key names in the language.

    Each instance holds a copy of its class's bindings map (Textual copies it
    in ``__init__``), so replacing the lists here leaves the class alone and
    a later screen in another language translates afresh.
    """
    keys = node._bindings.key_to_bindings
    for key, bindings in list(keys.items()):
        keys[key] = [
            replace(
                binding,
                description=_(binding.description) if binding.description else "",
                key_display=_(binding.key_display) if binding.key_display else None,
            )
            for binding in bindings
        ]
