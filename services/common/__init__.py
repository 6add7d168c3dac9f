"""Plumbing shared by every Refinery service.

``settings`` (CommonSettings, database_url_for) · ``db`` (engines, create_tables,
insert_ignore) · ``jobs`` (durable JobQueue) · ``worker`` (Worker, JobContext) ·
``errors`` (RefineryError tree) · ``app`` (build_app: ops routes, envelopes, auth,
limits, logs, metrics). Only ``app``, ``middleware`` and ``responses`` import
FastAPI/Starlette; import them from service edges, never from domain code.
"""
