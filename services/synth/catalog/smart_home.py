"""Smart home: thermostat, lights, locks, vacuum, energy, security, sprinklers."""

from __future__ import annotations

from services.synth.catalog._schema import array, boolean, date, enum, fn, integer, number, time

_ROOMS = ["living_room", "kitchen", "bedroom", "bathroom", "office", "hallway"]
_DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]

TOOLS = (
    fn(
        "set_thermostat",
        "Set the target temperature of the thermostat in a room.",
        {
            "room": enum("Room with the thermostat", _ROOMS),
            "temperature_celsius": number("Target temperature in °C", 10, 30),
        },
        {
            "mode": enum("Heating mode", ["heat", "cool", "auto"], default="auto"),
            "schedule_time": time("Apply the change at this time instead of now"),
        },
    ),
    fn(
        "control_lights",
        "Switch the lights in a room on or off and set brightness and colour.",
        {
            "room": enum("Room whose lights to control", _ROOMS),
            "turn_on": boolean("True to switch on, false to switch off"),
        },
        {
            "brightness_percent": integer("Brightness in percent", 1, 100, default=100),
            "color": enum("Light colour", ["warm_white", "cool_white", "red", "blue", "green"]),
        },
    ),
    fn(
        "lock_door",
        "Lock or unlock one of the smart door locks.",
        {
            "door": enum("Which door", ["front", "back", "garage", "patio"]),
            "lock": boolean("True to lock, false to unlock"),
        },
    ),
    fn(
        "start_robot_vacuum",
        "Start the robot vacuum cleaner in selected rooms.",
        {"rooms": array("Rooms to clean", {"type": "string", "enum": _ROOMS}, unique=True)},
        {
            "suction_level": enum(
                "Suction power", ["quiet", "standard", "max"], default="standard"
            ),
            "mop": boolean("Also mop hard floors", default=False),
        },
    ),
    fn(
        "get_energy_usage",
        "Report the home's electricity consumption between two dates.",
        {"start_date": date("First day of the report"), "end_date": date("Last day of the report")},
        {"granularity": enum("Bucket size", ["hourly", "daily", "monthly"], default="daily")},
    ),
    fn(
        "arm_security_system",
        "Arm the home alarm system in a given mode.",
        {"mode": enum("Alarm mode", ["away", "home", "night"])},
        {"entry_delay_seconds": integer("Seconds to disarm after entering", 0, 120, default=30)},
    ),
    fn(
        "set_sprinkler_schedule",
        "Schedule the garden sprinklers of a zone on chosen weekdays.",
        {
            "zone": integer("Irrigation zone number", 1, 12),
            "start_time": time("Time watering starts"),
            "duration_minutes": integer("Minutes of watering", 1, 120),
            "days": array("Weekdays to water", {"type": "string", "enum": _DAYS}, unique=True),
        },
    ),
)
