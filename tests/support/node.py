"""Node.js for the JavaScript tests: found, or the test skipped (CI requires it)."""

from __future__ import annotations

import os
import shutil

import pytest


def node_or_skip() -> str:
    node = shutil.which("node")
    if node is None:
        if os.environ.get("TWENTY48_REQUIRE_NODE"):
            pytest.fail("node is not installed, and TWENTY48_REQUIRE_NODE is set")
        pytest.skip("node is not installed (set TWENTY48_REQUIRE_NODE=1 to make this fatal)")
    return node
