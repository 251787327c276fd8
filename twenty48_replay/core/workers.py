"""Worker processes for parallel work: how many, and quiet ones that die with their parent.

Shared by bulk verification, the solver's analysis and the server's
off-loop checks, so each of them starts workers the same way.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading
import time
from typing import Any, Final


def default_jobs() -> int:
    """All cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1


#: How often a worker looks whether its parent is still there (seconds).
PARENT_POLL_SECONDS: Final = 1.0


def quiet_worker(parent_pid: int | None = None) -> None:
    """Pool worker set-up: leave Ctrl-C and error reports to the main process.

    A task's exception travels back to the main process, which reports it.
    What a worker would print itself is only multiprocessing's noise once the
    main process is gone (interrupted or killed): a traceback per worker
    about a broken pipe, which must not reach the user's terminal.  Ctrl-C
    in a terminal signals the whole process group, workers included; the
    main process decides what it means.

    With ``parent_pid`` the worker also exits when that process is gone: an
    idle worker waits on a queue whose writing end it holds itself, so it
    would never see the end of its input after a ``kill -9`` of the parent.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sys.stderr = open(os.devnull, "w")  # noqa: SIM115 - lives as long as the worker
    if parent_pid is not None:
        threading.Thread(
            target=_exit_with_parent, args=(parent_pid,), name="exit-with-parent", daemon=True
        ).start()


def _exit_with_parent(parent_pid: int) -> None:
    """Poll the parent; once it is gone (this process was re-parented), exit at once."""
    while os.getppid() == parent_pid:
        time.sleep(PARENT_POLL_SECONDS)
    os._exit(1)


def worker_pool(jobs: int) -> Any:
    """A process pool of quiet workers (fork where the platform has it: fast to start)."""
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    return context.Pool(jobs, initializer=quiet_worker, initargs=(os.getpid(),))
