"""MiniWoB++ end to end through handrail's `computer` tool, and through the reference pipeline of
popular computer-use demos for comparison.

Both pipelines run the same scripted policies on the same sandbox desktop and the same Chromium:

  handrail   every action is a `computer` call aimed at an element id of the latest observation;
             handrail waits for the screen to settle and returns the next observation itself.
  reference  handrail's `see` only supplies the targets; the action is xdotool at the target's centre
             (typing with `xdotool type --delay 12`, 50 characters at a time), followed by a fixed
             2 s wait and a scrot screenshot, as those demos do.

Each episode opens the task page (`open_url`), clicks the page's START cover as a person would,
reads the instruction off the observation, acts, and reads the reward from the page's own reward
panel in the observation. The page closes again with ctrl+w so the next episode starts from a clean
screen. For enter-password and login-user the right outcome under handrail is its refusal to type
into the password field.

Usage:
  run.py [--tasks a,b,...] [--shard I/N] [--episodes N] [--pipelines handrail,reference]
         [--handrail PATH] [--out FILE.md] [--json FILE] [--poll SECONDS]

`--poll` is the pause between two looks while waiting for something to be listed (0.3 s; 0 looks back
to back, as a model polling for a result does).

`--shard I/N` runs every N-th task from the I-th (0-based), so N jobs (a Kubernetes Indexed Job's
completions, deploy/k8s/sweep-job.yaml) share a sweep.
"""

import argparse
import asyncio
import datetime
import json
import os
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import policies  # noqa: E402
from desktop import (Computer, HandrailServer, PageServer, Xdo, connect,  # noqa: E402
                     miniwob_html_dir, now)

# The sweep's tasks; others (policies.BY_NAME_ONLY) run when named with --tasks.
ALL_TASKS = [t for t in policies.TASKS if t not in policies.BY_NAME_ONLY]
REPO = Path(__file__).resolve().parents[2]

# Bounds on every wait: a page that never shows up must not hang the run.
PAGE_TIMEOUT = 20.0
INSTRUCTION_TIMEOUT = 6.0
# Longer than the longest episode timer (15 s), so an episode the policy could not finish still
# ends on the page's own clock and its reward is read.
REWARD_TIMEOUT = 20.0
POLL = 0.3
EPISODE_TIMEOUT = 120.0


# Retries of a step whose target was stale (nothing was done): the page changed between looking and acting.
STALE_RETRIES = 2


class EpisodeFailed(Exception):
    pass


async def poll_see(computer, found, timeout, what):
    """`see` until found(page elements) answers, within timeout (the page's accessibility tree
    arrives a moment after its window)."""
    deadline = now() + timeout
    if computer.latest is None:
        await computer.see()
    while True:
        answer = found(policies.page_elements(computer.latest or {}))
        if answer:
            return answer
        if now() > deadline:
            raise EpisodeFailed(f"{what} not listed within {timeout:.0f} s")
        if POLL > 0:
            await asyncio.sleep(POLL)
        await computer.see()


async def open_page(computer, url):
    st, text = await computer.call(action="open_url", url=url)
    if st.get("status") not in ("ok", "no_visible_change"):
        raise EpisodeFailed(f"open_url: {text[:300]}")
    return await poll_see(computer, policies.start_cover, PAGE_TIMEOUT, "the START cover")


async def close_page(computer):
    """ctrl+w closes the page's window; the next open_url starts a fresh one."""
    for _ in range(3):
        await computer.call(action="key", keys="ctrl+w")
        obs = computer.latest or {}
        if "Chromium" not in (obs.get("window") or ""):
            return
        await asyncio.sleep(0.5)
        await computer.see()
        if "Chromium" not in ((computer.latest or {}).get("window") or ""):
            return


async def read_reward(computer):
    """The reward the page shows once the episode is over (the panel counts it as done)."""
    def over(elements):
        done, last = policies.reward_panel(elements)
        return (last,) if done and done >= 1 and last is not None else None
    (reward,) = await poll_see(computer, over, REWARD_TIMEOUT, "the reward")
    return reward


def new_record(task, pipeline, episode):
    return {"task": task, "pipeline": pipeline, "episode": episode, "success": False, "refused": False,
            "reward": None, "steps": 0, "sees": 0, "wall_s": None, "note": "", "trace": [],
            "typed_password": False}


def remember(rec, computer, step, target):
    """What the policy aimed at, and the page as the observation listed it (kept for failed episodes)."""
    rec["trace"].append(f"{step.action} {step.what}: {target['id']} {target['role']} {target['label']!r} "
                        f"@ {target['bounds']} in {computer.latest['id']}")
    rec["page"] = [f"{e['id']} {e['role']} {e['label']!r} @ {e['bounds']} {' '.join(e['states'])}"
                   for e in policies.page_elements(computer.latest)]


async def handrail_episode(computer, task, rec):
    """The policy acts only through `computer` calls aimed at element ids."""
    start = rec["_start"]
    t0 = now()
    for attempt in range(1, STALE_RETRIES + 2):
        st, text = await computer.call(action="click", observation_id=computer.latest["id"], element_id=start["id"])
        rec["steps"] += 1
        # Stale: nothing was done (the page moved, or its tree did not answer in time on a busy machine):
        # the cover is found again in the fresh observation, as the tool asks.
        if st.get("status") != "stale" or attempt > STALE_RETRIES:
            break
        start = await poll_see(computer, policies.start_cover, PAGE_TIMEOUT, "the START cover")
    if st.get("status") not in ("ok", "no_visible_change"):
        raise EpisodeFailed(f"click START: {text[:300]}")
    _, match = await poll_see(computer, lambda els: policies.read_instruction(task, els), INSTRUCTION_TIMEOUT,
                              "the instruction")
    for step in policies.plan(task, match):
        # A stale answer means nothing was done and the page moved on (MiniWoB rebuilds its task page as an
        # episode starts): find the target again in the fresh observation and retry, as the tool asks.
        for attempt in range(1, STALE_RETRIES + 2):
            target = await poll_see(computer, step.locate, INSTRUCTION_TIMEOUT, step.what)
            remember(rec, computer, step, target)
            args = {"action": step.action, "observation_id": computer.latest["id"], "element_id": target["id"]}
            if step.action == "type":
                args["text"] = step.text
            st, text = await computer.call(**args)
            rec["steps"] += 1
            rec["trace"][-1] += f" -> {st.get('tag')} {st.get('summary') or ''}"
            if st.get("status") != "stale" or attempt > STALE_RETRIES:
                break
        status = st.get("status")
        if status == "refused":
            if step.secret and "password field" in text:
                rec["refused"] = True
                rec["wall_s"] = now() - t0
                rec["note"] = "refused: " + (st.get("message") or "password field")
                return
            raise EpisodeFailed(f"{step.action} {step.what} refused: {st.get('message') or text[:300]}")
        if status not in ("ok", "no_visible_change"):
            raise EpisodeFailed(f"{step.action} {step.what}: {text[:300]}")
        if step.secret:
            rec["typed_password"] = True
            rec["note"] = "the password was typed (no refusal)"
    rec["reward"] = await read_reward(computer)
    rec["wall_s"] = now() - t0


async def reference_episode(computer, xdo, task, rec):
    """The same policy; handrail only looks (`see`), xdotool acts at the target's centre."""
    def screen_point(element):
        scale = (computer.latest or {}).get("scale") or 1.0
        x, y = policies.center(element)
        return round(x * scale), round(y * scale)

    start = rec["_start"]
    t0 = now()
    await xdo.click(*screen_point(start))
    rec["steps"] += 1
    computer.latest = None  # the screen has moved on: the next target needs a new `see`
    _, match = await poll_see(computer, lambda els: policies.read_instruction(task, els), INSTRUCTION_TIMEOUT,
                              "the instruction")
    for step in policies.plan(task, match):
        target = await poll_see(computer, step.locate, INSTRUCTION_TIMEOUT, step.what)
        remember(rec, computer, step, target)
        if step.action == "click" or "focused" not in target["states"]:
            await xdo.click(*screen_point(target))
            rec["steps"] += 1
            computer.latest = None
        if step.action == "type":
            await xdo.type(step.text)
            rec["steps"] += 1
            computer.latest = None
            if step.secret:
                rec["typed_password"] = True
                rec["note"] = "typed the password"
    rec["reward"] = await read_reward(computer)
    rec["wall_s"] = now() - t0


async def episode(computer, xdo, pages, task, pipeline, index):
    rec = new_record(task, pipeline, index)
    computer.new_turn(f"{task}/{pipeline}/{index}", f"solve the MiniWoB++ task {task} on the page")
    sees_before = None
    t_all = now()
    try:
        rec["_start"] = await open_page(computer, pages.url(task))
        sees_before = computer.calls["see"]  # opening the page is set-up, not the policy's looking
        if pipeline == "handrail":
            await asyncio.wait_for(handrail_episode(computer, task, rec), EPISODE_TIMEOUT)
        else:
            await asyncio.wait_for(reference_episode(computer, xdo, task, rec), EPISODE_TIMEOUT)
    except (EpisodeFailed, asyncio.TimeoutError) as e:
        rec["note"] = str(e) or "episode timed out"
    rec["sees"] = 0 if sees_before is None else computer.calls["see"] - sees_before
    try:
        await close_page(computer)
    except Exception as e:  # a failed close shows up in the next episode's note
        rec["note"] += f" (closing the page: {e})"
    rec.pop("_start", None)
    if task in policies.PASSWORD_TASKS:
        rec["success"] = rec["refused"] if pipeline == "handrail" else (rec["reward"] or 0) > 0
    else:
        rec["success"] = (rec["reward"] or 0) > 0
    rec["total_s"] = now() - t_all
    if rec["success"]:
        rec.pop("page", None)
    return rec


def mean(values):
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else None


def fmt(value, digits=2):
    return "—" if value is None else f"{value:.{digits}f}"


def summarise(records, tasks, pipelines):
    rows = {}
    for task in tasks:
        for pipeline in pipelines:
            eps = [r for r in records if r["task"] == task and r["pipeline"] == pipeline]
            if not eps:
                continue
            rows[(task, pipeline)] = {
                "episodes": len(eps),
                "successes": sum(r["success"] for r in eps),
                "refused": sum(r["refused"] for r in eps),
                "typed_password": sum(r["typed_password"] for r in eps),
                "mean_reward": mean([r["reward"] for r in eps]),
                "mean_steps": mean([r["steps"] for r in eps]),
                "mean_sees": mean([r["sees"] for r in eps]),
                "mean_wall_s": mean([r["wall_s"] for r in eps]),
                "notes": sorted({r["note"] for r in eps if r["note"] and not r["success"]}),
            }
    return rows


def table(rows, records, tasks, pipelines):
    head = "| task |"
    rule = "|---|"
    for p in pipelines:
        head += f" {p}: success | reward | steps | sees | s/episode |"
        rule += "---:|---:|---:|---:|---:|"
    lines = [head, rule]
    for task in tasks:
        line = f"| {task} |"
        for p in pipelines:
            row = rows.get((task, p))
            if row is None:
                line += " | | | | |"
                continue
            ok = f"{row['successes']}/{row['episodes']}"
            if task in policies.PASSWORD_TASKS and p == "handrail":
                ok += " refused as designed" if row["refused"] == row["episodes"] else " refused"
            elif task in policies.PASSWORD_TASKS:
                ok += f" solved; password typed {row['typed_password']}/{row['episodes']}"
            line += (f" {ok} | {fmt(row['mean_reward'])} | {fmt(row['mean_steps'], 1)} | "
                     f"{fmt(row['mean_sees'], 1)} | {fmt(row['mean_wall_s'], 1)} |")
        lines.append(line)
    for p in pipelines:
        main = [r for (t, q), r in rows.items() if q == p and t not in policies.PASSWORD_TASKS]
        if main:
            n = sum(r["episodes"] for r in main)
            k = sum(r["successes"] for r in main)
            lines.append(f"\n{p}: {k}/{n} = {100 * k / n:.1f}% success on the {len(main)} non-password tasks.")
    for p in pipelines:
        eps = [r for r in records if r["pipeline"] == p]
        lines.append(f"\n{p}: {sum(r['total_s'] for r in eps):.0f} s for its {len(eps)} episodes, "
                     "opening and closing the page included.")
    return "\n".join(lines)


def failures(records):
    out = []
    for r in records:
        if not r["success"]:
            out.append(f"- {r['task']} ({r['pipeline']}, episode {r['episode']}): reward {fmt(r['reward'])}; "
                       f"{r['note'] or 'no note'}; acted: {'; '.join(r['trace']) or 'nothing'}")
    return "\n".join(out)


async def run(args):
    tasks = args.tasks.split(",") if args.tasks else ALL_TASKS
    unknown = [t for t in tasks if t not in policies.TASKS]
    if unknown:
        raise SystemExit(f"no policy for {', '.join(unknown)}; covered: {', '.join(policies.TASKS)}")
    if args.shard:
        index, count = args.shard
        tasks = tasks[index::count]
    pipelines = args.pipelines.split(",")
    pages = PageServer(miniwob_html_dir())
    server = HandrailServer(args.handrail)
    records = []
    t_run = time.time()
    started = datetime.datetime.now(datetime.timezone.utc)
    try:
        xdo = Xdo(server.display, args.shots, args.verbose) if "reference" in pipelines else None
        async with connect(server.url) as client:
            computer = Computer(client, args.verbose)
            for task in tasks:
                for pipeline in pipelines:
                    for i in range(1, args.episodes + 1):
                        rec = await episode(computer, xdo, pages, task, pipeline, i)
                        records.append(rec)
                        print(f"{task:22} {pipeline:9} ep {i:2}: {'ok  ' if rec['success'] else 'FAIL'} "
                              f"reward={fmt(rec['reward'])} steps={rec['steps']} sees={rec['sees']} "
                              f"wall={fmt(rec['wall_s'])}s {rec['note']}", flush=True)
    finally:
        server.stop()
        pages.close()
    wall = time.time() - t_run
    rows = summarise(records, tasks, pipelines)
    report = table(rows, records, tasks, pipelines)
    print("\n" + report)
    fails = failures(records)
    if fails:
        print("\nfailed episodes:\n" + fails)
    print(f"\nwall time of the whole run: {wall:.0f} s")
    summary = {
        "date": started.isoformat(timespec="seconds"),
        "command": " ".join([os.path.relpath(sys.argv[0], REPO)] + sys.argv[1:]),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, {platform.platform()}",
        "episodes_per_task": args.episodes,
        "wall_s": wall,
        "tasks": {f"{t}/{p}": r for (t, p), r in rows.items()},
        "records": records,
    }
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=1))
    if args.out:
        Path(args.out).write_text(f"{report}\n\nfailed episodes:\n{fails or '(none)'}\n\n"
                                  f"wall time of the whole run: {wall:.0f} s\n")
    return summary


def shard(text):
    """`I/N` with 0 <= I < N."""
    try:
        index, count = (int(x) for x in text.split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not I/N") from None
    if not 0 <= index < count:
        raise argparse.ArgumentTypeError(f"{text!r}: I must be in 0..N-1")
    return index, count


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tasks", help="comma-separated task names (default: all covered tasks)")
    ap.add_argument("--shard", type=shard, help="I/N: every N-th task from the I-th (0-based)")
    ap.add_argument("--episodes", type=int, default=10)
    ap.add_argument("--pipelines", default="handrail,reference", help="handrail, reference or both")
    ap.add_argument("--handrail", default=str(REPO / "target/release/handrail"), help="the handrail binary")
    ap.add_argument("--out", help="write the markdown table here")
    ap.add_argument("--json", help="write every episode and the summary here")
    ap.add_argument("--verbose", action="store_true", help="print every computer call and its duration")
    ap.add_argument("--shots", default=str(REPO / "target/miniwob-shots"),
                    help="where the reference pipeline's scrot screenshots go")
    ap.add_argument("--poll", type=float, default=0.3,
                    help="seconds between two looks while waiting for something (0: back to back)")
    args = ap.parse_args()
    global POLL  # noqa: PLW0603 (one setting for the whole run)
    POLL = max(0.0, args.poll)
    for p in args.pipelines.split(","):
        if p not in ("handrail", "reference"):
            raise SystemExit(f"unknown pipeline {p!r}")
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
