"""Serving a trained LoRA adapter from vLLM: ``POST /v1/load_lora_adapter`` at runtime.

vLLM started with ``--enable-lora`` and ``VLLM_ALLOW_RUNTIME_LORA_UPDATING=True`` loads an
adapter folder by name without a restart; the name then appears in ``GET /v1/models`` and
is a ``model`` chat requests may ask for (the planner's proposer ``llm:<name>``). The
adapter's base must be the model vLLM serves. No FastAPI here.
"""

from __future__ import annotations

from pathlib import Path

import httpx

from services.common.errors import RefineryError

__all__ = ["VLLMError", "adapter_path_for_vllm", "load_lora_adapter"]


class VLLMError(RefineryError):
    """vLLM could not load the adapter (down, or it refused: wrong base, bad folder)."""

    status_code = 502
    code = "vllm_error"


def adapter_path_for_vllm(path: Path, data_dir: Path, vllm_root: Path | None) -> str:
    """``path`` as vLLM sees it: under ``vllm_root`` when it mounts the data dir there."""
    if vllm_root is None:
        return str(path)
    try:
        return str(vllm_root / path.resolve().relative_to(data_dir.resolve()))
    except ValueError:
        return str(path)


def load_lora_adapter(
    base_url: str,
    name: str,
    path: str,
    *,
    api_key: str | None = None,
    timeout_s: float = 120.0,
    transport: httpx.BaseTransport | None = None,
) -> None:
    """Load the adapter folder ``path`` into vLLM as ``name``; one already loaded under that
    name counts as loaded. :class:`VLLMError` otherwise, with vLLM's reason."""
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    url = base_url.rstrip("/") + "/load_lora_adapter"
    body = {"lora_name": name, "lora_path": path}
    try:
        with httpx.Client(timeout=timeout_s, headers=headers, transport=transport) as client:
            answer = client.post(url, json=body)
    except httpx.HTTPError as error:
        raise VLLMError(
            f"vLLM at {base_url} is unreachable ({type(error).__name__}): adapter {name} "
            "not loaded; check REFINERY_VLLM_URL",
            param="vllm_url",
        ) from None
    if answer.status_code == 200:
        return
    reason = answer.text.strip().replace("\n", " ")[:300]
    if answer.status_code == 400 and "already been loaded" in reason:
        return
    raise VLLMError(
        f"vLLM at {base_url} refused adapter {name} ({path}): HTTP {answer.status_code}: {reason}",
        param="model_id",
        context={"vllm_status": answer.status_code},
    )
