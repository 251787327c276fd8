"""What a hostile client meets first: connection bounds, request refusals, rate limits.

``transport`` (connection bounds and trusted proxies), ``guarded_http``
(uvicorn's HTTP protocol within those bounds), ``request_guard`` (Host,
Origin and Content-Type refused before any handler) and ``quotas`` (the
rate limits' names, defaults and specs).
"""
