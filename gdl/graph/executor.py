"""Where a tiered solve's work runs: one interface, three implementations.

A tiered solve (``gdl.graph.tiers``) cuts its work into *tasks*: small picklable tuples naming a
batch of positions (the keys themselves, or a slice of a tier file on shared storage). An
executor runs a function over a list of tasks and returns the results in task order; nothing
else about it matters to the solve, so the results do not depend on where the tasks ran.

- ``SerialExecutor``: in this process (``--workers 1``, the reference).
- ``ProcessExecutor``: a pool of worker processes on this machine (``--workers N``).
- ``DaskExecutor``: the workers of a Dask cluster (``--scheduler ADDRESS``; ``gdl[dask]``).

Each worker loads the game once, from a *game source*: a picklable function of no arguments that
returns it (the command line passes ``load(path, params)``), kept per process by its ``repr``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_GAMES: dict[str, Any] = {}


def game_from(source: Callable[[], Any]) -> Any:
    """The game a source describes, loaded once per process."""
    key = repr(source)
    game = _GAMES.get(key)
    if game is None:
        game = _GAMES[key] = source()
    return game


class SerialExecutor:
    """Runs every task here, one after another."""

    workers = 1

    def map(self, function: Callable, tasks: list) -> list:
        return [function(task) for task in tasks]

    def close(self) -> None:
        pass


class ProcessExecutor:
    """A pool of ``workers`` processes on this machine."""

    def __init__(self, workers: int):
        from concurrent.futures import ProcessPoolExecutor

        self.workers = workers
        self._pool = ProcessPoolExecutor(max_workers=workers)

    def map(self, function: Callable, tasks: list) -> list:
        return list(self._pool.map(function, tasks))

    def close(self) -> None:
        self._pool.shutdown(cancel_futures=True)


class DaskExecutor:
    """The workers of a Dask cluster: ``DaskExecutor(address)`` connects to its scheduler;
    ``DaskExecutor(client=...)`` uses a client already made (a ``LocalCluster``'s, in tests)."""

    def __init__(self, address: str | None = None, client: Any = None):
        if client is None:
            try:
                from dask.distributed import Client
            except ImportError:
                from gdl.solvers.result import SolverError

                raise SolverError("--scheduler needs Dask: pip install 'gdl[dask]'") from None
            client = Client(address)
            self._owned = True
        else:
            self._owned = False
        self._client = client
        self.workers = max(1, len(client.scheduler_info().get("workers", {})))

    def map(self, function: Callable, tasks: list) -> list:
        # pure=False: a task is never answered from another run's result by its arguments alone
        futures = self._client.map(function, tasks, pure=False)
        return self._client.gather(futures)

    def close(self) -> None:
        if self._owned:
            self._client.close()


def make_executor(workers: int = 1, scheduler: str | None = None):
    """The executor for ``--workers`` / ``--scheduler``."""
    if scheduler is not None:
        return DaskExecutor(scheduler)
    if workers > 1:
        return ProcessExecutor(workers)
    return SerialExecutor()
