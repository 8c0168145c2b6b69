"""
The view server over real HTTP and WebSocket connections (aiohttp's client).

Who may watch and who may drive, latched and newest messages for a page
that connects late, and hostile pages: every bad message refused with its
reason before the owner's handler sees it, a flood cut off, another site's
page and a rebinding Host refused.
"""

import asyncio
import json
import time

import aiohttp
import pytest
from rally_sim.view.server import MAX_MESSAGES_PER_S, MAX_REFUSED, ViewServer


class Owner:
    """What the server hands on (the simulation's side), kept to be looked at."""

    def __init__(self):
        self.messages = []

    def __call__(self, client, message):
        if message.type == 'assists' and message.fields['values'].get('abs') == 'no':
            raise ValueError('assist abs: true or false')
        self.messages.append((client.role, message))


@pytest.fixture
def serve():
    servers = []

    def start(**options):
        owner = Owner()
        server = ViewServer(port=0, on_message=owner, **options)
        server.start()
        servers.append(server)
        return server, owner
    yield start
    for server in servers:
        server.stop()


def address(server) -> str:
    """Return where the test reaches the server (a loopback address of its own, if it has one)."""
    return getattr(server, 'address', '127.0.0.1')


def run(coroutine):
    loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(coroutine)
    finally:
        loop.close()


async def session_of(server, query='', headers=None, send=(), expect=1):
    """Connect a page; send `send`; return what it got (at least `expect` messages)."""
    got = []
    async with aiohttp.ClientSession() as http:
        async with http.ws_connect(f'http://{address(server)}:{server.port}/ws{query}',
                                   headers=headers or {}) as socket:
            for item in send:
                if isinstance(item, bytes):
                    await socket.send_bytes(item)
                else:
                    await socket.send_str(item if isinstance(item, str) else json.dumps(item))
            while len(got) < expect:
                frame = await asyncio.wait_for(socket.receive(), 10.0)
                if frame.type != aiohttp.WSMsgType.TEXT:
                    got.append({'type': 'closed', 'code': socket.close_code})
                    break
                got.append(json.loads(frame.data))
    return got


async def status_of(server, path, headers=None):
    async with aiohttp.ClientSession() as http:
        async with http.get(f'http://{address(server)}:{server.port}{path}',
                            headers=headers or {}) as r:
            return r.status, await r.read()


def test_a_page_gets_hello_the_latched_messages_and_the_newest_state(serve):
    server, _ = serve(drive=True)
    server.latch('scene', {'bounds': [0, 0, 1, 1]})
    for t in (1.0, 2.0, 3.0):
        server.publish('state', {'t': t})
    server.publish('ghost', {'line': []})           # an event: for pages connected now only
    got = run(session_of(server, expect=3))
    assert [m['type'] for m in got] == ['hello', 'scene', 'state']
    assert got[0]['role'] == 'drive' and got[2]['t'] == 3.0
    status, page = run(status_of(server, '/'))
    assert status == 200 and b'<canvas id="world"' in page
    assert run(status_of(server, '/static/main.js'))[0] == 200
    assert run(status_of(server, '/static/../server.py'))[0] in (403, 404)
    assert run(status_of(server, '/ground.png'))[0] == 404      # no stage yet
    server.set_ground(b'\x89PNG')
    assert run(status_of(server, '/ground.png')) == (200, b'\x89PNG')


def test_what_is_latched_before_the_server_listens_reaches_the_pages():
    server = ViewServer(port=0, on_message=Owner(), drive=True)
    server.latch('drive', {'assists': {'abs': True}})     # a node tells before it serves
    server.publish('state', {'t': 0.5})
    server.publish('ghost', {'line': []})                 # an event: nobody to get it
    server.start()
    try:
        got = run(session_of(server, expect=3))
    finally:
        server.stop()
    assert [m['type'] for m in got] == ['hello', 'drive', 'state']
    assert got[1]['assists'] == {'abs': True} and got[2]['t'] == 0.5


def test_inputs_reach_the_owner_checked(serve):
    server, owner = serve(drive=True)
    run(session_of(server, send=[{'type': 'input', 'throttle': 1.0},
                                 {'type': 'action', 'name': 'gear_up'}], expect=1))
    for _ in range(100):                        # taken in the server's thread
        if len(owner.messages) == 2:
            break
        time.sleep(0.05)
    taken = [(role, m.type) for role, m in owner.messages]
    assert taken == [('drive', 'input'), ('drive', 'action')]
    assert owner.messages[0][1].fields['inputs'].throttle == 1.0


@pytest.mark.parametrize('sent, words', [
    (b'\x00binary', 'not binary'),
    ('{"type": "input", "steer": NaN}', 'not JSON'),
    ({'type': 'input', 'throttle': 7}, "field 'throttle' = 7"),
    ({'type': 'warp', 'to': 'anywhere'}, "unknown message type 'warp'"),
    ({'type': 'assists', 'abs': 'no'}, 'assist abs: true or false'),       # the owner's no
])
def test_bad_messages_are_refused_and_never_reach_the_simulation(serve, sent, words):
    server, owner = serve(drive=True)
    got = run(session_of(server, send=[sent], expect=2))
    assert got[1]['type'] == 'refused' and words in got[1]['reason']
    assert owner.messages == []


def test_a_watcher_may_not_drive(serve):
    server, owner = serve(drive=False)
    got = run(session_of(server, send=[{'type': 'input', 'throttle': 1.0}], expect=2))
    assert got[0]['role'] == 'watch'
    assert got[1] == {'type': 'refused', 'reason': 'input: this page may watch, not drive'}
    assert owner.messages == []


def test_shared_on_a_network_the_token_drives_and_others_watch_only_if_allowed(serve):
    server, owner = serve(drive=True, host='127.0.0.2', token='s3cret')   # not 'localhost'
    server.address = '127.0.0.2'
    assert run(session_of(server, '?token=s3cret'))[0]['role'] == 'drive'
    assert run(status_of(server, '/'))[0] == 403
    assert run(status_of(server, '/?token=wrong'))[0] == 403
    with pytest.raises(aiohttp.WSServerHandshakeError):
        run(session_of(server, '?token=wrong'))
    server.watch_without_token = True
    got = run(session_of(server, send=[{'type': 'input', 'throttle': 1.0}], expect=2))
    assert got[0]['role'] == 'watch' and got[1]['type'] == 'refused'
    assert owner.messages == []


def test_another_site_s_page_and_a_rebinding_host_are_refused(serve):
    server, owner = serve(drive=True)
    with pytest.raises(aiohttp.WSServerHandshakeError):
        run(session_of(server, headers={'Origin': 'http://evil.example'}))
    assert run(status_of(server, '/', headers={'Host': 'evil.example:80'}))[0] == 403
    same = {'Origin': f'http://127.0.0.1:{server.port}'}
    assert run(session_of(server, headers=same))[0]['role'] == 'drive'


def test_a_page_that_keeps_sending_bad_messages_is_disconnected(serve):
    server, owner = serve(drive=True)
    got = run(session_of(server, send=[{'type': 'nonsense'}] * (MAX_REFUSED + 5),
                         expect=MAX_REFUSED + 5))
    assert got[-1] == {'type': 'closed', 'code': 1008}
    assert sum(m['type'] == 'refused' for m in got) == MAX_REFUSED


def test_a_flood_is_cut_to_the_allowance(serve):
    server, owner = serve(drive=True)
    flood = [{'type': 'stats', 'fps': 60}] * (MAX_MESSAGES_PER_S + 10)
    got = run(session_of(server, send=flood, expect=11))
    assert [m['type'] for m in got[1:]] == ['refused'] * 10
    assert len(owner.messages) == MAX_MESSAGES_PER_S
