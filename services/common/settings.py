"""Settings every service shares, read from ``REFINERY_*`` environment variables.

Each service subclasses :class:`CommonSettings` once (house style: one settings class
per service) and exposes it through a cached dependency, so tests can override it::

    # services/verifier/config.py
    import functools

    from services.common.settings import CommonSettings

    class VerifierSettings(CommonSettings):
        service_name: str = "verifier"
        max_shots: int = 500            # REFINERY_MAX_SHOTS

    @functools.lru_cache
    def get_settings() -> VerifierSettings:
        return VerifierSettings()

    # services/verifier/api.py
    @router.post("/v1/verify")
    def verify(req: VerifyRequest, settings: VerifierSettings = Depends(get_settings)): ...

    # services/verifier/app.py
    def build_app(settings: VerifierSettings | None = None) -> FastAPI:
        settings = settings or get_settings()
        return common_app.build_app(title="verifier", settings=settings, routers=[router],
                                    settings_dependency=get_settings)

    # a test
    app = build_app(VerifierSettings(api_keys=["k"]))      # middleware and routes agree
    app.dependency_overrides[get_settings] = lambda: other  # or swap routes' view only
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from services.common.upstreams import check_url, is_loopback

__all__ = ["CommonSettings", "MiB", "database_url_for", "exposure_problem"]

MiB = 1024 * 1024


class CommonSettings(BaseSettings):
    """Plumbing settings; env prefix ``REFINERY_`` (e.g. ``REFINERY_DATA_DIR``)."""

    model_config = SettingsConfigDict(env_prefix="REFINERY_", extra="ignore")

    data_dir: Path = Path(".refinery")
    """Where embedded state lives (SQLite files, artefacts)."""
    database_url: str | None = None
    """SQLAlchemy URL; ``None`` means the SQLite file ``<data_dir>/<service_name>.db``."""
    api_keys: Annotated[list[str], NoDecode] = []
    """Accepted bearer tokens; empty disables auth. Env: ``a,b`` or a JSON list."""
    max_body_bytes: int = 10 * MiB
    """Largest accepted request body; larger ones get 413 ``payload_too_large``."""
    allowed_upstreams: Annotated[list[str], NoDecode] = []
    """Upstream URLs a request may name besides the configured ones (``base_url`` of synth's
    ``/v1/evaluate``, the trainer's source ``url`` and ``planner_url``): origins or base URLs,
    ``a,b`` or a JSON list. Empty: only the configured upstreams. Never sent a service key."""
    bind_host: str = "127.0.0.1"
    """The interface the service is reachable on: what uvicorn binds, or in a container the
    host interface its port is published on. Beyond loopback, start-up refuses to serve
    without ``api_keys`` unless ``allow_unauthenticated``."""
    allow_unauthenticated: bool = False
    """Serve without ``api_keys`` although ``bind_host`` is not loopback (a trusted network)."""
    log_level: str = "INFO"
    service_name: str = "refinery"
    """Overridden by each service's subclass; names the SQLite file and the logs."""
    db_startup_timeout_s: float = 120.0
    """How long start-up waits, with backoff, for an unreachable database before giving up
    (``REFINERY_DB_STARTUP_TIMEOUT_S``)."""
    db_retry_s: float = 120.0
    """How long a job worker waits out a database outage inside one job before it leaves
    the job to be re-leased (``REFINERY_DB_RETRY_S``)."""
    db_retry_after_s: int = 5
    """``Retry-After`` of a 503 ``database_unavailable`` answer (``REFINERY_DB_RETRY_AFTER_S``)."""
    model_dtype: Literal["auto", "bfloat16", "float32"] = "auto"
    """The weights' dtype of a named real base (``REFINERY_MODEL_DTYPE``; see
    :mod:`services.common.base_models`): ``auto`` is bfloat16 on CUDA and on a CPU with
    native bf16 (avx512_bf16 or AMX), float32 elsewhere. ``bfloat16`` / ``float32`` also
    apply to every other ``hf:`` checkpoint the planner loads."""
    torch_threads: int = Field(default=0, ge=0)
    """torch's intra-op threads in a process that loads a model (``REFINERY_TORCH_THREADS``);
    0 leaves torch's own default."""

    @field_validator("api_keys", "allowed_upstreams", mode="before")
    @classmethod
    def _split_keys(cls, value: Any) -> Any:
        if isinstance(value, str):
            text = value.strip()
            if text.startswith("["):
                value = json.loads(text)
            else:
                return [part.strip() for part in text.split(",") if part.strip()]
        if isinstance(value, list | tuple):
            return [str(v).strip() for v in value if str(v).strip()]
        return value

    @field_validator("allowed_upstreams")
    @classmethod
    def _check_upstreams(cls, value: list[str]) -> list[str]:
        for url in value:
            try:
                check_url(url)
            except ValueError as error:
                raise ValueError(f"REFINERY_ALLOWED_UPSTREAMS entry {url!r}: {error}") from None
        return value

    @field_validator("log_level")
    @classmethod
    def _upper_level(cls, value: str) -> str:
        return value.upper()


def database_url_for(settings: CommonSettings) -> str:
    """The configured database URL, or the service's SQLite file under ``data_dir``."""
    if settings.database_url:
        return settings.database_url
    path = (settings.data_dir / f"{settings.service_name}.db").resolve()
    return f"sqlite:///{path}"


def exposure_problem(settings: CommonSettings) -> str | None:
    """Why ``settings`` must not serve (one line), or None: no API keys while ``bind_host``
    reaches beyond this machine, unless ``allow_unauthenticated`` says that is intended."""
    if settings.api_keys or settings.allow_unauthenticated or is_loopback(settings.bind_host):
        return None
    return (
        f"refusing to start the {settings.service_name} unauthenticated on "
        f"{settings.bind_host}: set REFINERY_API_KEYS, bind 127.0.0.1 (REFINERY_BIND_HOST), "
        "or set REFINERY_ALLOW_UNAUTHENTICATED=true on a trusted network"
    )
