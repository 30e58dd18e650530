"""How soon a freshly started server answers its first look: `handrail serve --sandbox --vision yes`
over stdio, timed from process start to `initialize`'s answer, the first `see` call alone, a second one,
and start to the end of the first observation.

Usage: python3 bench/first_see.py target/release/handrail
"""
import json, subprocess, sys, time
binary = sys.argv[1]
t0 = time.monotonic()
p = subprocess.Popen([binary, "serve", "--sandbox", "--vision", "yes"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
def send(obj):
    p.stdin.write(json.dumps(obj) + "\n"); p.stdin.flush()
def recv(want_id):
    while True:
        line = p.stdout.readline()
        if not line:
            raise SystemExit("server closed")
        msg = json.loads(line)
        if msg.get("id") == want_id:
            return msg
send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}})
recv(1)
t_init = time.monotonic()
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
t1 = time.monotonic()
send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "computer", "arguments": {"action": "see"}}})
r = recv(2)
t2 = time.monotonic()
send({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "computer", "arguments": {"action": "see"}}})
recv(3)
t3 = time.monotonic()
ok = "result" in r and not r["result"].get("isError")
print(f"initialize answered {1000*(t_init-t0):.0f} ms after start; first see {1000*(t2-t1):.0f} ms (ok={ok}); second see {1000*(t3-t2):.0f} ms; start to first observation {1000*(t2-t0):.0f} ms")
p.stdin.close(); p.wait(timeout=20)
