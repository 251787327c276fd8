"""Checking a record's fair-play claims (schema/SPEC.md, section 11.7).

A floor above :mod:`twenty48_replay.core.record`: these checks take a whole
:class:`Record`, while :mod:`twenty48_replay.core.fair` (seeds, commitment,
signed bytes, the ``fair`` object) stays below it for the record reader.
"""

from __future__ import annotations

from typing import Any, Literal

import attrs

from twenty48_replay.core.errors import RecordError
from twenty48_replay.core.fair import FairInfo, SignatureChecker, commitment, game_seed
from twenty48_replay.core.reasons import Reason
from twenty48_replay.core.record import Record

Status = Literal["self-seeded", "fair", "unchecked", "not fair"]
SignatureState = Literal["checked", "unchecked"]


def fair_info(record: Record) -> FairInfo | None:
    """The record's ``fair`` object, or None for a self-seeded record."""
    obj = record.extra.get("fair")
    return None if obj is None else FairInfo.from_dict(obj)


@attrs.frozen(slots=True)
class FairCheck:
    """The fair-play verdict on one record.

    ``status`` is "self-seeded" (no ``fair`` object), "fair" (commitment,
    derivation and the signature by a trusted key all hold), "unchecked"
    (commitment and derivation hold, but no trusted key was given, so
    anyone could have written the record) or "not fair" (a check failed).
    ``signature`` says whether the signature was checked against a trusted
    key (None when self-seeded).
    """

    status: Status
    signature: SignatureState | None
    codes: tuple[Reason, ...] = ()
    key_id: str | None = None

    @property
    def reasons(self) -> tuple[str, ...]:
        """The reasons in English (as ``--json`` prints them)."""
        return tuple(str(code) for code in self.codes)

    @property
    def ok(self) -> bool:
        """False only for a fair record that failed a check."""
        return self.status != "not fair"

    def to_json(self) -> dict[str, Any]:
        """``{"fair", "signature"}`` as in ``twenty48 verify --json``."""
        return {"fair": self.status, "signature": self.signature}


def check_fair(record: Record, trusted: SignatureChecker | None = None) -> FairCheck:
    """Check a record's fair-play claims (schema/SPEC.md, section 11.7).

    Always: the commitment is the SHA-256 of the revealed server seed, and
    the record's seed is derived from server and client seed.  With a
    ``trusted`` key: the record is signed, by that key, over its canonical
    bytes.  Reasons are prefixed "fair: " so they read well among replay reasons.
    """
    raw = record.extra.get("fair")
    if raw is None:
        return FairCheck("self-seeded", None)
    state: SignatureState = "unchecked" if trusted is None else "checked"
    try:
        info = FairInfo.from_dict(raw)
    except RecordError as exc:
        return FairCheck("not fair", state, (Reason("fair.unreadable", {"problem": exc.problem}),))
    reasons: list[Reason] = []
    revealed = commitment(info.server_seed)
    if revealed != info.commitment:
        reasons.append(
            Reason("fair.commitment", {"commitment": info.commitment, "sha256": revealed})
        )
    derived = game_seed(info.server_seed, info.client_seed)
    if derived != record.seed:
        reasons.append(Reason("fair.seed", {"seed": record.seed, "derived": derived}))
    if trusted is not None:
        if "signature" not in record.extra:
            reasons.append(Reason("fair.no_signature", {"trusted": trusted.key_id}))
        else:
            reasons.extend(
                Reason("fair.signature", {"problem": problem})
                for problem in trusted.verify(record.to_dict())
            )
    passed: Status = "unchecked" if trusted is None else "fair"
    return FairCheck(
        "not fair" if reasons else passed,
        state,
        tuple(reasons),
        None if trusted is None else trusted.key_id,
    )
