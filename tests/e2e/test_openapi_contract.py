"""The OpenAPI document is the API: every operation fuzzed with every check.

Schemathesis runs as ``st run --checks all`` would (its engine: the coverage,
fuzzing and stateful phases, positive and negative data) against the service on a
loopback port, wired by the composition root as ``tessera serve`` wires it
(SurrealDB, here ``mem://``; the offline hashing embedder for speed; imports
configured), authenticated as the owner so the operations run rather than answer
401. At least 3,000 cases; the count is printed. Every answer is checked: no server
error, a documented status and content type, a body matching its schema, 405
with ``Allow`` for an undocumented method, ``OPTIONS`` listing exactly the
documented methods, auth enforced, schema-valid data accepted and invalid data
refused.

One setting departs from the defaults: schema-valid data may also be refused
with 422, the status of rules a JSON schema cannot state (text must have visible
characters, a keyed scope needs its key, an embedder must exist). A 400 for
schema-valid data still fails: the document must say what the decoder refuses.
"""

import re
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import msgspec
import pytest
import schemathesis
import uvicorn
from litestar.testing import TestClient
from schemathesis.config import SchemathesisConfig
from schemathesis.core.result import Ok
from schemathesis.engine import events, from_schema

from adapters.inmemory.hashing_embedder import HashingEmbedder
from entrypoints.container import build_container
from entrypoints.http.app import create_app
from entrypoints.http.import_schemas import ImportStartBody
from entrypoints.settings import load_settings
from tests.e2e.conftest import free_port

pytestmark = pytest.mark.slow

#: per operation and phase; about 60 operations make well over 3,000 cases
MAX_EXAMPLES = 25
MIN_CASES = 3_000
#: a fixed seed: CI fuzzes the same cases each run (change it to explore others)
SEED = 20_240_611
#: schemathesis' defaults for positive data, and 422 (see the module's docstring)
ACCEPTED = ["2xx", "3xx", "401", "403", "404", "409", "422", "429", "5xx"]


@contextmanager
def _serving(data_dir: Path) -> Iterator[tuple[str, str]]:
    """The service on a loopback port, in a thread: its base URL and the owner's key.

    A real server, so every request runs on the one event loop the service opened on.
    """
    settings = load_settings({"TESSERA_DATA_DIR": str(data_dir), "TESSERA_DB_URL": "mem://"})
    container = build_container(settings)
    container.embedder.override(HashingEmbedder())
    services = container.services()
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(
            create_app(services), host="127.0.0.1", port=port, log_level="warning", lifespan="on"
        )
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        assert server.started and services.bootstrap_key is not None
        yield f"http://127.0.0.1:{port}", services.bootstrap_key.key
    finally:
        server.should_exit = True
        thread.join(timeout=60)


def _config(key: str) -> SchemathesisConfig:
    return SchemathesisConfig.from_dict(
        {
            "seed": SEED,
            "continue-on-failure": True,
            "generation": {
                "max-examples": MAX_EXAMPLES,
                "deterministic": True,
                "database": "none",
            },
            "auth": {"openapi": {"bearer": {"bearer": key}}},
            "checks": {"positive_data_acceptance": {"expected-statuses": ACCEPTED}},
        }
    )


def _describe(recorder: Any, case_id: str, failure: Any) -> str:
    interaction = recorder.interactions.get(case_id)
    sent = answer = ""
    if interaction is not None:
        request = interaction.request
        sent = f"{request.method} {request.uri} {str(request.body)[:300]}"
        if interaction.response is not None:
            response = interaction.response
            answer = f"{response.status_code} {response.content[:300]!r}"
    return f"{failure.title}: {str(failure.message)[:400]}\n    {sent}\n    -> {answer}"


#: what uvicorn answers, before any route runs, to a request line it cannot parse (a path
#: holding raw control characters): the HTTP server's protocol, not the API's contract
_UNPARSABLE = b"Invalid HTTP request received."


def _refused_by_http_server(recorder: Any, case_id: str) -> bool:
    interaction = recorder.interactions.get(case_id)
    response = None if interaction is None else interaction.response
    return (
        response is not None
        and response.status_code == 400
        and response.content.strip() == _UNPARSABLE
    )


def test_every_operation_under_every_check(tmp_path: Path) -> None:
    with _serving(tmp_path) as (base_url, key):
        _run_and_check(base_url, key)


def _run_and_check(base_url: str, key: str) -> None:
    schema = schemathesis.openapi.from_url(f"{base_url}/schema/openapi.json", config=_config(key))
    loaded = list(schema.get_all_operations())
    assert all(isinstance(result, Ok) for result in loaded), loaded  # the document is valid
    operations = [result.ok().label for result in loaded if isinstance(result, Ok)]
    assert len(operations) >= 55
    began = time.monotonic()
    cases = 0
    tested: set[str] = set()
    failures: Counter[str] = Counter()
    examples: dict[str, str] = {}
    errors: list[str] = []
    for event in from_schema(schema).execute():
        if isinstance(event, events.ScenarioFinished):
            cases += len(event.recorder.cases)
            tested.add(event.recorder.label)
            for case_id, nodes in event.recorder.checks.items():
                for node in nodes:
                    if node.failure_info is None or _refused_by_http_server(
                        event.recorder, case_id
                    ):
                        continue
                    kind = f"{event.recorder.label} [{node.name}]"
                    failures[kind] += 1
                    examples.setdefault(
                        kind, _describe(event.recorder, case_id, node.failure_info.failure)
                    )
        elif isinstance(event, events.NonFatalError | events.FatalError):
            errors.append(str(getattr(event, "info", None) or getattr(event, "exception", "")))
    print(
        f"schemathesis: {len(operations)} operations, {cases} cases, "
        f"{sum(failures.values())} failing checks, {time.monotonic() - began:.0f} s"
    )
    assert not errors, errors
    assert set(operations) <= tested, set(operations) - tested
    assert cases >= MIN_CASES, cases
    assert not failures, "\n".join(f"{n}x {k}\n  {examples[k]}" for k, n in failures.items())


def test_the_document_names_the_error_body_and_bearer_auth(client: TestClient) -> None:  # type: ignore[type-arg]
    doc = client.get("/schema/openapi.json").json()
    assert doc["components"]["securitySchemes"]["bearer"] == {
        "type": "http",
        "scheme": "bearer",
        "description": doc["components"]["securitySchemes"]["bearer"]["description"],
    }
    error = doc["components"]["schemas"]["ErrorBody"]
    assert error["required"] == ["error"]
    remember = doc["paths"]["/api/memory/remember"]["post"]
    assert {"201", "400", "401", "403", "409", "413", "415", "422", "502", "503"} <= set(
        remember["responses"]
    )
    assert remember["security"] == [{"bearer": []}]
    assert "security" not in doc["paths"]["/api/health"]["get"]
    for path in doc["paths"].values():
        for operation in path.values():
            for status, answer in operation["responses"].items():
                if int(status) >= 400:
                    ref = answer["content"]["application/json"]["schema"]["$ref"]
                    assert ref.endswith("/ErrorBody"), (status, operation["summary"])


def test_the_docs_pages_work_offline(client: TestClient) -> None:  # type: ignore[type-arg]
    for page in ("/schema", "/schema/swagger"):
        response = client.get(page)
        assert response.status_code == 200
        assert "https://" not in response.text and "http://" not in response.text
        for asset in ("swagger-ui-bundle.js", "swagger-ui.css", "swagger-ui-standalone-preset.js"):
            assert f"/schema/assets/{asset}" in response.text
            assert client.get(f"/schema/assets/{asset}").status_code == 200


def _operations(doc: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (path, method, operation)
        for path, operations in doc["paths"].items()
        for method, operation in operations.items()
    ]


def _resolved(doc: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = doc["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return schema


def test_request_bodies_declare_that_unknown_fields_are_refused(client: TestClient) -> None:  # type: ignore[type-arg]
    doc = client.get("/schema/openapi.json").json()
    bodies = [
        (path, operation["requestBody"]["content"]["application/json"]["schema"])
        for path, _, operation in _operations(doc)
        if "application/json" in operation.get("requestBody", {}).get("content", {})
    ]
    assert len(bodies) >= 30
    for path, schema in bodies:
        assert _resolved(doc, schema).get("additionalProperties") is False, path
        # and the server does refuse one (the document and the decoder agree)
        answer = client.post(re.sub(r"\{[^}]+\}", "x", path), json={"zz_unknown": 1})
        assert answer.status_code in {400, 404}, (path, answer.text)
        if answer.status_code == 400:
            assert answer.json()["error"]["reason"] == "unknown_field", path


def test_every_status_a_route_can_answer_is_documented(client: TestClient) -> None:  # type: ignore[type-arg]
    doc = client.get("/schema/openapi.json").json()
    for path, method, operation in _operations(doc):
        if "security" in operation:  # a key is checked in the store: it can fail there
            assert {"401", "403", "502", "503"} <= set(operation["responses"]), (method, path)
    paths = doc["paths"]
    base = "/api/memory/inspect/{source_id}/corrections"
    for correction in (paths[f"{base}/preview"]["post"], paths[base]["post"]):
        assert "409" in correction["responses"]  # transition_not_allowed, source_changed
    assert "409" in paths["/api/memory/delete"]["post"]["responses"]  # a stale preview
    assert "415" in paths["/api/sources/imports"]["post"]["responses"]


def test_a_number_of_either_kind_matches_one_alternative(client: TestClient) -> None:  # type: ignore[type-arg]
    """``oneOf`` with both ``integer`` and ``number`` refuses every integer (it matches two)."""
    doc = client.get("/schema/openapi.json").json()
    found: list[str] = []

    def walk(node: Any, where: str) -> None:
        if isinstance(node, dict):
            types = {alt.get("type") for alt in node.get("oneOf", [])}
            if {"integer", "number"} <= types:
                found.append(where)
            for key, value in node.items():
                walk(value, f"{where}/{key}")
        elif isinstance(node, list):
            for n, value in enumerate(node):
                walk(value, f"{where}/{n}")

    walk(doc, "")
    assert found == []
    metadata = doc["components"]["schemas"]["SourceView"]["properties"]["metadata"]
    assert {"integer", "number"} <= {
        alt["type"] for alt in metadata["additionalProperties"]["anyOf"]
    }


def test_the_import_start_documents_both_of_its_bodies(client: TestClient) -> None:  # type: ignore[type-arg]
    doc = client.get("/schema/openapi.json").json()
    body = doc["paths"]["/api/sources/imports"]["post"]["requestBody"]
    assert body["required"] is True
    as_json = body["content"]["application/json"]["schema"]
    fields = {f.encode_name for f in msgspec.structs.fields(ImportStartBody)}
    assert set(as_json["properties"]) == fields  # the document follows the decoder's type
    assert set(as_json["required"]) == {
        f.encode_name for f in msgspec.structs.fields(ImportStartBody) if f.required
    }
    upload = body["content"]["multipart/form-data"]["schema"]
    assert upload["properties"]["file"] == {"type": "string", "format": "binary"}
    assert set(upload["required"]) == {"file", "adapter"}
