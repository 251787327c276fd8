"""What the server writes: group commit of every game's moves, and the threads around it.

``writer`` (one thread, shared transactions), ``write_jobs`` (what each request
asks of it), ``batch_view`` and ``live_games`` (the games as a batch sees
them), ``answers`` (JSON answers), ``tokens`` (bearer tokens, hashed),
``health`` (readiness), ``checkpoints`` (SQLite's log copied off the commit
path), ``sweeper`` (expiry) and ``record_checks`` (submitted records, read
in a bounded process pool).
"""
