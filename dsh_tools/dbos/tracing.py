"""Tracing across the queue: the caller's span context travels with the call; the worker's span continues it.

On the caller, dispatch runs with the call's span current (the tracer's
``dispatching`` probe), so :func:`trace_carrier` injects its W3C context into
the request. On the worker, :func:`worker_span` opens an ``execute_tool
<name>`` span under that context for the dispatch, with the queue and the time
the call waited in it (``dsh_tools.queue.wait_ms``) as attributes, and makes
it current while the ``tools/execute`` chain and the body run, so their own
spans nest under it. Without OpenTelemetry installed both do nothing.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["trace_carrier", "worker_span"]


def trace_carrier() -> tuple[tuple[str, str], ...]:
    """The current span's context as W3C headers (``traceparent``, ...), or nothing."""
    try:
        from opentelemetry.propagate import inject
    except ImportError:
        return ()
    carrier: dict[str, str] = {}
    try:
        inject(carrier)
    except Exception:  # noqa: BLE001 - telemetry never changes a call
        return ()
    return tuple(carrier.items())


@contextmanager
def worker_span(name: str, call_id: str, queue: str, carrier: tuple[tuple[str, str], ...], enqueued_at: float) -> Iterator[None]:
    """A span for a queued dispatch on the worker, child of the caller's (see the module docstring)."""
    try:
        from opentelemetry import context, trace
        from opentelemetry.propagate import extract
    except ImportError:
        yield
        return
    try:
        parent = extract(dict(carrier))
        span = trace.get_tracer("dsh_tools.dbos").start_span(
            f"execute_tool {name}",
            context=parent,
            attributes={
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": name,
                "gen_ai.tool.call.id": call_id,
                "dsh_tools.queue": queue,
                "dsh_tools.queue.wait_ms": max(0.0, (time.time() - enqueued_at) * 1000),
            },
        )
        token = context.attach(trace.set_span_in_context(span))
    except Exception:  # noqa: BLE001 - telemetry never changes a call
        yield
        return
    try:
        yield
    finally:
        try:
            context.detach(token)
            span.end()
        except Exception:  # noqa: BLE001 - telemetry never changes a call
            pass
