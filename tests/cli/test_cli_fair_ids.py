"""``list`` and ``show`` name a kept fair game's server and its id there; ``show`` takes it.

The server numbers its games on its own (web game 108 is often local game 8),
so ``list`` shows ``SERVER#ID`` for each signed fair game (the server's URL
where ``play --server`` kept it, else its signing key), ``show SERVER#ID``
opens it, and ``show 108`` with no local game 108 says which local id holds
server game 108.  Real subprocesses against a real ``twenty48 serve``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from support.common import run_cli
from support.server_harness import ServerProcess

from twenty48_replay.fairplay.client import Client, RemoteGame

if TYPE_CHECKING:
    from twenty48_cli.remote_play import signed_line
else:
    from twenty48_cli.remote_play import signed_line

ROOT = Path(__file__).resolve().parents[2]
FAIR_RECORD = ROOT / "schema" / "vectors" / "fair" / "record.json"
VECTOR_KEY_ID = "21fe31dfa154a261"
VECTOR_GAME_ID = 42


def test_list_and_show_name_the_server_and_its_game_id(tmp_path: Path) -> None:
    local = str(tmp_path / "local.sqlite3")
    for seed in ("one", "two", "three"):  # local ids 1-3: the fair game will be local 4
        assert run_cli("play", "--db", local, "--seed", seed, "--moves", "LD").returncode == 0
    with ServerProcess(str(tmp_path / "server.sqlite3"), tmp_path, "--no-analysis") as server:
        for player in ("someone", "else"):  # server ids 1-2: ours will be 3
            done = run_cli(
                "play",
                "--server",
                server.url,
                "--db",
                str(tmp_path / "x.sqlite3"),
                "--player",
                player,
                "--moves",
                "LDRU",
            )
            assert done.returncode in (0, 1), done.stderr  # 1: a letter refused, game kept
        played = run_cli(
            "play",
            "--server",
            server.url + "/",
            "--db",
            local,
            "--player",
            "ivy",
            "--moves",
            "LDRULDRU",
        )
        assert played.returncode in (0, 1), played.stderr  # the seed is random
        assert "kept locally as game 4" in played.stderr, played.stderr
        url = server.url
    assert run_cli("import", "--db", local, str(FAIR_RECORD)).returncode == 0  # local 5

    listed = run_cli("list", "--db", local)
    rows = listed.stdout.splitlines()
    assert "server game" in rows[0]
    by_id = {row.split()[0]: row for row in rows[1:]}
    assert f"{url}#3 " in by_id["4"], by_id["4"]
    assert f"{VECTOR_KEY_ID}#{VECTOR_GAME_ID} " in by_id["5"], by_id["5"]
    assert by_id["4"].endswith("ended (signed)")
    assert " - " in by_id["1"]
    objects = {
        obj["id"]: obj
        for obj in map(json.loads, run_cli("list", "--db", local, "--json").stdout.splitlines())
    }
    assert objects[4]["server_game"] == {
        "id": 3,
        "key_id": objects[4]["server_game"]["key_id"],
        "server": url,
    }
    assert objects[5]["server_game"] == {
        "id": VECTOR_GAME_ID,
        "key_id": VECTOR_KEY_ID,
        "server": None,
    }
    assert objects[1]["server_game"] is None

    by_server = run_cli("show", "--db", local, f"{url}#3")
    assert by_server.returncode == 0, by_server.stderr
    assert by_server.stdout.splitlines()[0].startswith("game 4 ")
    assert f"server game 3 on {url} (twenty48 show {url}#3)" in by_server.stdout
    assert run_cli("show", "--db", local, f"{url}/#3").stdout == by_server.stdout
    imported = run_cli("show", "--db", local, f"{VECTOR_KEY_ID}#{VECTOR_GAME_ID}")
    assert imported.stdout.splitlines()[0].startswith("game 5 "), imported.stdout
    assert f"server game 42, signing key {VECTOR_KEY_ID}" in imported.stdout

    # "show 42": no local game 42, but the server's game 42 is kept here as game 5.
    missing = run_cli("show", "--db", local, "42")
    assert missing.returncode == 1
    assert missing.stderr.strip() == (
        f"twenty48: error: no game 42 here; server game 42 (signing key {VECTOR_KEY_ID}) "
        "is local game 5: twenty48 show 5"
    )
    # "show 3": local game 3 is another game; the server's game 3 is local game 4.
    other = run_cli("show", "--db", local, "3")
    assert other.returncode == 0
    assert other.stdout.splitlines()[0].startswith("game 3 ")
    assert "note: server game 3 is local game 4: twenty48 show 4" in other.stderr

    unknown = run_cli("show", "--db", local, f"{url}#99")
    assert (unknown.returncode, unknown.stderr.strip()) == (
        1,
        f"twenty48: error: no game here holds {url}#99",
    )
    stranger = run_cli("show", "--db", local, "http://127.0.0.1:9#3")
    assert stranger.returncode == 1
    assert "no fair game from http://127.0.0.1:9 is kept here" in stranger.stderr
    for bad in ("foo", "ftp://host#3", "#3", f"{url}#"):
        refused = run_cli("show", "--db", local, bad)
        assert refused.returncode == 2, (bad, refused.stderr)
        assert len(refused.stderr.splitlines()) == 1, refused.stderr
    danish = run_cli("--lang", "da", "show", "--db", local, "42")
    assert "serverens spil 42" in danish.stderr
    assert "lokalt spil 5" in danish.stderr


def test_the_end_of_a_fair_game_in_the_terminal_says_what_was_signed(tmp_path: Path) -> None:
    """What ``play --server`` prints when its screen closes: game, score, moves (a real
    plural), largest tile, where the record is and which local game holds it."""
    with ServerProcess(str(tmp_path / "server.sqlite3"), tmp_path, "--no-analysis") as server:
        client = Client(server.url)
        game = RemoteGame(client, "one")
        letter = next(d.letter for d in game.state.board.valid_directions())
        game.play(letter)
        line = signed_line(game, client.record_url(game.id), 7)
        client.close()
    state = game.state
    assert line == (
        f"signed fair game {game.id}: score {state.score}, 1 move, largest tile "
        f"{state.max_tile}; record at {server.url}/api/games/{game.id}/record, kept locally "
        "as game 7"
    )
