"""The workspace's template engine is made at the first page: an API-only start never loads it."""

from collections.abc import Mapping
from typing import Any

from entrypoints.web.lazy_templates import LazyTemplates
from tests.support.fresh_process import run_fresh


def test_building_the_app_loads_no_template_engine_and_the_first_page_does() -> None:
    probe = (
        "import sys\n"
        "from litestar.testing import TestClient\n"
        "from tests.support.world import World\n"
        "from entrypoints.http.app import create_app\n"
        "app = create_app(World().services)\n"
        "print('jinja2' in sys.modules)\n"
        "with TestClient(app=app) as client:\n"
        "    page = client.get('/memory/sign-in')\n"
        "print(page.status_code, 'jinja2' in sys.modules, '<form' in page.text)\n"
    )
    assert run_fresh(probe).stdout.split("\n")[:2] == ["False", "200 True True"]


class _Engine:
    def __init__(self) -> None:
        self.callables: dict[str, Any] = {}

    def get_template(self, template_name: str) -> str:
        return f"template {template_name}"

    def render_string(self, template_string: str, context: Mapping[str, Any]) -> str:
        return template_string.format(**context)

    def register_template_callable(self, key: str, template_callable: Any) -> None:
        self.callables[key] = template_callable


def test_the_engine_is_made_once_with_every_callable_registered_before_or_after() -> None:
    made: list[_Engine] = []

    def make() -> _Engine:
        made.append(_Engine())
        return made[-1]

    lazy = LazyTemplates(make)
    lazy.register_template_callable("early", len)
    assert made == []
    template: object = lazy.get_template("home.html")
    assert template == "template home.html"
    assert lazy.render_string("{who}", {"who": "Maya"}) == "Maya"
    lazy.register_template_callable("late", str)
    assert len(made) == 1 and made[0].callables == {"early": len, "late": str}
