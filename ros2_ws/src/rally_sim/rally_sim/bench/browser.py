"""
A real browser for the view's benchmark (and tests): Debian's chromium, headless, by Selenium.

`./rally setup` installs chromium and chromedriver (apt) and Selenium's
client (requirements/view.txt). The browser gets a profile of its own and
no network of its own (no update checks, no sync: a closed machine refuses
them, many at a time), and keeps the page's console.
"""

import os

CHROMIUM, CHROMEDRIVER = '/usr/bin/chromium', '/usr/bin/chromedriver'
FLAGS = ('--headless=new', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
         '--disable-background-networking', '--disable-component-update', '--disable-sync',
         '--disable-dev-shm-usage', '--window-size=1280,800')


def chromium(profile: str):
    """Return a Selenium driver of a new headless chromium with its profile in `profile`."""
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    options = Options()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f'--user-data-dir={os.path.join(profile, "chromium")}')
    options.set_capability('goog:loggingPrefs', {'browser': 'ALL'})
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
