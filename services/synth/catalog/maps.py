"""Maps: directions, nearby places, geocoding, distances, traffic and EV charging."""

from __future__ import annotations

from services.synth.catalog._schema import boolean, enum, fn, integer, number, text, time

_LAT = number("Latitude in decimal degrees", -90, 90)
_LON = number("Longitude in decimal degrees", -180, 180)

TOOLS = (
    fn(
        "get_directions",
        "Get turn-by-turn directions from a start address to a destination address.",
        {
            "origin": text("Start address or place name"),
            "destination": text("Destination address or place name"),
        },
        {
            "travel_mode": enum(
                "How to travel", ["driving", "walking", "transit", "cycling"], default="driving"
            ),
            "avoid_tolls": boolean("Avoid toll roads", default=False),
            "departure_time": time("Planned departure time"),
        },
    ),
    fn(
        "find_nearby_places",
        "Find places of a kind, such as cafes or parking, around an address.",
        {
            "location": text("Address or neighbourhood to search around"),
            "place_type": enum(
                "Kind of place",
                ["cafe", "gas_station", "atm", "museum", "park", "parking", "supermarket"],
            ),
            "radius_meters": integer("Search radius in meters", 100, 50000),
        },
        {
            "open_now": boolean("Only places open right now", default=False),
            "min_rating": number("Lowest average rating", 1, 5),
        },
    ),
    fn(
        "geocode_address",
        "Convert a street address into latitude and longitude coordinates.",
        {"address": text("Full street address")},
    ),
    fn(
        "reverse_geocode",
        "Find the street address at a latitude/longitude coordinate.",
        {"latitude": _LAT, "longitude": _LON},
    ),
    fn(
        "calculate_distance",
        "Calculate the straight-line distance between two cities.",
        {
            "origin_city": text("First city"),
            "destination_city": text("Second city"),
        },
        {"unit": enum("Distance unit", ["km", "miles"], default="km")},
    ),
    fn(
        "get_traffic_conditions",
        "Get live traffic jams and incidents on a road in a city.",
        {"city": text("City the road is in"), "road_name": text("Name of the road or highway")},
    ),
    fn(
        "find_ev_charging_stations",
        "Find electric vehicle charging stations around a coordinate.",
        {"latitude": _LAT, "longitude": _LON, "radius_km": number("Search radius in km", 0.5, 100)},
        {
            "connector_type": enum("Plug type", ["ccs", "chademo", "type2", "tesla"]),
            "fast_charging_only": boolean("Only DC fast chargers", default=False),
        },
    ),
)
