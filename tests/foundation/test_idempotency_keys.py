"""Minted idempotency keys: 128 random bits each, never the same twice, not even across a fork."""

from __future__ import annotations

import os
import re

from dsh_tools.execution import mint_idempotency_key


def test_keys_are_32_hex_digits_and_distinct_across_batches() -> None:
    keys = [mint_idempotency_key() for _ in range(2000)]  # several batches of the buffered bits
    assert all(re.fullmatch(r"[0-9a-f]{32}", key) for key in keys)
    assert len(set(keys)) == len(keys)


def test_a_forked_child_never_mints_a_key_its_parent_mints() -> None:
    mint_idempotency_key()  # the parent holds a batch now
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its first keys, to the parent
        try:
            os.write(write, " ".join(mint_idempotency_key() for _ in range(5)).encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        child = set(pipe.read().split())
    os.waitpid(pid, 0)
    parent = {mint_idempotency_key() for _ in range(5)}
    assert len(child) == 5 and not child & parent
