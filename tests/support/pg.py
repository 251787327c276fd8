"""Fresh PostgreSQL databases for tests, from the server named by an environment variable.

``TWENTY48_TEST_POSTGRES_URL`` is the URL of a server database we may use
to create and drop test databases (``.ci/postgres-start`` prints one).
Without it the PostgreSQL tests skip with that reason, unless
``TWENTY48_REQUIRE_POSTGRES`` is set (CI sets it), in which case they fail.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

URL_VAR = "TWENTY48_TEST_POSTGRES_URL"


def server_url() -> str:
    url = os.environ.get(URL_VAR)
    if not url:
        if os.environ.get("TWENTY48_REQUIRE_POSTGRES"):
            pytest.fail(f"{URL_VAR} is not set but TWENTY48_REQUIRE_POSTGRES is")
        pytest.skip(f"no PostgreSQL server: set {URL_VAR} (see .ci/postgres-start)")
    return url


def fresh_database() -> Iterator[str]:
    """Create an empty database, yield its URL, drop it afterwards."""
    base = make_url(server_url())
    name = f"t_{uuid.uuid4().hex[:12]}"
    admin = create_engine(base, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield base.set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()
