"""Fair play with a score server: keys, signatures, and a client that checks every answer.

``ed25519`` (the strict checks before OpenSSL's), ``keyset`` (rotation and
revocation), ``signing`` (key files, signing and checking records),
``witness`` (the fair client's checks of each answer and of the signed
record), ``client`` (the server's HTTP client), ``names`` (player-name rules
and confusable skeletons) and ``player_secrets`` (registered names' secrets
kept for ``play --server``).
"""
