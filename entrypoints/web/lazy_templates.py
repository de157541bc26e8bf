"""A template engine made at the first page it renders, not when the app is built.

A service that only answers the API (agents, the CLI, MCP) never renders a
page, so it need not import Jinja at every start. Litestar asks for an engine
instance when the app is built; this one stands in for it and makes the real
engine at the first ``get_template`` or ``render_string``.
"""

from collections.abc import Callable, Mapping
from typing import Any

from litestar.template.base import TemplateEngineProtocol, TemplateProtocol

__all__ = ["LazyTemplates"]


class LazyTemplates:
    def __init__(self, make: Callable[[], TemplateEngineProtocol[Any, Any]]) -> None:
        self._make = make
        self._engine: TemplateEngineProtocol[Any, Any] | None = None
        #: callables registered before the engine was made: handed to it when it is
        self._callables: list[tuple[str, Callable[..., Any]]] = []

    def _made(self) -> TemplateEngineProtocol[Any, Any]:
        if self._engine is None:
            engine = self._make()
            for key, template_callable in self._callables:
                engine.register_template_callable(key, template_callable)
            self._engine = engine
        return self._engine

    def get_template(self, template_name: str) -> TemplateProtocol:
        return self._made().get_template(template_name)  # type: ignore[no-any-return]

    def render_string(self, template_string: str, context: Mapping[str, Any]) -> str:
        return self._made().render_string(template_string, context)

    def register_template_callable(self, key: str, template_callable: Callable[..., Any]) -> None:
        if self._engine is None:
            self._callables.append((key, template_callable))
        else:
            self._engine.register_template_callable(key, template_callable)
