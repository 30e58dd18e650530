"""Desktops as Ray actors: each actor owns one desktop (a private sandbox it starts on its node, or a
desktop service it is given the URL of, e.g. a pod beside it), and a pool of them runs an evaluation
sweep or RL rollouts in parallel. Ray does the scheduling; nothing here is a scheduler.

    import ray
    from handrail.pool import DesktopPool

    ray.init()
    with DesktopPool(4) as pool:
        results = pool.map(run_episode, tasks)   # run_episode(worker, task) runs inside an actor

`run_episode` gets the actor's `DesktopWorker`: `worker.computer` is its connected client,
`worker.run_async(coroutine_function, ...)` runs client code on the worker's event loop and
`worker.env(task)` builds a Gymnasium environment over the desktop.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Optional, Sequence

from ._loop import LoopThread
from .client import Computer
from .local import LocalDesktop


class DesktopWorker:
    """Owns one desktop and a client connected to it. Usable on its own or as a Ray actor (see
    `DesktopPool`, which wraps it with `ray.remote`)."""

    def __init__(self, url: Optional[str] = None, token: Optional[str] = None, *, binary: Optional[str] = None,
                 serve_args: Sequence[str] = (), ready_timeout: float = 120.0):
        self.local: Optional[LocalDesktop] = None
        self.ready_s: Optional[float] = None
        if url is None:
            self.local = LocalDesktop(binary, serve_args)
            self.ready_s = self.local.wait_ready(ready_timeout)
            url, token = self.local.url, self.local.token
        self.loop = LoopThread()
        self.computer = Computer(url, token)
        self.loop.run(self.computer.connect())
        if self.local is None:
            self.loop.run(self.computer.wait_ready(ready_timeout))

    def info(self) -> dict:
        """Where the desktop is and how long it took to become ready (for a local one)."""
        return {"url": self.computer.url, "pid": self.local.pid if self.local else None,
                "display": self.local.display if self.local else None, "ready_s": self.ready_s}

    def run(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Calls `fn(self, *args, **kwargs)` here (in the actor's process)."""
        return fn(self, *args, **kwargs)

    def run_async(self, fn: Callable[..., Any], *args: Any, timeout: Optional[float] = None, **kwargs: Any) -> Any:
        """Runs the coroutine `fn(self.computer, *args, **kwargs)` on this worker's event loop."""
        return self.loop.run(fn(self.computer, *args, **kwargs), timeout)

    def env(self, task: Any, **options: Any):
        """A Gymnasium environment over this desktop for `task` (sharing this worker's client)."""
        from .env import HandrailEnv

        return HandrailEnv(self.computer, task, loop=self.loop, **options)

    def stop(self) -> None:
        try:
            self.loop.run(self.computer.close(), timeout=30)
        except Exception:  # the desktop is going away either way
            pass
        self.loop.close()
        if self.local is not None:
            self.local.stop()
            self.local = None


class DesktopPool:
    """`size` desktops, each owned by a Ray actor, and `ray.util.ActorPool` to spread work over them.

    Without `urls` every actor starts a private desktop on its node (`handrail` must be on `PATH` or
    in `$HANDRAIL_BIN` there). With `urls` (and `tokens`), actor i drives the desktop service at
    `urls[i]`. `num_cpus` and `resources` are the actor's Ray resource request: on a cluster,
    `resources={"desktop": 1}` places each actor on a node that offers a desktop (see
    `deploy/k8s/raycluster.yaml`)."""

    def __init__(self, size: int, *, urls: Optional[Sequence[str]] = None, tokens: Optional[Sequence[str]] = None,
                 num_cpus: float = 1, resources: Optional[dict] = None, binary: Optional[str] = None,
                 serve_args: Sequence[str] = ()):
        import ray
        from ray.util import ActorPool

        if size < 1:
            raise ValueError("a pool needs at least one desktop")
        if urls is not None and len(urls) < size:
            raise ValueError(f"{size} desktops asked for, {len(urls)} URLs given")
        actor = ray.remote(num_cpus=num_cpus, resources=resources or {})(DesktopWorker)
        self._ray = ray
        self.actors = []
        for i in range(size):
            if urls is not None:
                token = tokens[i] if tokens is not None else None
                self.actors.append(actor.remote(urls[i], token))
            else:
                self.actors.append(actor.remote(binary=binary, serve_args=list(serve_args)))
        # Started (and ready) before any work is handed out; a failed start surfaces here.
        self.infos = ray.get([a.info.remote() for a in self.actors])
        self._pool = ActorPool(self.actors)

    def map(self, fn: Callable[..., Any], items: Iterable[Any]) -> list:
        """`fn(worker, item)` for every item, run on whichever desktop is free; results in order."""
        return list(self._pool.map(lambda a, item: a.run.remote(fn, item), list(items)))

    def map_unordered(self, fn: Callable[..., Any], items: Iterable[Any]):
        """As `map`, yielding each result as soon as it is done."""
        return self._pool.map_unordered(lambda a, item: a.run.remote(fn, item), list(items))

    def shutdown(self) -> None:
        """Stops every desktop and ends the actors."""
        ray = self._ray
        try:
            ray.get([a.stop.remote() for a in self.actors], timeout=120)
        finally:
            for a in self.actors:
                ray.kill(a)
            self.actors = []

    def __enter__(self) -> "DesktopPool":
        return self

    def __exit__(self, *exc) -> None:
        self.shutdown()
