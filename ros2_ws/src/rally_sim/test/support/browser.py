"""
A real browser for the view's tests: Debian's chromium, headless (rally_sim/bench/browser.py).

The browser starts with a profile of its own in the test's folder and keeps
the page's console, so a test can say that the page logged no error.
"""

import json
import socket
import time
from typing import Callable
import urllib.request

from rally_sim.bench.browser import chromium
from selenium.webdriver.common.action_chains import ActionChains


def served(url: str, alive: Callable[[], bool], timeout_s: float) -> None:
    """Wait until `url` answers 200 (fail when `alive()` turns false or at the timeout)."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2.0) as answer:
                if answer.status == 200:
                    return
        except OSError:
            pass
        assert alive(), f'the server of {url} ended before it served the page'
        assert time.monotonic() < deadline, f'{url} was not served in {timeout_s:g} s'
        time.sleep(0.1)


def free_port() -> int:
    """Return a TCP port free on localhost now."""
    with socket.socket() as probe:
        probe.bind(('127.0.0.1', 0))
        return probe.getsockname()[1]


class Browser:
    """One headless chromium, driven by Selenium."""

    def __init__(self, folder: str):
        """Start the browser with a profile in `folder`."""
        self.driver = chromium(folder)
        self.console = []

    def open(self, url: str, before_load: str = '') -> None:  # noqa: A003  (a page)
        """Load the page (before_load: a script run in the page before its own)."""
        if before_load:
            self.driver.execute_cdp_cmd('Page.addScriptToEvaluateOnNewDocument',
                                        {'source': before_load})
        self.driver.get(url)

    def value(self, expression: str):
        """Return a JavaScript expression's value in the page (through JSON)."""
        return json.loads(self.driver.execute_script(f'return JSON.stringify({expression});'))

    def wait(self, expression: str, timeout_s: float = 60.0, every: Callable = None) -> object:
        """Wait until a JavaScript expression is truthy; return its value (fail at timeout)."""
        deadline = time.monotonic() + timeout_s
        while True:
            found = self.value(expression)
            if found:
                return found
            if time.monotonic() > deadline:
                raise AssertionError(f'the page never had {expression} in {timeout_s:g} s; '
                                     f'{self.state()}')
            if every is not None:
                every()
            time.sleep(0.05)

    def state(self) -> str:
        """Say what the page knows (for a failure's message): connection, role, console."""
        known = self.value('window.rallyView ? {role: rallyView.role, socket: rallyView.socket '
                           '&& rallyView.socket.readyState, t: rallyView.state && '
                           'rallyView.state.t} : "no rallyView"')
        self.console += self.driver.get_log('browser')
        console = [entry['message'] for entry in self.console[-10:]]
        return f'the page: {known}; its console: {console}'

    def key(self, key: str, down: bool) -> None:
        """Press (down) or release a key on the page, as a person's keyboard does."""
        actions = ActionChains(self.driver)
        (actions.key_down if down else actions.key_up)(key).perform()

    def errors(self) -> list:
        """Return the console's errors so far (the page's and the browser's)."""
        self.console += self.driver.get_log('browser')
        return [entry for entry in self.console if entry['level'] == 'SEVERE']

    def close(self) -> None:
        """Quit the browser."""
        self.driver.quit()
