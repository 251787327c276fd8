"""The fair game every fair-client test plays: client seed, player, moves, expected answers."""

from __future__ import annotations

from typing import Final

CLIENT_SEED: Final = "hostile-test"


PLAYER: Final = "ann"


#: Moves played against each server (each changes the board shown); lies strike at move 3.
MOVES: Final = 8


#: What each lie must end in: the exit code and words of the one line ({third}: move 3).
EXPECTED: Final[dict[str, tuple[int, str]]] = {
    "false-over": (
        1,
        "answer to move 3 ({third}) breaks the rules: "
        "it says the game is over, but the board can still move",
    ),
    "false-won": (
        1,
        "answer to move 3 ({third}) breaks the rules: "
        "it says the game is won, but no tile is 2048 or more",
    ),
    "wrong-score": (1, "answer to move 3 ({third}) breaks the rules: its score is "),
    "wrong-n": (
        1,
        "answer to move 3 ({third}) breaks the rules: it numbers the move 4, not 3 as sent",
    ),
    "spawn-occupied": (1, "answer to move 3 ({third}) breaks the rules: its board puts 2 on row "),
    "two-spawns": (1, "answer to move 3 ({third}) breaks the rules: its board has 2 new tiles"),
    "spawn-8": (1, "answer to move 3 ({third}) breaks the rules: its new tile at row "),
    "refuse-valid": (1, "answer to move 3 ({third}) breaks the rules: it refused the move"),
    "bad-reveal": (
        1,
        "answer to finishing the game breaks the rules: the SHA-256 of its server seed",
    ),
    "other-seed": (
        1,
        "signed record breaks the rules: its opening board is not the opening board shown",
    ),
    "record-player": (
        1,
        'signed record breaks the rules: its player is "mallory", not "ann" who played',
    ),
    "record-moves": (1, "signed record breaks the rules: it holds 9 moves, but 8 were played"),
    "record-score": (1, "signed record breaks the rules: its score is "),
    "record-boards": (
        1,
        "signed record breaks the rules: its opening board is not the opening board shown",
    ),
    "commitment-escape": (2, "answer to the new game is unusable: field 'commitment' is "),
    "commitment-upper": (2, "answer to the new game is unusable: field 'commitment' is "),
    "commitment-short": (2, "answer to the new game is unusable: field 'commitment' is "),
    "not-4x4": (2, "opening board is unusable: field 'board' is [[0,"),
    "deep-nesting": (
        2,
        "answer to POST /api/games/1/moves is unusable: "
        "not JSON this reader accepts: nested too deeply",
    ),
    "slow": (2, "no whole answer from "),
}
