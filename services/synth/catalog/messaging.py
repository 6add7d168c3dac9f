"""Messaging: email, SMS, chat channels, group chats, inbox search, auto-replies."""

from __future__ import annotations

from services.synth.catalog._schema import (
    array,
    boolean,
    date,
    datetime,
    email,
    fn,
    integer,
    text,
)

TOOLS = (
    fn(
        "send_email",
        "Send an email with a subject and body to one or more recipients.",
        {
            "to": array("Recipient email addresses", email("Recipient"), max_items=5, unique=True),
            "subject": text("Subject line"),
            "body": text("Body text of the email"),
        },
        {
            "cc": array("Email addresses to copy", email("Copied recipient"), max_items=5),
            "high_priority": boolean("Flag the email as important", default=False),
        },
    ),
    fn(
        "send_sms",
        "Send a text message to a mobile phone number.",
        {
            "phone_number": text(
                "Recipient mobile number in E.164 format, e.g. +14155550123",
                pattern="^\\+[1-9][0-9]{7,14}$",
            ),
            "message": text("Text of the SMS", maxLength=160),
        },
        {"sender_name": text("Name shown as the sender")},
    ),
    fn(
        "post_to_slack_channel",
        "Post a message to a Slack channel of the user's workspace.",
        {
            "channel": text("Channel name with #, e.g. #design-team", pattern="^#[a-z0-9-]{2,30}$"),
            "message": text("Message to post"),
        },
        {"notify_channel": boolean("Mention @channel to notify everyone", default=False)},
    ),
    fn(
        "schedule_whatsapp_message",
        "Schedule a WhatsApp message to a contact for a later time.",
        {
            "contact_name": text("Name of the contact as saved in the phone"),
            "message": text("Message text"),
            "send_at": datetime("When to send the message"),
        },
    ),
    fn(
        "create_group_chat",
        "Create a new group chat with several contacts.",
        {
            "group_name": text("Name of the group chat"),
            "members": array(
                "Names of the contacts to add",
                text("Contact name"),
                min_items=2,
                max_items=8,
                unique=True,
            ),
        },
        {"group_description": text("Short description of the group's purpose")},
    ),
    fn(
        "search_inbox",
        "Search the user's email inbox for messages matching keywords.",
        {"query": text("Keywords to look for in subject or body")},
        {
            "from_address": email("Only emails sent by this address"),
            "after_date": date("Only emails received after this day"),
            "unread_only": boolean("Only unread emails", default=False),
            "max_results": integer("Most emails to return", 1, 100, default=25),
        },
    ),
    fn(
        "set_email_autoreply",
        "Turn on an out-of-office automatic email reply for a period.",
        {
            "message": text("Text of the automatic reply"),
            "start_date": date("First day of the absence"),
            "end_date": date("Last day of the absence"),
        },
        {"external_only": boolean("Only reply to senders outside the company", default=False)},
    ),
)
