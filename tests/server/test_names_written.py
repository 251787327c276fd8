"""Names that look alike as written, not only once case-folded (issue 18 s.3, the known gap).

"AIice" (capital I) reads as "Alice" in most sans-serif fonts, but folding
case before the TS #39 skeleton made it "aiice", apart from a registered
"alice".  A name now collides with a registered one when any of their
claimed keys agree (:func:`twenty48_replay.fairplay.names.claim_keys`): the folded
skeleton, the skeleton as written then folded, and the case-kept skeletons
as written and in capitals.  The rules alone first, then a real server on
SQLite and PostgreSQL over real HTTP, then two server processes racing on
one PostgreSQL.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest
from support.names_play import LOOK_ALIKES, MANY_NAMES, Exchange, finish_a_game
from support.pg import fresh_database
from support.server_harness import ServerProcess

from twenty48_replay.fairplay.client import Client
from twenty48_replay.fairplay.names import claim_keys, collide, name_key, written_key

#: Look-alikes of "alice" that case-folding first let through, and why each collides.
WRITTEN_LOOK_ALIKES = {
    "AIice": "capital I for small l: reads Alice",
    "ALlCE": "small l among capitals: reads ALICE",
    "AL1CE": "digit one among capitals: reads ALICE",
    "\u0410Iice": "Cyrillic capital A, Latin capital I",
    "A\u0406ice": "Latin capital A, Cyrillic capital I (U+0406)",
    "AIic\u0435": "capital I, Cyrillic small ie",
    "ali\u0307ce": "i with a combining dot above: drawn as i",
    "AL\u0130CE": "capital I with dot above (U+0130): its fold is i with a dot above",
}
#: Look-alikes that were refused before and still are (case, width, script mixes).
FOLDED_LOOK_ALIKES = ("ALICE", "Alice", "aLiCe", "ａｌｉｃｅ", "\u0430lice", "al\u0131ce")
#: Names that do not collide with "alice": they register and play as their own.
DISTINCT = ("alicia", "allce", "alice2", "alic", "Al Ice", "malice")


# ------------------------------------------------------------ the rules alone


def test_the_gap_case_folding_first_missed() -> None:
    assert name_key("AIice") != name_key("alice")  # what the folded key alone said
    assert written_key("AIice") == written_key("alice") == "alice"
    for name in WRITTEN_LOOK_ALIKES:
        assert collide(name, "alice"), name
        assert collide("alice", name), name  # the relation is symmetric


def test_a_dot_above_on_i_or_j_is_the_letter_s_own() -> None:
    """Found in the operator's walkthrough: "eri\u0307k" was drawn as "erik" beside it."""
    for name in ("eri\u0307k", "ER\u0130K", "Er\u0130k"):
        assert collide(name, "erik"), name
    assert collide("j\u0307an", "jan")
    assert collide("\u0456\u0307van", "ivan")  # Cyrillic i with a dot above
    for name in ("ero\u0307k", "erl\u0307k", "eri\u0300k"):  # a dot or accent that shows
        assert not collide(name, "erik"), name


def test_what_was_refused_still_is() -> None:
    for name in (*FOLDED_LOOK_ALIKES, "\u0430lic\u0435"):
        assert name_key(name) == name_key("alice"), name
        assert collide(name, "alice"), name


@pytest.mark.parametrize("name", DISTINCT)
def test_distinct_names_stay_distinct(name: str) -> None:
    assert not collide(name, "alice"), claim_keys(name) & claim_keys("alice")


@pytest.mark.parametrize(
    ("first", "second"),
    [
        # Refused that case-folding first allowed (README "Player names" lists these):
        ("Ivan", "lvan"),  # capital I and small l look the same
        ("Bill", "BiII"),
        ("alice", "al1ce"),  # their capitals ALICE / AL1CE: TS #39 has I, l and 1 alike
        ("chip", "ch1p"),
        ("Ci", "Cl"),  # CI and Cl look the same
    ],
)
def test_new_refusals(first: str, second: str) -> None:
    assert name_key(first) != name_key(second)
    assert collide(first, second)


@pytest.mark.parametrize(
    ("first", "second"), [("Ali", "All"), ("Eli", "Ell"), ("bill", "biil"), ("ian", "lan")]
)
def test_small_i_and_small_l_stay_apart(first: str, second: str) -> None:
    """A small i has a dot: only a capital I, a digit one or a bar stands for an l."""
    assert not collide(first, second)


@pytest.mark.parametrize(
    ("first", "second"),
    [("Ian", "Lan"), ("IAN", "LAN"), ("URI", "URL"), ("Iost", "Lost"), ("ALICE", "allce")],
)
def test_capital_i_and_capital_l_stay_apart(first: str, second: str) -> None:
    """The written key keeps the skeleton's capital L out of its case-fold: a capital I
    (skeleton l) would otherwise fold together with every capital L."""
    assert not collide(first, second)


def test_the_price_of_keeping_capital_l_apart() -> None:
    """A capital L where the registered name has a small l, and a capital I for another
    small l, is not caught: only the name's own capitals are compared, not every mix."""
    assert not collide("LiIIy", "lilly")
    assert collide("LiIIy", "Lilly")
    assert collide("liIIy", "lilly")


def test_collisions_need_not_be_transitive() -> None:
    """Both collide with alice, not with each other: registration order decides."""
    assert collide("AIice", "alice")
    assert collide("ALlCE", "alice")
    assert not collide("AIice", "ALlCE")


# ------------------------------------------------------------ a real server


def test_written_look_alikes_are_refused(db: str, tmp_path: Path) -> None:
    with ServerProcess(db, tmp_path, "--no-analysis", *MANY_NAMES) as server:
        http = Exchange(server.url)
        status, registration = http.send("POST", "/api/players", {"name": "alice"})
        assert status == 201, registration
        secret = registration["secret"]
        for name in (*WRITTEN_LOOK_ALIKES, *FOLDED_LOOK_ALIKES):
            reason = http.refused(409, "/api/players", {"name": name})["error"]
            assert "looks the same" in reason, (name, reason)
            http.refused(409, "/api/games", {"player": name})
            http.refused(409, "/api/games", {"player": name}, secret)
        for name, status in LOOK_ALIKES.items():  # the seven, still refused
            http.refused(status, "/api/players", {"name": name})
            http.refused(status, "/api/games", {"player": name})

        client = Client(server.url)
        mine = finish_a_game(client, "alice", secret, 6)
        distinct = {}
        for name in DISTINCT:  # each plays unregistered, and can be registered
            status, answer = http.send("POST", "/api/games", {"player": name})
            assert status == 201, (name, answer)
            assert answer["registered"] is False
            status, answer = http.send("POST", "/api/players", {"name": name})
            assert status == 201, (name, answer)
            distinct[name] = finish_a_game(client, name, answer["secret"], 4)
        board = {row["id"]: row for row in client.leaderboard()["games"]}
        assert (board[mine]["player"], board[mine]["registered"]) == ("alice", True)
        for name, fair_id in distinct.items():
            assert (board[fair_id]["player"], board[fair_id]["registered"]) == (name, True)
        client.close()
        assert "internal error" not in server.log_text()


def test_either_order_and_the_non_transitive_case(db: str, tmp_path: Path) -> None:
    """The look-alike registered first owns it; two that both look like alice both register."""
    with ServerProcess(db, tmp_path, "--no-analysis", *MANY_NAMES) as server:
        http = Exchange(server.url)
        status, first = http.send("POST", "/api/players", {"name": "AIice"})
        assert status == 201, first
        http.refused(409, "/api/players", {"name": "alice"})
        http.refused(409, "/api/games", {"player": "alice"})
        http.refused(409, "/api/games", {"player": "alice"}, first["secret"])
        status, second = http.send("POST", "/api/players", {"name": "ALlCE"})
        assert status == 201, second
        # "alice" now collides with two registered names: still 409, whichever secret.
        for secret in (None, first["secret"], second["secret"]):
            http.refused(409, "/api/games", {"player": "alice"}, secret)
        client = Client(server.url)
        assert finish_a_game(client, "AIice", first["secret"], 3) > 0
        assert finish_a_game(client, "ALlCE", second["secret"], 3) > 0
        client.close()


def test_racing_look_alikes_give_one_owner(tmp_path: Path) -> None:
    """Two processes on one PostgreSQL register names that pairwise collide, each only by
    some of their keys: exactly one wins, the rest get 409, never a 500."""
    names = ["alice", "AIice", "Alice", "\u0430lice", "AIic\u0435"]
    for first, second in combinations(names, 2):
        assert collide(first, second), (first, second)
    for url in fresh_database():
        with ServerProcess(url, tmp_path, "--no-analysis", "--workers", "2", *MANY_NAMES) as server:

            def register(name: str) -> tuple[int, Any]:
                return Exchange(server.url).send("POST", "/api/players", {"name": name})

            attempts = names * 3
            with ThreadPoolExecutor(len(attempts)) as pool:
                results = list(pool.map(register, attempts))
            statuses = sorted(status for status, _answer in results)
            assert statuses == [201] + [409] * (len(attempts) - 1), results
            ((winner, secret),) = [
                (answer["name"], answer["secret"]) for status, answer in results if status == 201
            ]
            http = Exchange(server.url)
            for name in names:
                if name != winner:
                    http.refused(409, "/api/games", {"player": name}, secret)
            client = Client(server.url)
            assert finish_a_game(client, winner, secret, 4) > 0
            client.close()
            assert "internal error" not in server.log_text()


def test_a_refused_registration_leaves_nothing(db: str) -> None:
    """In the store: the player and its keys go in together or not at all."""
    from sqlalchemy import func, select

    from twenty48_replay.store import Store
    from twenty48_replay.store import players as player_store
    from twenty48_replay.store.tables import player_keys, players

    with Store(db) as store:
        with store.transaction() as connection:
            first = player_store.register(connection, "alice", name_key("alice"), "0" * 64, 1)
            assert first is not None
            for name in ("AIice", "ALlCE", "ALICE"):
                assert player_store.register(connection, name, name_key(name), "1" * 64, 2) is None
            assert player_store.register(connection, "alicia", name_key("alicia"), "2" * 64, 3)
        with store.reading() as connection:
            assert connection.execute(
                select(players.c.name).order_by(players.c.id)
            ).scalars().all() == [
                "alice",
                "alicia",
            ]
            count = connection.execute(select(func.count()).select_from(player_keys)).scalar_one()
            hashes = player_store.key_hashes("alice") + player_store.key_hashes("alicia")
            assert count == len(hashes)
            assert [p.name for p in player_store.claimants(connection, "ALlCE")] == ["alice"]
            assert player_store.claimants(connection, "allce") == []
