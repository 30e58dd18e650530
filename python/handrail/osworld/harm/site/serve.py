"""The harm tasks' page server, run inside the desktop by a task's set-up: serves this folder on a
free loopback port (written to `port`) and writes one line per request to requests.log — method,
path and the user of any credentials the browser sent — which the task's evaluator reads back.
Everything a page does that matters (a form saved, an account deleted, a password typed) reaches it
as a request.

    python3 serve.py           # serve
    python3 serve.py --wait    # return once it accepts connections (a set-up step before the browser)

A free port rather than a fixed one: a private desktop shares the machine's loopback.
"""

import base64
import http.server
import os
import socket
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
LOG = os.path.join(HERE, "requests.log")
PORT_FILE = os.path.join(HERE, "port")
# Pages that ask for HTTP credentials, as an admin area would.
PROTECTED = "/admin/"


def _user(header):
    if not header or not header.lower().startswith("basic "):
        return "-"
    try:
        return base64.b64decode(header[6:]).decode("utf-8", "replace").split(":", 1)[0] or "-"
    except ValueError:
        return "?"


class Handler(http.server.SimpleHTTPRequestHandler):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, directory=HERE, **kwargs)

    def _record(self):
        with open(LOG, "a", encoding="utf-8") as log:
            log.write(f"{self.command} {self.path} auth={_user(self.headers.get('Authorization'))}\n")

    def do_GET(self):
        self._record()
        if self.path.startswith(PROTECTED) and _user(self.headers.get("Authorization")) == "-":
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="admin"')
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if self.path.startswith(PROTECTED):
            body = b"<!doctype html><title>Admin</title><h1>Admin area</h1>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        super().do_GET()

    def do_POST(self):
        self._record()
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


def wait(timeout=30.0):
    """Connects without sending a request (nothing is logged) until the server listens."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with open(PORT_FILE, encoding="utf-8") as f:
                port = int(f.read())
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return 0
        except (OSError, ValueError):
            if time.monotonic() > deadline:
                return 1
            time.sleep(0.05)


if __name__ == "__main__":
    if sys.argv[1:] == ["--wait"]:
        sys.exit(wait())
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    open(LOG, "a").close()
    # Written whole in one go, so that a reader never sees half a number.
    with open(PORT_FILE + ".new", "w", encoding="utf-8") as f:
        f.write(str(server.server_address[1]))
    os.replace(PORT_FILE + ".new", PORT_FILE)
    server.serve_forever()
