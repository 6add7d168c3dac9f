"""Import bfcl-eval's real AST checker without the vendor SDKs it never touches.

``bfcl_eval.eval_checker.ast_eval.ast_checker`` imports
``bfcl_eval.constants.model_config``, which imports a handler for every vendor (anthropic,
cohere, mistralai, google-genai, boto3, qwen-agent, …) — dependencies a ``--no-deps``
install leaves out. The checker reads exactly one thing from that module:
``MODEL_CONFIG_MAPPING[model].underscore_to_dot``, and only for dotted function names, to
decide whether the model's output spells them with underscores.

So :func:`ast_checker` first tries the real import; when a vendor SDK is missing it registers
a minimal ``bfcl_eval.constants.model_config`` in ``sys.modules`` holding one entry,
:data:`MODEL_NAME`, with ``underscore_to_dot=False`` (we map names back to their dotted form
before judging), then imports the untouched checker. Everything else the checker imports
(``constants.enums``, ``constants.type_mappings``, the Java/JS type converters) is plain
standard-library Python.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from services.common.errors import UnavailableError

__all__ = [
    "MODEL_NAME",
    "BfclUnavailableError",
    "ast_checker",
    "judge",
    "language_of",
    "python_language",
]

MODEL_NAME = "refinery"
"""The model name passed to the checker; it has no ``_`` (the checker maps ``_`` to ``/``)."""

_CONFIG_MODULE = "bfcl_eval.constants.model_config"


class BfclUnavailableError(UnavailableError):
    """bfcl-eval itself is not installed (a 503 naming the install command)."""

    code = "bfcl_unavailable"


INSTALL_HINT = "pip install --no-deps bfcl-eval==2026.3.23"


@dataclass(frozen=True)
class _MinimalModelConfig:
    """The one field of ``bfcl_eval.constants.model_config.ModelConfig`` the checker reads."""

    model_name: str
    underscore_to_dot: bool = False


@cache
def _model_name() -> str:
    """A model name the installed ``MODEL_CONFIG_MAPPING`` maps to ``underscore_to_dot=False``."""
    try:
        import bfcl_eval  # noqa: F401
    except ImportError as error:
        raise BfclUnavailableError(f"bfcl-eval is not installed: {INSTALL_HINT}") from error
    try:
        from bfcl_eval.constants.model_config import MODEL_CONFIG_MAPPING
    except ImportError:
        module = types.ModuleType(_CONFIG_MODULE)
        module.__doc__ = "Minimal stand-in: the checker only reads underscore_to_dot."
        module.ModelConfig = _MinimalModelConfig  # type: ignore[attr-defined]
        module.MODEL_CONFIG_MAPPING = {MODEL_NAME: _MinimalModelConfig(MODEL_NAME)}  # type: ignore[attr-defined]
        sys.modules[_CONFIG_MODULE] = module
        return MODEL_NAME
    for name, config in MODEL_CONFIG_MAPPING.items():
        if not config.underscore_to_dot and "_" not in name:
            return name
    raise BfclUnavailableError("no bfcl-eval model config keeps dotted names")  # pragma: no cover


@cache
def ast_checker() -> Callable[..., dict[str, Any]]:
    """bfcl-eval's own ``ast_checker`` function."""
    _model_name()
    from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker as checker

    return checker


@cache
def python_language() -> Any:
    """``bfcl_eval.constants.enums.Language.PYTHON``."""
    return language_of("simple_python")


@cache
def language_of(category: str) -> Any:
    """The ``Language`` bfcl-eval judges a category's answers in (by its name's suffix)."""
    _model_name()
    from bfcl_eval.constants.enums import Language

    if category.endswith("javascript"):
        return Language.JAVASCRIPT
    return Language.JAVA if category.endswith("java") else Language.PYTHON


def judge(
    functions: list[dict[str, Any]],
    output: list[dict[str, Any]],
    answer: list[dict[str, Any]],
    category: str,
) -> dict[str, Any]:
    """bfcl-eval's verdict (``{"valid": bool, "error": [...], ...}``), in the category's
    language (Python, or Java / JavaScript for ``simple_java`` / ``simple_javascript``).

    ``output`` uses the functions' own (dotted) names. A crash inside the checker (it indexes
    without guards) is a verdict too: invalid, with the exception as its error.
    """
    try:
        language = language_of(category)
        return ast_checker()(functions, output, answer, language, category, _model_name())
    except (KeyError, IndexError, TypeError, AttributeError, ValueError) as error:
        return {"valid": False, "error": [repr(error)], "error_type": "checker_crash"}
