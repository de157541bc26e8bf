"""The OpenAPI document is the API (issue 14, finding 4).

Schemathesis generates requests for every documented operation (valid and
invalid ones) against the live ASGI app over the reference adapters, as the
owner, and checks each answer: no server error, a documented status, the
documented content type and a body matching the documented schema. Before the
fix 650 of 1,240 fuzzed answers violated the document (only 200/201 and a
Litestar-shaped 400 were documented).
"""

import asyncio
from typing import Any

import schemathesis
from hypothesis import HealthCheck, given, settings
from litestar.testing import TestClient
from schemathesis import checks

from domain.policy import Surface
from entrypoints.http.app import create_app
from tests.e2e.conftest import services_over_fakes

#: bounded: about 20 operations, so the whole run stays well under a minute
MAX_EXAMPLES = 40
CHECKS = [
    checks.not_a_server_error,
    checks.status_code_conformance,
    checks.content_type_conformance,
    checks.response_schema_conformance,
]


def _operations() -> tuple[list[Any], str]:
    services = services_over_fakes()
    issued = asyncio.run(services.control.bootstrap(Surface.CLI))
    assert issued is not None
    schema = schemathesis.openapi.from_asgi("/schema/openapi.json", create_app(services))
    return [result.ok() for result in schema.get_all_operations()], issued.key


def test_every_answer_matches_the_document() -> None:
    operations, key = _operations()
    assert len(operations) >= 18
    failed: list[str] = []
    calls = 0
    for operation in operations:

        @given(case=operation.as_strategy())
        @settings(
            max_examples=MAX_EXAMPLES,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            derandomize=True,
            database=None,
        )
        def run(case: Any) -> None:
            nonlocal calls
            calls += 1
            case.call_and_validate(headers={"authorization": f"Bearer {key}"}, checks=CHECKS)

        try:
            run()
        except (Exception, BaseExceptionGroup) as exc:  # one failure must not hide the others
            failed.append(f"{operation.label}: {str(exc)[:1500]}")
    print(f"schemathesis: {len(operations)} operations, {calls} calls, {len(failed)} failing")
    assert not failed, "\n\n".join(failed)


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
