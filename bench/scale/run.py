"""Desktops at scale on this machine: cold start to first observation, reset time, idle memory per
desktop, and 1, 2, 4, 8 desktops driven at once (observe and click → settled latency per desktop,
actions per second in all). Every desktop is a real `handrail serve --sandbox --http` driven through
the Python client (python/) over MCP; nothing is simulated.

Usage:
  run.py [--handrail PATH] [--starts N] [--resets N] [--counts 1,2,4,8] [--rounds N]
         [--parts cold,memory,reset,concurrent] [--drivers process|loop] [--think-ms MS] [--json FILE]
"""

import argparse
import asyncio
import concurrent.futures as concurrent_futures
import datetime
import http.server
import json
import multiprocessing
import os
import platform
import random
import statistics
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "python"))

from handrail import Computer, LocalDesktop  # noqa: E402

PROBE = str(REPO / "testdata/apps/probe_gtk.py")
PAGE = b"""<!doctype html><html><head><title>Bench page</title></head><body>
<h1>Bench page</h1><p>A page for the reset benchmark.</p><input value="some text"><button>Go</button>
</body></html>"""
MARKER = "HANDRAIL_SANDBOX="


def median(values):
    return statistics.median(values) if values else None


def p90(values):
    return sorted(values)[min(len(values) - 1, int(0.9 * len(values)))] if values else None


# ---- memory ------------------------------------------------------------------------------------------


def children_map():
    kids = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        ppid = int(stat[stat.rfind(")") + 2:].split()[1])
        kids.setdefault(ppid, []).append(int(entry))
    return kids


def marker_of(pid):
    try:
        env = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    except OSError:
        return None
    return next((e.decode(errors="replace") for e in env if e.startswith(MARKER.encode())), None)


def desktop_processes(serve_pid):
    """The serve process, its descendants, and every process carrying its sandbox's marker (the buses'
    services are re-parented to init)."""
    kids = children_map()
    found, todo = set(), [serve_pid]
    while todo:
        pid = todo.pop()
        if pid not in found:
            found.add(pid)
            todo.extend(kids.get(pid, []))
    markers = {m for m in map(marker_of, found) if m}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) not in found and marker_of(int(entry)) in markers:
            found.add(int(entry))
    return found


def memory(pids):
    """(RSS, PSS) in MiB summed over `pids`, and each process's name with its RSS."""
    rss = pss = 0
    each = []
    for pid in pids:
        try:
            rollup = Path(f"/proc/{pid}/smaps_rollup").read_text()
            name = Path(f"/proc/{pid}/comm").read_text().strip()
        except OSError:
            continue
        fields = {line.split(":")[0]: int(line.split()[1]) for line in rollup.splitlines()[1:] if line.endswith("kB")}
        rss += fields.get("Rss", 0)
        pss += fields.get("Pss", 0)
        each.append((name, fields.get("Rss", 0) // 1024))
    return rss / 1024, pss / 1024, sorted(each, key=lambda e: -e[1])


# ---- measurements ------------------------------------------------------------------------------------


def cold_starts(binary, n):
    """Process start → /readyz 200 (the first real observation done), then stopped again."""
    runs = []
    for _ in range(n):
        with LocalDesktop(binary) as d:
            ready_s = d.wait_ready(120)
            ready = asyncio.run(readiness(d))
            runs.append({"ready_s": ready_s, "first_observation_ms": ready.first_observation_ms})
    return runs


async def readiness(d):
    async with Computer(d.url, d.token) as c:
        return await c.readiness()


async def open_page(d, url):
    async with Computer(d.url, d.token) as c:
        opened = await c.open_url(url, expect="text:Bench page")
        assert opened.ok, opened.text


def desktop_memory(binary):
    """An idle desktop (no apps), then the same desktop with Chromium open on a page."""
    server, url = page_server()
    try:
        with LocalDesktop(binary) as d:
            d.wait_ready(120)
            time.sleep(2)  # the first observation's buffers settle
            rss, pss, each = memory(desktop_processes(d.pid))
            out = {"idle": {"rss_mib": rss, "pss_mib": pss, "processes": each}}
            asyncio.run(open_page(d, url))
            time.sleep(3)
            rss, pss, each = memory(desktop_processes(d.pid))
            out["chromium"] = {"rss_mib": rss, "pss_mib": pss, "processes": each[:8]}
            return out
    finally:
        server.shutdown()


def mem_available_mib():
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) / 1024
    return 0.0


def shared_node_memory(binary, count):
    """`count` idle desktops side by side, as on a node: PSS summed over all their processes (shared
    library pages are divided among the desktops that map them) and the drop in the node's
    MemAvailable, each per desktop."""
    before = mem_available_mib()
    desktops = [LocalDesktop(binary) for _ in range(count)]
    try:
        for d in desktops:
            d.wait_ready(120)
        time.sleep(2)
        pids = set().union(*(desktop_processes(d.pid) for d in desktops))
        rss, pss, _ = memory(pids)
        used = before - mem_available_mib()
    finally:
        for d in desktops:
            d.stop()
    return {"desktops": count, "rss_mib_each": rss / count, "pss_mib_each": pss / count,
            "mem_available_drop_mib_each": used / count}


def page_server():
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(PAGE)))
            self.end_headers()
            self.wfile.write(PAGE)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/page.html"


async def resets(binary, n):
    """Resets of an empty desktop and of one with Chromium open on a page (and text copied)."""
    server, url = page_server()
    out = {"empty": [], "chromium": []}
    try:
        with LocalDesktop(binary) as d:
            d.wait_ready(120)
            async with Computer(d.url, d.token) as c:
                for i in range(n):
                    t0 = time.monotonic()
                    r = await c.reset(turn=f"empty/{i}")
                    out["empty"].append({"wall_ms": 1000 * (time.monotonic() - t0), "server_ms": r.duration_ms,
                                         "clean": r.clean})
                for i in range(n):
                    opened = await c.open_url(url, expect="text:Bench page")
                    assert opened.ok, opened.text
                    await c.key("ctrl+a")
                    await c.key("ctrl+c")
                    t0 = time.monotonic()
                    r = await c.reset(turn=f"chromium/{i}")
                    out["chromium"].append({"wall_ms": 1000 * (time.monotonic() - t0), "server_ms": r.duration_ms,
                                            "clean": r.clean, "closed": len(r.closed),
                                            "timings": r.timings.__dict__})
    finally:
        server.shutdown()
    return out


async def drive(url, token, name, rounds, think, start_at):
    """`see`, then a click on the probe app's Change button (its label flips), `rounds` times, from
    wall-clock time `start_at` on (so that every desktop's driver begins at once). With `think`
    seconds, the driver pauses that long after each answer, as an agent waiting for its model does
    (starting at a random point of one pause, so that desktops do not all call at once)."""
    async with Computer(url, token) as c:
        c.new_turn("load", "press Change")
        see_ms, see_server_ms, click_ms, click_server_ms, settle_ms, misses = [], [], [], [], [], []
        first = await c.see()
        change = first.observation.find("Change", role="button")
        if not change:
            raise RuntimeError(f"no Change button on {name}: {first.text[:500]}")
        await asyncio.sleep(max(0.0, start_at - time.time()) + random.uniform(0, think))
        for _ in range(rounds):
            t0 = time.monotonic()
            seen = await c.see()
            see_ms.append(1000 * (time.monotonic() - t0))
            see_server_ms.append(seen.timings.total)
            found = seen.observation.find("Change", role="button")
            while not found and len(misses) < 3 * rounds:
                # Under load the accessibility walk can time out; the observation says so.
                misses.append(f"ax={seen.observation.ax} ocr={seen.observation.ocr}")
                seen = await c.see()
                found = seen.observation.find("Change", role="button")
            if not found:
                raise RuntimeError(f"no Change button on {name}: {misses[-3:]}")
            button = found[0]
            await asyncio.sleep(think)
            t0 = time.monotonic()
            clicked = await c.click(button)
            click_ms.append(1000 * (time.monotonic() - t0))
            settle_ms.append(clicked.timings.settle)
            # The server's own time, from the call's arrival to its answer: the client's decoding left out.
            click_server_ms.append(clicked.timings.total)
            if not clicked.ok:
                raise RuntimeError(f"click on {name}: {clicked.text[:300]}")
            await asyncio.sleep(think)
        return {"see_ms": see_ms, "see_server_ms": see_server_ms, "click_ms": click_ms,
                "click_server_ms": click_server_ms, "settle_ms": settle_ms, "misses": misses, "ended": time.time()}


def drive_in_process(url, token, name, rounds, think, start_at):
    return asyncio.run(drive(url, token, name, rounds, think, start_at))


def concurrent(binary, count, rounds, drivers, think):
    """`count` desktops driven at once: each from a process of its own (`drivers == "process"`, as
    rollout workers or Ray actors drive theirs), or all from one asyncio loop (`"loop"`)."""
    t0 = time.monotonic()
    desktops = [LocalDesktop(binary, launch=[PROBE]) for _ in range(count)]
    try:
        for d in desktops:
            d.wait_ready(180)
        start_s = time.monotonic() - t0
        jobs = [(d.url, d.token, d.display, rounds, think) for d in desktops]
        if drivers == "process":
            # Time for the drivers to start and import the client, then all begin together.
            start_at = time.time() + 2 + 0.5 * count
            context = multiprocessing.get_context("spawn")
            with concurrent_futures.ProcessPoolExecutor(count, mp_context=context) as pool:
                per = list(pool.map(drive_in_process, *zip(*[job + (start_at,) for job in jobs])))
        else:
            start_at = time.time() + 1

            async def all_at_once():
                return await asyncio.gather(*(drive(*job, start_at) for job in jobs))

            per = asyncio.run(all_at_once())
        wall = max(p["ended"] for p in per) - start_at
    finally:
        for d in desktops:
            d.stop()
    actions = sum(len(p["see_ms"]) + len(p["click_ms"]) for p in per)
    return {
        "desktops": count,
        "start_all_s": start_s,
        "see_ms_median": median([median(p["see_ms"]) for p in per]),
        "see_ms_p90": p90([x for p in per for x in p["see_ms"]]),
        "see_server_ms_median": median([median(p["see_server_ms"]) for p in per]),
        "click_ms_median": median([median(p["click_ms"]) for p in per]),
        "click_ms_p90": p90([x for p in per for x in p["click_ms"]]),
        "click_server_ms_median": median([median(p["click_server_ms"]) for p in per]),
        "settle_ms_median": median([x for p in per for x in p["settle_ms"]]),
        "actions_per_s": actions / wall,
        "misses": [m for p in per for m in p["misses"]],
        "wall_s": wall,
        "per_desktop": per,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--handrail", default=str(REPO / "target/release/handrail"))
    ap.add_argument("--starts", type=int, default=5)
    ap.add_argument("--resets", type=int, default=10)
    ap.add_argument("--counts", default="1,2,4,8")
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--parts", default="cold,memory,reset,concurrent", help="which measurements to run")
    ap.add_argument("--drivers", choices=["process", "loop"], default="process",
                    help="drive each desktop from a process of its own, or all from one asyncio loop")
    ap.add_argument("--think-ms", type=float, default=0,
                    help="pause after each answer, as an agent waiting for its model (0: full speed)")
    ap.add_argument("--json")
    args = ap.parse_args()
    out = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "machine": f"{platform.machine()}, {os.cpu_count()} cores, {platform.platform()}",
           "command": " ".join([os.path.relpath(sys.argv[0], REPO)] + sys.argv[1:])}

    parts = set(args.parts.split(","))
    if "cold" in parts:
        starts = cold_starts(args.handrail, args.starts)
        out["cold_start"] = starts
        print(f"cold start to ready (first observation): median {median([s['ready_s'] for s in starts]):.2f} s, "
              f"max {max(s['ready_s'] for s in starts):.2f} s; first observation median "
              f"{median([s['first_observation_ms'] for s in starts])} ms", flush=True)

    if "memory" in parts:
        out["memory"] = desktop_memory(args.handrail)
        shared = shared_node_memory(args.handrail, 8)
        for kind, mem in out["memory"].items():
            print(f"{kind} desktop: RSS {mem['rss_mib']:.0f} MiB, PSS {mem['pss_mib']:.0f} MiB: "
                  + ", ".join(f"{n} {m}" for n, m in mem["processes"]), flush=True)
        out["memory"]["shared_node"] = shared
        print(f"{shared['desktops']} idle desktops side by side, per desktop: PSS {shared['pss_mib_each']:.0f} MiB, "
              f"RSS {shared['rss_mib_each']:.0f} MiB, node MemAvailable drop {shared['mem_available_drop_mib_each']:.0f} MiB",
              flush=True)

    r = asyncio.run(resets(args.handrail, args.resets)) if "reset" in parts else {}
    out["reset"] = r
    for kind, runs in r.items():
        print(f"reset ({kind}): server median {median([x['server_ms'] for x in runs])} ms, "
              f"max {max(x['server_ms'] for x in runs)} ms; client median "
              f"{median([x['wall_ms'] for x in runs]):.0f} ms; clean {sum(x['clean'] for x in runs)}/{len(runs)}",
              flush=True)

    out["drivers"] = args.drivers
    out["think_ms"] = args.think_ms
    out["concurrent"] = []
    for count in map(int, args.counts.split(",") if "concurrent" in parts else []):
        c = concurrent(args.handrail, count, args.rounds, args.drivers, args.think_ms / 1000)
        out["concurrent"].append(c)
        print(f"{count} desktops: started in {c['start_all_s']:.1f} s; see median {c['see_ms_median']:.0f} ms "
              f"(p90 {c['see_ms_p90']:.0f}; server {c['see_server_ms_median']:.0f}); click→settled median {c['click_ms_median']:.0f} ms "
              f"(p90 {c['click_ms_p90']:.0f}; server {c['click_server_ms_median']:.0f}); "
              f"{c['actions_per_s']:.1f} actions/s in all"
              + (f"; {len(c['misses'])} looks without the button ({', '.join(sorted(set(c['misses'])))})"
                 if c["misses"] else ""), flush=True)
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
