"""The server's HTTP side: the Starlette application, the moves fast path, pages and answers.

``app`` (routes and the error boundary), ``fastpath`` (``POST .../moves``
ahead of Starlette), ``parsing`` (untrusted request bodies, one parser for
both entrances), ``pages``, ``shells``, ``assets``, ``csp``, ``error_page``,
``language``, ``openapi``, ``cursors`` and ``metrics``.
"""
