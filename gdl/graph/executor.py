"""Where a tiered solve's work runs: one interface, three implementations.

A tiered solve (``gdl.graph.tiers``) cuts its work into *tasks*: small picklable tuples naming a
batch of positions (the keys themselves, or a slice of a tier file on shared storage). An
executor runs a function over a list of tasks and returns the results in task order (``map``),
or starts one task and answers later (``submit``, then ``result()``); nothing else about it
matters to the solve, so the results do not depend on where the tasks ran.

- ``SerialExecutor``: in this process (``--workers 1``, the reference).
- ``ProcessExecutor``: a pool of worker processes on this machine (``--workers N``).
- ``DaskExecutor``: the workers of a Dask cluster (``--scheduler ADDRESS``; ``gdl[dask]``).

Each worker loads the game once, from a *game source*: a picklable function of no arguments that
returns it (the command line passes ``load(path, params)``), kept per process by its ``repr``.

What crosses, and whom it trusts (docs/security.md). Tasks and results are pickled: the
function (a reference to a gdl function, by name), the game source (a reference to the loader
with a rule file's path and the ``--set`` values), slices of keys, file names, numpy arrays and
small tables. Unpickling runs code of the sender's choosing, so every executor trusts whoever
can talk to it. The process pool talks over pipes to its own children, which nobody else can
reach. A Dask cluster talks over the network: ``--scheduler ADDRESS`` trusts everyone who can
reach that scheduler or its workers, for a plain ``tcp://`` scheduler accepts anyone's tasks
(they run as the workers' user) and the client unpickles what comes back (it runs in the
solve's process). Give it only a cluster nobody else can reach, or one with Dask's TLS and
certificates (``tls://`` with ``distributed.comm.require-encryption``). The tier files the
workers read and write are data only (numpy arrays without pickles, and JSON).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from typing import Any

_GAMES: dict[str, Any] = {}


def timed(function: Callable, task) -> tuple[float, Any]:
    """Run a task, with the CPU seconds it took where it ran (its process's time: a worker runs
    one task at a time). The executors add these up in ``task_cpu``: the solve's serial share is
    then the coordinator's own CPU time against the tasks'."""
    started = time.process_time()
    result = function(task)
    return time.process_time() - started, result


class _Timed:
    """``function`` run through ``timed``: picklable, so it crosses to a worker."""

    def __init__(self, function: Callable):
        self.function = function

    def __call__(self, task) -> tuple[float, Any]:
        return timed(self.function, task)


class Pending:
    """A task submitted (``submit``): ``result()`` waits for its answer."""

    def __init__(self, executor, future):
        self._executor, self._future = executor, future

    def result(self) -> Any:
        seconds, result = self._future.result()
        self._executor.task_cpu += seconds
        return result


class _Done:
    def __init__(self, value):
        self._value = value

    def result(self):
        return self._value


def _untimed(executor, answers) -> list:
    results = []
    for seconds, result in answers:
        executor.task_cpu += seconds
        results.append(result)
    return results


def remember(source: Callable[[], Any], game: Any) -> None:
    """Record ``game`` as what ``source`` loads: worker processes forked after this (the process
    pool's, on Linux) start with it instead of loading the rules again."""
    _GAMES.setdefault(repr(source), game)


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
    task_cpu = 0.0          # CPU seconds of the tasks run (here: part of this process's own)
    # its workers are cores of this machine: a solve may run on them as threads instead (the
    # ranked tables' passes, gdl.graph.rank_solve)
    local = True

    def map(self, function: Callable, tasks: list) -> list:
        return _untimed(self, [timed(function, task) for task in tasks])

    def submit(self, function: Callable, task) -> Pending:
        return Pending(self, _Done(timed(function, task)))

    def close(self) -> None:
        pass


class _Answer:
    """A task sent to a worker of ``ProcessExecutor``; ``result()`` waits for it (taking the
    other workers' answers as they come), then gives ``(CPU seconds, result)`` or raises the
    task's error."""

    def __init__(self, executor: ProcessExecutor):
        self._executor = executor
        self.done = False
        self.ok = True
        self.value: Any = None

    def result(self) -> Any:
        while not self.done:
            self._executor._collect()
        if not self.ok:
            raise self.value
        return self.value


def _serve(connection) -> None:
    """A worker process of ``ProcessExecutor``: a task in, ``(ok, (CPU seconds, result) or the
    error)`` out, until told to stop (None) or the coordinator is gone."""
    while True:
        try:
            message = connection.recv()
        except (EOFError, OSError, KeyboardInterrupt):   # Ctrl-C reaches the coordinator too
            return
        if message is None:
            return
        function, task = message
        try:
            answer: tuple = (True, timed(function, task))
        except BaseException as error:      # raised where the task's answer is asked for
            answer = (False, error)
        try:
            connection.send(answer)
        except Exception as error:          # an answer or error that does not pickle
            connection.send((False, RuntimeError(f"a worker's answer could not be sent back: "
                                                 f"{error!r}")))


class ProcessExecutor:
    """A pool of ``workers`` processes on this machine, each fed through a pipe of its own: a
    task is pickled onto an idle worker's pipe by the caller's thread and its answer read back
    the same way (``concurrent.futures``' pool passes each task through two threads of this
    process and a shared queue, about 0.2 ms a task more; Pig's tiers are solved by a chain of
    400 tasks, each waiting for the one before). The workers start at the first task, so that
    on Linux they are forked with the games remembered by then (``remember``)."""

    local = True

    def __init__(self, workers: int):
        self.workers = workers
        self.task_cpu = 0.0
        self._connections: list = []
        self._processes: list = []
        self._idle: list[int] = []
        self._queued: deque = deque()            # (function, task, answer) not yet sent
        self._busy: dict[int, _Answer] = {}      # worker -> the answer it owes

    def _start(self) -> None:
        import multiprocessing

        context = multiprocessing.get_context()
        for number in range(self.workers):
            mine, theirs = context.Pipe()
            process = context.Process(target=_serve, args=(theirs,), daemon=True,
                                      name=f"gdl-worker-{number}")
            process.start()
            theirs.close()
            self._connections.append(mine)
            self._processes.append(process)
            self._idle.append(number)

    def _send(self) -> None:
        while self._idle and self._queued:
            worker = self._idle.pop()
            function, task, answer = self._queued.popleft()
            self._busy[worker] = answer
            self._connections[worker].send((function, task))

    def _collect(self) -> None:
        """Wait for at least one busy worker's answer, and send the queued tasks on."""
        from multiprocessing.connection import wait

        if not self._busy:
            raise RuntimeError("no task is running")            # not reached: result() waits
        ready = {id(c) for c in wait([self._connections[w] for w in self._busy])}
        for worker in [w for w in self._busy if id(self._connections[w]) in ready]:
            answer = self._busy.pop(worker)
            try:
                ok, value = self._connections[worker].recv()
            except (EOFError, OSError):
                answer.done, answer.ok = True, False
                answer.value = RuntimeError(f"worker process {worker} ended without answering "
                                            "(killed, or out of memory?)")
                continue                                        # that worker is gone
            answer.done, answer.ok, answer.value = True, ok, value
            self._idle.append(worker)
        self._send()

    def submit(self, function: Callable, task) -> Pending:
        """One task, started as soon as a worker is free; its answer when ``result()`` is
        called."""
        if not self._processes:
            self._start()
        answer = _Answer(self)
        self._queued.append((function, task, answer))
        self._send()
        return Pending(self, answer)

    def map(self, function: Callable, tasks: list) -> list:
        pending = [self.submit(function, task) for task in tasks]
        return [job.result() for job in pending]

    def close(self) -> None:
        """Tasks not yet sent are dropped; the running ones are waited for (their files are
        written whole), then the workers stop."""
        self._queued.clear()
        while self._busy:
            try:
                self._collect()
            except BaseException:
                break
        for connection in self._connections:
            try:
                connection.send(None)
            except OSError:
                pass
        for process in self._processes:
            process.join(timeout=5)
            if process.is_alive():
                process.terminate()
        for connection in self._connections:
            connection.close()
        self._connections, self._processes, self._idle, self._busy = [], [], [], {}


class DaskExecutor:
    """The workers of a Dask cluster: ``DaskExecutor(address)`` connects to its scheduler;
    ``DaskExecutor(client=...)`` uses a client already made (a ``LocalCluster``'s, in tests).
    The cluster is trusted with this process (see the module docstring): Dask's own security
    settings (TLS, certificates) apply to the connection, read from Dask's configuration."""

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
        self.task_cpu = 0.0
        self.workers = max(1, len(client.scheduler_info().get("workers", {})))

    def map(self, function: Callable, tasks: list) -> list:
        # pure=False: a task is never answered from another run's result by its arguments alone
        futures = self._client.map(_Timed(function), tasks, pure=False)
        return _untimed(self, self._client.gather(futures))

    def submit(self, function: Callable, task) -> Pending:
        return Pending(self, self._client.submit(_Timed(function), task, pure=False))

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
