"""Upper bounds of the numeric options, in one place.

Every number a user can type is bounded, and the bound is shown in the
option's ``--help`` (click prints the range) and enforced as a usage error
(exit 2, one line).  Unbounded options were an easy way to exhaust the
machine: ``export --size 100000`` (a MemoryError), ``verify --jobs
99999999999999999999`` (some 1,500 processes), ``autoplay --games
1000000000`` (a MemoryError).  Each bound is generous for real use.

Nothing heavy is imported: ``twenty48 verify`` loads this.
"""

from __future__ import annotations

import os
from typing import Final

from twenty48_replay.core.record import MAX_MOVES as MAX_MOVES

#: Game ids are 64-bit signed integers in both databases.
MAX_GAME_ID: Final = 2**63 - 1
#: ``--at``: a record holds at most MAX_MOVES moves (SPEC section 7), so step
#: numbers are 0..MAX_MOVES, or -1..-(MAX_MOVES + 1) from the end.
MIN_STEP: Final = -(MAX_MOVES + 1)
MAX_STEP: Final = MAX_MOVES
#: ``replay --line``: a line of a JSON Lines file.
MAX_LINE: Final = 1_000_000_000
#: ``list --limit``.
MAX_LIST: Final = 100_000
#: ``analyze --top``.
MAX_TOP: Final = 1_000
#: ``autoplay --games``: each game takes the solver minutes.
MAX_GAMES: Final = 10_000
#: ``autoplay --until``: the largest tile a 4x4 board can hold.
MAX_UNTIL: Final = 131_072
#: ``export --size`` in pixels.  Frames are drawn at 4x and scaled down, so
#: memory grows with the square: 3 frames at 1024 px peaked at 200 MB (14 s),
#: at 2048 px at 611 MB (35 s), on the project's loaded 2-core machine.
MIN_SIZE: Final = 120
MAX_SIZE: Final = 1_024
#: Frames in one ``export --format gif``: the GIF is built in memory, and a
#: record may hold 1,000,000 moves.  20,001 frames (the 20,000-move test game,
#: 240 px) took 7 s, 120 MB of memory and made a 36 MB file; the whole of a
#: 1,000,000-move record would need gigabytes and minutes.  A GIF of 20,000
#: moves is already far longer than anyone watches.
MAX_GIF_FRAMES: Final = 20_000
#: ``export --frame-ms``: a GIF stores frame times in 16-bit centiseconds (655 s);
#: a minute per move is far slower than anyone watches.
MIN_FRAME_MS: Final = 10
MAX_FRAME_MS: Final = 60_000
#: ``--jobs``: worker processes, at most four per core of this machine.
CORES: Final = os.cpu_count() or 1
MAX_JOBS: Final = 4 * CORES
#: ``verify --partition-bytes``: a range smaller than a line is merely empty
#: (tests use tiny ones to get many); above 1 GiB a worker's results would be
#: a large message and a lost worker a large loss.
MIN_PARTITION_BYTES: Final = 64
MAX_PARTITION_BYTES: Final = 1 << 30
#: ``serve --max-connections`` and ``--max-connections-per-client`` (per process;
#: the open-files limit lowers the first when it leaves no room for it).
MAX_CONNECTIONS: Final = 1_000_000
#: ``serve --max-header-bytes``: below 1 KiB a browser's ordinary request would not fit.
MIN_HEADER_BYTES: Final = 1024
MAX_HEADER_BYTES: Final = 1024 * 1024
#: ``serve --header-timeout``, ``--idle-timeout``, ``--body-timeout``, in seconds.
MAX_TIMEOUT: Final = 3600
#: How many times a repeatable ``serve`` option (``--allowed-host``, ...) may be given.
MAX_LISTED: Final = 100
#: ``serve --max-record-bytes`` / ``--max-record-extra-bytes``: a record is at most 16 MiB anyway.
MAX_RECORD_BYTES: Final = 16 * 1024 * 1024
#: ``serve --unstarted-expiry`` / ``--abandon-after``: a year, in seconds.
MAX_EXPIRY_SECONDS: Final = 365 * 86_400
#: ``serve --sweep-interval``: an hour.
MAX_SWEEP_SECONDS: Final = 3600
