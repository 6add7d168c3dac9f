"""The wire models more than one side reads: each service's request and response bodies, the
job and the error envelope, and the media a task's URIs name.

Services and clients both import this package; it imports only ``services.common`` and the
verifier's pure domain (for ``TaskIn.to_task()`` and ``TimelineIn.to_timeline()``). See
``docs/architecture.md`` for the floors and which way each import runs.
"""
