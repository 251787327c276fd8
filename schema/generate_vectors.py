"""Generate the test vectors in schema/vectors/ (checked in; the tests replay them).

Run from the project root:  python schema/generate_vectors.py

The vectors are produced with the library's step-by-step path
(``GameState.play``), and the test suite checks them against both the fast
engine and an independent list-based implementation, so a change to any of
the three that alters a single spawn is caught.  Regenerating must give
byte-identical files unless the contract itself changes (it must not: a new
contract gets a new version number).
"""

from __future__ import annotations

import hmac
import json
import sys
from pathlib import Path
from typing import Any

from twenty48_replay import Board, Direction, GameState
from twenty48_replay.core.game import opening, place_spawn, rng_for

VECTORS = Path(__file__).resolve().parent / "vectors"
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

GAME_SEEDS = [
    "alpha",
    "42",
    "Grüße, 世界 🎲",
    "0123456789abcdef0123456789abcdef",
    "x" * 128,
    "é" * 100 + "日本語のシード" + "🎲" * 21,
]
PREFERENCE = (Direction.DOWN, Direction.LEFT, Direction.RIGHT, Direction.UP)


def _value(board: Board) -> float:
    """Empty cells, plus a bonus for the largest tile sitting in the bottom-left corner."""
    bonus = 1.0 if board[12] == board.max_tile else 0.0
    return len(board.empty_cells()) + bonus


def _best_reply(board: Board) -> float:
    values = [_value(s.board) for d in PREFERENCE if (s := board.slide(d)).changed]
    return max(values, default=-10.0)


def lookahead_moves(seed: str, limit: int) -> str:
    """A deterministic two-ply strategy, so the vector games run a few hundred moves.

    For each move it averages, over every cell a 2 could spawn in, the best
    next move's value (empty cells, largest tile in the corner); ties go to
    down, left, right, up in that order.  Simple enough to re-implement.
    """
    state = GameState.new(seed)
    letters: list[str] = []
    while len(letters) < limit:
        best = None
        for rank, direction in enumerate(PREFERENCE):
            slid = state.board.slide(direction)
            if not slid.changed:
                continue
            empties = slid.board.empty_cells()
            expected = sum(_best_reply(slid.board.with_tile(c, 2)) for c in empties) / len(empties)
            key = (expected, -rank)
            if best is None or key > best[0]:
                best = (key, direction)
        if best is None:
            break
        state, _gained, _spawn = state.play(best[1])
        letters.append(best[1].letter)
    return "".join(letters)


def game_vector(seed: str, moves: str) -> dict[str, Any]:
    board, first, second = opening(seed)
    state = GameState(seed, board)
    steps: list[dict[str, Any]] = [
        {"step": 0, "move": None, "board": board.to_rows(), "score": 0, "gained": 0, "spawn": None}
    ]
    for letter in moves:
        state, gained, spawn = state.play(Direction(letter))
        steps.append(
            {
                "step": state.moves,
                "move": letter,
                "board": state.board.to_rows(),
                "score": state.score,
                "gained": gained,
                "spawn": spawn.to_json(),
            }
        )
    return {
        "seed": seed,
        "moves": moves,
        "opening": [{"k": 0, **first.to_json()}, {"k": 1, **second.to_json()}],
        "final": {
            "score": state.score,
            "max_tile": state.max_tile,
            "moves": state.moves,
            "won": state.won,
            "over": state.over,
        },
        "steps": steps,
    }


def spawn_vectors() -> list[dict[str, Any]]:
    out = []
    seeds = ["alpha", "Grüße, 世界 🎲", "x" * 128, "a", "\u0000nul", "🎲"]
    ks = [0, 1, 2, 3, 10, 255, 256, 65535, 1_000_001, 2**32 + 7, 2**63 - 1, 2**64 - 1]
    for i, seed in enumerate(seeds):
        rng = rng_for(seed)
        board = Board.empty()
        for j, k in enumerate(ks):
            # Boards of every fill level: add tiles deterministically from the RNG itself.
            if board.empty_cells() and (i + j) % 3:
                board, _ = place_spawn(board, rng, 10_000 + j)
            if not board.empty_cells():
                board = Board.empty()
            digest = hmac.digest(seed.encode("utf-8"), k.to_bytes(8, "big"), "sha256")
            cell, value = rng.spawn(k, board.empty_cells())
            out.append(
                {
                    "seed": seed,
                    "k": k,
                    "board": board.to_rows(),
                    "hmac": digest.hex(),
                    "cell": cell,
                    "value": value,
                }
            )
    return out


def record(seed: str, moves: str, score: Any, **extra: Any) -> dict[str, Any]:
    return {
        "format": "twenty48-record",
        "version": 1,
        "seed": seed,
        "moves": moves,
        "score": score,
        **extra,
    }


def sample_records(game: dict[str, Any]) -> dict[str, tuple[dict[str, Any] | str, str]]:
    """Sample records with the verifier's expected outcome ("valid", "invalid", "unreadable")."""
    seed, moves, final = game["seed"], game["moves"], game["final"]
    board = game["steps"][-1]["board"]
    full = record(
        seed,
        moves,
        final["score"],
        max_tile=final["max_tile"],
        final_board=board,
        player="vector",
        client="schema/generate_vectors.py",
    )
    at = next(i for i in range(99, len(moves) - 1) if moves[i] != moves[i + 1])
    # Claimed final boards that differ from the replay in cells whose row and column
    # (counted from 1 in the reasons, SPEC 8.8) differ from their 0-based indices.
    one_cell = _changed_cells(board, [(2, 3)])
    two_cells = _changed_cells(board, [(1, 2), (3, 0)])
    swapped = moves[:at] + moves[at + 1] + moves[at] + moves[at + 2 :]
    half = len(moves) // 2
    over_tail = moves + "L"
    return {
        "valid": (full, "valid"),
        "valid-minimal": (record(seed, moves, final["score"]), "valid"),
        "valid-empty-moves": (record("empty game", "", 0), "valid"),
        "tampered-score": (
            record(seed, moves, final["score"] + 2, max_tile=final["max_tile"]),
            "invalid",
        ),
        "tampered-swapped-move": (record(seed, swapped, final["score"]), "invalid"),
        "tampered-truncated": (
            record(seed, moves[:half], final["score"], final_board=board),
            "invalid",
        ),
        "tampered-max-tile": (
            record(seed, moves, final["score"], max_tile=final["max_tile"] * 2),
            "invalid",
        ),
        "invalid-move-after-game-over": (record(seed, over_tail, final["score"]), "invalid"),
        "tampered-final-board-cell": (
            record(seed, moves, final["score"], final_board=one_cell),
            "invalid",
        ),
        "tampered-final-board": (
            record(seed, moves, final["score"], final_board=two_cells),
            "invalid",
        ),
        "malformed-score-float": (record(seed, moves, 12.0), "unreadable"),
        "malformed-score-string": (record(seed, moves, str(final["score"])), "unreadable"),
        "malformed-bad-letter": (record(seed, moves[:10] + "X" + moves[10:], 0), "unreadable"),
        "malformed-seed-too-long": (record("y" * 129, "", 0), "unreadable"),
        "malformed-version": ({**record(seed, moves, 0), "version": 2}, "unreadable"),
        "malformed-duplicate-key": (
            '{"format":"twenty48-record","version":1,"seed":"a","moves":"","score":0,"score":0}',
            "unreadable",
        ),
        "malformed-not-json": ('{"format": "twenty48-record", "version": 1,', "unreadable"),
        "malformed-moves-newline": (record(seed, moves + "\n", final["score"]), "unreadable"),
    }


def _changed_cells(board: list[list[int]], cells: list[tuple[int, int]]) -> list[list[int]]:
    """``board`` with each (row, column) cell, 0-based, holding another value."""
    changed = [row[:] for row in board]
    for row, column in cells:
        changed[row][column] = 2 if board[row][column] != 2 else 4
    return changed


def reason_codes(name: str, data: bytes) -> list[dict[str, Any]]:
    """What ``twenty48 verify --json`` gives as ``reason_codes`` for one sample (SPEC 8.8)."""
    from twenty48_replay.bulk.batch import verify_raw
    from twenty48_replay.bulk.sources import RawRecord

    codes: list[dict[str, Any]] = verify_raw(RawRecord(name, 1, data), None)["reason_codes"]
    return codes


BOM = b"\xef\xbb\xbf"
MAX_VALUES = 1_000_000


def _line(obj: dict[str, Any]) -> bytes:
    return json.dumps(obj, ensure_ascii=False).encode("utf-8")


def _values(count: int) -> bytes:
    """A small valid record holding exactly ``count`` JSON values (an array of zeros in "x")."""
    own = 7  # the record object, its five fields and "x"
    return b'{"format":"twenty48-record","version":1,"seed":"s","moves":"","score":0,"x":[' + (
        b",".join([b"0"] * (count - own)) + b"]}"
    )


def reading_records(game: dict[str, Any]) -> dict[str, tuple[bytes, str]]:
    """One-record ``.json`` files for the reading rules of SPEC 6.3, 6.4, 7 and 8.1."""
    seed, moves, final = game["seed"], game["moves"], game["final"]
    good = _line(record(seed, moves, final["score"]))
    head = b'{"format":"twenty48-record","version":1,"seed":"s","moves":"","score":0,'
    return {
        "reading-empty": (b"", "unreadable"),
        "reading-whitespace-only": (b" \n\t\r\n", "unreadable"),
        "reading-bom": (BOM + good, "valid"),
        "reading-double-bom": (BOM + BOM + good, "unreadable"),
        "reading-bom-after-whitespace": (b" " + BOM + good, "unreadable"),
        "reading-vt-around-record": (b"\x0b" + good, "unreadable"),
        "unknown-huge-integers": (
            head + b'"x":[1' + b"0" * 5000 + b",-" + b"9" * 5000 + b"]}",
            "valid",
        ),
        "unknown-floats-exact": (
            head + b'"x":[0.1,1e300,5e-324,-0.0,1E2,2.5e-308,0e-999,1.7976931348623157e308]}',
            "valid",
        ),
        "unknown-float-too-large": (head + b'"x":1e400}', "unreadable"),
        "unknown-float-too-small": (head + b'"x":1e-400}', "unreadable"),
        "malformed-score-huge-integer": (
            head[:-10] + b'"score":1' + b"0" * 5000 + b"}",
            "unreadable",
        ),
        "values-at-limit": (_values(MAX_VALUES), "valid"),
        "values-over-limit": (_values(MAX_VALUES + 1), "unreadable"),
    }


def reading_inputs(game: dict[str, Any]) -> dict[str, tuple[bytes, str, list[list[Any]]]]:
    """Inputs holding any number of records: (bytes, how to read them, [[index, verdict]...]).

    ``"path"``: give the file's path to the verifier; ``"stdin"``: feed its
    bytes to standard input (``-``).  A ``.txt`` path is read like stdin.
    """
    seed, moves, final = game["seed"], game["moves"], game["final"]
    good = _line(record(seed, moves, final["score"]))
    bad = _line(record(seed, moves, final["score"] + 2))
    pretty = json.dumps(record(seed, moves, final["score"]), indent=2).encode()
    duplicate = b'{\n  "format": "twenty48-record",\n  "version": 1,\n  "seed": "a",\n' + (
        b'  "moves": "",\n  "score": 0,\n  "score": 0\n}\n'
    )
    return {
        "lines-bom-line-1.jsonl": (
            BOM + good + b"\n" + bad + b"\n",
            "path",
            [[1, "valid"], [2, "invalid"]],
        ),
        "lines-bom-line-2.jsonl": (
            good + b"\n" + BOM + good + b"\n",
            "path",
            [[1, "valid"], [2, "unreadable"]],
        ),
        "lines-double-bom.jsonl": (
            BOM + BOM + good + b"\n" + good,
            "path",
            [[1, "unreadable"], [2, "valid"]],
        ),
        "lines-blank-vt-ff.jsonl": (
            good + b"\n \t\r\n\x0b\n\x0c\n\n" + good + b"\r\n",
            "path",
            [[1, "valid"], [3, "unreadable"], [4, "unreadable"], [6, "valid"]],
        ),
        "lines-empty.jsonl": (b"", "path", []),
        "lines-blank-only.jsonl": (BOM + b" \r\n\n\t\n", "path", []),
        "stdin-empty.txt": (b"", "stdin", [[1, "unreadable"]]),
        "stdin-whitespace-only.txt": (b"\n \r\n\t", "stdin", [[1, "unreadable"]]),
        "stdin-pretty.txt": (BOM + b"\n" + pretty + b"\n\n", "stdin", [[1, "valid"]]),
        "stdin-pretty-duplicate-key.txt": (duplicate, "stdin", [[1, "unreadable"]]),
        "stdin-json-lines.txt": (
            b"\n" + good + b"\n" + bad + b"\n",
            "stdin",
            [[2, "valid"], [3, "invalid"]],
        ),
        "stdin-broken-then-good.txt": (
            b"{broken\n" + good + b"\n",
            "stdin",
            [[1, "unreadable"], [2, "valid"]],
        ),
        "stdin-malformed-pretty.txt": (
            b'{\n  "format": "twenty48-record",\n\n  "version": 1\n',
            "stdin",
            [[1, "unreadable"], [2, "unreadable"], [4, "unreadable"]],
        ),
        "stdin-double-bom.txt": (BOM + BOM + good + b"\n", "stdin", [[1, "unreadable"]]),
    }


def dump(path: Path, obj: Any, compact_steps: bool = False) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = obj if isinstance(obj, str) else json.dumps(obj, ensure_ascii=False, indent=1)
    path.write_text(text + "\n", encoding="utf-8")


def main() -> int:
    games = []
    for seed in GAME_SEEDS:
        moves = lookahead_moves(seed, 600)
        games.append(game_vector(seed, moves))
    dump(VECTORS / "games.json", {"version": 1, "games": games})
    dump(VECTORS / "spawns.json", {"version": 1, "spawns": spawn_vectors()})
    samples = sample_records(games[0])
    expected = {}
    codes = {}
    for name, (obj, outcome) in samples.items():
        dump(VECTORS / "records" / f"{name}.json", obj)
        expected[f"{name}.json"] = outcome
        if outcome == "invalid":
            data = (VECTORS / "records" / f"{name}.json").read_bytes()
            codes[f"{name}.json"] = reason_codes(name, data)
    for name, (data, outcome) in reading_records(games[0]).items():
        (VECTORS / "records" / f"{name}.json").write_bytes(data)
        expected[f"{name}.json"] = outcome
    dump(VECTORS / "records" / "expected.json", expected)
    dump(
        VECTORS / "records" / "codes.json",
        {
            "rule": "SPEC 8.8: the reason_codes of each invalid sample, in order, as "
            "twenty48 verify --json gives them; in claim.final_board and "
            "claim.final_board_cell, row and column count from 1 (row 1 is final_board[0])",
            "codes": codes,
        },
    )
    inputs = {}
    for name, (data, read_as, results) in reading_inputs(games[0]).items():
        (VECTORS / "records" / name).write_bytes(data)
        inputs[name] = {"read_as": read_as, "results": results}
    dump(VECTORS / "records" / "inputs.json", {"version": 1, "inputs": inputs})
    for name in (
        "valid",
        "tampered-score",
        "tampered-swapped-move",
        "tampered-truncated",
        "malformed-score-float",
    ):
        obj, _ = samples[name]
        dump(EXAMPLES / f"{name}.json", obj)
    lines = [
        json.dumps(record(g["seed"], g["moves"], g["final"]["score"]), ensure_ascii=False)
        for g in games
    ]
    (EXAMPLES / "games.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    for g in games:
        print(
            f"{g['seed'][:20]!r:24} {g['final']['moves']:4} moves, score {g['final']['score']},"
            f" max {g['final']['max_tile']}",
            file=sys.stderr,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
