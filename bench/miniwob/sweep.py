"""MiniWoB++ through a pool of Ray actors, each owning a private handrail desktop: the evaluation
sweep of run.py spread over N desktops with Ray (local Ray here, `ray.init()`; a RayCluster the same
way), every episode on a desktop reset just before it.

Each actor is a `handrail.pool.DesktopWorker`: it starts `handrail serve --sandbox --http` on its node
and connects the Python client. An episode is one Ray task on whichever actor is free: `POST /reset`
(every app closed, a fresh browser profile, the clipboard empty, the episode's turn), then exactly the
episode of run.py (the same policies, `computer` calls only), so the records are the single-desktop
harness's, with where the episode ran and what its reset did added.

Usage:
  sweep.py [--desktops N] [--tasks a,b,...] [--episodes N] [--handrail PATH] [--out FILE.md] [--json FILE]
"""

import argparse
import datetime
import json
import os
import platform
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path[:0] = [str(HERE), str(REPO / "python")]

import ray  # noqa: E402

import policies  # noqa: E402
import run  # noqa: E402
from desktop import Computer as EpisodeComputer  # noqa: E402
from desktop import PageServer, miniwob_html_dir  # noqa: E402
from handrail.pool import DesktopPool  # noqa: E402


class Pages:
    """The task pages' URLs, as run.py's PageServer gives them (served by the driver)."""

    def __init__(self, base):
        self.base = base

    def url(self, task):
        return f"{self.base}/miniwob/{task}.html"


def sweep_episode(worker, item):
    """One episode on this actor's desktop: a reset naming the episode's turn, then run.py's episode."""
    task, index, base = item
    intent = f"solve the MiniWoB++ task {task} on the page"

    async def go(computer):
        t0 = time.monotonic()
        report = await computer.reset(turn=f"{task}/handrail/{index}", intent=intent, require_clean=False)
        reset_s = time.monotonic() - t0
        rec = await run.episode(EpisodeComputer(computer.session), None, Pages(base), task, "handrail", index)
        rec.update(desktop=worker.info()["display"], reset_clean=report.clean, reset_ms=report.duration_ms,
                   reset_wall_s=reset_s, closed=[a.name for a in report.closed])
        return rec

    return worker.run_async(go, timeout=run.EPISODE_TIMEOUT + 60)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--desktops", type=int, default=2, help="Ray actors, one private desktop each")
    ap.add_argument("--tasks", help="comma-separated task names (default: all covered tasks)")
    ap.add_argument("--episodes", type=int, default=10)
    ap.add_argument("--handrail", default=str(REPO / "target/release/handrail"), help="the handrail binary")
    ap.add_argument("--out", help="write the markdown table here")
    ap.add_argument("--json", help="write every episode and the summary here")
    args = ap.parse_args()
    tasks = args.tasks.split(",") if args.tasks else list(policies.TASKS)
    unknown = [t for t in tasks if t not in policies.TASKS]
    if unknown:
        raise SystemExit(f"no policy for {', '.join(unknown)}; covered: {', '.join(policies.TASKS)}")

    started = datetime.datetime.now(datetime.timezone.utc)
    pages = PageServer(miniwob_html_dir())
    # The actors import the client and the harness from this checkout.
    path = os.pathsep.join(filter(None, [str(HERE), str(REPO / "python"), os.environ.get("PYTHONPATH")]))
    ray.init(num_cpus=args.desktops, include_dashboard=False, log_to_driver=False,
             runtime_env={"env_vars": {"PYTHONPATH": path, "HANDRAIL_BIN": args.handrail}})
    items = [(t, i, f"http://127.0.0.1:{pages.port}") for t in tasks for i in range(1, args.episodes + 1)]
    try:
        t0 = time.monotonic()
        with DesktopPool(args.desktops, binary=args.handrail) as pool:
            pool_s = time.monotonic() - t0
            t1 = time.monotonic()
            records = []
            for rec in pool.map_unordered(sweep_episode, items):
                records.append(rec)
                print(f"{rec['task']:22} ep {rec['episode']:2} on {rec['desktop']}: "
                      f"{'ok  ' if rec['success'] else 'FAIL'} reward={run.fmt(rec['reward'])} "
                      f"reset={rec['reset_ms']} ms wall={run.fmt(rec['wall_s'])}s {rec['note']}", flush=True)
            sweep_s = time.monotonic() - t1
            infos = pool.infos
    finally:
        ray.shutdown()
        pages.close()
    records.sort(key=lambda r: (tasks.index(r["task"]), r["episode"]))
    rows = run.summarise(records, tasks, ["handrail"])
    report = run.table(rows, records, tasks, ["handrail"])
    fails = run.failures(records)
    per_min = 60 * len(records) / sweep_s if sweep_s else None
    resets = sorted(r["reset_ms"] for r in records)
    lines = [
        report,
        f"\n{args.desktops} desktops (Ray actors) ready in {pool_s:.1f} s: "
        + ", ".join(f"{i['display']} {i['ready_s']:.1f} s" for i in infos),
        f"{len(records)} episodes in {sweep_s:.1f} s: {per_min:.1f} episodes/min, reset before each "
        f"(median {resets[len(resets) // 2]} ms, max {resets[-1]} ms).",
    ]
    print("\n".join(lines))
    if fails:
        print("\nfailed episodes:\n" + fails)
    summary = {
        "date": started.isoformat(timespec="seconds"),
        "command": " ".join([os.path.relpath(sys.argv[0], REPO)] + sys.argv[1:]),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, {platform.platform()}",
        "desktops": args.desktops,
        "episodes_per_task": args.episodes,
        "pool_start_s": pool_s,
        "sweep_s": sweep_s,
        "episodes_per_min": per_min,
        "ready_s": [i["ready_s"] for i in infos],
        "tasks": {f"{t}/{p}": r for (t, p), r in rows.items()},
        "records": records,
    }
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=1))
    if args.out:
        Path(args.out).write_text("\n".join(lines) + f"\n\nfailed episodes:\n{fails or '(none)'}\n")


if __name__ == "__main__":
    main()
