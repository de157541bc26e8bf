"""An OpenAPI document that is the API: real error bodies, bearer auth, offline docs pages.

Why: every operation documented only its success and a 400 in
Litestar's default shape, while real errors are ``{"error": {"reason", "detail"}}``
with 401/403/404/409/413/415/422/502/503; there was no security scheme; and the
``/schema`` pages loaded their scripts and fonts from CDNs, so they were blank
offline. Statuses are derived from what each handler takes (a key, a body, a path
or query parameter) plus a short table for what only the use case knows, so a
route added later is documented by the same rules.
"""

from collections.abc import Iterable, Mapping
from http import HTTPStatus
from typing import TYPE_CHECKING, Any

import msgspec
from litestar._openapi.schema_generation.plugins.struct import (  # no public name
    StructSchemaPlugin,
)
from litestar.handlers import HTTPRouteHandler
from litestar.openapi import OpenAPIConfig, ResponseSpec
from litestar.openapi.plugins import JsonRenderPlugin, SwaggerRenderPlugin
from litestar.openapi.spec import Components, OpenAPIType, Schema, SecurityScheme
from litestar.router import Router
from litestar.static_files import create_static_files_router

from entrypoints.http.schemas import ErrorBody

if TYPE_CHECKING:
    from litestar._openapi.schema_generation import SchemaCreator
    from litestar.typing import FieldDefinition

__all__ = [
    "ASSETS_PATH",
    "StrictStructSchemas",
    "docs_assets_router",
    "document_errors",
    "openapi_config",
]

ASSETS_PATH = "/schema/assets"
BEARER = "bearer"

#: what only the use case behind a route can answer (beyond key, body and parameters)
_USE_CASE_STATUSES: Mapping[str, frozenset[int]] = {
    "/api/memory/remember": frozenset({409, 502}),  # embedder_mismatch, embedder_failed
    "/api/search": frozenset({502}),
    "/api/context/pack": frozenset({502}),
    "/api/context/wake": frozenset(),
    # synthesis: an unknown run (404), a blocked draft or another embedder (409),
    # the embedder or the language model failed (502)
    "/api/synthesize": frozenset({409, 502}),
    "/api/synthesize/plan": frozenset({409, 502}),
    "/api/synthesize/sections": frozenset({404, 502}),
    "/api/synthesize/draft": frozenset({404, 502}),
    "/api/synthesize/verify": frozenset({404, 502}),
    "/api/synthesize/remember": frozenset({404, 409, 502}),
    # a JSON path or a multipart upload, read by the route itself (415: neither);
    # 404 also: no imports set up
    "/api/sources/imports": frozenset({400, 404, 413, 415, 422}),
    # a correction the source's state does not allow (transition_not_allowed), or one
    # applied with a preview that went stale (source_changed, preview_stale)
    "/api/memory/inspect/{source_id:str}/corrections/preview": frozenset({409}),
    "/api/memory/inspect/{source_id:str}/corrections": frozenset({409}),
    # deleting what a preview counted: the sources changed since (source_changed)
    "/api/memory/delete": frozenset({409}),
    # dropping an organisation: the home organisation or a stale preview token (409)
    "/api/admin/orgs/{org:str}/drop-preview": frozenset({409}),
    "/api/admin/orgs/{org:str}/drop": frozenset({409}),
    # re-embedding: an unknown embedder (422), one running or the same model (409),
    # the store cannot stage vectors (409)
    "/api/admin/reembed": frozenset({409, 422}),
    # reflection: 404 also when not configured; the LLM extractor failed (502);
    # a review the state machine forbids or a source changed since (409)
    "/api/memory/reflect": frozenset({404, 502}),
    "/api/memory/candidates": frozenset({404}),
    "/api/memory/candidates/propose": frozenset({404}),
    "/api/memory/candidates/{candidate_id:str}/accept": frozenset({409}),
    "/api/memory/candidates/{candidate_id:str}/preview": frozenset({404, 409}),
    "/api/memory/candidates/{candidate_id:str}/reject": frozenset({409}),
    "/api/memory/candidates/{candidate_id:str}/defer": frozenset({409}),
    # share: no such record visible to the key (404); a record that changed since its
    # preview, or a source no longer active (409)
    "/api/memory/share/preview": frozenset({404, 409}),
    "/api/memory/share": frozenset({404, 409}),
    # revoking one's own key or delegation: a stale token or the last owner key (409),
    # no token (422)
    "/api/access/keys/{key_id:str}/revoke": frozenset({409}),
    "/api/access/delegations/{delegation_id:str}/revoke": frozenset({409}),
}
_ADMIN_STATUSES = frozenset({404, 409, 422})  # unknown names, already_exists/last_owner_key
#: a key is checked in the store, so every keyed route can meet a failing store (502, 503)
_KEYED_STATUSES = frozenset({401, 403, 502, 503})
_BODY_STATUSES = frozenset({400, 413, 415, 422})
_DEPENDENCIES = frozenset({"services", "caller", "policy", "data", "request", "state"})

_DESCRIPTIONS = {
    400: "Malformed body or parameter: malformed_json, invalid_request, unknown_field",
    401: "No usable key: missing_api_key, invalid_api_key, revoked_api_key",
    403: "Refused by the memory policy; the reason names the rule",
    404: "not_found: no such record visible to the key (or no such route)",
    409: (
        "Contradicts what is stored: embedder_mismatch, already_exists, last_owner_key,"
        " synthesis_blocked, home_organization, preview_stale, transition_not_allowed,"
        " source_changed, reembed_running, reembed_same_model, reembed_incomplete"
    ),
    413: "content_too_large",
    415: "unsupported_media_type: the body must be application/json",
    422: (
        "A rule refused the input: empty_content, limit_out_of_range, invalid_filter,"
        " unknown_embedder, ..."
    ),
    502: "embedder_failed / llm_failed / store_failed: a model or the store failed",
    503: "store_locked / store_unavailable / starting",
}


def _statuses(handler: HTTPRouteHandler) -> set[int]:
    parameters = handler.parsed_fn_signature.parameters
    statuses: set[int] = set()
    if "caller" in parameters or "policy" in parameters:
        statuses |= _KEYED_STATUSES
    if "data" in parameters:
        statuses |= _BODY_STATUSES
    if any("{" in path for path in handler.paths):
        # an id that names nothing; 400 because Litestar documents one for any parameter
        statuses |= {400, 404}
    if set(parameters) - _DEPENDENCIES - _path_names(handler.paths):
        statuses |= {400, 422}
    for path in handler.paths:
        statuses |= _USE_CASE_STATUSES.get(path, frozenset())
        if path.startswith("/api/admin/"):
            statuses |= _ADMIN_STATUSES
    return statuses


def _path_names(paths: Iterable[str]) -> set[str]:
    names = set()
    for path in paths:
        for part in path.split("/"):
            if part.startswith("{"):
                names.add(part.strip("{}").split(":", 1)[0])
    return names


def document_errors(handlers: Iterable[Any]) -> None:
    """Give each route its error statuses with the real error body, and bearer security."""
    for handler in handlers:
        if not isinstance(handler, HTTPRouteHandler) or not handler.include_in_schema:
            continue
        statuses = _statuses(handler)
        handler.responses = {
            **(handler.responses or {}),
            **{
                status: ResponseSpec(
                    data_container=ErrorBody,
                    description=_DESCRIPTIONS.get(status, HTTPStatus(status).phrase),
                    generate_examples=False,
                )
                for status in sorted(statuses)
            },
        }
        if 401 in statuses:
            handler.security = [{BEARER: []}]


def openapi_config(version: str) -> OpenAPIConfig:
    """Swagger UI at ``/schema`` and ``/schema/swagger`` from local assets; JSON at openapi.json."""
    swagger = SwaggerRenderPlugin(
        path=["/", "/swagger"],
        js_url=f"{ASSETS_PATH}/swagger-ui-bundle.js",
        css_url=f"{ASSETS_PATH}/swagger-ui.css",
        standalone_preset_js_url=f"{ASSETS_PATH}/swagger-ui-standalone-preset.js",
        favicon=f"<link rel='icon' type='image/png' href='{ASSETS_PATH}/favicon-32x32.png'>",
    )
    return OpenAPIConfig(
        title="Tessera",
        version=version,
        description="Source-grounded memory for AI agents. Every error is "
        '{"error": {"reason": "<stable_code>", "detail": "..."}}.',
        components=Components(
            security_schemes={
                BEARER: SecurityScheme(
                    type="http",
                    scheme="bearer",
                    description="An API key: Authorization: Bearer tsk_<key id>_<secret>",
                )
            }
        ),
        render_plugins=[swagger, JsonRenderPlugin()],
    )


def docs_assets_router() -> Router:
    """The Swagger UI files, served by the service itself (no CDN)."""
    from swagger_ui_bundle import swagger_ui_path

    return create_static_files_router(
        path=ASSETS_PATH,
        directories=[str(swagger_ui_path)],
        include_in_schema=False,
        name="docs-assets",
    )


class StrictStructSchemas(StructSchemaPlugin):
    """Struct schemas that say what the server does (asked before Litestar's own plugin).

    - A body that refuses unknown fields (``400 unknown_field``) declares
      ``additionalProperties: false``; Litestar's plugin left it out, so the
      document allowed fields the strict decoding refuses.
    - A union of ``int`` and ``float`` (a metadata value) is ``anyOf``: Litestar
      writes ``oneOf``, and JSON Schema's ``number`` includes the integers, so
      every integer matched two alternatives and broke the document's own rule.
    """

    def to_openapi_schema(
        self, field_definition: "FieldDefinition", schema_creator: "SchemaCreator"
    ) -> Schema:
        schema = super().to_openapi_schema(field_definition, schema_creator)
        info = msgspec.inspect.type_info(field_definition.type_)
        if isinstance(info, msgspec.inspect.StructType) and info.forbid_unknown_fields:
            schema.additional_properties = False
        for prop in (schema.properties or {}).values():
            _overlaps_as_any_of(prop)
        return schema


def _overlaps_as_any_of(schema: object) -> None:
    if not isinstance(schema, Schema):
        return  # a Reference: its own component is made by this plugin
    types = {alt.type for alt in schema.one_of or () if isinstance(alt, Schema)}
    if {OpenAPIType.INTEGER, OpenAPIType.NUMBER} <= types:
        schema.any_of, schema.one_of = schema.one_of, None
    nested = [
        *(schema.one_of or ()),
        *(schema.any_of or ()),
        *(schema.properties or {}).values(),
        schema.items,
        schema.additional_properties,
    ]
    for part in nested:
        _overlaps_as_any_of(part)
