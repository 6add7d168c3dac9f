"""One CP-SAT model: the best timeline of ``n`` shots under one music option.

The objective is VES scaled to integers (:data:`SCALE`). Every part is exact but for one:
an ``order`` rule's before/after inversions, which enter as an optimistic penalty (never
below the verifier's), so the objective is an upper bound on the verified VES of each
solution; the solver re-verifies every solution and iterates (see :mod:`.solver`).

Each rule adds a reward the solver may only claim when the timeline earns it (``sat ⇒
condition``, ``ok ⇒ in range``): maximising sets every reward to what the verifier gives.
"""

from __future__ import annotations

from dataclasses import dataclass

from ortools.sat.python import cp_model

from services.planner.exact import timing
from services.planner.exact.discretise import MusicOption
from services.verifier import ledger as L
from services.verifier.score import Verifier
from services.verifier.timeline import MusicPlacement, Transition

SCALE = 10_000_000
SEQUENCE = (L.MustInclude, L.MustExclude, L.OrientationRule, L.MaxConsecutiveTag, L.Coverage)


@dataclass
class Built:
    """A built model and the handles to read a solution (``x[i][c]``: shot i uses clip c)."""

    model: cp_model.CpModel
    x: list[list[cp_model.IntVar]]
    cuts: list[list[cp_model.IntVar]]
    """Per music option, the shot ends (the last is the timeline's end)."""
    music: list[cp_model.IntVar]
    objective: cp_model.LinearExpr
    constant: float
    rounding: float
    """The most the integer objective can differ from the exact one (VES units)."""
    sequence: cp_model.LinearExpr
    """The objective's terms the clip sequence alone decides (all of it with no options)."""
    timed: list[tuple[cp_model.LinearExpr, float]]
    """Per music option, its timing terms (0 unless it is chosen) and their rounding."""


class _Builder:
    def __init__(self, verifier: Verifier, clips: list[str], n: int) -> None:
        self.verifier, self.clips, self.n = verifier, clips, n
        self.model = cp_model.CpModel()
        self.terms: list[tuple[int, cp_model.IntVar]] = []
        self.constant = 0.0
        self.rounding = 0.0

    def reward(self, value: float, var: cp_model.IntVar, top: int = 1) -> None:
        scaled = round(value * SCALE)
        self.rounding += abs(scaled - value * SCALE) * top / SCALE
        if scaled:
            self.terms.append((scaled, var))

    def table(
        self, index: cp_model.IntVar, values: list[float], when: cp_model.IntVar | None = None
    ) -> None:
        """Adds ``values[index]`` to the objective (only ``when`` that flag is set)."""
        ints = [round(v * SCALE) for v in values]
        var = self.model.new_int_var(min(ints), max(ints), "")
        self.model.add_element(index, ints, var)
        self.rounding += 0.5 / SCALE
        if when is None:
            self.terms.append((1, var))
            return
        gated = self.model.new_int_var(min(0, min(ints)), max(0, max(ints)), "")
        self.model.add(gated == var).only_enforce_if(when)
        self.model.add(gated == 0).only_enforce_if(~when)
        self.terms.append((1, gated))

    def shots_in(self, x: list[list[cp_model.IntVar]], chosen: frozenset[str]) -> list:
        """Per shot, the expression "this shot's clip is in ``chosen``" (0/1)."""
        return [
            sum(x[i][c] for c, cid in enumerate(self.clips) if cid in chosen) for i in range(self.n)
        ]


@dataclass(frozen=True, slots=True)
class Timed:
    """The music options that share one grid, merged: for each end point, what the fixed
    and length-only rules add with the option that adds most there, and that option's
    placement (a timeline ending there is scored with it)."""

    option: MusicOption
    """One of the options (the grid and pacing are the same for all)."""
    table: list[float]
    placements: list[MusicPlacement | None]


def build(
    verifier: Verifier, clips: list[str], n: int, options: list[Timed], transition: Transition
) -> Built:
    """The model for ``n`` shots over every music option (one is chosen); with no options,
    only the parts the clip sequence decides (their best bounds every model for ``n``)."""
    b = _Builder(verifier, clips, n)
    m = b.model
    x = [[m.new_bool_var(f"x{i}_{c}") for c in range(len(clips))] for i in range(n)]
    for i in range(n):
        m.add_exactly_one(x[i])
    for c in range(len(clips)):
        m.add_at_most_one(x[i][c] for i in range(n))
    chosen = [m.new_bool_var(f"music{k}") for k in range(len(options))]
    if options:
        m.add_exactly_one(chosen)
    cuts, parts = [], []
    for timed, flag in zip(options, chosen, strict=True):
        first, rounding = len(b.terms), b.rounding
        cuts.append(_timing(b, x, timed, transition, flag))
        parts.append((b.terms[first:], b.rounding - rounding))
    first = len(b.terms)
    _rubric(b, x)
    for rule in verifier.task.ledger:
        if isinstance(rule, SEQUENCE):
            _sequence_rule(b, x, rule)
        elif isinstance(rule, L.Order):
            _order(b, x, rule)
    if not options:
        _break_reversal(b, x)
    objective = sum(coef * var for coef, var in b.terms)
    m.maximize(objective)
    sequence = sum(coef * var for coef, var in b.terms[first:])
    timed = [(sum(coef * var for coef, var in terms), r) for terms, r in parts]
    return Built(m, x, cuts, chosen, objective, b.constant, b.rounding, sequence, timed)


def _break_reversal(b: _Builder, x: list[list[cp_model.IntVar]]) -> None:
    """With no ``order`` rule every part the clips alone decide scores a sequence and its
    reverse alike (pair variety is symmetric, runs and counts do not see the direction):
    keep the one whose first clip comes before its last in the pool."""
    if b.n < 2 or any(isinstance(r, L.Order) for r in b.verifier.task.ledger):
        return
    index = range(len(b.clips))
    b.model.add(sum(c * x[0][c] for c in index) < sum(c * x[-1][c] for c in index))


def _timing(
    b: _Builder,
    x: list[list[cp_model.IntVar]],
    timed: Timed,
    transition: Transition,
    flag: cp_model.IntVar,
) -> list[cp_model.IntVar]:
    """One music option, in force when ``flag``: cut positions on its grid, shot lengths
    within each clip's media, its end-point table and the length rules."""
    option = timed.option
    m, n, grid = b.model, b.n, option.grid
    domain = cp_model.Domain.from_values(grid)
    cuts = [m.new_int_var_from_domain(domain, "") for _ in range(n)]  # cuts[-1]: the end
    end = m.new_int_var(0, len(grid) - 1, "")
    m.add_element(end, list(grid), cuts[-1])
    pacing = timing.pacing_table(b.verifier, option, n)
    b.table(end, [t + p for t, p in zip(timed.table, pacing, strict=True)], flag)
    before, after = transition.before_cut, transition.after_cut
    lengths = []
    for i in range(n):
        length = cuts[i] - (cuts[i - 1] if i else 0)
        lengths.append(length)
        into = after if i else 0  # frames of the incoming transition after the cut
        out = (transition.duration >> 1) if i < n - 1 else 0
        m.add(length >= max(1, into + out))
        media = [
            b.verifier.task.clips[cid].duration - (before if i else 0) - (after if i < n - 1 else 0)
            for cid in b.clips
        ]
        m.add(length <= sum(cap * x[i][c] for c, cap in enumerate(media))).only_enforce_if(flag)
    for rule in b.verifier.task.ledger:
        if isinstance(rule, L.ShotLength):
            _shot_length(b, lengths, rule, flag)
    return cuts


def _shot_length(b: _Builder, lengths: list, rule: L.ShotLength, music: cp_model.IntVar) -> None:
    m = b.model
    ok = [m.new_bool_var("") for _ in lengths]
    for flag, length in zip(ok, lengths, strict=True):
        m.add_implication(flag, music)
        m.add(length >= rule.min).only_enforce_if(flag)
        m.add(length <= rule.max).only_enforce_if(flag)
    w = timing.weight(rule, b.verifier)
    if rule.hard:
        sat = m.new_bool_var("")
        for flag in ok:
            m.add_implication(sat, flag)
        b.reward(w, sat)
    else:
        for flag in ok:  # score 1 − offending / shots
            b.reward(w / b.n, flag)


def _rubric(b: _Builder, x: list[list[cp_model.IntVar]]) -> None:
    """Relevance (chosen ÷ the pool's best n: distinct clips never exceed it) and variety."""
    verifier, n, clips = b.verifier, b.n, b.clips
    prefix = verifier._best_prefix
    best = prefix[min(n, len(prefix) - 1)]
    if best > 0:
        for i in range(n):
            for c, cid in enumerate(clips):
                b.reward(timing.RUBRIC_PART * verifier.relevance(cid) / best, x[i][c])
    else:
        b.constant += timing.RUBRIC_PART
    if n == 1:
        b.constant += timing.RUBRIC_PART
        return
    size = len(clips)
    m = b.model
    for i in range(n - 1):  # y[a][c]: shot i uses clip a and shot i + 1 clip c
        y = [[m.new_bool_var("") for _ in range(size)] for _ in range(size)]
        for a in range(size):
            m.add(sum(y[a]) == x[i][a])
            m.add(sum(y[c][a] for c in range(size)) == x[i + 1][a])
            for c in range(size):
                if a != c:
                    value = verifier._pair_variety(clips[a], clips[c])
                    b.reward(timing.RUBRIC_PART * value / (n - 1), y[a][c])


def _sequence_rule(b: _Builder, x: list[list[cp_model.IntVar]], rule: L.Constraint) -> None:
    verifier, m, n = b.verifier, b.model, b.n
    w = timing.weight(rule, verifier)
    sat = m.new_bool_var("") if rule.hard else None
    if isinstance(rule, L.MustInclude):
        count = sum(b.shots_in(x, verifier.matching(rule.selector)))
        if sat is not None:
            m.add(count >= rule.min_count).only_enforce_if(sat)
        else:
            capped = m.new_int_var(0, rule.min_count, "")
            m.add(capped <= count)
            b.reward(w / rule.min_count, capped, rule.min_count)
    elif isinstance(rule, (L.MustExclude, L.OrientationRule)):
        if isinstance(rule, L.MustExclude):
            bad = verifier.matching(rule.selector)
        else:
            bad = frozenset(verifier.task.clips) - verifier.clips_with_orientation(rule.value)
        good = b.shots_in(x, frozenset(b.clips) - bad)
        if sat is not None:
            m.add(sum(good) == n).only_enforce_if(sat)
        else:  # score 1 − offending / shots
            for i in range(n):
                for c, cid in enumerate(b.clips):
                    if cid not in bad:
                        b.reward(w / n, x[i][c])
    elif isinstance(rule, L.MaxConsecutiveTag):
        _runs(b, x, rule, w, sat)
    elif isinstance(rule, L.Coverage):
        _coverage(b, x, rule, w, sat)
    if sat is not None:
        b.reward(w, sat)


def _runs(
    b: _Builder, x: list, rule: L.MaxConsecutiveTag, w: float, sat: cp_model.IntVar | None
) -> None:
    """``over`` ≥ the longest run of tagged shots beyond ``max_run`` (one bound per window)."""
    m, n = b.model, b.n
    tagged = b.shots_in(x, b.verifier.matching(rule.selector))
    over = m.new_int_var(0, n, "")
    for size in range(rule.max_run + 1, n + 1):
        for start in range(n - size + 1):
            window = sum(tagged[start : start + size])
            m.add(over >= (size - rule.max_run) * (window - size + 1))
    if sat is not None:
        m.add(over == 0).only_enforce_if(sat)
    else:  # score 1 − over / shots
        b.constant += w
        b.reward(-w / n, over, n)


def _coverage(
    b: _Builder, x: list, rule: L.Coverage, w: float, sat: cp_model.IntVar | None
) -> None:
    m, topics = b.model, len(rule.topics)
    covered = []
    for words in rule.topic_terms:
        flag = m.new_bool_var("")
        m.add(flag <= sum(b.shots_in(x, b.verifier.clips_with_terms(words))))
        covered.append(flag)
    count = m.new_int_var(0, topics, "")
    m.add(count == sum(covered))
    fractions = [1.0 - (topics - k) / topics for k in range(topics + 1)]  # the verifier's sum
    if sat is not None:
        need = next(k for k, f in enumerate(fractions) if f >= rule.min_fraction)
        m.add(count >= need).only_enforce_if(sat)
    else:
        scores = [1.0 if f >= rule.min_fraction else f / rule.min_fraction for f in fractions]
        b.table(count, [w * s for s in scores])


def _order(b: _Builder, x: list, rule: L.Order) -> None:
    """First/last checks exactly; before/after inversions as an optimistic penalty."""
    verifier, m, n = b.verifier, b.model, b.n
    w = timing.weight(rule, verifier)
    oks = []
    for position, selector in ((0, rule.first), (n - 1, rule.last)):
        if selector is not None:
            flag = m.new_bool_var("")
            m.add(b.shots_in(x, verifier.matching(selector))[position] >= 1).only_enforce_if(flag)
            oks.append(flag)
    both = rule.before is not None and rule.after is not None
    inverted = []  # inverted[k]: shot i is an "after" and a later shot j a "before" one
    if both:
        before = b.shots_in(x, verifier.matching(rule.before))
        after = b.shots_in(x, verifier.matching(rule.after))
        for i in range(n):
            for j in range(i + 1, n):
                pair = m.new_bool_var("")
                m.add(pair >= after[i] + before[j] - 1)
                inverted.append(pair)
    if rule.hard:
        sat = m.new_bool_var("")
        for flag in oks:
            m.add_implication(sat, flag)
        for pair in inverted:
            m.add_implication(sat, ~pair)
        b.reward(w, sat)
        return
    # score ≤ 1 − failed/(checks + 1·both) − inversions/((checks + 1)·most pairs)
    checks = len(oks)
    denominator = checks + (1 if both else 0)
    b.constant += w * (1.0 - (checks / denominator if denominator else 0.0))
    for flag in oks:
        b.reward(w / denominator, flag)
    if inverted:
        penalty = w / ((checks + 1) * _most_pairs(b, rule))
        for pair in inverted:
            b.reward(-penalty, pair)


def _most_pairs(b: _Builder, rule: L.Order) -> int:
    """The most (before, after) shot pairs ``n`` distinct clips of the pool can hold: the
    verifier divides the inversions by the pairs, so dividing by this never penalises more."""
    assert rule.before is not None and rule.after is not None
    before = b.verifier.matching(rule.before) & set(b.clips)
    after = b.verifier.matching(rule.after) & set(b.clips)
    n, shared = b.n, len(before & after)
    most = max(
        (
            k * a
            for k in range(min(n, len(before)) + 1)
            for a in range(min(n, len(after)) + 1)
            if k + a <= n + min(shared, k, a)
        ),
        default=0,
    )
    return max(1, most)
