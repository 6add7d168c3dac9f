"""Health: workouts, meals, sleep, appointments, medications, BMI, pharmacies."""

from __future__ import annotations

from services.synth.catalog._schema import (
    array,
    boolean,
    date,
    enum,
    fn,
    integer,
    number,
    text,
    time,
)

TOOLS = (
    fn(
        "log_workout",
        "Record a completed workout in the user's fitness log.",
        {
            "activity": enum(
                "Kind of exercise", ["running", "cycling", "swimming", "yoga", "strength", "hiking"]
            ),
            "duration_minutes": integer("How long the workout lasted in minutes", 1, 600),
            "date": date("Day of the workout"),
        },
        {
            "distance_km": number("Distance covered in kilometres", 0, 300),
            "calories_burned": integer("Estimated calories burned", 0, 5000),
        },
    ),
    fn(
        "book_doctor_appointment",
        "Book an appointment with a doctor of a given specialty.",
        {
            "specialty": enum(
                "Medical specialty",
                ["general_practice", "dermatology", "cardiology", "pediatrics", "dentistry"],
            ),
            "preferred_date": date("Preferred day of the appointment"),
            "preferred_time": time("Preferred time of the appointment"),
        },
        {
            "patient_name": text("Full name of the patient"),
            "telehealth": boolean("Video consultation instead of in person", default=False),
        },
    ),
    fn(
        "log_meal",
        "Log the foods eaten in a meal to the nutrition diary.",
        {
            "meal_type": enum("Which meal", ["breakfast", "lunch", "dinner", "snack"]),
            "foods": array("Foods eaten", text("Food item"), max_items=6),
            "date": date("Day of the meal"),
        },
        {"calories": integer("Total calories of the meal", 0, 5000)},
    ),
    fn(
        "get_medication_info",
        "Get dosage, side effects and warnings for a medication.",
        {"medication_name": text("Name of the medication, e.g. ibuprofen")},
        {"include_interactions": boolean("List known drug interactions", default=False)},
    ),
    fn(
        "log_sleep",
        "Record a night's sleep with bedtime, wake-up time and quality.",
        {
            "date": date("Night of the sleep (the evening's date)"),
            "bedtime": time("Time the user fell asleep"),
            "wake_time": time("Time the user woke up"),
        },
        {"quality": integer("Self-rated sleep quality from 1 to 5", 1, 5)},
    ),
    fn(
        "calculate_bmi",
        "Calculate body mass index from weight and height.",
        {
            "weight_kg": number("Body weight in kilograms", 20, 300),
            "height_cm": number("Body height in centimetres", 100, 250),
        },
    ),
    fn(
        "find_pharmacy",
        "Find pharmacies in a city, optionally only ones open around the clock.",
        {"city": text("City to search")},
        {"open_24_hours": boolean("Only pharmacies open 24 hours", default=False)},
    ),
)
