"""The exact solver: the VES-optimal timeline of a small task on a documented discretisation
(see ``docs/exact.md``). :func:`~services.planner.exact.solver.solve` is the entry point."""
