"""A real ``twenty48 serve`` in a subprocess on a free local port, for the server tests."""

from __future__ import annotations

import contextlib
import os
import random
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

TWENTY48 = Path(sys.executable).with_name("twenty48")


# Below Linux's ephemeral range (32768-60999): the kernel hands ports from that range to the
# thousands of client connections the tests open, and to the other test run beside this one, so
# a port it gave out as "free" can be taken again before the server binds it.
_PORTS = range(20000, 32000)
_ADDRESS_IN_USE = "address already in use"


def free_port() -> int:
    """A TCP port nothing listens on, on every IPv4 address (servers may bind 0.0.0.0)."""
    generator = random.SystemRandom()
    for _attempt in range(200):
        port = generator.choice(_PORTS)
        with socket.socket() as sock:
            try:
                sock.bind(("0.0.0.0", port))
            except OSError:
                continue
            return port
    raise AssertionError("no free port found between 20000 and 32000")


class PortTakenError(AssertionError):
    """The port the harness chose was taken before the server could listen on it."""


class ServerProcess:
    """``twenty48 serve`` on 127.0.0.1; its stdout and stderr go to ``log_path``."""

    def __init__(
        self,
        db: str,
        folder: Path,
        *args: str,
        port: int | None = None,
        own_group: bool = False,
        open_files: tuple[int, int] | None = None,
    ) -> None:
        """``own_group``: run in a new process group, so :meth:`ctrl_c` reaches all of it.

        ``open_files``: the (soft, hard) limit on open files the server starts with.
        """
        self.db = db
        self.own_group = own_group
        self.open_files = open_files
        self.folder = folder
        self.args = args
        self.chosen_port = port is None
        self.answered = False  # once it has answered, a restart keeps its port
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = folder / f"server-{self.port}.log"
        self.process: subprocess.Popen[bytes] | None = None
        self.logs: list[Path] = []

    def start(self, timeout: float = 60) -> ServerProcess:
        """Start and wait until it answers; a port lost to a race is chosen again (3 tries)."""
        for _attempt in range(2):
            try:
                return self._start_once(timeout)
            except PortTakenError:
                self.port = free_port()
                self.url = f"http://127.0.0.1:{self.port}"
        return self._start_once(timeout)

    def _start_once(self, timeout: float) -> ServerProcess:
        log = self.log_path.with_suffix(f".{len(self.logs)}.log")
        self.logs.append(log)
        command = [str(TWENTY48), "serve", "--db", self.db, "--port", str(self.port), *self.args]
        with log.open("wb") as out:
            self.process = subprocess.Popen(
                command,
                stdout=out,
                stderr=subprocess.STDOUT,
                env={**os.environ},
                process_group=0 if self.own_group else None,
                preexec_fn=self._limit_files if self.open_files else None,
            )
        deadline = time.monotonic() + timeout
        while True:
            if self.process.poll() is not None:
                said = log.read_text(errors="replace")
                if self.chosen_port and not self.answered and _ADDRESS_IN_USE in said:
                    raise PortTakenError(said)
                raise AssertionError(f"server stopped: {said}")
            try:
                with urllib.request.urlopen(self.url + "/openapi.json", timeout=2) as answer:
                    if answer.status == 200:
                        self.answered = True
                        return self
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise AssertionError(f"server not ready: {log.read_text(errors='replace')}")
            time.sleep(0.1)

    def _limit_files(self) -> None:
        import resource

        assert self.open_files is not None
        resource.setrlimit(resource.RLIMIT_NOFILE, self.open_files)

    def ctrl_c(self, timeout: float = 30) -> int:
        """SIGINT to the server's whole process group, as Ctrl-C in its terminal; its exit code."""
        assert self.process is not None
        assert self.own_group, "ctrl_c needs own_group=True"
        os.killpg(self.process.pid, signal.SIGINT)
        return self.process.wait(timeout=timeout)

    def children(self) -> list[int]:
        """Process ids whose parent is the server (its analysis worker, ...), from /proc."""
        assert self.process is not None
        found = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    stat = (entry / "stat").read_text()
                except OSError:
                    continue
                fields = stat.rpartition(")")[2].split()
                if fields[0] != "Z" and int(fields[1]) == self.process.pid:
                    found.append(int(entry.name))
        return found

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def log_text(self) -> str:
        return "".join(path.read_text(errors="replace") for path in self.logs)

    def __enter__(self) -> ServerProcess:
        return self.start()

    def __exit__(self, *_exc: Any) -> None:
        self.stop()


class DroppingProxy:
    """A TCP proxy to a server that can lose the next answer after the server sent it.

    With :attr:`drop_next` set, the next bytes coming back from the server are
    thrown away and the client's connection is closed: the request was
    handled (the move committed) but the client never hears of it.
    """

    def __init__(self, target_port: int) -> None:
        import threading

        self.target_port = target_port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = int(self.listener.getsockname()[1])
        self.url = f"http://127.0.0.1:{self.port}"
        self.drop_next = threading.Event()
        self.dropped = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        import threading

        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target_port))
            threading.Thread(target=self._pipe, args=(client, upstream, False), daemon=True).start()
            threading.Thread(target=self._pipe, args=(upstream, client, True), daemon=True).start()

    def _pipe(self, source: socket.socket, sink: socket.socket, answers: bool) -> None:
        try:
            while data := source.recv(65536):
                if answers and self.drop_next.is_set():
                    self.drop_next.clear()
                    self.dropped += 1
                    break
                sink.sendall(data)
        except OSError:
            pass
        for sock in (source, sink):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()

    def close(self) -> None:
        self.listener.close()
