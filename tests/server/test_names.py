"""Player names that belong to someone (issue 18, section 3): the rules, and a real server.

Every rule is asked of a real ``twenty48 serve`` on a free port, over real
HTTP, on SQLite and on PostgreSQL; every refusal is a 4xx with a JSON
reason, and the secret appears in no answer but the registration's, in no
log and not in the database.
"""

from __future__ import annotations

import json
import re
import unicodedata
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text
from support.names_play import LOOK_ALIKES, MANY_NAMES, Exchange, finish_a_game
from support.pg import fresh_database
from support.server_harness import ServerProcess

from twenty48_replay.fairplay.client import Client
from twenty48_replay.fairplay.names import MAX_MARKS, NameRefusedError, check_name, name_key

# ------------------------------------------------------------ the rules alone


@pytest.mark.parametrize(
    "name",
    [
        "alice",
        "Zoë Ng",
        "Ærø",
        "ệ",  # two combining marks once decomposed
        "李小龍",
        "player 1",
        "😀 smile",
        "O'Brien-Smith",
    ],
)
def test_ordinary_names_pass(name: str) -> None:
    assert check_name(name) == name
    assert check_name(f"  {name} ") == name


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("x" * 65, "longer than 64"),
        ("a\x00b", "U+0000"),
        ("a\x1bb", "U+001B"),
        ("a\u200bb", "ZERO WIDTH SPACE"),
        ("a\u200db", "ZERO WIDTH JOINER"),
        ("a\u202eb", "RIGHT-TO-LEFT OVERRIDE"),
        ("a\u00adb", "SOFT HYPHEN"),
        ("a\u2060b", "WORD JOINER"),
        ("a\ufeffb", "ZERO WIDTH NO-BREAK SPACE"),
        ("a\u3164", "HANGUL FILLER"),
        ("a\uffa0", "HALFWIDTH HANGUL FILLER"),
        ("a\u1160", "HANGUL JUNGSEONG FILLER"),
        ("a\u2800", "BRAILLE PATTERN BLANK"),
        ("a\u180eb", "MONGOLIAN VOWEL SEPARATOR"),
        ("a\ufe00", "VARIATION SELECTOR-1"),
        ("a\U000e0041", "TAG LATIN CAPITAL LETTER A"),
        ("a\U000e0100", "VARIATION SELECTOR-17"),
        ("a\ue000", "U+E000"),  # private use
        ("a\u0378", "U+0378"),  # unassigned
        ("a\u2028b", "LINE SEPARATOR"),
        ("a\u00a0b", "NO-BREAK SPACE"),
        ("a\u3000b", "IDEOGRAPHIC SPACE"),
        ("a  b", "two spaces"),
        ("e" + "\u0301" * (MAX_MARKS + 1), "combining marks"),
        ("Z\u0335\u0321\u0327a\u0336lgo", "combining marks"),
        ("...", "no letter or digit"),
    ],
)
def test_refused_names_say_why(name: str, why: str) -> None:
    with pytest.raises(NameRefusedError, match=re.escape(why)):
        check_name(name)


def test_look_alikes_share_a_key() -> None:
    """The TS #39 skeleton of the NFKC case-folded name: case, width and script look-alikes."""
    key = name_key("alice")
    for other in ("ALICE", "Alice", "ａｌｉｃｅ", "\u0430lice", "alic\u0435", "al\u0131ce"):
        assert name_key(other) == key, other
    assert name_key("bob") != key
    assert name_key("zoë") == name_key("ZOË") == name_key(unicodedata.normalize("NFD", "Zoë"))
    assert name_key("zoe") != name_key("zoë")  # accents are letters of their own
    assert name_key("l33t") == name_key("1337".replace("7", "t").replace("1", "l"))
    assert name_key("paypal") == name_key("\u0440\u0430\u0443\u0440\u0430l")  # all Cyrillic


# ------------------------------------------------------------ a real server


def test_registrations_are_rate_limited_per_address(tmp_path: Path) -> None:
    """The default register-name limit: a burst of 5 from one address, then 429 with a wait."""
    with ServerProcess(str(tmp_path / "limited.sqlite3"), tmp_path, "--no-analysis") as server:
        http = Exchange(server.url)
        for n in range(5):
            status, answer = http.send("POST", "/api/players", {"name": f"player{n}"})
            assert status == 201, answer
        status, answer = http.send("POST", "/api/players", {"name": "player5"})
        assert status == 429, answer
        assert "too many name registrations" in answer["error"]
        assert "secret" not in json.dumps(answer)


def test_a_registered_name_belongs_to_its_secret(db: str, tmp_path: Path) -> None:
    with ServerProcess(db, tmp_path, "--no-analysis", *MANY_NAMES) as server:
        http = Exchange(server.url)
        status, registration = http.send("POST", "/api/players", {"name": " alice "})
        assert status == 201, registration
        assert registration["name"] == "alice"
        secret = registration["secret"]
        assert isinstance(secret, str)
        assert len(secret) >= 40

        # The name, once more or in any look-alike spelling, cannot be registered again
        # nor played without the secret.
        http.refused(409, "/api/players", {"name": "alice"})
        http.refused(409, "/api/players", {"name": "ALICE"})
        for name, status in LOOK_ALIKES.items():
            http.refused(status, "/api/players", {"name": name})
            http.refused(status, "/api/games", {"player": name})
            http.refused(status, "/api/games", {"player": name}, secret)
        reason = http.refused(401, "/api/games", {"player": "alice"})["error"]
        assert "secret" in reason
        http.refused(403, "/api/games", {"player": "alice"}, "not-the-secret")
        http.refused(403, "/api/games", {"player": "alice"}, "x" * 300)
        http.refused(409, "/api/games", {"player": "Alice"}, secret)
        # A secret for a name nobody registered is refused, not ignored.
        http.refused(403, "/api/games", {"player": "bob"}, secret)
        # Names the rules refuse, and bodies of the wrong shape.
        http.refused(422, "/api/players", {"name": "a\u200bb"})
        http.refused(422, "/api/players", {"name": ""})
        http.refused(422, "/api/players", {"name": "e" + "\u0301" * 5})
        http.refused(400, "/api/players", {"name": 5})
        http.refused(400, "/api/players", {})
        http.refused(400, "/api/players", {"player": "carol"})

        # The owner plays; so does an unregistered name, as before.
        client = Client(server.url)
        mine = finish_a_game(client, "alice", secret, 12)
        theirs = finish_a_game(client, "bob", None, 12)
        board = {row["id"]: row for row in client.leaderboard()["games"]}
        assert board[mine]["registered"] is True
        assert board[mine]["player"] == "alice"
        assert board[theirs]["registered"] is False
        assert client.leaderboard()["registered_only"] is False
        # bob can still register his name: later games are marked, earlier ones are not.
        status, bobs = http.send("POST", "/api/players", {"name": "bob"})
        assert status == 201
        http.refused(401, "/api/games", {"player": "bob"})
        client.close()

        # Leak scan: neither secret is in any other answer, the log or the database.
        leaked = [secret, bobs["secret"]]
        answers = [answer for answer in http.answers if b'"secret"' not in answer]
        assert len(answers) == len(http.answers) - 2
        for answer in answers:
            for word in leaked:
                assert word.encode() not in answer
        log = server.log_text()
        assert "POST /api/players" in log  # the access log is on
        for word in leaked:
            assert word not in log
    for word in leaked:
        assert word not in database_text(db)


def database_text(db: str) -> str:
    """Every value of every table, as one text (for the leak scan)."""
    engine = create_engine(db if "://" in db else f"sqlite:///{db}")
    try:
        with engine.connect() as connection:
            tables = [
                "players",
                "game_players",
                "fair_games",
                "games",
                "moderation_log",
                "twenty48_meta",
            ]
            return "\n".join(
                repr(row)
                for table in tables
                for row in connection.execute(text(f"SELECT * FROM {table}"))
            )
    finally:
        engine.dispose()


def test_registered_only_ranks_registered_names(db: str, tmp_path: Path) -> None:
    with ServerProcess(db, tmp_path, "--no-analysis", "--registered-only", *MANY_NAMES) as server:
        client = Client(server.url)
        secret = client.register("dana")["secret"]
        ranked = finish_a_game(client, "dana", secret, 8)
        finish_a_game(client, "eve", None, 30)
        answer = client.leaderboard()
        assert answer["registered_only"] is True
        assert [(row["id"], row["registered"]) for row in answer["games"]] == [(ranked, True)]
        client.close()


def test_racing_registrations_give_one_owner(tmp_path: Path) -> None:
    """Two processes on one PostgreSQL: of many registrations of one name at once, one wins.

    The losers get 409 (the unique key, inside a savepoint, so the batch they
    share with other writes goes on), never a 500; the winner's secret works.
    """
    for url in fresh_database():
        with ServerProcess(url, tmp_path, "--no-analysis", "--workers", "2", *MANY_NAMES) as server:
            names = ["rita", "RITA", "\u0433ita", "r\u0456ta"] * 4  # Cyrillic г, і

            def register(name: str) -> tuple[int, Any]:
                return Exchange(server.url).send("POST", "/api/players", {"name": name})

            with ThreadPoolExecutor(len(names)) as pool:
                results = list(pool.map(register, names))
            statuses = sorted(status for status, _answer in results)
            assert statuses == [201] + [409] * (len(names) - 1), results
            (secret,) = [answer["secret"] for status, answer in results if status == 201]
            (winner,) = [answer["name"] for status, answer in results if status == 201]
            client = Client(server.url)
            assert finish_a_game(client, winner, secret, 4) > 0
            client.close()
            assert "internal error" not in server.log_text()


def test_a_lost_race_leaves_the_transaction_usable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The unique key refuses the second registration inside a savepoint: None, and the
    caller's transaction (a writer batch of other games' writes) still commits."""
    from twenty48_replay.store import Store
    from twenty48_replay.store import players as player_store

    with Store(str(tmp_path / "race.sqlite3")) as store:
        with store.transaction() as connection:
            assert player_store.register(connection, "sam", "sam", "0" * 64, 1) == 1
            # As if another process registered between our check and our insert:
            monkeypatch.setattr(player_store, "registered", lambda _c, _k: None)
            assert player_store.register(connection, "SAM", "sam", "1" * 64, 2) is None
            assert player_store.register(connection, "tom", "tom", "2" * 64, 3) is not None
        monkeypatch.undo()
        with store.reading() as connection:
            owner = player_store.registered(connection, "sam")
            assert owner is not None
            assert (owner.name, owner.secret_hash) == ("sam", "0" * 64)
            assert player_store.registered(connection, "tom") is not None
