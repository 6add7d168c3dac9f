"""Travel: flights, hotels, trains, car rental, visas, travel insurance."""

from __future__ import annotations

from services.synth.catalog._schema import (
    array,
    boolean,
    date,
    enum,
    fn,
    integer,
    number,
    obj,
    text,
    time,
)

_IATA = "^[A-Z]{3}$"

TOOLS = (
    fn(
        "search_flights",
        "Search scheduled flights between two airports on a given day, optionally round trip.",
        {
            "origin": text("IATA code of the departure airport, e.g. JFK", pattern=_IATA),
            "destination": text("IATA code of the arrival airport, e.g. LHR", pattern=_IATA),
            "departure_date": date("Day of the outbound flight"),
        },
        {
            "return_date": date("Day of the return flight for a round trip"),
            "passengers": integer("Number of passengers travelling", 1, 9, default=1),
            "cabin_class": enum(
                "Cabin class",
                ["economy", "premium_economy", "business", "first"],
                default="economy",
            ),
            "nonstop_only": boolean("Only show flights without stops", default=False),
            "max_price": number("Highest acceptable fare per passenger in USD", 50, 20000),
        },
    ),
    fn(
        "book_hotel",
        "Book a hotel room in a city for a stay between a check-in and a check-out date.",
        {
            "city": text("City where the hotel is located"),
            "check_in": date("Arrival date at the hotel"),
            "check_out": date("Departure date from the hotel"),
            "guests": integer("Number of guests staying in the room", 1, 8),
        },
        {
            "room_type": enum(
                "Kind of room", ["standard", "deluxe", "suite", "family"], default="standard"
            ),
            "breakfast": boolean("Include breakfast in the rate", default=False),
        },
    ),
    fn(
        "rent_car",
        "Reserve a rental car picked up in one city and returned on a later date.",
        {
            "pickup_city": text("City where the car is picked up"),
            "pickup_date": date("Day the rental starts"),
            "return_date": date("Day the car is returned"),
        },
        {
            "car_class": enum(
                "Vehicle category",
                ["economy", "compact", "suv", "van", "luxury"],
                default="compact",
            ),
            "driver_age": integer("Age of the main driver in years", 18, 99),
            "add_gps": boolean("Add a satellite navigation unit", default=False),
        },
    ),
    fn(
        "get_flight_status",
        "Get the live status, gate and delay of a flight by its flight number.",
        {
            "flight_number": text(
                "Airline flight number, e.g. LH400", pattern="^[A-Z]{2}[0-9]{1,4}$"
            ),
            "date": date("Scheduled departure day of the flight"),
        },
    ),
    fn(
        "book_train_ticket",
        "Buy train tickets between two stations for named passengers.",
        {
            "from_station": text("Name of the departure railway station"),
            "to_station": text("Name of the arrival railway station"),
            "travel_date": date("Day of travel"),
            "departure_time": time("Earliest departure time"),
            "passengers": array(
                "Travellers on the ticket",
                obj(
                    "One traveller",
                    {"full_name": text("Traveller's full name")},
                    {"age": integer("Traveller's age in years", 0, 120)},
                ),
                min_items=1,
                max_items=6,
            ),
        },
        {"seat_class": enum("Seat class", ["first", "second"], default="second")},
    ),
    fn(
        "check_visa_requirements",
        "Check whether a citizen of one country needs a visa to enter another country.",
        {
            "citizenship_country": text("Country that issued the traveller's passport"),
            "destination_country": text("Country the traveller wants to enter"),
        },
        {
            "purpose": enum(
                "Purpose of the trip",
                ["tourism", "business", "study", "transit"],
                default="tourism",
            ),
            "stay_days": integer("Planned length of stay in days", 1, 365),
        },
    ),
    fn(
        "cancel_hotel_reservation",
        "Cancel an existing hotel reservation by its booking reference.",
        {
            "booking_reference": text(
                "Six-character hotel booking reference, e.g. K7Q2ZP", pattern="^[A-Z0-9]{6}$"
            )
        },
        {
            "reason": text("Why the stay is cancelled"),
            "refund_to_original_payment": boolean(
                "Refund to the card used for booking instead of hotel credit", default=True
            ),
        },
    ),
    fn(
        "find_travel_insurance",
        "Quote travel insurance policies for a trip abroad.",
        {
            "destination_country": text("Country being visited"),
            "trip_start": date("First day of the trip"),
            "trip_end": date("Last day of the trip"),
            "travellers": integer("Number of people to insure", 1, 10),
        },
        {
            "coverage_level": enum(
                "Level of cover", ["basic", "standard", "premium"], default="standard"
            ),
            "include_cancellation": boolean("Cover trip cancellation costs", default=False),
        },
    ),
)
