"""Tool catalogs: the built-in one (one module per domain) and validation of user ones.

``pools`` and ``patterns`` hold what argument sampling draws from: realistic values
(cities, people, products…) and strings generated from a parameter's ``pattern``.
"""

from __future__ import annotations

import copy

from services.synth.calls import Tool, tool_name
from services.synth.catalog import (
    commerce,
    finance,
    food,
    health,
    maps,
    media,
    messaging,
    scheduling,
    smart_home,
    travel,
    weather,
)
from services.synth.catalog.validate import CatalogError, validate_catalog

__all__ = ["BUILTIN_DOMAINS", "CatalogError", "builtin_catalog", "validate_catalog"]

_MODULES = {
    "travel": travel,
    "finance": finance,
    "calendar": scheduling,
    "weather": weather,
    "commerce": commerce,
    "messaging": messaging,
    "maps": maps,
    "media": media,
    "health": health,
    "smart_home": smart_home,
    "food": food,
}

BUILTIN_DOMAINS: dict[str, str] = {
    tool_name(tool): domain for domain, module in _MODULES.items() for tool in module.TOOLS
}
"""Function name → domain of every built-in tool."""


def builtin_catalog() -> tuple[Tool, ...]:
    """The built-in tools, grouped by domain; fresh copies, so callers may mutate them."""
    return tuple(copy.deepcopy(tool) for module in _MODULES.values() for tool in module.TOOLS)
