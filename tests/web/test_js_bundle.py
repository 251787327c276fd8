"""bundle(): the ES modules of web/js inlined into one script (issue 11, web contract)."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from twenty48_replay.web.bundle import GLOBAL_NAME, BundleError, bundle


def modules(**texts: str) -> Callable[[str], str]:
    """A reader over in-memory modules, for bundling hand-made module sets."""

    def read(name: str) -> str:
        try:
            return texts[name.replace(".js", "").replace("-", "_")]
        except KeyError:
            raise BundleError(f"no module {name!r}") from None

    return read


def test_orders_modules_by_imports_and_strips_import_and_export() -> None:
    read = modules(
        a=(
            'import { b1 } from "./b.js";\nimport { c1 } from "./c.js";\n'
            "export function a1() {\n  return b1() + c1;\n}\n"
        ),
        b='import { c1 } from "./c.js";\nexport function b1() {\n  return c1 * 2;\n}\n',
        c="export const c1 = 21;\n",
    )
    text = bundle(["a.js"], read=read)
    assert "import" not in text
    assert "export" not in text
    assert text.index("const c1") < text.index("function b1") < text.index("function a1")
    assert text.count("const c1 = 21") == 1  # c.js is included once, though imported twice
    assert f"globalThis.{GLOBAL_NAME} = Object.freeze({{ c1, b1, a1 }});" in text


@pytest.mark.parametrize(
    ("texts", "message"),
    [
        (
            {
                "a": 'import { b } from "./b.js";\nexport const a = 1;\n',
                "b": 'import { a } from "./a.js";\nexport const b = 2;\n',
            },
            "import cycle: a.js -> b.js -> a.js",
        ),
        ({"a": "export default 1;\n"}, "export only declarations"),
        ({"a": "const x = 1;\nexport { x };\n"}, "only top-level one-line imports"),
        ({"a": "import {\n  b,\n} from './b.js';\n"}, "imports must be one line"),
        ({"a": 'import { b } from "b.js";\n'}, "imports must be one line"),
        (
            {
                "a": 'import { b } from "./b.js";\nconst x = 1;\n',
                "b": "export const b = 1;\nconst x = 2;\n",
            },
            "'x' is declared in both b.js and a.js",
        ),
        ({"a": 'export const a = "</script>";\n'}, "would break a page"),
        ({"a": 'import { b } from "./missing.js";\n'}, "no module 'missing.js'"),
    ],
)
def test_refuses_what_would_break_at_run_time(texts: dict[str, str], message: str) -> None:
    with pytest.raises(BundleError, match=message.replace("(", r"\(").replace(")", r"\)")):
        bundle(["a.js"], read=modules(**texts))


def test_refuses_bad_entries() -> None:
    with pytest.raises(BundleError, match="not a module name"):
        bundle(["../record.py"])
    with pytest.raises(BundleError, match="not one string"):
        bundle("verify.js")
    with pytest.raises(BundleError, match="no entry"):
        bundle([])


def test_package_modules_bundle_and_expose_verify_record(tmp_path: Path) -> None:
    """The real modules bundle; the script runs in Node and exposes the API."""
    text = bundle(["verify.js"])
    assert "verifyRecord" in text
    node = shutil.which("node")
    if node is None:
        pytest.skip(
            "node is not installed (tests/web/test_js_node.py decides whether that is fatal)"
        )
    script = tmp_path / "bundle.js"
    script.write_text(text, encoding="utf-8")
    probe = (
        f"require({str(script)!r});"
        f"const t = globalThis.{GLOBAL_NAME};"
        "console.log(typeof t.verifyRecord, typeof t.applyMove, Object.isFrozen(t));"
    )
    out = subprocess.run([node, "-e", probe], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["function", "function", "true"]


def test_drops_comments_and_indentation_but_not_inside_template_literals() -> None:
    read = modules(
        a=(
            "// a module comment\n"
            "export function a1() {\n"
            "  // inside\n"
            "  const text = `line one\n"
            "    // kept: part of the string\n"
            "  `;\n"
            "\n"
            "  return text;\n"
            "}\n"
        )
    )
    text = bundle(["a.js"], read=read)
    assert "a module comment" not in text
    assert "inside" not in text
    assert "const text = `line one\n    // kept: part of the string\n  `;\nreturn text;" in text


def test_package_bundle_fits_the_page_budget() -> None:
    """Issue 11: a page's own code is at most 100 kB; the verifier must leave room for the UI.

    65,000 since issue 20: the verifier's reasons carry codes (reasons.js and the generated
    templates of the codes it gives, about 3.4 kB); the translations stay out of the code
    (the page embeds them as data), so a new language costs the bundle nothing.
    68,500 since issue 20's last part: the record reader's reasons carry codes too (their
    templates replace the English words inline in record.js and json.js, about 3 kB more);
    the whole page stays under 100 kB (test_web_export.test_page_code_is_at_most_100_kb).
    """
    assert len(bundle(["verify.js"]).encode("utf-8")) < 68_500
