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
from twenty48_replay.game import opening, place_spawn, rng_for

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
    for name, (obj, outcome) in samples.items():
        dump(VECTORS / "records" / f"{name}.json", obj)
        expected[f"{name}.json"] = outcome
    dump(VECTORS / "records" / "expected.json", expected)
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
