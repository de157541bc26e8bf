"""What the hosted-model adapters (embedders, LLMs) share about the vendors' SDKs.

One place describes an SDK failure without quoting its message (SDK
messages can carry the key or echo the prompt; only a status, an error type
and an identifier-shaped error code are kept), one place builds each vendor's
client with the adapters' timeout and retry options, and one place opens it
on first use (so constructing an adapter is free) and closes it once
(``GeminiClient``, ``OpenAIClient``). The SDKs are imported on first use, so
importing this module costs nothing.
"""

import re
from typing import TYPE_CHECKING, Generic, TypeVar

if TYPE_CHECKING:
    from google.genai import Client
    from openai import AsyncOpenAI

__all__ = [
    "SAFE_IDENTIFIER",
    "describe_gemini_error",
    "describe_openai_error",
    "gemini_client",
    "openai_client",
]

#: provider error codes are identifiers like "invalid_api_key"; anything else is not quoted
SAFE_IDENTIFIER = re.compile(r"[A-Za-z0-9_.\-]{1,64}")


def describe_openai_error(exc: Exception) -> str:
    """Status, error type and error code of an ``openai`` exception; never its message."""
    import openai

    name = type(exc).__name__
    if isinstance(exc, openai.APIStatusError):
        code = (
            exc.code if isinstance(exc.code, str) and SAFE_IDENTIFIER.fullmatch(exc.code) else None
        )
        return f"HTTP {exc.status_code} {name}" + (f" ({code})" if code else "")
    return name


def describe_gemini_error(exc: Exception) -> str:
    """Status code, status name and error type of a google-genai exception; never its message."""
    from google.genai import errors

    name = type(exc).__name__
    if isinstance(exc, errors.APIError):
        status = exc.status if isinstance(exc.status, str) else None
        safe = status if status and SAFE_IDENTIFIER.fullmatch(status) else None
        return f"HTTP {exc.code} {name}" + (f" ({safe})" if safe else "")
    return name


def gemini_client(
    *, api_key: str, base_url: str | None, timeout: float, max_retries: int
) -> "Client":
    """A Gemini Developer API client (not Vertex) with a timeout in seconds and retries."""
    from google import genai

    retry = genai.types.HttpRetryOptions(attempts=max_retries + 1) if max_retries else None
    return genai.Client(
        api_key=api_key,
        vertexai=False,
        http_options=genai.types.HttpOptions(
            base_url=base_url,
            timeout=max(1, round(timeout * 1000)),  # milliseconds
            retry_options=retry,
        ),
    )


def openai_client(
    *, api_key: str | None, base_url: str | None, timeout: float, max_retries: int
) -> "AsyncOpenAI":
    """An ``openai`` async client with a timeout in seconds and retries."""
    from openai import AsyncOpenAI

    return AsyncOpenAI(api_key=api_key, base_url=base_url, timeout=timeout, max_retries=max_retries)


ClientT = TypeVar("ClientT")


class HostedClient(Generic[ClientT]):
    """An SDK client opened on first use and closed once, with the adapter's options."""

    _api_key: str
    _base_url: str | None
    _timeout: float
    _max_retries: int
    _client: ClientT | None = None

    def _open_client(self) -> ClientT:
        raise NotImplementedError

    async def _close_client(self, client: ClientT) -> None:
        raise NotImplementedError

    def _get_client(self) -> ClientT:
        if self._client is None:
            self._client = self._open_client()
        return self._client

    async def aclose(self) -> None:
        """Close the SDK's client, if one was opened."""
        if self._client is not None:
            client, self._client = self._client, None
            await self._close_client(client)


class GeminiClient(HostedClient["Client"]):
    def _open_client(self) -> "Client":
        return gemini_client(
            api_key=self._api_key,
            base_url=self._base_url,
            timeout=self._timeout,
            max_retries=self._max_retries,
        )

    async def _close_client(self, client: "Client") -> None:
        """Both of the SDK's HTTP clients: the blocking one and the asynchronous one."""
        client.close()
        await client.aio.aclose()


class OpenAIClient(HostedClient["AsyncOpenAI"]):
    def _open_client(self) -> "AsyncOpenAI":
        return openai_client(
            api_key=self._api_key,
            base_url=self._base_url,
            timeout=self._timeout,
            max_retries=self._max_retries,
        )

    async def _close_client(self, client: "AsyncOpenAI") -> None:
        await client.close()
