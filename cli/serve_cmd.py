"""``twenty48 serve``: the score server for provably fair games (see twenty48_replay.server)."""

from __future__ import annotations

from typing import Annotated

import typer

from twenty48_replay.core.i18n import N_, _
from twenty48_replay.core.text import printable

from .common import DbOption
from .limits import (
    MAX_CONNECTIONS,
    MAX_EXPIRY_SECONDS,
    MAX_HEADER_BYTES,
    MAX_LISTED,
    MAX_RECORD_BYTES,
    MAX_SWEEP_SECONDS,
    MAX_TIMEOUT,
    MIN_HEADER_BYTES,
)
from .output import warn


def _listed(values: list[str] | None, option: str) -> list[str]:
    values = values or []
    if len(values) > MAX_LISTED:
        raise typer.BadParameter(
            _("{option} is given {count} times; at most {limit}").format(
                option=option, count=len(values), limit=MAX_LISTED
            )
        )
    return values


def _hosts(values: list[str] | None) -> list[str]:
    """``--allowed-host`` checked now: a host name or address (a port is ignored), or ``*``."""
    from twenty48_replay.server import ANY_HOST, host_name

    for value in _listed(values, "--allowed-host"):
        if value != ANY_HOST and host_name(value) is None:
            raise typer.BadParameter(
                _("--allowed-host {value} is not a host name or address").format(
                    value=printable(repr(value))
                )
            )
    return values or []


def _origins(values: list[str] | None) -> list[str]:
    """``--allowed-origin`` checked now: ``http(s)://host[:port]``, nothing more."""
    from twenty48_replay.server import normalise_origin

    for value in _listed(values, "--allowed-origin"):
        if normalise_origin(value) is None:
            raise typer.BadParameter(
                _(
                    "--allowed-origin {value} is not an origin such as https://example.org "
                    "(a scheme, a host and perhaps a port; no path)"
                ).format(value=printable(repr(value)))
            )
    return values or []


def _networks(values: list[str] | None) -> list[str]:
    """``--metrics-allow`` checked now: addresses or networks."""
    import ipaddress

    for value in _listed(values, "--metrics-allow"):
        try:
            ipaddress.ip_network(value.strip(), strict=False)
        except ValueError:
            raise typer.BadParameter(
                _("--metrics-allow {value} is not an address or network").format(
                    value=printable(repr(value))
                )
            ) from None
    return values or []


def _forwarded(text: str | None) -> str | None:
    """``--forwarded-allow-ips`` checked now: a typo must never trust the wrong proxy."""
    if text is None:
        return None
    from twenty48_replay.server import (
        ForwardedAllowError,
        parse_forwarded_allow_ips,
    )

    try:
        parse_forwarded_allow_ips(text)
    except ForwardedAllowError as exc:
        raise typer.BadParameter(exc.translated()) from None
    return text


def _on_off(text: str) -> str:
    """``--rate-limits``: on or off."""
    if text not in ("on", "off"):
        raise typer.BadParameter(_("expected on or off, not {value!r}").format(value=text))
    return text


def _rate_limits(texts: list[str] | None) -> list[str]:
    """``--rate-limit`` values, each checked now (one line and exit 2 for a typo)."""
    from twenty48_replay.server import RateLimitSpecError, parse_limit

    for text in texts or []:
        try:
            parse_limit(text)
        except RateLimitSpecError as exc:
            raise typer.BadParameter(exc.translated()) from None
    return list(texts or [])


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
    rotate_key: Annotated[
        bool,
        typer.Option(
            "--rotate-key",
            help=N_(
                "Sign with the key file's key from now on although the database signed with "
                "another (made if the file is missing); the old key stays published as retired."
            ),
        ),
    ] = False,
    allowed_host: Annotated[
        list[str] | None,
        typer.Option(
            "--allowed-host",
            callback=_hosts,
            metavar="NAME",
            help=N_(
                "A host name this server answers for (repeatable; * for any); other Host "
                "headers get 400 (default: localhost and the --host address)."
            ),
            show_default=False,
        ),
    ] = None,
    allowed_origin: Annotated[
        list[str] | None,
        typer.Option(
            "--allowed-origin",
            callback=_origins,
            metavar="URL",
            help=N_(
                "Another web site whose pages may use this server's API "
                "(https://example.org; repeatable); other sites get 403."
            ),
            show_default=False,
        ),
    ] = None,
    metrics_allow: Annotated[
        list[str] | None,
        typer.Option(
            "--metrics-allow",
            callback=_networks,
            metavar="NETWORK",
            help=N_(
                "Client addresses or networks that may read /metrics (repeatable; "
                "default: loopback only)."
            ),
            show_default=False,
        ),
    ] = None,
    registered_only: Annotated[
        bool,
        typer.Option(
            "--registered-only",
            help=N_("Rank only games played under a registered name (POST /api/players)."),
        ),
    ] = False,
    max_record_bytes: Annotated[
        int,
        typer.Option(
            "--max-record-bytes",
            min=1024,
            max=MAX_RECORD_BYTES,
            help=N_("Largest record body POST /api/records takes; more is answered 413."),
        ),
    ] = 1024 * 1024,
    max_record_extra_bytes: Annotated[
        int,
        typer.Option(
            "--max-record-extra-bytes",
            min=0,
            max=MAX_RECORD_BYTES,
            help=N_(
                "Most canonical JSON a submitted record's unknown keys may hold; "
                "more is answered 413."
            ),
        ),
    ] = 64 * 1024,
    rate_limits: Annotated[
        str,
        typer.Option(
            "--rate-limits",
            callback=_on_off,
            metavar="on|off",
            help=N_("Rate limits (429 with Retry-After); off for benchmarks."),
        ),
    ] = "on",
    rate_limit: Annotated[
        list[str] | None,
        typer.Option(
            "--rate-limit",
            callback=_rate_limits,
            metavar="NAME=COUNT/UNIT[:BURST]",
            help=N_(
                "Change one rate limit (repeatable): create-game, submit-record and "
                "register-name count per client address, move per game; UNIT s, min, h or d; "
                "BURST (default COUNT) at once. Defaults: create-game=600/h:60, "
                "move=15/s:45, submit-record=60/h:10, register-name=20/h:5."
            ),
            show_default=False,
        ),
    ] = None,
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
    unstarted_expiry: Annotated[
        float,
        typer.Option(
            "--unstarted-expiry",
            min=1,
            max=MAX_EXPIRY_SECONDS,
            metavar="SECONDS",
            help=N_("A game not started this long after it was made is removed."),
        ),
    ] = 600.0,
    abandon_after: Annotated[
        float,
        typer.Option(
            "--abandon-after",
            min=1,
            max=MAX_EXPIRY_SECONDS,
            metavar="SECONDS",
            help=N_(
                "A started game with no move for this long is finished as abandoned "
                "(signed, never ranked)."
            ),
        ),
    ] = 86_400.0,
    sweep_interval: Annotated[
        float,
        typer.Option(
            "--sweep-interval",
            min=0.1,
            max=MAX_SWEEP_SECONDS,
            metavar="SECONDS",
            help=N_("Seconds between two passes of the expiry sweeper."),
        ),
    ] = 30.0,
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
    from twenty48_replay.server import (
        ANY_HOST,
        ServerConfig,
        TransportLimits,
        check_listen,
        default_allowed_hosts,
        fit_connections,
        key_path,
        parse_forwarded_allow_ips,
        prepare,
        serve,
    )

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
        allowed_hosts=allowed_host or default_allowed_hosts(host),
        allowed_origins=allowed_origin or (),
        metrics_allow=metrics_allow or (),
        registered_only=registered_only,
        max_record_bytes=max_record_bytes,
        max_record_extra_bytes=max_record_extra_bytes,
        rate_limits=rate_limits == "on",
        rate_limit_specs=rate_limit or (),
        unstarted_expiry_s=unstarted_expiry,
        abandon_after_s=abandon_after,
        sweep_interval_s=sweep_interval,
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
    name, server_key, notes = prepare(config, rotate_key=rotate_key)
    for note in notes:
        warn(_("twenty48 serve: {note}").format(note=note))
    limits = fit_connections(wanted)
    if ANY_HOST in config.allowed_hosts and not allowed_host:
        warn(
            _(
                "twenty48 serve: listening on every address, so any Host header is accepted; "
                "name this server's host names with --allowed-host"
            )
        )
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
