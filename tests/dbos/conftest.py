"""The queue suite's fixtures, for every test module here (defined, and type-checked, in ``queue_fixtures``).

mypy checks ``tests`` as one build, where a second module named ``conftest``
(``tests/store`` has one) is refused, so this file only re-exports them and
is left out of that check (``[tool.mypy] exclude``).
"""

from queue_fixtures import backend, cluster, queue_postgres

__all__ = ["backend", "cluster", "queue_postgres"]
