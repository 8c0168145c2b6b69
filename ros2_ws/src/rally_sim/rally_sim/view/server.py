"""
The view server's transport: the page over HTTP and a WebSocket, with aiohttp.

Runs in a thread of its own with its own event loop, so that whatever feeds
it (the ROS view node, a Gymnasium environment, a bag replay) only calls
publish() and latch() from its own thread. Each page gets the latched
messages (the scene, the cars, the drive's settings) and the newest state
when it connects, then every event, and of the frequent kinds (state, scan) only the newest one
not yet sent: a slow page skips states, it never falls behind.

Access: on localhost (the default) any page may connect: it drives when the
server drives, else it watches. Shared on a network (a host other than
localhost) the server has an access token: a page with it drives, one
without may only watch, and only if watching is allowed. A WebSocket whose
Origin is another site is refused (a web page elsewhere must not drive),
and on localhost so is a Host header that is not localhost (DNS
rebinding). Each message from a page is checked (protocol.py) before the
owner's handler sees it; a refused one is answered with the reason, and a
page that keeps sending them is disconnected.
"""

import asyncio
import collections
import hmac
import json
import os
import socket
import threading
import time
from typing import Callable, Deque, Dict, Optional, Set
from urllib.parse import urlsplit

from aiohttp import web, WSMsgType

from .protocol import DRIVING, Message, parse, ProtocolError

PAGE = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'page')
"""The page's files (HTML, JavaScript, CSS), shipped in the package: nothing from a CDN."""
LOCAL_HOSTS = ('127.0.0.1', 'localhost', '::1')
MAX_REFUSED = 20
"""A page that sends this many refused messages is disconnected."""
MAX_MESSAGES_PER_S = 400
"""Messages a page may send per second; the rest are refused."""
EVENT_BACKLOG = 1000
COALESCED = ('state', 'scan', 'replay_position')
"""Kinds of which a page gets only the newest one not yet sent."""

Handler = Callable[['Client', Message], None]


class Client:
    """One connected page."""

    def __init__(self, number: int, role: str, socket: web.WebSocketResponse):
        """Keep a page that may `role` ('drive' or 'watch')."""
        self.number, self.role, self.socket = number, role, socket
        self.pending: Dict[str, str] = {}
        self.events: Deque[str] = collections.deque(maxlen=EVENT_BACKLOG)
        self.wake = asyncio.Event()
        self.refused = 0
        self.window_start, self.window_count = time.monotonic(), 0

    def over_rate(self) -> bool:
        """Count a message; return whether this second's allowance is spent."""
        now = time.monotonic()
        if now - self.window_start >= 1.0:
            self.window_start, self.window_count = now, 0
        self.window_count += 1
        return self.window_count > MAX_MESSAGES_PER_S


class ViewServer:
    """Serves the page; sends it what publish() and latch() give; hands its messages on."""

    def __init__(self, drive: bool = False, host: str = '127.0.0.1', port: int = 8765,
                 token: Optional[str] = None, watch_without_token: bool = False,
                 on_message: Optional[Handler] = None, title: str = 'rally_sim',
                 on_connect: Optional[Callable[['Client'], None]] = None):
        """
        Make a server for one simulation (not yet listening: start()).

        token: required to drive (None: every page drives, when `drive`);
        watch_without_token: a page without the token may watch.
        """
        self.drive, self.host, self.port = drive, host, port
        self.token, self.watch_without_token = token, watch_without_token
        self.on_message = on_message or (lambda client, message: None)
        self.on_connect = on_connect or (lambda client: None)
        self.title = title
        self.clients: Set[Client] = set()
        self.latched: Dict[str, str] = {}
        self.newest: Dict[str, str] = {}
        self.ground_png: Optional[bytes] = None
        self.refused_total = 0
        self._count = 0
        self._loop: Optional[asyncio.AbstractEventLoop] = None
        self._runner: Optional[web.AppRunner] = None
        self._thread: Optional[threading.Thread] = None

    # ---- life --------------------------------------------------------------

    def start(self) -> str:
        """Listen (OSError if the port is taken) in a thread of its own; return the page's URL."""
        ready = threading.Event()
        failure = []

        def serve():
            loop = asyncio.new_event_loop()
            asyncio.set_event_loop(loop)
            self._loop = loop
            try:
                loop.run_until_complete(self._listen())
            except Exception as error:  # noqa: B902  -- handed to start()'s caller
                failure.append(error)
                loop.close()
                ready.set()
                return
            ready.set()
            loop.run_forever()
            loop.run_until_complete(self._runner.cleanup())
            loop.close()
        self._thread = threading.Thread(target=serve, name='view-server', daemon=True)
        self._thread.start()
        ready.wait()
        if failure:
            raise failure[0]
        return self.url()

    async def _listen(self) -> None:
        app = web.Application(client_max_size=64 * 1024)
        app.router.add_get('/', self._page)
        app.router.add_get('/ws', self._socket)
        app.router.add_get('/ground.png', self._ground)
        app.router.add_static('/static/', PAGE, show_index=False, follow_symlinks=False)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]

    def url(self, with_token: bool = True) -> str:
        """Return the page's address (with the access token, when there is one)."""
        if self.host in LOCAL_HOSTS:
            host = 'localhost'
        elif self.host in ('0.0.0.0', '::', ''):       # every interface: this machine's name
            host = socket.gethostname()
        else:
            host = f'[{self.host}]' if ':' in self.host else self.host
        query = f'?token={self.token}' if self.token and with_token else ''
        return f'http://{host}:{self.port}/{query}'

    def stop(self) -> None:
        """Close every page's connection and stop listening."""
        loop = self._loop
        if loop is None or not loop.is_running():
            return
        future = asyncio.run_coroutine_threadsafe(self._close_all(), loop)
        try:
            future.result(timeout=5.0)
        except Exception:  # noqa: B902  -- stopping anyway
            pass
        loop.call_soon_threadsafe(loop.stop)
        self._thread.join(timeout=5.0)

    async def _close_all(self) -> None:
        for client in list(self.clients):
            await client.socket.close()

    # ---- what the pages get ------------------------------------------------

    def publish(self, kind: str, payload: dict) -> None:
        """Send `payload` (type `kind`) to every page; thread-safe."""
        self._post(kind, json.dumps(dict(payload, type=kind), separators=(',', ':')), False)

    def latch(self, kind: str, payload: dict) -> None:
        """Send `payload` to every page and to each page that connects later."""
        self._post(kind, json.dumps(dict(payload, type=kind), separators=(',', ':')), True)

    def watched(self) -> bool:
        """Return whether a page is connected (else states need not be made)."""
        return bool(self.clients)

    def set_ground(self, png: Optional[bytes]) -> None:
        """Serve this picture of the ground at /ground.png."""
        self.ground_png = png

    def _post(self, kind: str, text: str, latched: bool) -> None:
        loop = self._loop
        if loop is None:                # not listening yet: kept for the pages to come
            self._keep(kind, text, latched)
            return
        if loop.is_closed():
            return
        try:
            loop.call_soon_threadsafe(self._fan_out, kind, text, latched)
        except RuntimeError:            # the loop closed meanwhile: nobody to tell
            pass

    def _keep(self, kind: str, text: str, latched: bool) -> None:
        if latched:
            self.latched[kind] = text
        if kind in COALESCED:
            self.newest[kind] = text

    def _fan_out(self, kind: str, text: str, latched: bool) -> None:
        self._keep(kind, text, latched)
        for client in self.clients:
            if kind in COALESCED:
                client.pending[kind] = text
            else:
                client.events.append(text)
            client.wake.set()

    # ---- HTTP --------------------------------------------------------------

    def role_of(self, request: web.Request) -> Optional[str]:
        """Return what the request's page may do: 'drive', 'watch' or None (nothing)."""
        if self.host in LOCAL_HOSTS and _host_name(request.host) not in LOCAL_HOSTS:
            return None
        given = request.query.get('token')
        if self.token is None or (given is not None
                                  and hmac.compare_digest(given.encode(), self.token.encode())):
            return 'drive' if self.drive else 'watch'
        return 'watch' if self.watch_without_token else None

    async def _page(self, request: web.Request) -> web.StreamResponse:
        if self.role_of(request) is None:
            return web.Response(status=403, text='this view needs its access token (?token=...)')
        return web.FileResponse(os.path.join(PAGE, 'index.html'),
                                headers={'Cache-Control': 'no-cache'})

    async def _ground(self, request: web.Request) -> web.StreamResponse:
        if self.role_of(request) is None:
            return web.Response(status=403)
        if self.ground_png is None:
            return web.Response(status=404, text='no ground: the stage has no surface map')
        return web.Response(body=self.ground_png, content_type='image/png',
                            headers={'Cache-Control': 'no-cache'})

    # ---- WebSocket ---------------------------------------------------------

    async def _socket(self, request: web.Request) -> web.StreamResponse:
        role = self.role_of(request)
        origin = request.headers.get('Origin')
        if origin and urlsplit(origin).netloc != request.host:
            role = None
        if role is None:
            return web.Response(status=403, text='not allowed to watch or drive this view')
        socket = web.WebSocketResponse(max_msg_size=64 * 1024, heartbeat=10.0,
                                       compress=False)     # small JSON on a near link
        await socket.prepare(request)
        self._count += 1
        client = Client(self._count, role, socket)
        self.clients.add(client)
        await socket.send_str(json.dumps({'type': 'hello', 'role': role, 'drive': self.drive,
                                          'title': self.title}))
        for text in list(self.latched.values()) + list(self.newest.values()):
            await socket.send_str(text)
        self.on_connect(client)
        sender = asyncio.ensure_future(self._send(client))
        try:
            async for frame in socket:
                if frame.type == WSMsgType.ERROR:
                    break
                await self._take(client, frame)
                if client.refused >= MAX_REFUSED:
                    await socket.close(code=1008, message=b'too many refused messages')
                    break
        finally:
            self.clients.discard(client)
            sender.cancel()
        return socket

    async def _take(self, client: Client, frame) -> None:
        """Check one message from a page; hand it on, or answer why it is refused."""
        try:
            if client.over_rate():
                raise ProtocolError(f'more than {MAX_MESSAGES_PER_S} messages a second')
            message = parse(frame.data if frame.type == WSMsgType.TEXT else b'')
            if message.type in DRIVING and client.role != 'drive':
                raise ProtocolError(f'{message.type}: this page may watch, not drive')
            self.on_message(client, message)
        except ProtocolError as error:
            client.refused += 1
            self.refused_total += 1
            await client.socket.send_str(json.dumps({'type': 'refused', 'reason': str(error)}))
        except ValueError as error:         # the owner refused what the message asks
            await client.socket.send_str(json.dumps({'type': 'refused', 'reason': str(error)}))

    async def _send(self, client: Client) -> None:
        """Send a page its events, then the newest of each frequent kind, as they come."""
        socket = client.socket
        try:
            while not socket.closed:
                await client.wake.wait()
                client.wake.clear()
                while client.events:
                    await socket.send_str(client.events.popleft())
                pending, client.pending = client.pending, {}
                for text in pending.values():
                    await socket.send_str(text)
        except (ConnectionError, RuntimeError):
            pass


def _host_name(host: str) -> str:
    """Return the name part of a Host header ('localhost:8765' -> 'localhost')."""
    if host.startswith('['):
        return host[1:host.find(']')]
    return host.rsplit(':', 1)[0] if host.count(':') == 1 else host
