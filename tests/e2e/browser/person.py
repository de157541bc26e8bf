"""One person in the browser: their own context (cookies), page and watchers.

Watches what every browser test must hold: every request stays on
127.0.0.1, no console error, no dialog, and keeps each response body so a
test can check that a canary never reached this person.
"""

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

from tests.e2e.browser.conftest import SCREENSHOTS, WIDTHS, Server
from tests.support.web_pages import Page, read_page

__all__ = ["People", "Person", "signed_in_people"]

#: axe-core impacts that fail the check
_SERIOUS = {"serious", "critical"}


class Person:
    def __init__(self, browser: Any, server: Server, name: str, *, script: bool = True) -> None:
        self.server = server
        self.name = name
        self.key = server.keys[name]
        self.context = browser.new_context(
            viewport={"width": 1280, "height": 900}, java_script_enabled=script
        )
        self.page = self.context.new_page()
        self.requests: list[str] = []
        self.console_errors: list[str] = []
        self.dialogs: list[str] = []
        self.bodies: list[str] = []
        #: pages a test opens on purpose that answer 4xx (chromium logs each as an error)
        self.expected_errors: set[str] = set()
        self.context.on("request", lambda request: self.requests.append(request.url))
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda error: self.console_errors.append(str(error)))
        self.page.on("dialog", self._dialog)
        self.page.on("response", self._response)

    def _console(self, message: Any) -> None:
        if message.type != "error":
            return
        url = (message.location or {}).get("url", "")
        if message.text.startswith("Failed to load resource") and url in self.expected_errors:
            return
        self.console_errors.append(f"{message.text} at {url}")

    def _dialog(self, dialog: Any) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def _response(self, response: Any) -> None:
        try:
            self.bodies.append(response.text())
        except Exception:  # a redirect has no body
            return

    # -- acting ------------------------------------------------------------------

    def url(self, path: str) -> str:
        return self.server.url + path

    def sign_in(self) -> None:
        self.page.goto(self.url("/memory/sign-in"))
        self.page.fill("#api_key", self.key)
        self.page.click("button:has-text('Sign in')")
        self.page.wait_for_url(self.url("/memory"))

    def sign_out(self) -> None:
        self.page.click("button:has-text('Sign out')")
        self.page.wait_for_url(self.url("/memory/sign-in"))

    def remember(self, text: str, space: str | None = None) -> str:
        self.page.goto(self.url("/memory"))
        self.page.fill("#note", text)
        if space is not None:
            self.page.select_option("#note-space", space)
        self.page.click("button:has-text('Remember')")
        self.page.wait_for_url("**/memory/sources/**")
        return urlsplit(self.page.url).path.rsplit("/", 1)[-1]

    def search(self, query: str) -> Page:
        self.page.goto(self.url("/memory/search?q=" + quote(query)))
        return read_page(self.page.content())

    def open(self, path: str, expect_error: bool = False) -> Page:
        if expect_error:
            self.expected_errors.add(self.url(path))
        self.page.goto(self.url(path))
        return read_page(self.page.content())

    def correct(self, source_id: str, action: str, target: str | None = None) -> None:
        """Preview then apply a correction through the source page's forms."""
        self.open(f"/memory/sources/{source_id}")
        form = self.page.locator(f"form:has(input[name=action][value={action}])")
        if target is not None:
            form.locator("details.paste summary").click()
            form.locator("input[name=target_id]").fill(target)
        form.locator("button[type=submit]").click()
        self.page.wait_for_url("**/preview")
        self.page.click("button:has-text('Apply')")
        self.page.wait_for_url(f"**/memory/sources/{source_id}?done={action}")

    # -- checking ----------------------------------------------------------------

    def screenshot(self, name: str) -> None:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        for width in WIDTHS:
            self.page.set_viewport_size({"width": width, "height": 900})
            path: Path = SCREENSHOTS / f"{name}-{width}.png"
            self.page.screenshot(path=str(path), full_page=True)
        self.page.set_viewport_size({"width": 1280, "height": 900})

    def serious_accessibility_findings(self) -> list[str]:
        from axe_playwright_python.sync_playwright import Axe

        found = Axe().run(self.page).response.get("violations", [])
        return [f"{v['id']} ({v['impact']})" for v in found if v.get("impact") in _SERIOUS]

    def check_clean(self) -> None:
        hosts = {urlsplit(u).hostname for u in self.requests if not u.startswith("data:")}
        assert hosts <= {"127.0.0.1"}, f"{self.name}: requests left 127.0.0.1: {hosts}"
        assert not self.console_errors, f"{self.name}: console errors {self.console_errors}"
        assert not self.dialogs, f"{self.name}: dialogs opened {self.dialogs}"
        assert self.page.evaluate("window.__xss === undefined"), "a script from memory ran"

    def close(self) -> None:
        self.context.close()


#: a module's people, by name, each made and signed in on first use
People = Callable[[str], Person]


def signed_in_people(browser: Any, server: Server) -> Iterator[People]:
    """People made on demand for a module, each signing in once (the service allows 10
    sign-ins a minute per client, and every person here is 127.0.0.1); when the module is
    done, each is checked clean (no console error, no request off loopback), then closed."""
    made: dict[str, Person] = {}

    def make(name: str) -> Person:
        if name not in made:
            made[name] = Person(browser, server, name)
            made[name].sign_in()
        return made[name]

    yield make
    try:
        for person in made.values():
            person.check_clean()
    finally:
        for person in made.values():
            person.close()


def signed_in_owner(browser: Any, server: Server) -> Iterator[Person]:
    """The owner, signed in, then checked clean and closed when the fixture ends."""
    person = Person(browser, server, "owner")
    person.sign_in()
    yield person
    try:
        person.check_clean()
    finally:
        person.close()
