"""Weather: current conditions, forecasts, history, UV, alerts, marine and pollen."""

from __future__ import annotations

from services.synth.catalog._schema import boolean, date, enum, fn, integer, number, text

_UNITS = enum("Unit system", ["metric", "imperial"], default="metric")

TOOLS = (
    fn(
        "get_current_weather",
        "Get the current temperature, wind and sky conditions in a city.",
        {"city": text("City to report on")},
        {
            "units": _UNITS,
            "include_air_quality": boolean("Add the air quality index", default=False),
        },
    ),
    fn(
        "get_weather_forecast",
        "Get a daily weather forecast for a city for the coming days.",
        {
            "city": text("City to forecast"),
            "days": integer("Number of days to forecast", 1, 14),
        },
        {"units": _UNITS, "include_hourly": boolean("Add an hourly breakdown", default=False)},
    ),
    fn(
        "get_historical_weather",
        "Look up the weather observed in a city on a past or recorded day.",
        {"city": text("City of the observation"), "date": date("Day of the observation")},
    ),
    fn(
        "get_uv_index",
        "Get the ultraviolet index at a coordinate on a day.",
        {
            "latitude": number("Latitude in decimal degrees", -90, 90),
            "longitude": number("Longitude in decimal degrees", -180, 180),
        },
        {"date": date("Day of the UV reading")},
    ),
    fn(
        "get_severe_weather_alerts",
        "List active storm, flood and heat warnings issued for a country.",
        {"country": text("Country to check for warnings")},
        {
            "severity": enum(
                "Lowest severity to include", ["minor", "moderate", "severe", "extreme"]
            )
        },
    ),
    fn(
        "get_marine_forecast",
        "Get wave height, swell and wind for sailing or surfing off a coastal city.",
        {"coastal_city": text("Coastal city nearest the water"), "date": date("Forecast day")},
        {"include_tides": boolean("Add high and low tide times", default=False)},
    ),
    fn(
        "get_pollen_count",
        "Get the pollen count for allergy sufferers in a city on a day.",
        {"city": text("City to report on"), "date": date("Day of the pollen forecast")},
        {"allergen": enum("Pollen type", ["grass", "tree", "weed", "mold"], default="grass")},
    ),
)
