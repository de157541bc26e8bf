"""Forwarding headers are believed only from the proxies TESSERA_TRUSTED_PROXIES names.

The server's own ProxyHeadersMiddleware (uvicorn's, configured by
``proxy_options``) is driven in process with ASGI scopes: which client and
scheme the app is told, for a peer that is or is not a configured proxy.
"""

from pathlib import Path
from typing import Any

import pytest
import uvicorn

from entrypoints.proxies import proxy_options
from entrypoints.settings import SettingsError, load_settings


def _settings(tmp_path: Path, proxies: str | None = None) -> Any:
    env = {"TESSERA_DATA_DIR": str(tmp_path)}
    if proxies is not None:
        env["TESSERA_TRUSTED_PROXIES"] = proxies
    return load_settings(env)


def test_no_proxy_is_trusted_by_default(tmp_path: Path) -> None:
    assert _settings(tmp_path).trusted_proxies == ()
    assert _settings(tmp_path, " , ").trusted_proxies == ()


def test_addresses_and_networks_are_checked_and_written_as_networks(tmp_path: Path) -> None:
    found = _settings(tmp_path, "10.0.0.5, 192.168.1.0/24,::1, 10.0.0.5, 172.16.3.9/12")
    assert found.trusted_proxies == ("10.0.0.5/32", "192.168.1.0/24", "::1/128", "172.16.0.0/12")


@pytest.mark.parametrize("bad", ["proxy.internal", "*", "10.0.0.0/33", "10.0.0"])
def test_anything_else_is_refused_by_name(tmp_path: Path, bad: str) -> None:
    with pytest.raises(SettingsError, match="TESSERA_TRUSTED_PROXIES") as refused:
        _settings(tmp_path, f"10.0.0.1, {bad}")
    assert repr(bad) in str(refused.value)


async def _seen(settings: Any, peer: str, forwarded: list[str], proto: str | None = None) -> Any:
    """(client host, scheme) the app is told for one request from ``peer``."""
    seen: dict[str, Any] = {}

    async def app(scope: Any, receive: Any, send: Any) -> None:
        seen.update(client=scope["client"][0], scheme=scope["scheme"])

    config = uvicorn.Config(app, log_config=None, lifespan="off", **proxy_options(settings))
    config.load()
    headers = [(b"x-forwarded-for", value.encode()) for value in forwarded]
    if proto is not None:
        headers.append((b"x-forwarded-proto", proto.encode()))
    scope = {
        "type": "http",
        "scheme": "http",
        "client": (peer, 50_000),
        "headers": headers,
        "path": "/memory/sign-in",
        "method": "POST",
    }
    await config.loaded_app(scope, None, None)
    return seen["client"], seen["scheme"]


async def test_without_trusted_proxies_a_loopback_caller_cannot_choose_its_address(
    tmp_path: Path,
) -> None:
    settings = _settings(tmp_path)
    for peer in ("127.0.0.1", "::1"):
        assert await _seen(settings, peer, ["203.0.113.7"], "https") == (peer, "http")


async def test_a_configured_proxy_is_believed_and_no_one_else(tmp_path: Path) -> None:
    settings = _settings(tmp_path, "127.0.0.1, 10.1.0.0/16")
    # the client is the nearest address that is not a proxy: what it claimed itself is ignored
    chain = ["198.51.100.1, 203.0.113.7", "10.1.4.2"]
    assert await _seen(settings, "127.0.0.1", chain, "https") == ("203.0.113.7", "https")
    assert await _seen(settings, "10.1.9.9", ["203.0.113.8"]) == ("203.0.113.8", "http")
    # a peer outside the list: its headers are not read
    assert await _seen(settings, "10.2.0.1", ["203.0.113.7"], "https") == ("10.2.0.1", "http")
