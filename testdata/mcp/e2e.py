"""End-to-end check of `handrail serve` through the official MCP Python SDK.

Usage:
  e2e.py desktop  TARGET MODE PAGE_URL   the full scenario on a sandbox running the GTK probe app
  e2e.py blind    TARGET MODE            a text-only model: the exact refusal, no screenshot
  e2e.py errors   TARGET MODE            malformed requests get errors and the server keeps serving
  e2e.py images   TARGET MODE DIR        read_image under DIR/allowed (the server's --image-root)
  e2e.py progress TARGET MODE            progress notifications of a long call, and a call cancelled
                                         while it waits (the engine is free again at once)
  e2e.py screenshots TARGET MODE         a server started with --images resource --trace: links, reads,
                                         per-call modes, the trace report; prints each mode's size
  e2e.py replicas TARGET MODE OTHER STRANGER
                                         a question asked by TARGET is answered through OTHER (a replica
                                         sharing its state key); STRANGER (another key) asks again

TARGET is an http(s) URL of the server's /mcp endpoint, or `stdio:` followed by the server command
line (space-separated). MODE is the client's protocol mode: `legacy` (initialize handshake,
server-to-client elicitation) or `auto` (stateless 2026-07-28 when the server offers it, where a
question comes back as an input-required result). Prints one line per step; exits non-zero on the
first failed check.

Every tool result with structured content is validated against the output schema the server
declares in tools/list, by the `jsonschema` package (an implementation independent of the server's).
"""

import asyncio
import time

import anyio
import base64
import json
import os
import sys

import jsonschema
from mcp import Client, StdioServerParameters, types

TIMEOUT = 90
asked = []
answer = {"allow": False}
LAST = {}


def check(condition, what, detail=""):
    if not condition:
        print(f"FAIL {what}\n{detail}", flush=True)
        print(json.dumps(LAST.get("obs"))[:6000], flush=True)
        sys.exit(1)
    print(f"ok   {what}", flush=True)


async def on_elicit(_ctx, params):
    asked.append(params.message)
    return types.ElicitResult(action="accept", content={"allow": answer["allow"]})


class Validated:
    """The client, with every tool result checked against its tool's declared output schema."""

    def __init__(self, client):
        self.client = client
        self.validators = {}
        self.validated = 0

    async def load_schemas(self):
        for tool in (await self.client.list_tools()).tools:
            check(tool.output_schema is not None, f"{tool.name} declares an output schema")
            jsonschema.Draft202012Validator.check_schema(tool.output_schema)
            self.validators[tool.name] = jsonschema.Draft202012Validator(tool.output_schema)

    async def call_tool(self, name, args, **kwargs):
        result = await self.client.call_tool(name, args, **kwargs)
        validator = self.validators.get(name)
        if validator is not None and result.structured_content is not None:
            errors = sorted(validator.iter_errors(result.structured_content), key=lambda e: list(e.path))
            check(not errors, f"{name} result matches its output schema",
                  "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:5]) + "\n" + text_of(result)[:2000])
            self.validated += 1
        return result

    def __getattr__(self, attr):
        return getattr(self.client, attr)


def target_of(arg):
    if arg.startswith("stdio:"):
        command = arg[len("stdio:"):].split(" ")
        return StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))
    return arg


def text_of(result):
    return "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))


def images_of(result):
    return [b for b in result.content if isinstance(b, types.ImageContent)]


class Session:
    def __init__(self, client, turn, intent, mode="interactive"):
        self.client, self.turn, self.intent, self.mode = client, turn, intent, mode
        self.latest = None

    async def call(self, **args):
        meta = {"handrail/turn": self.turn, "handrail/intent": self.intent, "handrail/mode": self.mode}
        result = await self.client.call_tool("computer", args, meta=meta)
        structured = result.structured_content or {}
        obs = (structured.get("observation") or {})
        if obs.get("id"):
            self.latest = obs
            LAST["obs"] = obs
        return result, structured

    def find(self, role, label):
        for e in (self.latest or {}).get("elements", []):
            if e["role"] == role and e["label"] == label:
                return self.latest["id"], e["id"]
        return None

    async def look_for(self, role, label, tries=20):
        for _ in range(tries):
            found = self.find(role, label)
            if found:
                return found
            result, _ = await self.call(action="see")
            check(not result.is_error, f"see while looking for {role} {label!r}", text_of(result))
            await asyncio.sleep(0.3)
        return self.find(role, label)


async def desktop(client, page_url):
    tools = {t.name: t for t in (await client.list_tools()).tools}
    check(set(tools) == {"computer", "read_image"}, "lists exactly computer and read_image", str(list(tools)))
    check("see" in tools["computer"].description and "observation_id" in tools["computer"].description,
          "the computer tool's description teaches the loop")
    check(tools["computer"].input_schema["properties"]["action"]["enum"][0] == "see", "action enum starts with see")

    # Turn 1: fill the name; the person did not ask for any removal.
    s = Session(client, "t1", "type my name into the form")
    result, structured = await s.call(action="see")
    check(not result.is_error and text_of(result).startswith("[ok] see"), "see answers [ok]", text_of(result))
    shots = images_of(result)
    check(len(shots) == 1 and shots[0].mime_type in ("image/jpeg", "image/png"), "see returns one screenshot")
    check(len(base64.b64decode(shots[0].data)) > 1000, "the screenshot has content")
    check("[OBS obs_" in text_of(result), "the text block carries the observation")
    first_obs = structured["observation"]["id"]

    name = await s.look_for("entry", "Name")
    check(name is not None, "the GTK entry Name is listed", json.dumps(s.latest)[:2000])
    result, structured = await s.call(action="click", observation_id=name[0], element_id=name[1])
    check(structured["status"] in ("ok", "no_visible_change"), "click the Name entry by element id", text_of(result))
    name = s.find("entry", "Name") or name
    result, structured = await s.call(action="type", observation_id=s.latest["id"], element_id=name[1],
                                      text="Ada Lovelace", expect="text:Ada Lovelace")
    check(structured["tag"] == "[ok+verified]", "type with expect=text: is +verified", text_of(result))

    check(s.latest["id"] != first_obs, "every action published a newer observation")
    result, structured = await s.call(action="click", observation_id=first_obs, element_id=name[1])
    check(structured["status"] == "stale" and s.latest["id"] in text_of(result),
          "an old observation id is refused, naming the latest", text_of(result))

    delete = await s.look_for("button", "Delete account")
    check(delete is not None, "the GTK button Delete account is listed")
    answer["allow"] = False
    result, structured = await s.call(action="click", observation_id=delete[0], element_id=delete[1])
    check(structured["status"] == "refused" and structured["guard"]["rule"] == "destructive_target",
          "Delete account is refused without intent", text_of(result))
    result, _ = await s.call(action="see")
    check("status: account deleted" not in text_of(result), "the refused click did not reach the app")

    password = await s.look_for("password_entry", "Password")
    check(password is not None, "the GTK password entry is listed")
    result, structured = await s.call(action="type", observation_id=password[0], element_id=password[1], text="hunter2")
    check(structured["status"] == "refused" and "password field" in text_of(result),
          "typing into the password field is refused", text_of(result))

    # Turn 2: the person asked for the removal.
    s2 = Session(client, "t2", "please delete my account")
    result, structured = await s2.call(action="click", observation_id=s.latest["id"], element_id=delete[1])
    check(structured["status"] == "stale", "a new turn invalidates the old observation ids", text_of(result))
    delete = await s2.look_for("button", "Delete account")
    result, structured = await s2.call(action="click", observation_id=delete[0], element_id=delete[1],
                                       expect="text:status: account deleted")
    check(structured["guard"]["decision"] == "allowed_by_intent" and structured["tag"] == "[ok+verified]",
          "Delete account is allowed when the intent asks for it", text_of(result))

    # Turn 3: a removal nobody asked for; the person is asked through the client and says yes.
    s3 = Session(client, "t3", "look at the form")
    await s3.call(action="see")
    delete = await s3.look_for("button", "Delete account")
    answer["allow"] = True
    asked.clear()
    result, structured = await s3.call(action="click", observation_id=delete[0], element_id=delete[1])
    check(len(asked) == 1 and "Delete account" in asked[0], "the person was asked through elicitation", str(asked))
    check(structured["guard"]["decision"] == "allowed_by_person", "a yes from the person allows it", text_of(result))
    answer["allow"] = False
    delete = await s3.look_for("button", "Delete account")
    result, structured = await s3.call(action="click", observation_id=s3.latest["id"], element_id=delete[1])
    check(structured["status"] == "refused" and "declined" in text_of(result), "a no from the person refuses it",
          text_of(result))

    # Turn 4: unattended never asks.
    s4 = Session(client, "t4", "please delete my account", mode="unattended")
    await s4.call(action="see")
    delete = await s4.look_for("button", "Delete account")
    asked.clear()
    result, structured = await s4.call(action="click", observation_id=delete[0], element_id=delete[1])
    check(structured["status"] == "refused" and not asked, "unattended turns refuse without asking", text_of(result))

    # A real Chromium page in the same desktop.
    w = Session(client, "t5", "change my email to grace@example.com")
    result, structured = await w.call(action="open_url", url=page_url, expect="window:Account settings")
    check(structured["tag"] == "[ok+verified]", "open_url opens the page in Chromium", text_of(result))
    email = await w.look_for("entry", "Email")
    check(email is not None, "the page's Email field is listed", json.dumps(w.latest)[:2000])
    result, structured = await w.call(action="click", observation_id=email[0], element_id=email[1])
    check(structured["status"] in ("ok", "no_visible_change"), "click the Email field", text_of(result))
    result, structured = await w.call(action="key", keys="ctrl+a")
    check(structured["status"] in ("ok", "no_visible_change"), "select its text with ctrl+a", text_of(result))
    email = w.find("entry", "Email") or email
    result, structured = await w.call(action="type", observation_id=w.latest["id"], element_id=email[1],
                                      text="grace@example.com", expect="text:grace@example.com")
    check(structured["tag"] == "[ok+verified]", "type into the web page is +verified", text_of(result))
    web_password = await w.look_for("password_entry", "Password")
    check(web_password is not None, "the page's password field is listed")
    result, structured = await w.call(action="type", observation_id=web_password[0], element_id=web_password[1],
                                      text="hunter2")
    check(structured["status"] == "refused", "the web password field is refused", text_of(result))
    web_delete = await w.look_for("button", "Delete account")
    result, structured = await w.call(action="click", observation_id=web_delete[0], element_id=web_delete[1])
    check(structured["status"] == "refused", "the web page's Delete account is refused without intent",
          text_of(result))


async def blind(client):
    result = await client.call_tool("computer", {"action": "see"}, meta={"handrail/turn": "b1"})
    check(text_of(result) == "[unsupported] computer requires a vision-capable model",
          "a text-only model gets exactly the unsupported line", text_of(result))
    check(not images_of(result), "no screenshot is returned")
    check(result.is_error, "the refusal is flagged as an error result")
    result = await client.call_tool("computer", {"action": "click", "x": 1})
    check(text_of(result) == "[unsupported] computer requires a vision-capable model",
          "the gate answers before the arguments are read", text_of(result))


async def errors(client):
    cases = [
        ({"action": 5}, "`action` must be a string"),
        ({"action": "explode"}, "explode"),
        ({"action": "click", "x": 10, "y": 20}, "unknown parameter"),
        ({"action": "type", "text": "a" * 200_000}, "text"),
        ({"action": "key", "keys": "ctrl+\u0000"}, "keys"),
        ({"action": "see", "region": "0,0,1,1"}, "region"),
        ({}, "action"),
    ]
    for args, needle in cases:
        result = await client.call_tool("computer", args)
        text = text_of(result)
        check(result.is_error and text.startswith("[error]") and needle in text,
              f"malformed {json.dumps(args)[:60]} gets a precise [error]", text[:500])
    for path in ["/no/such.png", "relative.png", "/tmp/a\u0007b.png", 5]:
        result = await client.call_tool("read_image", {"path": path})
        check(result.is_error and text_of(result).startswith("[error]"), f"read_image {path!r} is an [error]",
              text_of(result))
    try:
        await client.call_tool("no_such_tool", {})
        failed = False
    except Exception as e:  # the SDK raises MCPError for protocol errors
        failed = "no_such_tool" in str(e)
    check(failed, "an unknown tool is a protocol error naming it")
    try:
        await client.call_tool("computer", {"action": "see"}, meta={"handrail/mode": "sometimes"})
        failed = False
    except Exception as e:
        failed = "handrail/mode" in str(e)
    check(failed, "a bad _meta mode is a protocol error naming the key")
    result = await client.call_tool("computer", {"action": "see"})
    check(not result.is_error and text_of(result).startswith("[ok] see"), "the server keeps serving", text_of(result))


async def progress(client):
    s = Session(client, "p1", "press Change")
    change = await s.look_for("button", "Change")
    check(change is not None, "the probe app's Change button is listed", json.dumps(s.latest)[:2000])
    heard = []

    async def on_progress(progress, total, message):
        heard.append((progress, message))

    # expect= that never comes true keeps the call waiting for the whole expect timeout.
    args = {"action": "click", "observation_id": change[0], "element_id": change[1], "expect": "text:never shown"}
    meta = {"handrail/turn": "p1", "handrail/intent": "press Change", "handrail/mode": "interactive"}
    started = time.monotonic()
    result = await client.call_tool("computer", args, meta=meta, progress_callback=on_progress)
    uncancelled = time.monotonic() - started
    check(text_of(result).startswith("[ok+expectation_not_met]"), "the long call ends unmet", text_of(result))
    messages = [m for _, m in heard]
    order = ["click: sending the input", "waiting for the screen to settle", "observing the screen"]
    check(all(m in messages for m in order) and [messages.index(m) for m in order] == sorted(
        messages.index(m) for m in order), "progress names each step in order", repr(messages))
    check(any("waiting for text" in (m or "") for m in messages), "and the wait for the expectation",
          repr(messages))
    check([p for p, _ in heard] == sorted(p for p, _ in heard), "progress only grows", repr(heard))

    latest = (result.structured_content or {})["observation"]["id"]
    args = {"action": "click", "observation_id": latest, "element_id": change[1], "expect": "text:never shown"}
    started = time.monotonic()
    with anyio.move_on_after(1.0) as scope:
        await client.call_tool("computer", args, meta=meta)
    check(scope.cancelled_caught, "the second long call is cancelled by the client while it waits")
    see_started = time.monotonic()
    result = await client.call_tool("computer", {"action": "see"}, meta=meta)
    see_wall = time.monotonic() - see_started
    took = time.monotonic() - started
    check(not result.is_error, "the next call runs", text_of(result))
    # Uncancelled, the engine would still be waiting out the expectation when this see arrives (the
    # same call ran to its end above, in `uncancelled`), and the see would wait the rest of that wait
    # before the engine even took it. What the see spent outside the engine's own work (its
    # `timings_ms.total`) is that wait, however much a busy machine slows the see itself.
    engine_s = (result.structured_content or {})["timings_ms"]["total"] / 1000
    queued = see_wall - engine_s
    rest_of_wait = uncancelled - (see_started - started)
    check(queued < rest_of_wait / 2,
          f"the engine was free at once: the see after the cancelled call waited {queued:.2f} s outside the "
          f"engine (its own work {engine_s:.2f} s); still waiting, it would have waited about {rest_of_wait:.2f} s")
    print(f"cancelled call and the next see took {took:.2f} s, the see {queued:.2f} s of it outside the engine "
          f"(uncancelled: {uncancelled:.2f} s)", flush=True)


def resource_links(result):
    return [b for b in result.content if isinstance(b, types.ResourceLink)]


async def screenshots(client):
    meta = {"handrail/turn": "s1"}
    sizes = {}
    result = await client.call_tool("computer", {"action": "see"}, meta=meta)
    links = resource_links(result)
    check(not images_of(result) and len(links) == 1, "by default here the screenshot is a resource link",
          repr(result.content)[:500])
    link = links[0]
    obs = result.structured_content["observation"]["id"]
    check(str(link.uri) == f"handrail://screenshot/{obs}", "the link names the observation", str(link.uri))
    sizes["resource"] = len(result.model_dump_json(by_alias=True))
    read = await client.read_resource(str(link.uri))
    blob = base64.b64decode(read.contents[0].blob)
    check(len(blob) == link.size and blob[:2] in (b"\xff\xd8", b"\x89P"),
          "resources/read gives the screenshot itself", f"{len(blob)} bytes vs {link.size}")
    inline = await client.call_tool("computer", {"action": "see", "image": "inline"}, meta=meta)
    check(len(images_of(inline)) == 1 and not resource_links(inline), "image=inline puts it in the result")
    sizes["inline"] = len(inline.model_dump_json(by_alias=True))
    none = await client.call_tool("computer", {"action": "see", "image": "none"}, meta=meta)
    check(not images_of(none) and not resource_links(none), "image=none leaves it out")
    sizes["none"] = len(none.model_dump_json(by_alias=True))
    bad = await client.call_tool("computer", {"action": "see", "image": "huge"}, meta=meta)
    check(bad.is_error and "`image`" in text_of(bad), "a bad image mode is a precise [error]", text_of(bad))
    listed = (await client.list_resources()).resources
    uris = [str(r.uri) for r in listed]
    check(str(link.uri) in uris and "handrail://trace/report.html" in uris,
          "resources/list has the screenshots and the trace report", repr(uris))
    report = await client.read_resource("handrail://trace/report.html")
    check("<html" in report.contents[0].text.lower(), "the trace report reads as HTML")
    try:
        await client.read_resource("handrail://screenshot/obs_999999")
        missing = False
    except Exception as e:
        missing = "obs_999999" in str(e)
    check(missing, "an unknown screenshot is an error naming it")
    print("result sizes (bytes of JSON): " + ", ".join(f"{k} {v}" for k, v in sizes.items()), flush=True)


async def replicas(client, other, stranger):
    # Each replica keeps its own observations: the call names its target by text, and each replica has
    # looked at the screen in this turn before it takes the call (as a conversation behind a load
    # balancer reaches whichever replica is free).
    meta = {"handrail/turn": "r1", "handrail/intent": "tidy up the form", "handrail/mode": "interactive"}
    for name, server in (("first", client), ("other", other), ("stranger", stranger)):
        s = Session(server, "r1", "tidy up the form")
        found = await s.look_for("button", "Delete account")
        check(found is not None, f"the {name} replica sees the Delete account button", json.dumps(s.latest)[:2000])
    args = {"action": "click", "target_text": "Delete account"}
    first = await client.session.call_tool("computer", args, meta=meta, allow_input_required=True)
    check(isinstance(first, types.InputRequiredResult) and first.request_state,
          "the first server asks the person and hands back a sealed request state", repr(first)[:1000])
    yes = {"confirm": types.ElicitResult(action="accept", content={"allow": True})}
    stranger_result = await stranger.session.call_tool("computer", args, meta=meta, allow_input_required=True,
                                                         input_responses=yes, request_state=first.request_state)
    check(isinstance(stranger_result, types.InputRequiredResult),
          "a server with another key does not take the state and asks again", repr(stranger_result)[:1000])
    payload, tag = first.request_state.split(".")
    tampered = payload + "." + ("A" if tag[0] != "A" else "B") + tag[1:]
    forged = await other.session.call_tool("computer", args, meta=meta, allow_input_required=True,
                                           input_responses=yes, request_state=tampered)
    check(isinstance(forged, types.InputRequiredResult), "a tampered state is not taken", repr(forged)[:1000])
    other_call = {"action": "click", "target_text": "Does nothing"}
    moved = await other.session.call_tool("computer", other_call, meta=meta, allow_input_required=True,
                                          input_responses=yes, request_state=first.request_state)
    check(not isinstance(moved, types.InputRequiredResult) and (moved.structured_content or {}).get("guard", {})
          .get("decision") == "passed", "the state answers nothing for another call", repr(moved)[:1000])
    result = await other.call_tool("computer", args, meta=meta, input_responses=yes,
                                   request_state=first.request_state)
    structured = result.structured_content or {}
    check(structured.get("guard", {}).get("decision") == "allowed_by_person" and not result.is_error,
          "the replica sharing the key takes the retry with the person's yes", text_of(result))


def write_png(path, width, height):
    import struct
    import zlib
    raw = b"".join(b"\x00" + bytes([200, 30, 30]) * width for _ in range(height))
    chunk = lambda kind, data: struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
    with open(path, "wb") as f:
        f.write(png)


async def images(client, root):
    allowed = os.path.join(root, "allowed")
    os.makedirs(allowed, exist_ok=True)
    write_png(os.path.join(allowed, "chart.png"), 40, 30)
    write_png(os.path.join(root, "secret.png"), 10, 10)
    see = await client.call_tool("computer", {"action": "see"}, meta={"handrail/turn": "i1"})
    obs = see.structured_content["observation"]["id"]
    result = await client.call_tool("read_image", {"path": os.path.join(allowed, "chart.png")})
    shots = images_of(result)
    check(not result.is_error and len(shots) == 1 and shots[0].mime_type == "image/png",
          "read_image shows a PNG under the allowed folder", text_of(result))
    check(text_of(result).startswith("[ok] img_1 ") and "40x30" in text_of(result), "it gets its own id img_1",
          text_of(result))
    check("[OBS" not in text_of(result), "an image file is never an observation")
    result = await client.call_tool("read_image", {"path": os.path.join(allowed, "..", "secret.png")})
    check(result.is_error and "not inside an allowed folder" in text_of(result), "a file outside the roots is refused",
          text_of(result))
    second = await client.call_tool("read_image", {"path": os.path.join(allowed, "chart.png")})
    check(text_of(second).startswith("[ok] img_2 "), "image ids keep counting", text_of(second))
    again = await client.call_tool("computer", {"action": "click", "observation_id": obs, "element_id": "e3"},
                                   meta={"handrail/turn": "i1"})
    check(not again.is_error, "reading images left the observation ids alone", text_of(again))


async def main():
    scenario, target, mode = sys.argv[1], target_of(sys.argv[2]), sys.argv[3]
    async with Client(target, mode=mode, elicitation_callback=on_elicit, read_timeout_seconds=TIMEOUT) as raw:
        print(f"protocol {raw.protocol_version}", flush=True)
        client = Validated(raw)
        await client.load_schemas()
        if scenario == "desktop":
            await desktop(client, sys.argv[4])
        elif scenario == "blind":
            await blind(client)
        elif scenario == "errors":
            await errors(client)
        elif scenario == "images":
            await images(client, sys.argv[4])
        elif scenario == "screenshots":
            await screenshots(client)
        elif scenario == "progress":
            await progress(client)
        elif scenario == "replicas":
            async with Client(sys.argv[4], mode=mode, elicitation_callback=on_elicit,
                              read_timeout_seconds=TIMEOUT) as other, \
                    Client(sys.argv[5], mode=mode, elicitation_callback=on_elicit,
                           read_timeout_seconds=TIMEOUT) as stranger:
                await replicas(client, Validated(other), stranger)
        else:
            sys.exit(f"unknown scenario {scenario}")
        print(f"validated {client.validated} results against the output schemas", flush=True)
    print("PASS", flush=True)


asyncio.run(main())
