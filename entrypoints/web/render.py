"""Rendering workspace pages: one Jinja environment, autoescape on, strict about names.

Every value a page shows goes through Jinja's escaping (``autoescape=True``
for every template, whatever its name), so remembered markup renders as
text. Templates never mark memory text ``|safe``.
"""

from collections.abc import Callable, Mapping
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from litestar.response import Template
from litestar.template.config import TemplateConfig

from domain.scopes import MemoryScope
from entrypoints.import_words import record_words, skip_words
from entrypoints.web.lazy_templates import LazyTemplates
from entrypoints.web.viewer import Viewer
from entrypoints.web.why import why
from entrypoints.web.words import (
    BADGE_TONES,
    CANDIDATE_WORDS,
    DESTRUCTIVE,
    EXTRACTOR_WORDS,
    FORMAT_WORDS,
    KIND_WORDS,
    SCOPE_WORDS,
    STATUS_WORDS,
    SURFACE_WORDS,
    denial_words,
    duration_words,
    reason_words,
    size_words,
)

if TYPE_CHECKING:
    from jinja2 import Environment
    from markupsafe import Markup

__all__ = ["NAV", "TEMPLATES", "day", "exact_text", "page", "template_config", "when"]

TEMPLATES = Path(__file__).resolve().parent / "templates"
#: (label, path) of the top navigation, in order
NAV = (
    ("Memory", "/memory"),
    ("Search", "/memory/search"),
    ("Imports", "/memory/imports"),
    ("Review", "/memory/review"),
    ("Synthesize", "/memory/synthesize"),
    ("Access", "/memory/access"),
)


def when(moment: datetime | None) -> str:
    """A time as a person reads it: minutes, UTC."""
    return "" if moment is None else moment.strftime("%Y-%m-%d %H:%M UTC")


def day(moment: datetime | None) -> str:
    """A date as a result line says it: ``3 Mar 2024``."""
    return "" if moment is None else f"{moment.day} {moment:%b %Y}"


def exact_text(text: str) -> "Markup":
    """Text escaped so the page holds it character for character: the HTML parser reads a
    carriage return as a newline, a character reference keeps it (a selection's offsets
    then count the same characters as the server)."""
    from markupsafe import Markup, escape  # a filter: Jinja (and so markupsafe) is loaded

    return escape(text).replace("\r", Markup("&#13;"))


def _space_words(viewer: Viewer | None) -> Callable[[object, object], str]:
    """A space as a person reads it: a private space's key is a principal id, not a name."""

    def label(scope: object, key: object = None) -> str:
        if key in (None, ""):
            return f"{scope}"
        if scope == MemoryScope.PRIVATE:
            if viewer is not None and key == viewer.ctx.user_id:
                return "private · yours"
            if viewer is not None and key == viewer.ctx.agent_id:
                return "private · this agent's notes"
            return "private · an agent's notes"
        return f"{scope} · {key}"

    return label


def environment() -> "Environment":
    from jinja2 import Environment, FileSystemLoader, StrictUndefined

    env = Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["when"] = when
    env.filters["day"] = day
    env.filters["exact_text"] = exact_text
    env.globals["kind_words"] = KIND_WORDS
    env.globals["format_words"] = FORMAT_WORDS
    env.globals["candidate_words"] = CANDIDATE_WORDS
    env.globals["status_words"] = STATUS_WORDS
    env.globals["denial_words"] = denial_words
    env.filters["duration"] = duration_words
    env.filters["size"] = size_words
    env.globals["extractor_words"] = EXTRACTOR_WORDS
    env.globals["badge_tone"] = BADGE_TONES
    env.globals["destructive"] = DESTRUCTIVE
    env.globals["reason_words"] = reason_words
    env.globals["record_words"] = record_words
    env.globals["skip_words"] = skip_words
    env.globals["surface_words"] = SURFACE_WORDS
    env.globals["space_label"] = _space_words(None)
    env.globals["nav"] = NAV
    env.globals["why"] = why
    return env


def _jinja() -> Any:
    from litestar.plugins.jinja import JinjaTemplateEngine

    return JinjaTemplateEngine.from_environment(environment())


def template_config() -> TemplateConfig[LazyTemplates]:
    """Jinja, imported at the first page rendered (``lazy_templates``)."""
    return TemplateConfig(instance=LazyTemplates(_jinja))


def page(
    name: str,
    viewer: Viewer | None,
    *,
    status_code: int = 200,
    **context: Any,
) -> Template:
    """A page with the layout's facts: who is signed in, their CSRF token, the scopes."""
    base: Mapping[str, Any] = {
        "viewer": viewer,
        "csrf": viewer.session.csrf_token if viewer is not None else "",
        "scopes": [s.value for s in MemoryScope],
        "scope_words": SCOPE_WORDS,
        "space_label": _space_words(viewer),
    }
    return Template(template_name=name, context={**base, **context}, status_code=status_code)
