"""``twenty48 serve``: a score server for provably fair games (issue 10).

Modules: :mod:`.config` (settings), :mod:`.api_errors` (4xx answers),
:mod:`.entries` (a game's live state and the answers to moves),
:mod:`.jobs` (what the writer does for each request), :mod:`.writer`
(group commit: one thread writes the jobs of all games in shared
transactions), :mod:`.bots` (engine-match rate and move timing, off the
request path), :mod:`.openapi`, :mod:`.app` (the Starlette application)
and :mod:`.run` (uvicorn).
"""
