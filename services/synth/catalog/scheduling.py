"""Calendar: events, meetings, reminders and recurring series."""

from __future__ import annotations

from services.synth.catalog._schema import (
    array,
    boolean,
    date,
    datetime,
    email,
    enum,
    fn,
    integer,
    obj,
    text,
    time,
)

_EVENT_ID = "^evt_[a-z0-9]{8}$"

TOOLS = (
    fn(
        "create_calendar_event",
        "Create a one-off event in the user's calendar and invite attendees.",
        {
            "title": text("Title of the event"),
            "date": date("Day of the event"),
            "start_time": time("Start time"),
            "end_time": time("End time"),
        },
        {
            "attendees": array(
                "Email addresses of invitees", email("Invitee email"), max_items=8, unique=True
            ),
            "location": text("Where the event takes place"),
            "reminder_minutes": integer("Minutes before start to remind", 0, 1440, default=15),
        },
    ),
    fn(
        "list_calendar_events",
        "List the events in one of the user's calendars between two dates.",
        {"start_date": date("First day to list"), "end_date": date("Last day to list")},
        {"calendar_name": enum("Which calendar", ["work", "personal", "family"], default="work")},
    ),
    fn(
        "find_free_meeting_slot",
        "Find a time on a given day when all attendees are free for a meeting.",
        {
            "attendees": array(
                "Email addresses of everyone who must attend",
                email("Attendee email"),
                min_items=2,
                max_items=10,
                unique=True,
            ),
            "date": date("Day to search"),
            "duration_minutes": integer("Meeting length in minutes", 15, 480),
        },
        {
            "earliest_time": time("No slot before this time", default="09:00"),
            "latest_time": time("No slot ending after this time", default="17:00"),
        },
    ),
    fn(
        "set_reminder",
        "Set a reminder that notifies the user at an exact date and time.",
        {
            "reminder_text": text("What to be reminded of"),
            "remind_at": datetime("When the reminder fires"),
        },
        {"priority": enum("Reminder priority", ["low", "normal", "high"], default="normal")},
    ),
    fn(
        "cancel_calendar_event",
        "Cancel a calendar event by its id and tell the attendees.",
        {"event_id": text("Calendar event id, e.g. evt_3k9d0a1b", pattern=_EVENT_ID)},
        {
            "notify_attendees": boolean("Email attendees about the cancellation", default=True),
            "cancellation_message": text("Note sent to attendees"),
        },
    ),
    fn(
        "reschedule_meeting",
        "Move an existing meeting to a new day and start time.",
        {
            "event_id": text("Calendar event id, e.g. evt_3k9d0a1b", pattern=_EVENT_ID),
            "new_date": date("New day of the meeting"),
            "new_start_time": time("New start time"),
        },
        {"notify_attendees": boolean("Email attendees about the change", default=True)},
    ),
    fn(
        "create_recurring_event",
        "Create a repeating calendar series such as a weekly stand-up.",
        {
            "title": text("Title of the series"),
            "first_date": date("Day of the first occurrence"),
            "start_time": time("Start time of every occurrence"),
            "recurrence": obj(
                "How the event repeats",
                {
                    "frequency": enum("Repeat unit", ["daily", "weekly", "monthly"]),
                    "interval": integer("Repeat every N units", 1, 12),
                },
                {"occurrences": integer("Stop after this many occurrences", 1, 52)},
            ),
        },
        {"duration_minutes": integer("Length of each occurrence", 5, 480, default=30)},
    ),
)
