#!/usr/bin/python3
"""A browser-based terminal for handrail's guard tests: the real xterm.js (Debian's node-xterm)
in a page, connected to a real bash on a pseudo-terminal, as ttyd, JupyterLab or an IDE's web
terminal are.

The page loads xterm.js's CommonJS modules from /usr/share/nodejs/xterm/lib through a small
synchronous `require` (Debian ships no browser bundle). Keys the page receives go to the shell with
POST /in (one at a time, in order); the shell's output comes back by long polling GET /out?from=N. Everything the shell
receives is also logged on stdout, so tests can see what reached it without relying on the screen:

    listening <url>      (once ready; open this in the browser)
    input <json string>  (bytes the page sent to the shell)

Usage: web_terminal.py [--cwd DIR]
"""
import json
import os
import pty
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

XTERM = "/usr/share/nodejs/xterm"

PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>web terminal</title>
<link rel="stylesheet" href="/xterm/lib/xterm.css">
<style>body{margin:0;background:#222} #term{margin:20px}</style></head>
<body><div id="term"></div>
<script>
const modules = {};
function resolve(dir, path) {
  const parts = (dir ? dir.split('/') : []);
  for (const p of path.split('/')) {
    if (p === '..') parts.pop(); else if (p !== '.') parts.push(p);
  }
  return parts.join('/');
}
function load(name) {
  if (modules[name]) return modules[name].exports;
  const xhr = new XMLHttpRequest();
  xhr.open('GET', '/xterm/' + name + '.js', false);
  xhr.send();
  if (xhr.status !== 200) throw new Error('cannot load ' + name);
  const module = {exports: {}};
  modules[name] = module;
  const dir = name.substring(0, name.lastIndexOf('/'));
  new Function('exports', 'require', 'module', xhr.responseText)(
    module.exports, (p) => load(resolve(dir, p)), module);
  return module.exports;
}
const Terminal = load('lib/xterm');
const term = new Terminal({cols: 90, rows: 16, fontSize: 18, fontFamily: 'DejaVu Sans Mono',
  theme: {background: '#ffffff', foreground: '#000000', cursor: '#000000'}});
term.open(document.getElementById('term'));
// Keys reach the shell in the order they were pressed: one POST at a time, whatever came
// meanwhile sent together next.
let unsent = '';
let sending = false;
async function send() {
  if (sending) return;
  sending = true;
  while (unsent) {
    const body = unsent;
    unsent = '';
    try {
      await fetch('/in', {method: 'POST', body});
    } catch (e) {
      unsent = body + unsent;
      await new Promise((ok) => setTimeout(ok, 100));
    }
  }
  sending = false;
}
term.on('data', (data) => { unsent += data; send(); });
let from = 0;
async function poll() {
  for (;;) {
    try {
      const r = await (await fetch('/out?from=' + from)).json();
      if (r.data) term.write(r.data);
      from = r.next;
    } catch (e) {
      await new Promise((ok) => setTimeout(ok, 200));
    }
  }
}
poll();
term.focus();
</script></body></html>
"""


class Shell:
    """bash on a pseudo-terminal; its output kept whole so pollers can ask from any offset."""

    def __init__(self, cwd):
        self.master, slave = pty.openpty()
        env = dict(os.environ, PS1="$ ", TERM="xterm")
        self.proc = subprocess.Popen(
            ["bash", "--norc", "--noprofile", "-i"],
            stdin=slave, stdout=slave, stderr=slave, cwd=cwd, env=env,
            start_new_session=True, close_fds=True,
        )
        os.close(slave)
        self.out = ""
        self.cond = threading.Condition()
        threading.Thread(target=self.read, daemon=True).start()

    def read(self):
        decoder = __import__("codecs").getincrementaldecoder("utf-8")("replace")
        while True:
            try:
                chunk = os.read(self.master, 4096)
            except OSError:
                return
            if not chunk:
                return
            with self.cond:
                self.out += decoder.decode(chunk)
                self.cond.notify_all()

    def since(self, start, wait):
        with self.cond:
            if len(self.out) <= start:
                self.cond.wait(wait)
            return self.out[start:], len(self.out)


def main():
    cwd = os.getcwd()
    if "--cwd" in sys.argv:
        cwd = sys.argv[sys.argv.index("--cwd") + 1]
    shell = Shell(cwd)

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def reply(self, status, body, kind):
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            url = urlparse(self.path)
            if url.path == "/":
                return self.reply(200, PAGE.encode(), "text/html; charset=utf-8")
            if url.path == "/out":
                start = int(parse_qs(url.query).get("from", ["0"])[0])
                data, end = shell.since(start, 1.0)
                return self.reply(200, json.dumps({"data": data, "next": end}).encode(), "application/json")
            if url.path.startswith("/xterm/"):
                rel = os.path.normpath(url.path[len("/xterm/"):])
                path = os.path.join(XTERM, rel)
                if rel.startswith("..") or not os.path.isfile(path):
                    return self.reply(404, b"", "text/plain")
                kind = "text/css" if path.endswith(".css") else "application/javascript"
                with open(path, "rb") as f:
                    return self.reply(200, f.read(), kind)
            self.reply(404, b"", "text/plain")

        def do_POST(self):
            if self.path != "/in":
                return self.reply(404, b"", "text/plain")
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            print("input " + json.dumps(body.decode("utf-8", "replace")), flush=True)
            os.write(shell.master, body)
            self.reply(204, b"", "text/plain")

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print("listening http://127.0.0.1:%d/" % server.server_address[1], flush=True)
    try:
        server.serve_forever()
    finally:
        shell.proc.kill()


if __name__ == "__main__":
    main()
