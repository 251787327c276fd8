"""`twenty48 verify --scheduler` on a real Dask LocalCluster of worker processes (issue 12).

Every comparison runs the real CLI twice, with the local pool and with the
cluster, and wants the same bytes on stdout, the same stderr (the rates in
the summary aside) and the same exit code.  Small ``--partition-bytes``
make many ranges out of small files, so line numbers in later ranges, lines
cut by range boundaries and several inputs in one run are all exercised.
One cluster serves the whole module; the killed-worker test runs last.
"""

from __future__ import annotations

import io
import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.common import EXAMPLES, ROOT, run_cli

from twenty48_replay import Record
from twenty48_replay.bulk import sources
from twenty48_replay.bulk.sources import RangeLines, read_raw
from twenty48_replay.core.engine import run

distributed = pytest.importorskip("distributed")

RATES = re.compile(r" · [\d,]+ records/s, [\d,]+ moves/s$", re.MULTILINE)
TIMEOUT = 300


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    """Two single-threaded worker processes (each with its nanny, which restarts it if killed)."""
    import logging

    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",
            silence_logs=logging.CRITICAL,
        ) as local,
        distributed.Client(local, set_as_default=False) as client,
    ):
        client.wait_for_workers(2, timeout=TIMEOUT)
        yield local


@pytest.fixture(scope="module")
def scheduler(cluster: Any) -> str:
    return str(cluster.scheduler_address)


def _games() -> list[tuple[str, str]]:
    games = json.loads((ROOT / "schema" / "vectors" / "games.json").read_text())["games"]
    found = [(g["seed"], g["moves"]) for g in games]
    for path in sorted((ROOT / "tests" / "data").glob("*.json")):
        record = Record.from_json(path.read_text())
        found.append((record.seed, record.moves))
    return found


def valid_lines(count: int, seed: int, longest: int = 600) -> list[bytes]:
    """Real records (prefixes of real games, correct scores) of mixed length."""
    chooser = random.Random(seed)
    bases = _games()
    out = []
    for _ in range(count):
        game_seed, moves = chooser.choice(bases)
        moves = moves[: chooser.randint(1, min(longest, len(moves)))]
        out.append(Record(game_seed, moves, run(game_seed, moves).score).to_json().encode())
    return out


def archive(count: int, seed: int) -> bytes:
    """JSON Lines with valid, invalid and unreadable lines, blank lines, CRLF, BOMs."""
    chooser = random.Random(seed)
    lines = valid_lines(count, seed)
    out = [b"\xef\xbb\xbf" + lines[0]]  # a BOM at the start is allowed
    for line in lines[1:]:
        roll = chooser.random()
        if roll < 0.05:
            out.append(line.replace(b'"score": ', b'"score": 1', 1))  # invalid claim
        elif roll < 0.08:
            out.append(b"not json at all")
        elif roll < 0.10:
            out.append(line.replace(b'"score": ', b'"score": 1.5, "x": ', 1))
        elif roll < 0.12:
            out.append(b"")  # blank: skipped, still counted as a line
        elif roll < 0.13:
            out.append(b" \t ")
        elif roll < 0.14:
            out.append(b"\xef\xbb\xbf" + line)  # a BOM later on is an error
        elif roll < 0.16:
            out.append(line + b"\r")  # CRLF
        else:
            out.append(line)
    return b"\n".join(out)  # no LF after the last line


def cli_pair(
    scheduler: str, *args: str, partition: int | None = 700, env: dict[str, str] | None = None
) -> tuple[subprocess.CompletedProcess[str], subprocess.CompletedProcess[str]]:
    local = run_cli("verify", *args, timeout=TIMEOUT)
    extra = ["--scheduler", scheduler]
    if partition is not None:
        extra += ["--partition-bytes", str(partition)]
    remote = run_cli("verify", *extra, *args, timeout=TIMEOUT, env=env)
    return local, remote


def assert_same(
    local: subprocess.CompletedProcess[str], remote: subprocess.CompletedProcess[str]
) -> None:
    assert "Traceback" not in remote.stderr, remote.stderr
    assert remote.stdout == local.stdout
    assert RATES.sub("", remote.stderr) == RATES.sub("", local.stderr)
    assert remote.returncode == local.returncode


# --- the reader of byte ranges (no cluster needed) ----------------------------


def plain(raws: list[sources.RawRecord]) -> list[tuple[Any, ...]]:
    """Comparable records (errors compare by identity)."""
    return [
        (raw.source, raw.index, raw.data, raw.error and raw.error.message, raw.first)
        for raw in raws
    ]


def ranges_read(data: bytes, source: str, size: int) -> list[sources.RawRecord]:
    """All ranges of ``data`` read in order, indexes rebased as the client does."""
    out = []
    before = 0
    for start in range(0, len(data), size):
        lines = RangeLines(io.BytesIO(data), source, start, min(start + size, len(data)))
        for raw in lines:
            index = None if raw.index is None else raw.index + before
            error = raw.error.located(source, index) if raw.error is not None else None
            out.append(sources.RawRecord(raw.source, index, raw.data, error, raw.first))
        before += lines.lines
    return out


@pytest.mark.parametrize("size", [1, 2, 3, 7, 64, 1000, 10**6])
def test_ranges_give_every_line_once_with_its_number(size: int, tmp_path: Path) -> None:
    data = archive(60, seed=size)
    path = tmp_path / "a.jsonl"
    path.write_bytes(data)
    assert plain(ranges_read(data, str(path), size)) == plain(list(read_raw(str(path))))


@pytest.mark.parametrize("size", [1, 5, 9, 30])
def test_ranges_skip_lines_over_the_limit_like_the_reader(
    size: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sources, "MAX_INPUT_BYTES", 8)
    data = b'{"a":1}\n0123456789abcdef\n\n  \n12345678\n123456789\n[1]\n' + b"x" * 40
    path = tmp_path / "long.jsonl"
    path.write_bytes(data)
    expected = list(read_raw(str(path)))
    assert [raw.index for raw in expected] == [1, 2, 5, 6, 7, 8]
    assert plain(ranges_read(data, str(path), size)) == plain(expected)


# --- the CLI on the cluster ------------------------------------------------------


def test_examples_give_the_local_output(scheduler: str) -> None:
    local, remote = cli_pair(scheduler, str(EXAMPLES))
    assert local.returncode == 2  # examples/ holds a malformed record
    assert_same(local, remote)


def test_examples_json_and_quiet(scheduler: str) -> None:
    assert_same(*cli_pair(scheduler, "--json", str(EXAMPLES)))
    fair = ROOT / "schema" / "vectors" / "fair"
    trusted = cli_pair(
        scheduler, "--json", "--trust", str(fair / "key.pem"), str(fair), str(EXAMPLES)
    )
    assert '"signature":"checked"' in trusted[0].stdout  # the key travels to the workers
    assert_same(*trusted)
    assert_same(*cli_pair(scheduler, "--quiet", str(EXAMPLES / "games.jsonl"), partition=None))


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("inputs")
    (folder / "big.jsonl").write_bytes(archive(240, seed=1))
    (folder / "other.jsonl").write_bytes(archive(40, seed=2) + b"\n\n")
    sub = folder / "dir"
    sub.mkdir()
    (sub / "b.jsonl").write_bytes(archive(12, seed=3))
    (sub / "a.json").write_bytes(valid_lines(1, seed=4)[0])
    (sub / "empty.jsonl").write_bytes(b"")
    (sub / "blank.json").write_bytes(b"  \n")
    (sub / "ignored.txt").write_bytes(b"not a record file")
    many = folder / "many"  # more records read whole than one task takes
    many.mkdir()
    singles = sorted(EXAMPLES.glob("*.json"))
    for number in range(120):
        (many / f"{number:03}.json").write_bytes(singles[number % len(singles)].read_bytes())
    (many / "060.jsonl").write_bytes(archive(5, seed=7))
    (folder / "lines.txt").write_bytes(archive(25, seed=5))  # any other name: detected
    (folder / "one.txt").write_bytes(valid_lines(1, seed=6)[0])
    return folder


def test_archives_with_bad_lines_give_the_local_output(scheduler: str, inputs: Path) -> None:
    big = str(inputs / "big.jsonl")
    local, remote = cli_pair(scheduler, "--json", big, partition=1000)
    results = [json.loads(line) for line in local.stdout.splitlines()]
    unreadable = [r for r in results if r["valid"] is None]
    # the line numbers of unreadable lines far into the file (many ranges in) are in the output
    assert max(r["index"] for r in unreadable) > 200
    assert all(r["error"].startswith(f"{big}:{r['index']}: ") for r in unreadable)
    assert_same(local, remote)
    small = str(inputs / "dir" / "b.jsonl")  # ranges smaller than most lines: many are empty
    assert_same(*cli_pair(scheduler, small, partition=64))


def test_every_kind_of_input_gives_the_local_output(scheduler: str, inputs: Path) -> None:
    names = ["big.jsonl", "dir", "lines.txt", "one.txt", "missing.jsonl", "many", "other.jsonl"]
    args = [str(inputs / name) for name in names] + [str(inputs / "big.jsonl")]  # twice
    local, remote = cli_pair(scheduler, *args, partition=3000)
    assert "missing.jsonl: no such file (unreadable)" in local.stderr
    assert_same(local, remote)
    assert_same(*cli_pair(scheduler, "--json", *args, partition=100_000))


def test_a_file_url_is_read_by_the_workers(scheduler: str, inputs: Path) -> None:
    path = inputs / "big.jsonl"
    url = path.as_uri()
    local = run_cli("verify", "--json", str(path), timeout=TIMEOUT)
    remote = run_cli(
        "verify",
        "--scheduler",
        scheduler,
        "--partition-bytes",
        "2000",
        "--json",
        url,
        timeout=TIMEOUT,
    )
    assert remote.returncode == local.returncode == 2
    assert remote.stdout == local.stdout.replace(str(path), url)


def test_relative_paths_mean_the_clients_files(scheduler: str, inputs: Path) -> None:
    """Workers run in another directory (here: the test's); names stay as the user gave them."""
    args = ["verify", "--json", "dir", "./big.jsonl", "../" + inputs.name + "/lines.txt"]
    exe = str(Path(sys.executable).with_name("twenty48"))
    local = subprocess.run(
        [exe, *args], cwd=inputs, capture_output=True, text=True, timeout=TIMEOUT, check=False
    )
    remote = subprocess.run(
        [exe, "verify", "--scheduler", scheduler, "--partition-bytes", "5000", *args[1:]],
        cwd=inputs,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert '"file":"dir/b.jsonl"' in local.stdout
    assert_same(local, remote)


def test_a_scheduler_without_workers_is_one_error() -> None:
    from twenty48_replay.bulk.cluster import ClusterError, connect

    with (
        distributed.LocalCluster(n_workers=0, processes=False, dashboard_address=":0") as empty,
        pytest.raises(ClusterError, match="has no workers"),
    ):
        connect(empty.scheduler_address, timeout=1)


def test_the_scheduler_from_the_environment(scheduler: str) -> None:
    local = run_cli("verify", str(EXAMPLES / "games.jsonl"))
    remote = run_cli("verify", str(EXAMPLES / "games.jsonl"), env={"TWENTY48_SCHEDULER": scheduler})
    assert_same(local, remote)
    # the cluster path really ran: a file only the cluster reads as a URL
    url = (EXAMPLES / "games.jsonl").as_uri()
    by_env = run_cli("verify", url, env={"TWENTY48_SCHEDULER": scheduler})
    assert by_env.returncode == 0, by_env.stderr


def test_inputs_the_workers_cannot_read_give_one_line_and_exit_2(
    scheduler: str, tmp_path: Path
) -> None:
    missing = str(tmp_path / "missing.jsonl")
    local, remote = cli_pair(scheduler, missing)
    assert remote.stderr == f"{missing}: no such file (unreadable)\n"
    assert_same(local, remote)
    assert remote.returncode == 2
    for url in ("nosuchprotocol://host/x.jsonl", (tmp_path / "gone.jsonl").as_uri()):
        done = run_cli("verify", "--scheduler", scheduler, url, timeout=TIMEOUT)
        assert done.returncode == 2
        assert done.stdout == ""
        assert len(done.stderr.splitlines()) == 1, done.stderr
        assert done.stderr.startswith(f"{url}: "), done.stderr
        assert done.stderr.endswith(" (unreadable)\n")


def test_standard_input_is_refused_with_one_line(scheduler: str) -> None:
    done = run_cli("verify", "--scheduler", scheduler, "-", stdin=b"{}")
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith("twenty48: error: standard input (-) cannot be read")
    assert len(done.stderr.splitlines()) == 1


def test_options_that_do_not_go_together(scheduler: str) -> None:
    jobs = run_cli("verify", "--scheduler", scheduler, "--jobs", "2", str(EXAMPLES))
    assert jobs.returncode == 2
    assert "--jobs" in jobs.stderr
    assert len(jobs.stderr.splitlines()) == 1
    alone = run_cli("verify", "--partition-bytes", "1000", str(EXAMPLES))
    assert alone.returncode == 2
    assert "--partition-bytes needs --scheduler" in alone.stderr
    assert alone.stdout == ""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_an_unreachable_scheduler_gives_one_line_and_exit_2() -> None:
    address = f"tcp://127.0.0.1:{_free_port()}"
    done = run_cli("verify", "--scheduler", address, str(EXAMPLES / "valid.json"))
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith(f"twenty48: error: cannot reach the scheduler at {address}: ")
    assert len(done.stderr.splitlines()) == 1
    bad = run_cli("verify", "--scheduler", "tcp://no port here", str(EXAMPLES / "valid.json"))
    assert bad.returncode == 2
    assert bad.stderr.startswith("twenty48: error: "), bad.stderr
    assert len(bad.stderr.splitlines()) == 1


PRELUDE = """
import sys
sys.argv = ["twenty48", *sys.argv[1:]]
"""
#: Makes Dask look uninstalled.
BLOCK_DASK = """
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("dask", "distributed"):
            raise ImportError(f"No module named {name!r}")
        return None

sys.meta_path.insert(0, Block())
"""
RUN = """
from twenty48_cli.app import main
main()
"""
#: Prints which of Dask's and fsspec's modules were imported, at exit.
SHOW_DASK = """
import atexit
atexit.register(lambda: print("imported:", sorted(
    {m.split(".")[0] for m in sys.modules} & {"dask", "distributed", "fsspec"}), file=sys.stderr))
"""


def test_without_the_extra_one_line_and_exit_2() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            PRELUDE + BLOCK_DASK + RUN,
            "verify",
            "--scheduler",
            "tcp://127.0.0.1:1",
            str(EXAMPLES / "valid.json"),
        ],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == (
        "twenty48: error: verifying on a cluster needs Dask: "
        "pip install 'twenty48-replay[cluster]'\n"
    )
    # plain verify never imports Dask or fsspec (start-up time)
    plain = subprocess.run(
        [
            sys.executable,
            "-c",
            PRELUDE + SHOW_DASK + RUN,
            "verify",
            str(EXAMPLES / "valid.json"),
        ],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert plain.returncode == 0, plain.stderr
    assert plain.stdout.startswith(f"{EXAMPLES / 'valid.json'}: valid: ")
    assert plain.stderr == "imported: []\n"


# --- TLS: an authenticated, encrypted cluster (issue 19 section 3) ----------------


def _make_tls_files(folder: Path) -> dict[str, Path]:
    """A CA and one certificate it signed (for scheduler, worker and client), made now.

    Dask's TLS is mutual: every side shows a certificate the CA signed and
    checks the other's, so a process without one cannot join the cluster.
    """
    import datetime as dt

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = dt.datetime.now(dt.UTC)

    def name(text: str) -> x509.Name:
        return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, text)])

    def pem_key(key: ec.EllipticCurvePrivateKey) -> bytes:
        return key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )

    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = (
        x509.CertificateBuilder()
        .subject_name(name("twenty48 test CA"))
        .issuer_name(name("twenty48 test CA"))
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(hours=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder()
        .subject_name(name("twenty48 cluster"))
        .issuer_name(ca.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(hours=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [
                    x509.DNSName("localhost"),
                    x509.IPAddress(__import__("ipaddress").ip_address("127.0.0.1")),
                ]
            ),
            critical=False,
        )
        .sign(ca_key, hashes.SHA256())
    )
    files = {"ca": folder / "ca.pem", "cert": folder / "cluster.pem", "key": folder / "cluster.key"}
    files["ca"].write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    files["cert"].write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    files["key"].write_bytes(pem_key(key))
    files["key"].chmod(0o600)
    return files


def _tls_env(files: dict[str, Path]) -> dict[str, str]:
    """Dask's settings for a client, as the README shows them (environment variables)."""
    return {
        "DASK_DISTRIBUTED__COMM__REQUIRE_ENCRYPTION": "True",
        "DASK_DISTRIBUTED__COMM__TLS__CA_FILE": str(files["ca"]),
        "DASK_DISTRIBUTED__COMM__TLS__CLIENT__CERT": str(files["cert"]),
        "DASK_DISTRIBUTED__COMM__TLS__CLIENT__KEY": str(files["key"]),
    }


def test_verify_on_a_tls_cluster_with_certificates_made_now(tmp_path: Path) -> None:
    """``--scheduler tls://...`` with client certificates: the same output as the local pool;
    without a certificate the CA signed, one line and exit 2, and nothing is verified."""
    import logging

    files = _make_tls_files(tmp_path)
    security = distributed.Security(
        tls_ca_file=str(files["ca"]),
        tls_scheduler_cert=str(files["cert"]),
        tls_scheduler_key=str(files["key"]),
        tls_worker_cert=str(files["cert"]),
        tls_worker_key=str(files["key"]),
        tls_client_cert=str(files["cert"]),
        tls_client_key=str(files["key"]),
        require_encryption=True,
    )
    with distributed.LocalCluster(
        n_workers=1,
        threads_per_worker=1,
        processes=False,
        protocol="tls://",
        host="127.0.0.1",
        security=security,
        dashboard_address=":0",
        silence_logs=logging.CRITICAL,
    ) as tls_cluster:
        address = str(tls_cluster.scheduler_address)
        assert address.startswith("tls://127.0.0.1:")
        local, remote = cli_pair(address, str(EXAMPLES / "games.jsonl"), env=_tls_env(files))
        assert_same(local, remote)
        assert remote.stdout.count("\n") >= 3

        # No TLS settings: one line naming the settings, before any connection.
        bare = run_cli(
            "verify", "--scheduler", address, str(EXAMPLES / "valid.json"), timeout=TIMEOUT
        )
        assert bare.returncode == 2, bare.stderr
        assert bare.stdout == ""
        assert bare.stderr.splitlines() == [
            f"twenty48: error: the scheduler at {address} uses TLS, and Dask's TLS settings for "
            "a client are missing: DASK_DISTRIBUTED__COMM__TLS__CA_FILE, "
            "DASK_DISTRIBUTED__COMM__TLS__CLIENT__CERT, DASK_DISTRIBUTED__COMM__TLS__CLIENT__KEY "
            "(or distributed.comm.tls in Dask's configuration)"
        ]
        # A client certificate another CA signed: the scheduler refuses the handshake.
        (tmp_path / "stranger").mkdir()
        stranger = {**_make_tls_files(tmp_path / "stranger"), "ca": files["ca"]}
        # A plain tcp:// address to the TLS scheduler does not get in either.
        tcp = address.replace("tls://", "tcp://")
        for scheduler, env in ((address, _tls_env(stranger)), (tcp, {})):
            refused = run_cli(
                "verify", "--scheduler", scheduler, str(EXAMPLES / "valid.json"),
                timeout=TIMEOUT, env=env,
            )  # fmt: skip
            assert refused.returncode == 2, refused.stderr
            assert refused.stdout == ""
            lines = refused.stderr.splitlines()
            assert len(lines) == 1, refused.stderr
            assert lines[0].startswith(
                f"twenty48: error: cannot reach the scheduler at {scheduler}"
            )
            # (The refused client used to wait 60 s at exit, then print a traceback.)


# --- faults: last, it kills one of the module cluster's workers -------------------


def test_a_killed_worker_reruns_its_ranges_and_each_record_is_reported_once(
    cluster: Any, scheduler: str, tmp_path: Path
) -> None:
    path = tmp_path / "many.jsonl"
    lines = valid_lines(1500, seed=12, longest=1500)
    lines[1000] = b"broken line"
    path.write_bytes(b"\n".join(lines) + b"\n")
    local = run_cli("verify", "--json", str(path), timeout=TIMEOUT)
    assert local.returncode == 2
    command = [
        str(Path(sys.executable).with_name("twenty48")),
        "verify",
        "--json",
        "--scheduler",
        scheduler,
        "--partition-bytes",
        "20000",
        str(path),
    ]
    with distributed.Client(scheduler, set_as_default=False) as client:
        pids = client.run(os.getpid)
        errors = (tmp_path / "stderr").open("w+")
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=errors, text=True)
        assert process.stdout is not None
        first = process.stdout.readline()  # results are flowing: the run is under way
        victim = None
        deadline = time.monotonic() + TIMEOUT
        while victim is None and time.monotonic() < deadline:
            busy = [worker for worker, keys in client.processing().items() if keys]
            time.sleep(0.02)
            victim = busy[0] if busy else None
        assert victim is not None, "no worker was running a task"
        assert process.poll() is None, "the run ended before a worker could be killed"
        os.kill(pids[victim], signal.SIGKILL)
        rest = process.stdout.read()
        process.wait(timeout=TIMEOUT)
        errors.seek(0)
        err = errors.read()
        client.wait_for_workers(2, timeout=TIMEOUT)  # the nanny restarted it
    assert first + rest == local.stdout  # every record once, in order
    assert RATES.sub("", err) == RATES.sub("", local.stderr)
    assert process.returncode == local.returncode
