"""Which clips the exact solver works with: the whole pool when it is small enough, else
the clips the rules ask for first, then the most relevant clips the hard rules allow."""

from __future__ import annotations

from services.verifier import ledger as L
from services.verifier.pool import Selector
from services.verifier.score import Verifier


def _banned(verifier: Verifier) -> set[str]:
    banned: set[str] = set()
    for rule in verifier.task.ledger:
        if rule.hard and isinstance(rule, L.MustExclude):
            banned |= verifier.matching(rule.selector)
        elif rule.hard and isinstance(rule, L.OrientationRule):
            banned |= set(verifier.task.clips) - verifier.clips_with_orientation(rule.value)
    return banned


def _needs(verifier: Verifier) -> list[tuple[frozenset[str], int]]:
    needs: list[tuple[frozenset[str], int]] = []
    for rule in verifier.task.ledger:
        if isinstance(rule, L.MustInclude):
            needs.append((verifier.matching(rule.selector), rule.min_count))
        elif isinstance(rule, L.Order):
            for selector in (rule.first, rule.last):
                if isinstance(selector, Selector):
                    needs.append((verifier.matching(selector), 1))
        elif isinstance(rule, L.Coverage):
            needs += [(verifier.clips_with_terms(words), 1) for words in rule.topic_terms]
    return needs


def choose_clips(verifier: Verifier, limit: int) -> list[str]:
    """At most ``limit`` clip ids, in pool order when the whole pool fits."""
    task = verifier.task
    if len(task.clips) <= limit:
        return list(task.clips)
    banned = _banned(verifier)
    ranked = sorted(task.clips, key=lambda c: (c in banned, -verifier.relevance(c), c))
    chosen: list[str] = []
    for clips, count in _needs(verifier):
        have = sum(1 for c in chosen if c in clips)
        extra = [c for c in ranked if c in clips and c not in chosen and c not in banned]
        chosen += extra[: max(0, count - have)]
    chosen += [c for c in ranked if c not in chosen]
    return chosen[:limit]
