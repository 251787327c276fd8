"""The score server bounded under abuse, with quotas and expiry (issue 18, sections 1 and 2).

Real ``twenty48 serve`` processes on free ports, real HTTP (clients bound to
their own loopback addresses where the address matters), SQLite files and
PostgreSQL; the store's pieces on real databases where a statement is the
point.  Every refusal must be a clean 4xx/5xx with a JSON reason, and
nothing acknowledged may be lost.
"""

from __future__ import annotations

import concurrent.futures
import http.client
import json
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, event, text
from support.common import ROOT, run_cli
from support.pg import fresh_database
from support.server_harness import ServerProcess

from twenty48_replay.core.board import Direction
from twenty48_replay.core.game import GameState
from twenty48_replay.core.record import Record
from twenty48_replay.fairplay.client import Client, MoveRefusedError, RemoteGame
from twenty48_replay.fairplay.signing import ServerKey, TrustedKey
from twenty48_replay.server.api_errors import ApiError
from twenty48_replay.server.guard.quotas import REGISTER_NAME, RateLimits
from twenty48_replay.server.writes import write_jobs
from twenty48_replay.server.writes.batch_view import EntryCache
from twenty48_replay.server.writes.live_games import CHECKPOINT_EVERY, GameEntry
from twenty48_replay.server.writes.record_checks import Accepted, Refused, check_record
from twenty48_replay.server.writes.writer import GroupWriter
from twenty48_replay.store import Store
from twenty48_replay.store import fair_games as fair_store
from twenty48_replay.store.fair_games import FairRow
from twenty48_replay.store.tables import SCHEMA_VERSION

# ------------------------------------------------------------------ helpers

DATA = ROOT / "tests" / "data"


@pytest.fixture
def pg_db() -> Iterator[str]:
    yield from fresh_database()


def call(
    url: str,
    method: str,
    path: str,
    body: Any = None,
    *,
    token: str | None = None,
    source: str = "127.0.0.1",
    raw: bytes | None = None,
) -> tuple[int, dict[str, str], Any]:
    """One request on a fresh connection from ``source``; status, headers (lower case), JSON."""
    host, port = url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=60, source_address=(source, 0))
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    data = raw if raw is not None else None if body is None else json.dumps(body).encode()
    try:
        connection.request(method, path, body=data, headers=headers)
        response = connection.getresponse()
        payload = response.read()
        answer = {k.lower(): v for k, v in response.getheaders()}
    finally:
        connection.close()
    assert answer.get("content-type", "").startswith("application/json"), payload[:200]
    return response.status, answer, json.loads(payload)


def refused(answer: tuple[int, dict[str, str], Any], status: int) -> str:
    """The JSON reason of a refusal with ``status`` (asserts its shape)."""
    code, _headers, body = answer
    assert code == status, body
    assert set(body) <= {"error", "error_code"}, body
    assert body["error"], body
    return str(body["error"])


def new_game(url: str, player: str = "ann", source: str = "127.0.0.1") -> tuple[int, str]:
    status, _h, body = call(url, "POST", "/api/games", {"player": player}, source=source)
    assert status == 201, body
    return int(body["id"]), str(body["token"])


def start(url: str, fair_id: int, token: str) -> dict[str, Any]:
    status, _h, body = call(
        url, "POST", f"/api/games/{fair_id}/start", {"client_seed": "s"}, token=token
    )
    assert status == 200, body
    return dict(body)


def next_letter(rows: list[list[int]]) -> str:
    from twenty48_replay.core.board import Board

    board = Board.from_rows(rows)
    for direction in (Direction.LEFT, Direction.DOWN, Direction.RIGHT, Direction.UP):
        if board.slide(direction).changed:
            return direction.letter
    raise AssertionError("no move changes the board")


def play(url: str, fair_id: int, token: str, n: int, rows: list[list[int]]) -> dict[str, Any]:
    """Move number ``n`` (the first that changes ``rows``); asserts it was acknowledged."""
    status, _h, body = call(
        url,
        "POST",
        f"/api/games/{fair_id}/moves",
        {"move": next_letter(rows), "n": n},
        token=token,
    )
    assert status == 200, body
    return dict(body)


def stored_letters(db: str, fair_id: int) -> str:
    engine = create_engine(db if "://" in db else f"sqlite:///{db}")
    try:
        with engine.connect() as connection:
            game_id = connection.execute(
                text("SELECT game_id FROM fair_games WHERE id = :i"), {"i": fair_id}
            ).scalar_one()
            rows = connection.execute(
                text("SELECT direction FROM moves WHERE game_id = :g ORDER BY seq"), {"g": game_id}
            ).all()
    finally:
        engine.dispose()
    return "".join(row[0] for row in rows)


def fetch(db: str, sql: str) -> list[tuple[Any, ...]]:
    engine = create_engine(db if "://" in db else f"sqlite:///{db}")
    try:
        with engine.connect() as connection:
            return [tuple(row) for row in connection.execute(text(sql)).all()]
    finally:
        engine.dispose()


def self_seeded(seed: str, moves: int = 20, **extra: Any) -> bytes:
    """A valid self-seeded record of ``moves`` greedy moves, with metadata ``extra``."""
    state = GameState.new(seed)
    letters = ""
    for _ in range(moves):
        for direction in (Direction.LEFT, Direction.DOWN, Direction.RIGHT, Direction.UP):
            if state.board.slide(direction).changed:
                state = state.play(direction)[0]
                letters += direction.letter
                break
    record = Record(seed, letters, score=state.score, extra=dict(extra))
    return record.to_json().encode()


# ------------------------------------------------- section 1: record bodies


def test_a_record_is_read_within_its_bounds() -> None:
    body = self_seeded("bounds", notes="n" * 3000)
    assert isinstance(check_record(body, 512), Accepted)  # known keys are not counted
    over = check_record(self_seeded("bounds", extra_key="x" * 600), 512)
    assert isinstance(over, Refused)
    assert over.status == 413
    assert "unknown keys hold 616 bytes of canonical JSON, over the limit of 512" in over.reason
    unreadable = check_record(b"{", 512)
    assert isinstance(unreadable, Refused)
    assert unreadable.status == 400
    fair = json.loads(self_seeded("bounds"))
    fair["signature"] = "x"
    signed = check_record(json.dumps(fair).encode(), 512)
    assert isinstance(signed, Refused)
    assert signed.status in (400, 422)


@pytest.mark.slow
def test_record_size_bounds_on_a_real_server(db: str, tmp_path: Path) -> None:
    with ServerProcess(
        db,
        tmp_path,
        "--no-analysis",
        "--max-record-bytes",
        "4096",
        "--max-record-extra-bytes",
        "512",
    ) as server:
        big = self_seeded("big", notes="n" * 5000)
        reason = refused(call(server.url, "POST", "/api/records", raw=big), 413)
        assert "4096" in reason
        unknown = self_seeded("unknown", extra_key=["x" * 50] * 12)
        reason = refused(call(server.url, "POST", "/api/records", raw=unknown), 413)
        assert "unknown keys" in reason
        accepted = self_seeded("fine", notes="n" * 2000, tag="small")
        status, _h, body = call(server.url, "POST", "/api/records", raw=accepted)
        assert status == 201, body
        listed = call(server.url, "GET", "/api/records")[2]["records"]
        assert [r["id"] for r in listed] == [body["id"]]  # the refused ones stored nothing


@pytest.mark.slow
def test_default_record_limit_is_one_mebibyte(tmp_path: Path) -> None:
    with ServerProcess(str(tmp_path / "s.sqlite3"), tmp_path, "--no-analysis") as server:
        body = self_seeded("mib", notes="n" * (1024 * 1024))
        assert len(body) > 1024 * 1024
        reason = refused(call(server.url, "POST", "/api/records", raw=body), 413)
        assert "1048576" in reason
        unknown = self_seeded("kib", blob="x" * (64 * 1024))
        assert "65,547 bytes" in refused(call(server.url, "POST", "/api/records", raw=unknown), 413)


@pytest.mark.slow
def test_record_checks_are_bounded_with_503_and_retry_after(tmp_path: Path) -> None:
    """More records at once than the pool takes: the surplus is refused at once, never queued."""
    with ServerProcess(
        str(tmp_path / "s.sqlite3"), tmp_path, "--no-analysis", "--rate-limits", "off"
    ) as server:
        heavy = self_seeded("heavy", values=[0] * 400_000)  # ~800 KB: slow to parse, then 413
        game, token = new_game(server.url)
        opening = start(server.url, game, token)

        def post(_i: int) -> tuple[int, dict[str, str], Any]:
            return call(server.url, "POST", "/api/records", raw=heavy)

        with concurrent.futures.ThreadPoolExecutor(12) as pool:
            answers = list(pool.map(post, range(12)))
            # the players' moves go on meanwhile
            played = play(server.url, game, token, 1, opening["board"])
        statuses = sorted(status for status, _h, _b in answers)
        assert set(statuses) <= {413, 503}, statuses
        assert statuses.count(503) >= 1, statuses
        assert statuses.count(413) >= 1, statuses
        for answer in answers:
            if answer[0] == 503:
                assert "checking as many records" in refused(answer, 503)
                assert int(answer[1]["retry-after"]) >= 1
        assert played["n"] == 1
        status, _h, body = call(server.url, "POST", "/api/records", raw=self_seeded("after"))
        assert status == 201, body
    assert stored_letters(server.db, game) == played["move"]


# ------------------------------------------------------ section 1: lists


def finished_game(url: str, player: str, moves: int) -> int:
    client = Client(url)
    try:
        game = RemoteGame(client, player)
        order = "LDRU"
        i = 0
        while game.state.moves < moves:
            for k in range(4):
                letter = order[(i + k) % 4]
                try:
                    game.play(letter)
                    break
                except MoveRefusedError:
                    continue
            i += 1
        game.finish()
        return game.id
    finally:
        client.close()


def pages(url: str, path: str, key: str, limit: int) -> list[dict[str, Any]]:
    """Every entry of a list, read ``limit`` at a time by following ``next_cursor``."""
    found: list[dict[str, Any]] = []
    cursor = None
    for _ in range(100):
        query = f"{path}?limit={limit}" + ("" if cursor is None else f"&cursor={cursor}")
        status, _h, body = call(url, "GET", query)
        assert status == 200, body
        found.extend(body[key])
        assert len(body[key]) <= limit
        cursor = body["next_cursor"]
        if cursor is None:
            return found
    raise AssertionError("the cursor never ended")


@pytest.mark.slow
def test_lists_page_with_opaque_cursors(db: str, tmp_path: Path) -> None:
    with ServerProcess(db, tmp_path, "--no-analysis") as server:
        for i, player in enumerate(["ann", "bob", "cy", "dee", "eve"]):
            finished_game(server.url, player, 3 + 2 * i)
        for i in range(5):
            assert (
                call(server.url, "POST", "/api/records", raw=self_seeded(f"r{i}", 5 + i))[0] == 201
            )
        whole = call(server.url, "GET", "/api/leaderboard?limit=100")[2]
        assert whole["next_cursor"] is None
        paged = pages(server.url, "/api/leaderboard", "games", 2)
        assert paged == whole["games"]
        assert [g["rank"] for g in paged] == [1, 2, 3, 4, 5]
        records = pages(server.url, "/api/records", "records", 2)
        assert records == call(server.url, "GET", "/api/records?limit=100")[2]["records"]
        assert len(records) == 5
        first = call(server.url, "GET", "/api/leaderboard?limit=2")[2]["next_cursor"]
        other = call(server.url, "GET", "/api/records?limit=2")[2]["next_cursor"]
        for path in (
            f"/api/records?cursor={first}",  # another list's cursor
            f"/api/leaderboard?cursor={other}",
            "/api/leaderboard?cursor=nope!",
            "/api/leaderboard?cursor=" + "A" * 300,
            "/api/leaderboard?cursor=WyJsZWFkZXJib2FyZCIsLTEsMCwwLDBd",  # a negative score
            "/api/records?limit=101",
            "/api/leaderboard?limit=0",
        ):
            assert refused(call(server.url, "GET", path), 400)
        openapi = call(server.url, "GET", "/openapi.json")[2]
        parameters = openapi["paths"]["/api/leaderboard"]["get"]["parameters"]
        assert {p["name"] for p in parameters} == {"limit", "cursor"}
        assert parameters[0]["schema"]["maximum"] == 100


def statements(store: Store) -> list[str]:
    """Every SQL statement run on ``store`` from now on (collected in the returned list)."""
    seen: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        seen.append(statement)

    event.listen(store.engine, "before_cursor_execute", record)
    return seen


def test_lists_and_game_views_read_no_metadata_and_no_log(db: str) -> None:
    """What the list and view endpoints run: never games.extra, never the moves table."""
    store = Store(db)
    try:
        writer = GroupWriter(store, ServerKey.generate())
        created = writer._transaction([(write_jobs.CreateGame("ann"), None)], deferred=False)  # type: ignore[list-item]
        assert isinstance(created[0], dict)
        game = created[0]["id"]
        seen = statements(store)
        with store.reading() as connection:
            fair_store.submitted(connection, 10)
            fair_store.leaderboard(connection, 10)
            fair_store.public_game(connection, game)
        assert seen
        for statement in seen:
            assert "extra" not in statement.split("FROM")[0] or "games.extra" not in statement
            assert "moves." not in statement
            assert "FROM moves" not in statement
    finally:
        store.close()


# ------------------------------------------- section 1: kept states, retries


def test_kept_states_rebuild_every_answer() -> None:
    row = _row(1)
    long_game = Record.from_json((DATA / "long-2000.json").read_bytes())
    state = GameState.new(long_game.seed)
    entry = GameEntry(row, state, "", finished=False)
    answers = [state]
    for letter in long_game.moves[: 3 * CHECKPOINT_EVERY + 5]:
        state = state.play(Direction(letter))[0]
        entry = entry.played(letter, state)
        answers.append(state)
    assert len(entry.checkpoints) == 3
    assert entry.complete
    for n, expected in enumerate(answers):
        assert entry.state_at(n) == expected
    bare = GameEntry(row, state, entry.letters, finished=False)  # built from rows: no states
    assert not bare.complete
    assert bare.with_checkpoints().checkpoints == entry.checkpoints
    assert bare.state_at(100) == answers[100]


def test_the_entry_cache_is_bounded_in_bytes() -> None:
    cache = EntryCache(size=1000, max_bytes=50_000)
    for fair_id in range(1, 30):
        entry = GameEntry(_row(fair_id), GameState.new("x"), "L" * 10_000, finished=False)
        cache.put(entry)
        assert cache.bytes <= 50_000 or len(cache) == 1
    assert len(cache) == 4
    assert cache.get(29) is not None
    assert cache.get(1) is None


def _row(fair_id: int) -> FairRow:
    return FairRow(fair_id, "p", "", "", "", "", "c", fair_id, 0, 0, None, None)


@pytest.mark.slow
def test_retried_moves_and_views_answer_from_kept_state(db: str, tmp_path: Path) -> None:
    with ServerProcess(db, tmp_path, "--no-analysis", "--rate-limits", "off") as server:
        game, token = new_game(server.url)
        board = start(server.url, game, token)["board"]
        sent: list[dict[str, Any]] = []
        for n in range(1, 151):
            answer = play(server.url, game, token, n, board)
            sent.append(answer)
            board = answer["board"]
            if answer["over"]:
                break
        for answer in sent:  # every n again, same move: the same answer, nothing applied twice
            again = call(
                server.url,
                "POST",
                f"/api/games/{game}/moves",
                {"move": answer["move"], "n": answer["n"]},
                token=token,
            )
            assert again[0] == 200
            assert again[2] == answer
        view = call(server.url, "GET", f"/api/games/{game}")[2]
        last = sent[-1]
        assert {k: view[k] for k in ("board", "score", "moves", "max_tile", "won", "over")} == {
            k: last[k] for k in ("board", "score", "moves", "max_tile", "won", "over")
        }
        assert ("server_seed" in view) == last["over"]  # revealed only once the game is over
    assert stored_letters(server.db, game) == "".join(a["move"] for a in sent)


# ------------------------------------------------- section 2: rate limits


@pytest.mark.slow
def test_rate_limits_per_address_and_per_game(db: str, tmp_path: Path) -> None:
    with ServerProcess(
        db,
        tmp_path,
        "--no-analysis",
        "--rate-limit",
        "create-game=3/h:3",
        "--rate-limit",
        "move=4/min:4",
        "--rate-limit",
        "submit-record=2/h:2",
    ) as server:
        url = server.url
        games = [new_game(url, source="127.0.0.1") for _ in range(3)]
        answer = call(url, "POST", "/api/games", {"player": "ann"})
        assert "too many new games from this address" in refused(answer, 429)
        assert 1 <= int(answer[1]["retry-after"]) <= 1200
        other = new_game(url, "bob", source="127.0.0.2")  # another address is not throttled

        (mine, token), (theirs, their_token) = games[0], other
        board, their_board = (
            start(url, mine, token)["board"],
            start(url, theirs, their_token)["board"],
        )
        for n in range(1, 11):  # a stranger without the token costs the game nothing
            wrong = call(
                url, "POST", f"/api/games/{theirs}/moves", {"move": "L", "n": n}, token="x"
            )
            assert refused(wrong, 403)
        letters = ""
        for n in range(1, 5):
            answer_ = play(url, mine, token, n, board)
            board, letters = answer_["board"], letters + answer_["move"]
        over = call(
            url,
            "POST",
            f"/api/games/{mine}/moves",
            {"move": next_letter(board), "n": 5},
            token=token,
        )
        assert "too many moves in this game" in refused(over, 429)
        assert int(over[1]["retry-after"]) >= 1
        their_letters = ""
        for n in range(1, 5):  # the other game, same server, still has its own moves
            answer_ = play(url, theirs, their_token, n, their_board)
            their_board, their_letters = answer_["board"], their_letters + answer_["move"]

        for i in range(2):
            assert call(url, "POST", "/api/records", raw=self_seeded(f"q{i}"))[0] == 201
        huge = self_seeded("huge", notes="n" * (2 * 1024 * 1024))  # charged before it is read
        assert "too many records from this address" in refused(
            call(url, "POST", "/api/records", raw=huge), 429
        )
    assert stored_letters(db, mine) == letters
    assert stored_letters(db, theirs) == their_letters


@pytest.mark.slow
def test_retry_after_is_the_time_to_wait(tmp_path: Path) -> None:
    with ServerProcess(
        str(tmp_path / "s.sqlite3"), tmp_path, "--no-analysis", "--rate-limit", "move=1/s:1"
    ) as server:
        game, token = new_game(server.url)
        board = play(server.url, game, token, 1, start(server.url, game, token)["board"])["board"]
        too_soon = call(
            server.url,
            "POST",
            f"/api/games/{game}/moves",
            {"move": next_letter(board), "n": 2},
            token=token,
        )
        refused(too_soon, 429)
        assert too_soon[1]["retry-after"] == "1"
        time.sleep(1.05)
        assert play(server.url, game, token, 2, board)["n"] == 2


@pytest.mark.slow
def test_the_client_waits_out_a_429_and_loses_no_move(tmp_path: Path) -> None:
    """``play --server`` scripts (the library client) are slowed to the limit, not stopped."""
    with ServerProcess(
        str(tmp_path / "s.sqlite3"), tmp_path, "--no-analysis", "--rate-limit", "move=10/s:3"
    ) as server:
        client = Client(server.url)
        created = client.new_game("script")
        board = client.request(
            "POST", f"/api/games/{created['id']}/start", {"client_seed": "c"}, created["token"]
        )["board"]
        sent = ""
        started = time.monotonic()
        for n in range(1, 31):
            letter = next_letter(board)
            answer = client.request(
                "POST",
                f"/api/games/{created['id']}/moves",
                {"move": letter, "n": n},
                created["token"],
            )
            assert answer["n"] == n
            sent += letter
            board = answer["board"]
        assert client.retried > 0  # it met the limit, waited and sent the move again
        assert time.monotonic() - started >= 2.0  # 27 moves past the burst at 10 a second
    assert stored_letters(server.db, created["id"]) == sent


@pytest.mark.slow
def test_rate_limits_off_for_benchmarks(tmp_path: Path) -> None:
    with ServerProcess(
        str(tmp_path / "s.sqlite3"), tmp_path, "--no-analysis", "--rate-limits", "off"
    ) as server:
        for _ in range(80):
            new_game(server.url)


@pytest.mark.slow
def test_rate_limits_hold_across_two_workers(pg_db: str, tmp_path: Path) -> None:
    with ServerProcess(
        pg_db,
        tmp_path,
        "--no-analysis",
        "--workers",
        "2",
        "--rate-limit",
        "create-game=5/h:5",
        "--rate-limit",
        "move=3/h:3",
    ) as server:
        statuses = []
        for _ in range(8):  # each on a new connection: either process may take it
            statuses.append(call(server.url, "POST", "/api/games", {"player": "w"})[0])
        assert sorted(statuses) == [201] * 5 + [429] * 3, statuses
        game, token = new_game(server.url, source="127.0.0.3")
        board = start(server.url, game, token)["board"]
        for n in range(1, 4):
            board = play(server.url, game, token, n, board)["board"]
        refused(
            call(
                server.url,
                "POST",
                f"/api/games/{game}/moves",
                {"move": next_letter(board), "n": 4},
                token=token,
            ),
            429,
        )
        assert len(server.children()) >= 2  # really two worker processes


def test_a_named_limit_for_other_endpoints(db: str) -> None:
    """The hook for ``POST /api/players``: a charge under ``register-name`` in the writer."""
    store = Store(db)
    limits = RateLimits.from_settings(True, ["register-name=3/h:3"])
    writer = GroupWriter(store, ServerKey.generate(), limits=limits)
    try:
        charge = limits.charge(REGISTER_NAME, "10.0.0.1")
        other = limits.charge(REGISTER_NAME, "10.0.0.2")
        assert charge is not None
        assert other is not None
        jobs = [write_jobs.TakeToken(charge) for _ in range(5)] + [write_jobs.TakeToken(other)]
        results = writer._transaction([(job, None) for job in jobs], deferred=False)  # type: ignore[misc]
        assert [r if isinstance(r, dict) else r.status for r in results] == [
            {},
            {},
            {},
            429,
            429,
            {},
        ]
        assert isinstance(results[3], ApiError)
        assert "name registrations" in results[3].reason
        assert int(results[3].headers["Retry-After"]) == 1200
    finally:
        store.close()


def test_gcra_lets_a_burst_through_then_one_per_interval(db: str) -> None:
    store = Store(db)
    try:
        charge = fair_store.Charge("t:x", 1, 1000, 3)
        with store.transaction() as connection:
            grants = [
                fair_store.take_rate_limits(connection, [charge], 10_000)["t:x"].granted
                for _ in range(4)
            ]
            assert grants == [1, 1, 1, 0]
            late = fair_store.take_rate_limits(connection, [charge], 10_999)["t:x"]
            assert late.granted == 0
            assert late.retry_after_ms(10_999) == 1
            assert fair_store.take_rate_limits(connection, [charge], 11_000)["t:x"].granted == 1
            many = fair_store.Charge("t:y", 5, 1000, 3)  # five at once: the burst's three
            assert fair_store.take_rate_limits(connection, [many], 0)["t:y"].granted == 3
            assert fair_store.sweep_rate_limits(connection, 5_000, 10) == 1  # t:y refilled
    finally:
        store.close()


def test_a_sweep_by_another_process_between_insert_and_update_loses_no_charge(
    pg_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two serve processes on one PostgreSQL: a key's row is swept (a full bucket) by the
    other process while this one charges it, committing between the charge's INSERT (the
    row was there: nothing inserted) and its UPDATE (the row is gone).  The charge inserts
    it again; before, the key had no grant and the move a 500.  Here the row appears (the
    other process charged the key and committed) after this charge's first UPDATE missed
    it, then is swept right after this charge's INSERT."""
    from twenty48_replay.store import quotas

    store, other = Store(pg_db), Store(pg_db)
    charge = fair_store.Charge("move:81", 1, 1000, 3)
    try:
        real_insert = quotas._insert_missing
        swept: list[int] = []

        def insert_then_sweep(connection: Any, keys: list[str]) -> None:
            if not swept:
                with other.transaction() as theirs:  # a full bucket, left by earlier moves
                    real_insert(theirs, keys)
                    quotas._charge_rows(theirs, [charge], 1_000)
            real_insert(connection, keys)
            if not swept:
                with other.transaction() as theirs:
                    swept.append(fair_store.sweep_rate_limits(theirs, 10_000, 10))

        monkeypatch.setattr(quotas, "_insert_missing", insert_then_sweep)
        with store.transaction() as connection:
            grants = fair_store.take_rate_limits(connection, [charge], 10_000)
        assert swept == [1]
        assert grants["move:81"].granted == 1
        assert grants["move:81"].tat_ms == 11_000
    finally:
        store.close()
        other.close()


def test_a_row_swept_before_the_charge_is_inserted_again(
    pg_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The charge's first UPDATE finds no row, since the other process's sweep deleted the
    full bucket and committed just before: the key is inserted and charged in the same call."""
    from twenty48_replay.store import quotas

    store, other = Store(pg_db), Store(pg_db)
    charge = fair_store.Charge("move:82", 1, 1000, 3)
    try:
        with store.transaction() as connection:  # a full bucket, left behind by earlier moves
            fair_store.take_rate_limits(connection, [charge], 1_000)
        real_charge = quotas._charge_rows
        swept: list[int] = []

        def sweep_then_charge(connection: Any, ordered: Any, now_ms: int) -> Any:
            if not swept:
                with other.transaction() as theirs:
                    swept.append(fair_store.sweep_rate_limits(theirs, 10_000, 10))
            return real_charge(connection, ordered, now_ms)

        monkeypatch.setattr(quotas, "_charge_rows", sweep_then_charge)
        with store.transaction() as connection:
            grants = fair_store.take_rate_limits(connection, [charge], 10_000)
        assert swept == [1]
        assert grants["move:82"].granted == 1
        assert grants["move:82"].tat_ms == 11_000
    finally:
        store.close()
        other.close()


@pytest.mark.slow
def test_bad_limit_options_are_usage_errors(tmp_path: Path) -> None:
    db = tmp_path / "never.sqlite3"
    for option in (
        ["--rate-limit", "move=10"],
        ["--rate-limit", "moves=10/s"],
        ["--rate-limit", "move=0/s"],
        ["--rate-limits", "maybe"],
        ["--max-record-bytes", "10"],
        ["--sweep-interval", "0"],
    ):
        result = run_cli("serve", "--db", str(db), "--port", "1", *option)
        assert result.returncode == 2, (option, result.stderr)
        assert "Traceback" not in result.stderr
    assert not db.exists()


# ------------------------------------------------------- section 2: expiry


@pytest.mark.slow
def test_unstarted_games_expire_and_idle_games_are_abandoned(db: str, tmp_path: Path) -> None:
    with ServerProcess(
        db,
        tmp_path,
        "--no-analysis",
        "--rate-limits",
        "off",
        "--unstarted-expiry",
        "1",
        "--abandon-after",
        "2",
        "--sweep-interval",
        "0.2",
    ) as server:
        url = server.url
        unstarted, unstarted_token = new_game(url, "uma")
        idle, idle_token = new_game(url, "ivy")
        board = start(url, idle, idle_token)["board"]
        idle_letters = ""
        for n in range(1, 4):
            answer = play(url, idle, idle_token, n, board)
            board, idle_letters = answer["board"], idle_letters + answer["move"]
        busy, busy_token = new_game(url, "bo")
        busy_board = start(url, busy, busy_token)["board"]
        deadline = time.monotonic() + 4
        n = 0
        while time.monotonic() < deadline:  # a game that is played is never abandoned
            n += 1
            busy_board = play(url, busy, busy_token, n, busy_board)["board"]
            time.sleep(0.4)
        assert refused(call(url, "GET", f"/api/games/{unstarted}"), 404)  # removed by now
        assert refused(
            call(
                url,
                "POST",
                f"/api/games/{unstarted}/start",
                {"client_seed": "x"},
                token=unstarted_token,
            ),
            404,
        )
        view = call(url, "GET", f"/api/games/{idle}")[2]
        assert view["finished"] is True
        assert view["abandoned"] is True
        assert len(view["server_seed"]) == 64
        record = call(url, "GET", f"/api/games/{idle}/record")[2]
        assert record["abandoned"] is True
        assert record["moves"] == idle_letters
        key = TrustedKey.from_well_known(call(url, "GET", "/.well-known/twenty48-key")[2])
        from twenty48_replay.core.replay import verify

        result = verify(Record.from_dict(record), key)
        assert result.valid, result.reasons
        assert result.fair == "fair"
        late = call(
            url,
            "POST",
            f"/api/games/{idle}/moves",
            {"move": next_letter(board), "n": 4},
            token=idle_token,
        )
        assert refused(late, 409)
        busy_view = call(url, "GET", f"/api/games/{busy}")[2]
        assert busy_view["finished"] is False
        status, _h, finished = call(url, "POST", f"/api/games/{busy}/finish", token=busy_token)
        assert status == 200
        assert finished["abandoned"] is False
        board_games = call(url, "GET", "/api/leaderboard")[2]["games"]
        assert [g["id"] for g in board_games] == [busy]  # the abandoned game is never ranked
    assert fetch(db, f"SELECT id FROM fair_games WHERE id = {unstarted}") == []
    assert fetch(db, "SELECT fair_id FROM abandoned_games") == [(idle,)]
    assert stored_letters(db, idle) == idle_letters
    checked = run_cli("check", "--db", db)
    assert checked.returncode == 0, checked.stdout + checked.stderr


@pytest.mark.slow
def test_one_sweeper_per_database_across_workers(pg_db: str, tmp_path: Path) -> None:
    with ServerProcess(
        pg_db,
        tmp_path,
        "--no-analysis",
        "--workers",
        "2",
        "--rate-limits",
        "off",
        "--abandon-after",
        "1",
        "--sweep-interval",
        "0.2",
    ) as server:
        ids = []
        for i in range(6):
            game, token = new_game(server.url, f"p{i}")
            play(server.url, game, token, 1, start(server.url, game, token)["board"])
            ids.append(game)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            views = [call(server.url, "GET", f"/api/games/{g}")[2] for g in ids]
            if all(v.get("abandoned") for v in views):
                break
            time.sleep(0.3)
        assert all(v.get("abandoned") for v in views), views
    holders = fetch(pg_db, "SELECT name, holder FROM server_leases")
    assert len(holders) == 1
    assert holders[0][0] == "expiry-sweeper"
    assert sorted(r[0] for r in fetch(pg_db, "SELECT fair_id FROM abandoned_games")) == ids


# ----------------------------------------------------- schema version 3


def make_v2_database(db: str) -> None:
    """A version 2 database (frozen definition) holding one started fair game."""
    from twenty48_replay.store.dialects import install_triggers
    from twenty48_replay.store.legacy import metadata_v2

    engine = create_engine(db if "://" in db else f"sqlite:///{db}")
    with engine.begin() as connection:
        metadata_v2.create_all(connection)
        install_triggers(connection)
        connection.exec_driver_sql(
            "INSERT INTO twenty48_meta (key, value) VALUES "
            "('application', 'twenty48-replay'), ('schema_version', '2')"
        )
        state = GameState.new("old")
        connection.exec_driver_sql(
            "INSERT INTO games (seed, rules_version, player, created_ms, updated_ms, "
            "move_count, score, max_tile, board, won, over, assisted, extra) VALUES "
            f"('old', 1, 'ann', 0, 1, 0, 0, {state.max_tile}, '{state.board.packed:020x}', "
            "false, false, false, NULL)"
        )
        connection.exec_driver_sql(
            "INSERT INTO log_digests (game_id, digest) VALUES (1, "
            "'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855')"
        )
        connection.exec_driver_sql(
            "INSERT INTO fair_games (player, token_hash, server_seed, commitment, key_id, "
            "client_seed, game_id, created_ms, started_ms) VALUES "
            "('ann', 't', 's', 'c', 'k', 'x', 1, 0, 0)"
        )
    engine.dispose()


def test_a_version_2_database_is_upgraded_to_version_3(db: str) -> None:
    make_v2_database(db)
    with Store(db, read_only=True) as inspector:
        assert inspector.check().healthy
    with Store(db) as store:
        assert store.check().healthy
        with store.reading() as connection:
            row = fair_store.load(connection, 1)
            assert row is not None
            assert row.abandoned is False
            assert fair_store.idle_games(connection, 10, 10)[0].fair_id == 1
    assert fetch(db, "SELECT value FROM twenty48_meta WHERE key = 'schema_version'") == [
        (str(SCHEMA_VERSION),)
    ]
    for table in ("rate_limits", "abandoned_games", "server_leases"):
        assert fetch(db, f"SELECT count(*) FROM {table}") == [(0,)]
    if "://" not in db:
        assert sqlite3.connect(db).execute("PRAGMA integrity_check").fetchall() == [("ok",)]


@pytest.mark.slow
def test_an_expired_game_cannot_be_started_before_it_is_removed(tmp_path: Path) -> None:
    with ServerProcess(
        str(tmp_path / "s.sqlite3"),
        tmp_path,
        "--no-analysis",
        "--unstarted-expiry",
        "1",
        "--sweep-interval",
        "3600",
    ) as server:
        game, token = new_game(server.url)
        time.sleep(1.2)
        late = call(
            server.url, "POST", f"/api/games/{game}/start", {"client_seed": "x"}, token=token
        )
        assert "not started in time and has expired" in refused(late, 404)
        assert "expired" in refused(call(server.url, "GET", f"/api/games/{game}"), 404)
    assert fetch(server.db, f"SELECT id FROM fair_games WHERE id = {game}") == [(game,)]
