"""What a refused body costs nginx: the shipped site against nginx's default lingering.

The shipped site (``deploy/nginx/twenty48.conf``) answers a body over its limit
with 413 and does not read the rest (``lingering_time 0s`` in the 413 answer);
nginx's default reads and decrypts it to its end, up to 30 s per connection.
For each of the two, ``--posts`` records of ``--mib`` MiB are posted to
``/api/records`` one after another over TLS (the client reads while it sends,
as RFC 9112 asks), and this prints nginx's CPU per post (its processes'
``/proc`` times) and the answers the client saw.  No server is needed: nginx
refuses before it would pass anything on.  Asserts nothing.

    python tests/bench/bench_refused_body.py [--posts 30] [--mib 16]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import ssl
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_server import run_and_wait
from support import nginx_harness
from support.nginx_harness import NginxProcess

UNREAD = "        lingering_time 0s;\n"


async def post(port: int, context: ssl.SSLContext, size: int) -> str:
    """One post of ``size`` bytes; the status of the answer, or why there was none."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, ssl=context)
    writer.write(
        f"POST /api/records HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {size}\r\n"
        "Connection: close\r\n\r\n".encode()
    )
    writer.write(b" " * size)  # the transport sends it while the answer is read
    try:
        line = await asyncio.wait_for(reader.readline(), 30)
        status = line.split()[1].decode() if line else "closed"
    except (OSError, TimeoutError) as exc:
        status = type(exc).__name__
    writer.close()
    return status


async def measure(site: Path, posts: int, size: int) -> tuple[float, Counter[str]]:
    """nginx's CPU seconds per post with ``site``, and the answers."""
    nginx_harness.SITE = site
    with NginxProcess(9) as proxy:  # port 9: nothing is passed on
        assert proxy.process is not None
        context = proxy.client_context()
        before = run_and_wait(proxy.process.pid)[0]
        answers = Counter([await post(proxy.https_port, context, size) for _ in range(posts)])
        await asyncio.sleep(1)  # what nginx still reads after the last answer
        return (run_and_wait(proxy.process.pid)[0] - before) / posts, answers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--posts", type=int, default=30)
    parser.add_argument("--mib", type=int, default=16)
    args = parser.parse_args()
    shipped = nginx_harness.SITE
    text = shipped.read_text(encoding="utf-8")
    assert text.count(UNREAD) == 1, f"{shipped}: expected {UNREAD.strip()!r} once"
    print(f"{time.strftime('%Y-%m-%d %H:%M')} · load average {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        default = Path(tmp) / "lingering-default.conf"
        default.write_text(text.replace(UNREAD, ""), encoding="utf-8")
        for name, site in (("shipped site", shipped), ("nginx's default lingering", default)):
            cpu, answers = asyncio.run(measure(site, args.posts, args.mib * 1024 * 1024))
            print(
                f"{name}: {args.posts} posts of {args.mib} MiB: nginx CPU {cpu * 1000:.1f} ms "
                f"a post; answers {dict(answers)}",
                flush=True,
            )
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
