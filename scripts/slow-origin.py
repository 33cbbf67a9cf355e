#!/usr/bin/env python3
"""A slow origin for the fleet rows of `make bench`: serves the files under
ROOT on 127.0.0.1:PORT, each GET answered after DELAY seconds (threaded, so
the delays overlap as a real origin's would), and appends "GET /path" to LOG
for each request so the bench can count GETs per path.

usage: slow-origin.py ROOT PORT DELAY LOG
"""
import http.server
import os
import sys
import threading
import time

root, port, delay, log_path = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
log_lock = threading.Lock()
log = open(log_path, "a", buffering=1)


class SlowHandler(http.server.SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as nginx

    def __init__(self, *args, **kwargs):
        super().__init__(*args, directory=root, **kwargs)

    def do_GET(self):
        with log_lock:
            log.write(f"GET {self.path}\n")
        time.sleep(delay)
        super().do_GET()

    def end_headers(self):
        self.send_header("Cache-Control", "max-age=86400")
        super().end_headers()

    def log_message(self, *args):
        pass


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256


Server(("127.0.0.1", port), SlowHandler).serve_forever()
