"""``dsh-tools inspect`` as a real process: its URL answers when printed, and SIGTERM ends it with a page's stream open."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from dsh_tools.inspector.server import GRACEFUL_SHUTDOWN_SECONDS

DSH_TOOLS = Path(sys.executable).parent / "dsh-tools"

PROBE = """
import socket, sys
from dsh_tools.cli import main

class Probe:
    '''stdout that, the moment the URL is written, tries to connect to it.'''
    def __init__(self, out):
        self.out = out
    def write(self, text):
        if text.startswith("dsh-tools inspector: http://"):
            port = int(text.split("/")[2].rsplit(":", 1)[1])
            probe = socket.socket()
            try:
                probe.connect(("127.0.0.1", port))
                self.out.write("probe: accepting\\n")
            except OSError as error:
                self.out.write(f"probe: {error}\\n")
            finally:
                probe.close()
        return self.out.write(text)
    def __getattr__(self, name):
        return getattr(self.out, name)

sys.stdout = Probe(sys.stdout)
sys.exit(main(sys.argv[1:]))
"""


@pytest.fixture
def inspector(tmp_path: Path) -> Iterator[subprocess.Popen[str]]:
    server = subprocess.Popen(
        [str(DSH_TOOLS), "inspect", "--store", f"sqlite:///{tmp_path / 'calls.db'}", "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    yield server
    if server.poll() is None:
        server.kill()
    server.wait(timeout=30)


def test_the_url_is_printed_only_once_the_server_accepts_connections() -> None:
    command = [sys.executable, "-c", PROBE, "inspect", "--store", "memory:", "--port", "0"]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        assert server.stdout.readline().strip() == "probe: accepting"  # connecting at the moment of printing works
        assert server.stdout.readline().startswith("dsh-tools inspector: http://127.0.0.1:")
    finally:
        server.terminate()
        server.wait(timeout=30)


def connect(port: int, *, timeout: float) -> socket.socket:
    """A connection to ``127.0.0.1:port``, retried while refused (this test is not about when the URL is printed)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return socket.create_connection(("127.0.0.1", port), timeout=timeout)
        except ConnectionRefusedError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def read_until(connection: socket.socket, needle: bytes, *, timeout: float) -> bytes:
    """Bytes from ``connection`` until ``needle`` arrives, or the peer closes; at most ``timeout`` seconds."""
    received = b""
    deadline = time.monotonic() + timeout
    while needle not in received:
        connection.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            chunk = connection.recv(65536)
        except TimeoutError:
            break
        if not chunk:
            break
        received += chunk
    return received


def test_sigterm_ends_inspect_promptly_while_a_page_holds_the_live_stream(inspector: subprocess.Popen[str]) -> None:
    assert inspector.stdout is not None
    url = urlsplit(inspector.stdout.readline().split(": ", 1)[1].strip())
    token = parse_qs(url.query)["token"][0]
    assert url.port is not None
    with connect(url.port, timeout=10) as page:
        page.sendall(
            f"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:{url.port}\r\nAuthorization: Bearer {token}\r\n"
            "Accept: text/event-stream\r\n\r\n".encode()
        )
        opened = read_until(page, b"\r\n\r\n", timeout=20)
        assert opened.startswith(b"HTTP/1.1 200") and b"text/event-stream" in opened  # the page holds the live stream

        inspector.send_signal(signal.SIGTERM)
        started = time.monotonic()
        rest = read_until(page, b"0\r\n\r\n", timeout=30)
        inspector.wait(timeout=30)
        took = time.monotonic() - started
    assert rest.endswith(b"0\r\n\r\n")  # the stream was ended cleanly, not cut
    assert took < GRACEFUL_SHUTDOWN_SECONDS, took  # by itself: before shutdown's cut would have come


def test_ctrl_c_stops_inspect_without_a_traceback(tmp_path: Path) -> None:
    server = subprocess.Popen(
        [str(DSH_TOOLS), "inspect", "--store", "memory:", "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # as a terminal's foreground job
    )
    assert server.stdout is not None
    assert server.stdout.readline().startswith("dsh-tools inspector: ")
    server.send_signal(signal.SIGINT)
    _, err = server.communicate(timeout=30)
    assert server.returncode == 130 and "Traceback" not in err, (server.returncode, err)
