"""``twenty48 serve``: the score server for provably fair games (see twenty48_replay.server)."""

from __future__ import annotations

from typing import Annotated

import typer

from twenty48_replay.i18n import N_, _

from .common import DbOption
from .limits import MAX_CONNECTIONS, MAX_HEADER_BYTES, MAX_TIMEOUT, MIN_HEADER_BYTES
from .output import warn


def _forwarded(text: str | None) -> str | None:
    """``--forwarded-allow-ips`` checked now: a typo must never trust the wrong proxy."""
    if text is None:
        return None
    from twenty48_replay.server.transport import parse_forwarded_allow_ips

    try:
        parse_forwarded_allow_ips(text)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None
    return text


def serve_command(
    host: Annotated[str, typer.Option("--host", help=N_("Address to listen on."))] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=1, max=65535, help=N_("TCP port."))] = 8048,
    workers: Annotated[
        int,
        typer.Option(
            "--workers",
            min=1,
            max=64,
            help=N_("Server processes (several need a PostgreSQL --db to scale)."),
        ),
    ] = 1,
    key: Annotated[
        str | None,
        typer.Option(
            "--key",
            help=N_(
                "Private key file (PEM, mode 0600), made if missing (default: beside the database)."
            ),
            show_default=False,
        ),
    ] = None,
    bot_match_rate: Annotated[
        float,
        typer.Option(
            "--bot-match-rate",
            min=0.0,
            max=1.0,
            help=N_(
                "Mark a game as a suspected bot when this share of its moves equals the "
                "solver's choice at one of the depths searched."
            ),
        ),
    ] = 0.9,
    bot_interval_ms: Annotated[
        int,
        typer.Option(
            "--bot-interval-ms",
            min=0,
            max=3_600_000,
            help=N_("... or when its median time between moves is below this (0: off)."),
        ),
    ] = 100,
    bot_dispersion: Annotated[
        float,
        typer.Option(
            "--bot-dispersion",
            min=0.0,
            max=10.0,
            help=N_(
                "... or when the spread of its times between moves (interquartile range over "
                "median) is below this (0: off)."
            ),
        ),
    ] = 0.1,
    bot_min_moves: Annotated[
        int,
        typer.Option(
            "--bot-min-moves", min=1, max=1_000_000, help=N_("Judge only games this long.")
        ),
    ] = 50,
    analysis_plies: Annotated[
        int,
        typer.Option(
            "--analysis-plies",
            min=1,
            max=6,
            help=N_(
                "Match rates against fixed solver depths 1 to this, besides every strength "
                "the solver offers."
            ),
        ),
    ] = 3,
    analysis_positions: Annotated[
        int,
        typer.Option(
            "--analysis-positions",
            min=1,
            max=10_000,
            help=N_("Positions of a game searched per depth (bounds the work per game)."),
        ),
    ] = 150,
    analysis: Annotated[
        bool,
        typer.Option("--analysis/--no-analysis", help=N_("Compute bot signals of finished games.")),
    ] = True,
    access_log: Annotated[
        bool, typer.Option("--access-log/--no-access-log", help=N_("Log every request."))
    ] = True,
    forwarded_allow_ips: Annotated[
        str | None,
        typer.Option(
            "--forwarded-allow-ips",
            callback=_forwarded,
            help=N_(
                "Proxies (comma-separated addresses or networks, or *) whose X-Forwarded-For "
                "names the client; from anyone else the header is ignored (default: nobody)."
            ),
            show_default=False,
        ),
    ] = None,
    max_connections: Annotated[
        int,
        typer.Option(
            "--max-connections",
            min=1,
            max=MAX_CONNECTIONS,
            help=N_("Open connections per server process; one more is answered 503."),
        ),
    ] = 4096,
    max_connections_per_client: Annotated[
        int,
        typer.Option(
            "--max-connections-per-client",
            min=1,
            max=MAX_CONNECTIONS,
            help=N_(
                "Open connections from one address (a trusted proxy excepted); "
                "one more is answered 429."
            ),
        ),
    ] = 64,
    max_header_bytes: Annotated[
        int,
        typer.Option(
            "--max-header-bytes",
            min=MIN_HEADER_BYTES,
            max=MAX_HEADER_BYTES,
            help=N_("Size of a request line and its headers; more is answered 431."),
        ),
    ] = 16 * 1024,
    header_timeout: Annotated[
        int,
        typer.Option(
            "--header-timeout",
            min=1,
            max=MAX_TIMEOUT,
            help=N_("Seconds for a request line and its headers to arrive; then 408 and closed."),
        ),
    ] = 10,
    idle_timeout: Annotated[
        int,
        typer.Option(
            "--idle-timeout",
            min=1,
            max=MAX_TIMEOUT,
            help=N_("Seconds a kept-alive connection may wait for its next request."),
        ),
    ] = 5,
    body_timeout: Annotated[
        int,
        typer.Option(
            "--body-timeout",
            min=1,
            max=MAX_TIMEOUT,
            help=N_(
                "Seconds for a request body to arrive, and for a client to read "
                "on when it stops taking an answer."
            ),
        ),
    ] = 30,
    db: DbOption = None,
) -> None:
    """Serve fair games, signed records and a leaderboard over HTTP (JSON API and web pages)."""
    from twenty48_replay.server.config import ServerConfig, key_path
    from twenty48_replay.server.run import check_listen, fit_connections, prepare, serve
    from twenty48_replay.server.transport import TransportLimits, parse_forwarded_allow_ips

    config = ServerConfig(
        db=db,
        key=key,
        bot_match_rate=bot_match_rate,
        bot_interval_ms=bot_interval_ms,
        bot_dispersion=bot_dispersion,
        bot_min_moves=bot_min_moves,
        analysis_plies=analysis_plies,
        analysis_positions=analysis_positions,
        analyze=analysis,
    )
    wanted = TransportLimits(
        max_connections=max_connections,
        max_connections_per_client=max_connections_per_client,
        max_header_bytes=max_header_bytes,
        header_timeout=header_timeout,
        idle_timeout=idle_timeout,
        body_timeout=body_timeout,
        forwarded_allow_ips=parse_forwarded_allow_ips(forwarded_allow_ips or ""),
    )
    check_listen(host, port)
    name, server_key = prepare(config)
    limits = fit_connections(wanted)
    if limits.max_connections < wanted.max_connections:
        warn(
            _(
                "twenty48 serve: at most {count} connections per process "
                "(the open-files limit leaves no room for --max-connections {wanted}; "
                "raise it, e.g. LimitNOFILE= in the systemd unit)"
            ).format(count=limits.max_connections, wanted=wanted.max_connections)
        )
    warn(
        _(
            "twenty48 serve: database {name}, key {key} ({path}), "
            "http://{host}:{port}/ (play in a browser there; API description at /openapi.json)"
        ).format(
            name=name,
            key=server_key.key_id,
            path=key_path(config),
            host=f"[{host}]" if ":" in host else host,  # an IPv6 address, as a URL writes it
            port=port,
        )
    )
    serve(config, host=host, port=port, workers=workers, access_log=access_log, limits=limits)
