"""``twenty48 serve``: a score server for provably fair games.

This module is the server's face: the command line (and anyone embedding
the server) uses these names, never the rooms inside.

* Settings: :class:`ServerConfig`, :func:`key_path`, and the option readers
  (:func:`parse_limit`, :func:`parse_forwarded_allow_ips`,
  :func:`host_name`, :func:`normalise_origin`, :func:`default_allowed_hosts`).
* Starting: :func:`prepare` (settles the key plan and the database),
  :func:`check_listen`, :func:`fit_connections`, :func:`serve`.
* The key plan: :func:`key_history`, :func:`revoke`, :func:`key_files_holding`.
* Moderation: :func:`suspects`, :func:`signal_fields`.

Inside, floor by floor: ``run`` (uvicorn), ``http/`` (the Starlette
application, the moves fast path, pages), ``parts`` (the running server's
parts), ``writes/`` (group commit and the threads around it) and ``bots``
(bot signals, off the request path), ``guard/`` (connection bounds, request
refusals, rate limits), and at the bottom ``config``, ``key_rules`` and
``api_errors``.
"""

from twenty48_replay.server.bots import signal_fields, suspects
from twenty48_replay.server.config import ServerConfig, key_path
from twenty48_replay.server.guard.quotas import RateLimitSpecError, parse_limit
from twenty48_replay.server.guard.request_guard import (
    ANY_HOST,
    default_allowed_hosts,
    host_name,
    normalise_origin,
)
from twenty48_replay.server.guard.transport import (
    ForwardedAllowError,
    TransportLimits,
    parse_forwarded_allow_ips,
)
from twenty48_replay.server.key_rules import (
    KeyRuleError,
    key_files_holding,
    key_history,
    revoke,
)
from twenty48_replay.server.run import ListenError, check_listen, fit_connections, prepare, serve

__all__ = [
    "ANY_HOST",
    "ForwardedAllowError",
    "KeyRuleError",
    "ListenError",
    "RateLimitSpecError",
    "ServerConfig",
    "TransportLimits",
    "check_listen",
    "default_allowed_hosts",
    "fit_connections",
    "host_name",
    "key_files_holding",
    "key_history",
    "key_path",
    "normalise_origin",
    "parse_forwarded_allow_ips",
    "parse_limit",
    "prepare",
    "revoke",
    "serve",
    "signal_fields",
    "suspects",
]
