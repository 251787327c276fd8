"""``twenty48 serve``: a score server for provably fair games (issue 10).

Modules: :mod:`.config` (settings), :mod:`.api_errors` (4xx answers),
:mod:`.tokens` (bearer tokens), :mod:`.live_games` (a game's live state),
:mod:`.answers` (the JSON answers built from it), :mod:`.batch_view` (the
games as one write batch sees them), :mod:`.write_jobs` (what the writer
does for each request), :mod:`.writer`
(group commit: one thread writes the jobs of all games in shared
transactions), :mod:`.bots` (engine-match rate and move timing, off the
request path), :mod:`.openapi`, :mod:`.server` (the running server's parts),
:mod:`.pages` (the web pages), :mod:`.app` (the Starlette application),
:mod:`.transport` (the connection bounds and trusted proxies),
:mod:`.guarded_http` (uvicorn's HTTP protocol within those bounds)
and :mod:`.run` (uvicorn).
"""
