"""A local forward proxy that is the fake remote end of akshare (Eastmoney, https) and tushare (Tushare, http).

How the real SDKs reach it, without any patching: both use ``requests``, which honours ``HTTPS_PROXY`` /
``HTTP_PROXY`` and verifies TLS against ``REQUESTS_CA_BUNDLE``. For an https URL requests sends
``CONNECT host:443`` to the proxy; the proxy accepts only the Eastmoney hosts akshare's five functions use,
terminates TLS with a leaf certificate for them (signed by a CA generated at test time, see tls_ca.py) and
answers the HTTP request inside the tunnel from FakeEastmoney. For Tushare's plain-http URL requests sends
``POST http://api.waditu.com/dataapi/...`` to the proxy, answered by FakeTushare. Any other host is refused
(403 to CONNECT, 403 to a plain request) and recorded, so a test can never reach the internet silently.

Use ``FakeMarketRemote`` as a context manager; ``env()`` gives the variables for the current process or a
subprocess (e.g. ``python -m screening universe refresh``).
"""

from __future__ import annotations

import http.server
import socketserver
import ssl
import tempfile
import threading
from pathlib import Path
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit

from tests.fakes.eastmoney import DROP, Answer, FakeEastmoney, Reply
from tests.fakes.eastmoney import HOSTS as EASTMONEY_HOSTS
from tests.fakes.faults import Faults
from tests.fakes.market_data import FakeMarket
from tests.fakes.tls_ca import make_test_pki
from tests.fakes.tushare_api import HOST as TUSHARE_HOST
from tests.fakes.tushare_api import FakeTushare, Grant

DEFAULT_TOKEN = "fake-tushare-token-5000"  # 5000 points, no separate anns_d permission (a common account)
FULL_TOKEN = "fake-tushare-token-full"  # 5000 points plus anns_d


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True
    remote: FakeMarketRemote


def _send(handler: http.server.BaseHTTPRequestHandler, answer: Answer) -> None:
    if answer is DROP:
        handler.close_connection = True
        return
    assert isinstance(answer, Reply)
    handler.send_response(answer.status)
    handler.send_header("Content-Type", answer.content_type)
    handler.send_header("Content-Length", str(len(answer.body)))
    handler.end_headers()
    handler.wfile.write(answer.body)


class _TunnelHandler(http.server.BaseHTTPRequestHandler):
    """HTTP inside a CONNECT tunnel, after TLS; one instance per tunnel."""

    protocol_version = "HTTP/1.1"
    host = ""

    def log_message(self, format: str, *args: Any) -> None:
        return

    def do_GET(self) -> None:
        remote: FakeMarketRemote = self.server.remote  # type: ignore[attr-defined]
        parts = urlsplit(self.path)
        answer = remote.eastmoney.handle(self.host, parts.path, parts.query)
        with remote.lock:
            remote.log.append(("GET", self.host, self.path))
        _send(self, answer)


class _ProxyHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        return

    @property
    def remote(self) -> FakeMarketRemote:
        return self.server.remote  # type: ignore[attr-defined]

    def _refuse(self, host: str) -> None:
        with self.remote.lock:
            self.remote.refused_hosts.append(host)
        self.send_error(403, f"fake market proxy: host {host!r} is not one of the faked remote ends")
        self.close_connection = True

    def do_CONNECT(self) -> None:
        host, _, port = self.path.rpartition(":")
        if host not in EASTMONEY_HOSTS or port != "443":
            self._refuse(self.path)
            return
        self.send_response(200, "Connection established")
        self.end_headers()
        self.wfile.flush()
        try:
            tls = self.remote.tls_context.wrap_socket(self.connection, server_side=True)
        except (ssl.SSLError, OSError):
            self.close_connection = True
            return
        handler = type("_Tunnel", (_TunnelHandler,), {"host": host})
        try:
            handler(tls, self.client_address, self.server)
        except (ssl.SSLError, OSError):
            pass
        finally:
            try:  # close_notify first: the client then sees a clean EOF -> RemoteDisconnected, like the live ban
                tls.unwrap()
            except (ssl.SSLError, OSError):
                pass
        self.close_connection = True

    def _plain(self, method: str) -> None:
        parts = urlsplit(self.path)
        if parts.scheme != "http" or parts.hostname != TUSHARE_HOST:
            self._refuse(parts.hostname or self.path)
            return
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        with self.remote.lock:
            self.remote.log.append((method, TUSHARE_HOST, parts.path))
        _send(self, self.remote.tushare.handle(method, parts.path, body))

    def do_GET(self) -> None:
        self._plain("GET")

    def do_POST(self) -> None:
        self._plain("POST")


class FakeMarketRemote:
    """The fake Eastmoney + Tushare remote ends behind one local proxy; start with ``with``."""

    def __init__(
        self,
        market: FakeMarket | None = None,
        *,
        clist_page_size: int | None = None,
        grants: dict[str, Grant] | None = None,
        workdir: Path | None = None,
    ) -> None:
        self.market = market or FakeMarket()
        self.faults = Faults()
        self.eastmoney = FakeEastmoney(self.market, self.faults, clist_page_size=clist_page_size)
        self.tushare = FakeTushare(
            self.market,
            self.faults,
            grants if grants is not None else {DEFAULT_TOKEN: Grant(5000), FULL_TOKEN: Grant(5000, {"anns_d"})},
        )
        self.lock = threading.Lock()
        self.log: list[tuple[str, str, str]] = []
        self.refused_hosts: list[str] = []
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        self._workdir = workdir
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self.tls_context: ssl.SSLContext

    # ---- lifecycle --------------------------------------------------------------------------------------
    def start(self) -> FakeMarketRemote:
        if self._workdir is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="fake-market-")
            self._workdir = Path(self._tmp.name)
        self.pki = make_test_pki(self._workdir, list(EASTMONEY_HOSTS))
        self.tls_context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.tls_context.load_cert_chain(self.pki.cert_file, self.pki.key_file)
        server = _Server(("127.0.0.1", 0), _ProxyHandler)
        server.remote = self
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, name="fake-market-proxy", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def __enter__(self) -> FakeMarketRemote:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    # ---- what clients need ------------------------------------------------------------------------------
    @property
    def proxy_url(self) -> str:
        assert self._server is not None, "start() first"
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}" if isinstance(host, str) else f"http://{host.decode()}:{port}"

    def env(self, *, tushare_token: str | None = DEFAULT_TOKEN) -> dict[str, str]:
        """Environment for a process whose SDKs must reach only the fakes.

        Both spellings of the proxy variables are set (requests reads lower case first); NO_PROXY keeps local
        servers (Redis, the fake Bot API) direct; the CA bundle variables hold only the test CA, so a request
        to any real https host would fail verification even if it got past the proxy.
        """
        env = {
            "HTTPS_PROXY": self.proxy_url, "https_proxy": self.proxy_url,
            "HTTP_PROXY": self.proxy_url, "http_proxy": self.proxy_url,
            "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost",
            "REQUESTS_CA_BUNDLE": str(self.pki.ca_file), "CURL_CA_BUNDLE": str(self.pki.ca_file),
            "SSL_CERT_FILE": str(self.pki.ca_file),
        }
        if tushare_token is not None:
            env["TUSHARE_TOKEN"] = tushare_token
        return env

    def clear_log(self) -> None:
        with self.lock:
            self.log.clear()
            self.refused_hosts.clear()
            self.eastmoney.served.clear()
            self.eastmoney.rejections.clear()
            self.eastmoney.requests = 0
            self.eastmoney.clist_hosts.clear()
            self.tushare.rejections.clear()
            self.tushare.calls.clear()

