"""Which upstream URLs a request may name, and which of them may receive a service's keys.

A service talks to a few configured upstreams (the LLM endpoint, the planner, synth). Some
routes let a caller name another one (``base_url`` of ``/v1/evaluate``, a trainer source's
``url``, ``planner_url`` of a publish). Such a URL must pass three checks, all here and pure:

* :func:`check_url` — on the wire: ``http``/``https``, a host, no control characters or
  spaces, at most :data:`MAX_URL_LENGTH` characters (a pydantic validator raises its
  ``ValueError`` as a 422 naming the field);
* :meth:`AllowList.allows` — the URL lies under one of the configured upstreams or of the
  entries of ``REFINERY_ALLOWED_UPSTREAMS``: same scheme, host and port, and a path at or
  below the entry's path (``http://gpu:8000/v1`` allows ``http://gpu:8000/v1`` and
  ``http://gpu:8000/v1/x``, not ``http://gpu:8000/admin``);
* :func:`same_upstream` — a service's credentials go only to the configured upstream they
  belong to: a caller-named URL gets them only when it *is* that upstream.

Nothing here imports FastAPI, settings or the network.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from services.common.errors import RefineryError

__all__ = [
    "MAX_URL_LENGTH",
    "AllowList",
    "Origin",
    "UpstreamNotAllowed",
    "check_url",
    "is_loopback",
    "same_upstream",
]

MAX_URL_LENGTH = 2048
_SCHEMES = ("http", "https")
_DEFAULT_PORTS = {"http": 80, "https": 443}


class UpstreamNotAllowed(RefineryError):
    """A caller named an upstream outside the allow-list (422 ``upstream_not_allowed``)."""

    status_code = 422
    code = "upstream_not_allowed"


@dataclass(frozen=True, slots=True)
class Origin:
    """A URL reduced to what decides where it goes: scheme, host, port and path prefix."""

    scheme: str
    host: str
    port: int
    path: str
    """Without a trailing slash: ``""`` for the root."""

    @classmethod
    def of(cls, url: str) -> Origin:
        """Raise ``ValueError`` unless ``url`` passes :func:`check_url`."""
        check_url(url)
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        port = parts.port or _DEFAULT_PORTS[scheme]
        host = (parts.hostname or "").lower().rstrip(".")
        return cls(scheme, host, port, parts.path.rstrip("/"))

    def covers(self, other: Origin) -> bool:
        """``other`` has this origin and a path at or below this path."""
        if (self.scheme, self.host, self.port) != (other.scheme, other.host, other.port):
            return False
        return other.path == self.path or other.path.startswith(self.path + "/")


def check_url(url: str) -> str:
    """``url`` when it is an absolute ``http(s)`` URL with a host; ``ValueError`` saying why
    otherwise (the message is the 422's)."""
    if len(url) > MAX_URL_LENGTH:
        raise ValueError(f"a URL has at most {MAX_URL_LENGTH} characters")
    if any(ord(c) <= 0x20 or 0x7F <= ord(c) <= 0x9F for c in url):
        raise ValueError("a URL holds no spaces or control characters")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a port that is not a number in range
    except ValueError as error:
        raise ValueError(f"not a valid URL: {error}") from None
    if parts.scheme.lower() not in _SCHEMES:
        raise ValueError("give an http:// or https:// URL")
    if not parts.hostname:
        raise ValueError("the URL names no host")
    if parts.username is not None or parts.password is not None:
        raise ValueError("put no credentials in the URL")
    if parts.query or parts.fragment:
        raise ValueError("give the URL without a query or fragment")
    if not all(c.isascii() for c in url):
        raise ValueError("give the URL in ASCII (IDNA/punycode for international host names)")
    return url


def same_upstream(url: str, configured: str | None) -> bool:
    """Whether ``url`` names the ``configured`` upstream itself (trailing slash, case of the
    scheme and host and a default port aside)."""
    if not configured:
        return False
    try:
        return Origin.of(url) == Origin.of(configured)
    except ValueError:
        return False


class AllowList:
    """The upstreams a request may name: the configured ones plus the extra entries."""

    def __init__(self, configured: Iterable[str | None], extra: Iterable[str] = ()) -> None:
        """``configured``: the service's own upstreams (unset or unparsable ones match
        nothing); ``extra``: the allow-list's entries (settings have checked them)."""
        entries = []
        for url in (*configured, *extra):
            if not url:
                continue
            try:
                entries.append(Origin.of(url))
            except ValueError:
                continue
        self.entries: tuple[Origin, ...] = tuple(entries)

    def allows(self, url: str) -> bool:
        try:
            target = Origin.of(url)
        except ValueError:
            return False
        return any(entry.covers(target) for entry in self.entries)

    def require(self, url: str, *, param: str, setting: str = "REFINERY_ALLOWED_UPSTREAMS") -> str:
        """``url`` when allowed; :class:`UpstreamNotAllowed` naming ``param`` otherwise."""
        if self.allows(url):
            return url
        raise UpstreamNotAllowed(
            f"{param} {url!r} is not an upstream this service may call: name a configured "
            f"upstream, or have the operator add its origin to {setting} "
            "(e.g. http://host:8000/v1)",
            param=param,
        )


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` serves this machine only (``127.0.0.1``, ``::1``,
    ``localhost``); ``0.0.0.0``, ``::`` and every other address or name do not."""
    name = host.strip().strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False
