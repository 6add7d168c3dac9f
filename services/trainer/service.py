"""Pulling sources and building datasets: the trainer's work behind its dataset routes.

``POST /v1/datasets:build`` gathers its sources (pulling each service from its last cursor
first), hands them to the kind's builder (``services.trainer.datasets``, ``solar``), writes
the rows as JSONL under ``<data dir>/datasets/<id>.jsonl`` and stores the statistics and the
provenance of every source. A build that keeps no row is a 422 that says why (the builder's
skip counts travel in the error), so nothing empty is ever trained on. No FastAPI here.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from protocol.trainer import (
    BuildDatasetRequest,
    DatasetFilters,
    DatasetOut,
    EpisodesSourceIn,
    FileSourceIn,
    ServiceSourceIn,
)
from services.common.errors import RefineryError, UnavailableError
from services.common.upstreams import AllowList, same_upstream
from services.trainer.config import TrainerSettings
from services.trainer.sources import PullResult, planner_feed, pull, read_jsonl, synth_feed
from services.trainer.store import DatasetRow, Store, new_id

__all__ = ["BuildError", "Inputs", "Upstreams", "build_dataset", "dataset_out", "pull_sources"]


class BuildError(RefineryError):
    status_code = 422
    code = "invalid_build"


SOURCES_FOR: dict[str, frozenset[str]] = {
    "repair_sft": frozenset({"planner", "file"}),
    "evo_pairs": frozenset({"planner", "file"}),
    "tool_sft": frozenset({"synth", "file"}),
    "solar": frozenset({"planner", "episodes", "file"}),
    "grpo_sparse": frozenset({"planner", "episodes", "file"}),
    "gui_sft": frozenset({"episodes", "file"}),
}
FILTERS_FOR: dict[str, frozenset[str]] = {
    "margin": frozenset({"evo_pairs"}),
    "min_ves_gain": frozenset({"repair_sft"}),
    "select": frozenset({"repair_sft"}),
    "proposers": frozenset({"repair_sft", "evo_pairs", "solar", "grpo_sparse"}),
    "solar": frozenset({"solar", "grpo_sparse"}),
}


class Upstreams:
    """The planner and synth clients sources and publishing use (tests inject in-process ones).

    A request may name another instance (a source's ``url``, ``planner_url``): it must lie
    under ``REFINERY_PLANNER_URL``, ``REFINERY_SYNTH_URL`` or an entry of
    ``REFINERY_ALLOWED_UPSTREAMS`` (422 ``upstream_not_allowed`` otherwise), and it is called
    without this service's API key, which only the configured instances receive.
    """

    def __init__(
        self, settings: TrainerSettings, *, planner: Any = None, synth: Any = None
    ) -> None:
        self.settings = settings
        self._given = {"planner": planner, "synth": synth}
        self._owned: dict[str, Any] = {}
        self.allowed = AllowList(
            [settings.planner_url, settings.synth_url], settings.allowed_upstreams
        )

    def _new(self, service: str, url: str, *, configured: bool) -> Any:
        # "" rather than None: a client given no key would read REFINERY_API_KEY instead
        key = next(iter(self.settings.api_keys), None) if configured else ""
        if service == "planner":
            from clients.planner import PlannerClient

            return PlannerClient(url, api_key=key)
        try:
            from clients.synth import SynthClient
        except ImportError:
            raise UnavailableError("no synth client in this installation") from None
        return SynthClient(url, api_key=key)

    def _named(self, service: str, url: str | None) -> str | None:
        """``url`` when it names an instance other than the configured one, else None."""
        if url is None or same_upstream(url, getattr(self.settings, f"{service}_url")):
            return None
        return url

    def check(self, service: str, url: str | None, *, param: str) -> None:
        """422 ``upstream_not_allowed`` naming ``param`` unless ``url`` may be called."""
        named = self._named(service, url)
        if named is not None:
            self.allowed.require(named, param=param)

    @contextlib.contextmanager
    def client(self, service: str, url: str | None = None, *, param: str = "url") -> Iterator[Any]:
        """The configured client for ``service``, or a short-lived keyless one for another
        allowed ``url``."""
        named = self._named(service, url)
        if named is None:
            found = self._given[service] or self._owned.get(service)
            if found is None:
                default = getattr(self.settings, f"{service}_url")
                found = self._owned[service] = self._new(service, default, configured=True)
            yield found
            return
        self.allowed.require(named, param=param)
        client = self._new(service, named, configured=False)
        try:
            yield client
        finally:
            client.close()

    def close(self) -> None:
        for client in self._owned.values():
            client.close()
        self._owned.clear()


def pull_sources(
    store: Store, upstreams: Upstreams, sources: list[ServiceSourceIn], *, params: list[str]
) -> list[PullResult]:
    """Pull every service source from its stored cursor; unreachable services are a 503.
    ``params`` names each source on the wire (``sources[2]``). Every URL is checked against
    the allow-list before the first request."""
    from clients.errors import RefineryClientError

    for source, param in zip(sources, params, strict=True):
        upstreams.check(source.service, source.url, param=f"{param}.url")
    settings = upstreams.settings
    results = []
    for source, param in zip(sources, params, strict=True):
        with upstreams.client(source.service, source.url, param=f"{param}.url") as client:
            feed = planner_feed(client) if source.service == "planner" else synth_feed(client)
            try:
                results.append(
                    pull(
                        store,
                        feed,
                        page_size=settings.pull_page_size,
                        max_records=settings.max_pull_records,
                    )
                )
            except RefineryClientError as error:
                raise UnavailableError(
                    f"cannot pull from the {source.service} at {feed.url}: {error}",
                    code="source_unavailable",
                    param=param,
                ) from None
    return results


@dataclass
class Inputs:
    """Everything the sources gave, sorted by what it is."""

    records: list[dict[str, Any]] = field(default_factory=list)
    tasks: dict[str, dict[str, Any]] = field(default_factory=dict)
    examples: list[dict[str, Any]] = field(default_factory=list)
    episodes: list[dict[str, Any]] = field(default_factory=list)
    unrecognised: int = 0
    provenance: list[dict[str, Any]] = field(default_factory=list)

    def add_rows(self, rows: list[dict[str, Any]]) -> None:
        """File rows: Task.1 documents, planner records, episodes or tool-use examples."""
        for row in rows:
            if row.get("schema") == "Task.1" and "id" in row:
                self.tasks[str(row["id"])] = row
            elif "steps" in row:
                self.episodes.append(row)
            elif "state_timeline" in row and "patch" in row:
                self.records.append(row)
            elif "messages" in row:
                self.examples.append(row)
            else:
                self.unrecognised += 1


def _gather(
    store: Store, upstreams: Upstreams, request: BuildDatasetRequest, roots: list[Path]
) -> tuple[Inputs, list[PullResult]]:
    inputs = Inputs()
    pulled: list[PullResult] = []
    settings = upstreams.settings
    for index, source in enumerate(request.sources):
        param = f"sources[{index}]"
        name = _source_name(source)
        if name not in SOURCES_FOR[request.kind]:
            allowed = ", ".join(sorted(SOURCES_FOR[request.kind]))
            raise BuildError(
                f"{request.kind} cannot use a {name} source; it takes {allowed}", param=param
            )
        if isinstance(source, ServiceSourceIn):
            if request.pull:
                pulled += pull_sources(store, upstreams, [source], params=[param])
            _add_service(store, upstreams, source, inputs, param)
        elif isinstance(source, FileSourceIn):
            found = read_jsonl(Path(source.path), roots, param=f"{param}.path")
            inputs.add_rows(found.rows)
            inputs.provenance.append(found.provenance())
        else:
            inputs.episodes += _episodes(source, settings, param)
            inputs.provenance.append({"service": "episodes", **source.episodes.model_dump()})
    return inputs, pulled


def _source_name(source: Any) -> str:
    if isinstance(source, ServiceSourceIn):
        return source.service
    return "file" if isinstance(source, FileSourceIn) else "episodes"


def _add_service(
    store: Store, upstreams: Upstreams, source: ServiceSourceIn, inputs: Inputs, param: str
) -> None:
    from services.trainer.sources import source_key

    with upstreams.client(source.service, source.url, param=f"{param}.url") as client:
        key = source_key(source.service, client.base_url)
    rows = store.records(key)
    payloads = [row.payload for row in rows]
    if source.service == "planner":
        inputs.records += payloads
        inputs.tasks.update(store.tasks(key))
    else:
        inputs.examples += payloads
    state = store.cursor(key)
    inputs.provenance.append(
        {
            "service": source.service,
            "url": key.split(" ", 1)[1],
            "cursor": state.cursor if state else 0,
            "records": len(rows),
            "fetched_at": state.fetched_at.isoformat() if state else None,
        }
    )


def _episodes(source: EpisodesSourceIn, settings: TrainerSettings, param: str) -> list[dict]:
    spec = source.episodes
    if spec.n > settings.max_episodes:
        raise BuildError(
            f"at most {settings.max_episodes} episodes per source; asked for {spec.n}",
            code="limit_exceeded",
            param=f"{param}.episodes.n",
        )
    from services.trainer.episodes import generate_episodes

    return [_wire(e) for e in generate_episodes(spec.n, seed=spec.seed)]


def _wire(item: Any) -> dict[str, Any]:
    dump = getattr(item, "model_dump", None)
    return dump(mode="json") if dump is not None else dict(item)


def _check_filters(kind: str, filters: DatasetFilters) -> None:
    for name, kinds in FILTERS_FOR.items():
        if getattr(filters, name) is not None and kind not in kinds:
            raise BuildError(
                f"filter {name} applies to {', '.join(sorted(kinds))}, not {kind}",
                code="unknown_filter",
                param=f"filters.{name}",
            )


Builder = Callable[[Inputs, DatasetFilters], tuple[list[dict[str, Any]], dict[str, Any]]]


def _render(episode: Mapping[str, Any], index: int, step: Mapping[str, Any]) -> list[dict]:
    """The prompt of a step: stored messages (repair trajectories) or the GUI policy's."""
    if "messages" in step.get("observation", {}):
        from services.trainer.datasets import stored_messages

        return stored_messages(episode, index, step)
    from services.trainer.episodes import render_messages

    return render_messages(episode, index, step)


def _repair_sft(inputs: Inputs, filters: DatasetFilters) -> tuple[list[dict], dict]:
    from services.trainer.datasets import build_repair_sft

    gain = filters.min_ves_gain if filters.min_ves_gain is not None else 0.0
    return build_repair_sft(
        inputs.records,
        inputs.tasks,
        min_gain=gain,
        proposers=filters.proposers,
        select=filters.select or "trajectory",
    )


def _evo_pairs(inputs: Inputs, filters: DatasetFilters) -> tuple[list[dict], dict]:
    from services.trainer.datasets import build_evo_pairs
    from services.trainer.datasets.evo_pairs import DEFAULT_MARGIN

    margin = filters.margin if filters.margin is not None else DEFAULT_MARGIN
    return build_evo_pairs(inputs.records, inputs.tasks, margin=margin, proposers=filters.proposers)


def _tool_sft(inputs: Inputs, filters: DatasetFilters) -> tuple[list[dict], dict]:
    from services.trainer.datasets import build_tool_sft

    return build_tool_sft(inputs.examples)


def _all_episodes(inputs: Inputs, filters: DatasetFilters) -> tuple[list[dict], dict]:
    """Given episodes plus the planner's repair branches as trajectories."""
    episodes = list(inputs.episodes)
    stats: dict[str, Any] = {"episodes_given": len(episodes)}
    if inputs.records:
        from services.trainer.datasets import build_trajectories

        found, trajectory_stats = build_trajectories(
            inputs.records, inputs.tasks, proposers=filters.proposers
        )
        episodes += found
        stats["trajectories"] = trajectory_stats
    return episodes, stats


def _solar_config(filters: DatasetFilters) -> Any:
    from services.trainer.configs import coerce_fields
    from services.trainer.solar import LIMITS, SolarConfig

    given = coerce_fields(
        SolarConfig,
        filters.solar or {},
        prefix="filters.solar",
        ranges=LIMITS,
        unknown_code="invalid_build",
    )
    try:
        return SolarConfig(**given)
    except RefineryError as error:
        error.param = f"filters.solar.{error.param}" if error.param else "filters.solar"
        raise


def _solar(kind: str) -> Builder:
    def build(inputs: Inputs, filters: DatasetFilters) -> tuple[list[dict], dict]:
        from services.trainer.solar import solar_rows, sparse_rows

        config = _solar_config(filters)
        episodes, source_stats = _all_episodes(inputs, filters)
        make = solar_rows if kind == "solar" else sparse_rows
        rows, stats = make(episodes, render=_render, config=config)
        return rows, {**stats, "sources": source_stats}

    return build


def _gui_sft(inputs: Inputs, filters: DatasetFilters) -> tuple[list[dict], dict]:
    """Every step of every successful episode as a prompt → action row (behaviour cloning)."""
    from services.trainer.episodes import EpisodeError, episode_rows, parse_episode

    kept, skipped = [], {"unsuccessful": 0, "invalid": 0}
    for raw in inputs.episodes:
        try:
            episode = parse_episode(raw)
        except EpisodeError:
            skipped["invalid"] += 1
            continue
        if not episode.success:
            skipped["unsuccessful"] += 1
            continue
        kept.append(episode)
    rows = episode_rows(kept)
    stats = {
        "builder": "gui_sft",
        "rows": len(rows),
        "episodes": {"seen": len(inputs.episodes), "kept": len(kept), "skipped": skipped},
    }
    return rows, stats


BUILDERS: dict[str, Builder] = {
    "repair_sft": _repair_sft,
    "evo_pairs": _evo_pairs,
    "tool_sft": _tool_sft,
    "solar": _solar("solar"),
    "grpo_sparse": _solar("grpo_sparse"),
    "gui_sft": _gui_sft,
}


def _refuse_empty(kind: str, filters: DatasetFilters, stats: dict[str, Any]) -> None:
    states = stats.get("states", {})
    at_margin = states.get("skipped", {}).get("no_pair_at_margin", 0) if states else 0
    if kind == "evo_pairs" and at_margin:
        raise BuildError(
            f"margin {filters.margin} leaves no pairs: in {at_margin} state(s) no two "
            "candidates differ by that much; lower filters.margin",
            code="no_pairs_at_margin",
            param="filters.margin",
            context={"stats": stats},
        )
    raise BuildError(
        f"the {kind} dataset would be empty: its sources gave nothing the builder keeps "
        "(see stats for what was skipped and why)",
        code="empty_dataset",
        param="sources",
        context={"stats": stats},
    )


def _write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    """All rows or no file: written aside, then renamed into place."""
    path.parent.mkdir(parents=True, exist_ok=True)
    staging = path.with_name(f".{path.name}.tmp")
    with staging.open("wb") as out:
        for row in rows:
            out.write(orjson.dumps(row) + b"\n")
    os.replace(staging, path)


def build_dataset(store: Store, upstreams: Upstreams, request: BuildDatasetRequest) -> DatasetRow:
    """Gather, build, refuse an empty result, write the JSONL, record it."""
    settings = upstreams.settings
    _check_filters(request.kind, request.filters)
    roots = settings.source_roots or [settings.data_dir, Path.cwd()]
    for index, source in enumerate(request.sources):
        if isinstance(source, ServiceSourceIn):
            upstreams.check(source.service, source.url, param=f"sources[{index}].url")
    inputs, pulled = _gather(store, upstreams, request, roots)
    rows, stats = BUILDERS[request.kind](inputs, request.filters)
    if request.filters.max_rows is not None:
        rows = rows[: request.filters.max_rows]
    stats = {**stats, "rows": len(rows), "unrecognised_rows": inputs.unrecognised}
    if pulled:
        stats["pulled"] = [p.wire() for p in pulled]
    if not rows:
        _refuse_empty(request.kind, request.filters, stats)
    dataset_id = new_id(request.kind.replace("_", "-"))
    path = (settings.data_dir / "datasets" / f"{dataset_id}.jsonl").resolve()
    _write_jsonl(path, rows)
    row = DatasetRow(
        id=dataset_id,
        kind=request.kind,
        rows=len(rows),
        path=str(path),
        stats=orjson.loads(orjson.dumps(stats, option=orjson.OPT_NON_STR_KEYS)),
        sources=inputs.provenance,
        filters=request.filters.model_dump(exclude_none=True),
    )
    store.add(row)
    return row


def dataset_out(row: DatasetRow) -> DatasetOut:
    return DatasetOut(
        dataset_id=row.id,
        kind=row.kind,
        rows=row.rows,
        stats=row.stats,
        sources=row.sources,
        filters=row.filters,
        created_at=row.created_at,
        download=f"/v1/datasets/{row.id}/download",
    )
