"""What a registry asks of its store beyond the base protocol, checked once, when it is made (``boot()``).

Threads, remembered rules and the approval log (expiry, ``approvals
watch``) are optional store protocols (:mod:`dsh_tools.store.protocol`): a
store declares one by having its methods. All three bundled stores have all
of them; a store of your own may have none. What must not happen is a store
that has part of one (a call would fail later, far from the cause), or a TTL
asked of a store that cannot expire parked calls.
"""

from __future__ import annotations

from typing import Final

from dsh_tools.store.protocol import ApprovalLog, ThreadStore
from dsh_tools.call_store import CallStore, RuleStore
from dsh_tools.store.spilled import SpillStore

__all__ = ["MAX_APPROVAL_TTL", "check_store_features"]


MAX_APPROVAL_TTL: Final = 366 * 86_400.0
"""The longest ``approval_ttl_seconds`` (a year and a day; longer is a slip, not a policy)."""


def check_store_features(store: CallStore, approval_ttl_seconds: object) -> float | None:
    """Check what the store declares against what is asked of it (at ``boot()``); the checked TTL.

    Threads, remembered rules and spilled results are optional store protocols
    (:class:`~dsh_tools.store.ThreadStore`, :class:`~dsh_tools.store.RuleStore`,
    :class:`~dsh_tools.store.SpillStore`):
    a store that declares one must have all of its methods. Expiry needs the
    store's approval log (:class:`~dsh_tools.store.ApprovalLog`).
    """
    for protocol, members in (
        (RuleStore, ("rules", "rule_for", "forget_rule")),
        (ThreadStore, ("open_thread", "read_thread", "change_thread", "open_steps")),
        (SpillStore, ("keep_spilled", "read_spilled")),
    ):
        has = [name for name in members if callable(getattr(store, name, None))]
        if has and len(has) != len(members):
            missing = ", ".join(name for name in members if name not in has)
            raise TypeError(f"{type(store).__name__} has part of {protocol.__name__}, without {missing}")
    if approval_ttl_seconds is None:
        return None
    if type(approval_ttl_seconds) not in (int, float) or not 0 < approval_ttl_seconds <= MAX_APPROVAL_TTL:  # type: ignore[operator]
        raise ValueError(f"approval_ttl_seconds must be a number of seconds above 0 and at most {MAX_APPROVAL_TTL:g}, or None")
    if not isinstance(store, ApprovalLog):
        raise ValueError(f"approval_ttl_seconds needs a store that expires parked calls; {type(store).__name__} does not")
    return float(approval_ttl_seconds)  # type: ignore[arg-type]


