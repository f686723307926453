"""The project's alignment type: phrase edits that convert to and from token links.

A *token link* is ``(p, h)``: text (premise) token ``p`` aligned to hypothesis token
``h``, both 0-based. Gold corpora give links (SURE and POSSIBLE); MANLI, ITG and the
edit-distance aligners produce phrase edits. Following MacCartney, Galley & Manning
(2008, §2), a phrase alignment is a set of edits EQ / SUB (a text phrase aligned to a
hypothesis phrase), DEL (an unaligned text phrase) and INS (an unaligned hypothesis
phrase), one-to-one at the phrase level, each token in exactly one edit. Two tokens
are linked iff they lie in the two phrases of one EQ or SUB edit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from explorer.errors import ExplorerError

__all__ = ["Alignment", "AlignmentError", "Edit", "EditKind", "Link", "Span", "best_blocks"]

Link = tuple[int, int]
Span = tuple[int, int]  # [start, end) token offsets


class EditKind(StrEnum):
    """The four MANLI edit types."""

    EQ = "EQ"
    SUB = "SUB"
    DEL = "DEL"
    INS = "INS"


class AlignmentError(ExplorerError, ValueError):
    """An alignment that breaks the representation's invariants."""


@dataclass(frozen=True)
class Edit:
    """One phrase edit.

    Attributes:
        kind: EQ, SUB, DEL or INS.
        p_span: ``[start, end)`` in the text, None for INS.
        h_span: ``[start, end)`` in the hypothesis, None for DEL.
        score: the edit's contribution to its aligner's total, when one scored it.
        features: the named feature values behind ``score`` (for display).
    """

    kind: EditKind
    p_span: Span | None
    h_span: Span | None
    score: float = 0.0
    features: tuple[tuple[str, float], ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        needs_p = self.kind is not EditKind.INS
        needs_h = self.kind is not EditKind.DEL
        if needs_p != (self.p_span is not None) or needs_h != (self.h_span is not None):
            raise AlignmentError(f"{self.kind.value} edit with spans {self.p_span}, {self.h_span}")
        for span in (self.p_span, self.h_span):
            if span is not None and not 0 <= span[0] < span[1]:
                raise AlignmentError(f"empty or negative span {span}")

    @property
    def is_aligned(self) -> bool:
        return self.kind in (EditKind.EQ, EditKind.SUB)

    def links(self) -> frozenset[Link]:
        """Token links this edit creates (none for DEL and INS)."""
        if self.p_span is None or self.h_span is None:
            return frozenset()
        return frozenset(
            (p, h) for p in range(*self.p_span) for h in range(*self.h_span)
        )


@dataclass(frozen=True)
class Alignment:
    """A token alignment between a text of ``p_len`` and a hypothesis of ``h_len`` tokens.

    ``sure`` and ``possible`` are disjoint link sets (gold corpora distinguish them;
    system output has only SURE links). ``edits`` is the phrase view when one exists:
    produced by a phrase aligner, or by :meth:`to_phrase_edits`.
    """

    p_len: int
    h_len: int
    sure: frozenset[Link] = frozenset()
    possible: frozenset[Link] = frozenset()
    edits: tuple[Edit, ...] | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.p_len < 0 or self.h_len < 0:
            raise AlignmentError("sentence lengths must be non-negative")
        for p, h in self.sure | self.possible:
            if not (0 <= p < self.p_len and 0 <= h < self.h_len):
                raise AlignmentError(
                    f"link ({p}, {h}) outside a {self.p_len} x {self.h_len} grid"
                )
        if self.sure & self.possible:
            raise AlignmentError("a link cannot be both SURE and POSSIBLE")

    @property
    def links(self) -> frozenset[Link]:
        """SURE and POSSIBLE links together."""
        return self.sure | self.possible

    @classmethod
    def from_edits(cls, p_len: int, h_len: int, edits: tuple[Edit, ...] | list[Edit]) -> Alignment:
        """Build from phrase edits, checking that each token is in exactly one edit."""
        edits = tuple(edits)
        p_seen = [0] * p_len
        h_seen = [0] * h_len
        for edit in edits:
            for span, seen, n in ((edit.p_span, p_seen, p_len), (edit.h_span, h_seen, h_len)):
                if span is None:
                    continue
                if span[1] > n:
                    raise AlignmentError(f"span {span} beyond sentence length {n}")
                for i in range(*span):
                    seen[i] += 1
        if any(c != 1 for c in p_seen) or any(c != 1 for c in h_seen):
            raise AlignmentError("every token must lie in exactly one edit")
        sure = frozenset().union(*(e.links() for e in edits)) if edits else frozenset()
        return cls(p_len, h_len, sure=sure, edits=edits)

    @classmethod
    def from_links(
        cls, p_len: int, h_len: int, sure: set[Link] | frozenset[Link],
        possible: set[Link] | frozenset[Link] = frozenset(),
    ) -> Alignment:
        """Build the token view; POSSIBLE links that are also SURE count as SURE."""
        sure = frozenset(sure)
        return cls(p_len, h_len, sure=sure, possible=frozenset(possible) - sure)

    def to_phrase_edits(
        self, *, with_possible: bool = False, partial: bool = False
    ) -> tuple[tuple[Edit, ...], frozenset[Link]]:
        """Convert links to MANLI-reachable phrase edits by merging contiguous links.

        Each connected component of the link graph becomes one SUB edit when its text
        tokens and its hypothesis tokens are both contiguous and every text token is
        linked to every hypothesis token (a full block); the kind is left as SUB since
        lemmas are unknown here (aligners mark EQ). Links of other components cannot be
        expressed by a one-to-one phrase alignment: those tokens become DEL/INS and the
        links are returned as unreachable.

        With ``partial=True`` such a component is not dropped whole: it keeps the
        largest set of its links that disjoint full blocks can express (see
        :func:`best_blocks`), and only the rest are unreachable. This is the closest
        reachable alignment, the one to train a phrase aligner towards.

        Returns:
            The edits (covering every token exactly once) and the unreachable links.
        """
        links = self.links if with_possible else self.sure
        edits: list[Edit] = []
        unreachable: set[Link] = set()
        for ps, hs in _components(links):
            component_links = {link for link in links if link[0] in ps}
            kept, lost = _component_edits(ps, hs, component_links, partial=partial)
            edits += kept
            unreachable |= lost
        return (*edits, *_unaligned_edits(edits, self.p_len, self.h_len)), frozenset(unreachable)

    def to_sure_align(self) -> str:
        """The ``"i-j ..."`` string of SURE links used by published aligner outputs."""
        return " ".join(f"{p}-{h}" for p, h in sorted(self.sure))


def _components(links: frozenset[Link]) -> list[tuple[set[int], set[int]]]:
    """The connected components of the link graph as (text tokens, hypothesis tokens),
    ordered by their first text token."""
    p_adj: dict[int, set[int]] = {}
    h_adj: dict[int, set[int]] = {}
    for p, h in links:
        p_adj.setdefault(p, set()).add(h)
        h_adj.setdefault(h, set()).add(p)
    components: list[tuple[set[int], set[int]]] = []
    p_done: set[int] = set()
    for start in sorted(p_adj):
        if start in p_done:
            continue
        ps: set[int] = {start}
        hs: set[int] = set()
        frontier = [("p", start)]
        while frontier:
            side, i = frontier.pop()
            for j in (p_adj if side == "p" else h_adj).get(i, ()):
                target = hs if side == "p" else ps
                if j not in target:
                    target.add(j)
                    frontier.append(("h" if side == "p" else "p", j))
        p_done |= ps
        components.append((ps, hs))
    return components


def _component_edits(
    ps: set[int], hs: set[int], component_links: set[Link], *, partial: bool,
) -> tuple[list[Edit], set[Link]]:
    """One component's SUB edits and the links they cannot hold: one edit for a
    contiguous full block; else, with ``partial``, the best disjoint full blocks
    (:func:`best_blocks`), without it none."""
    block = {(p, h) for p in ps for h in hs}
    contiguous = max(ps) - min(ps) + 1 == len(ps) and max(hs) - min(hs) + 1 == len(hs)
    if contiguous and component_links == block:
        return [Edit(EditKind.SUB, (min(ps), max(ps) + 1), (min(hs), max(hs) + 1))], set()
    if not partial:
        return [], component_links
    kept = best_blocks(component_links)
    covered = {(p, h) for p_span, h_span in kept for p in range(*p_span) for h in range(*h_span)}
    return [Edit(EditKind.SUB, p_span, h_span) for p_span, h_span in kept], component_links - covered


def _unaligned_edits(edits: list[Edit], p_len: int, h_len: int) -> list[Edit]:
    """A DEL for every text token and an INS for every hypothesis token no edit covers."""
    aligned_p = {i for e in edits if e.p_span for i in range(*e.p_span)}
    aligned_h = {i for e in edits if e.h_span for i in range(*e.h_span)}
    return ([Edit(EditKind.DEL, (p, p + 1), None) for p in range(p_len) if p not in aligned_p]
            + [Edit(EditKind.INS, None, (h, h + 1)) for h in range(h_len) if h not in aligned_h])


def _full_blocks(links: set[Link] | frozenset[Link]) -> list[tuple[Span, Span]]:
    """Every block ``[p0, p1) x [h0, h1)`` all of whose token pairs are links."""
    ps = sorted({p for p, _ in links})
    hs = sorted({h for _, h in links})
    blocks: list[tuple[Span, Span]] = []
    for i, p0 in enumerate(ps):
        for p1 in ps[i:]:
            if p1 - p0 + 1 > len(ps) or any(p not in ps for p in range(p0, p1 + 1)):
                break
            for j, h0 in enumerate(hs):
                for h1 in hs[j:]:
                    if all((p, h) in links for p in range(p0, p1 + 1) for h in range(h0, h1 + 1)):
                        blocks.append(((p0, p1 + 1), (h0, h1 + 1)))
                    else:
                        break
    return blocks


def best_blocks(links: set[Link] | frozenset[Link], *, exact_limit: int = 24) -> list[tuple[Span, Span]]:
    """Disjoint full blocks (no two share a text or hypothesis token) covering as many
    of ``links`` as possible: exact branch-and-bound search over the candidate blocks
    when there are at most ``exact_limit`` of them, largest-first greedy otherwise.
    Ties prefer fewer, larger blocks (the search sees larger blocks first)."""
    blocks = sorted(
        _full_blocks(links),
        key=lambda b: (-(b[0][1] - b[0][0]) * (b[1][1] - b[1][0]), b[0][0], b[1][0]),
    )
    sizes = [(b[0][1] - b[0][0]) * (b[1][1] - b[1][0]) for b in blocks]

    def fits(block: tuple[Span, Span], used_p: set[int], used_h: set[int]) -> bool:
        return not any(p in used_p for p in range(*block[0])) and not any(h in used_h for h in range(*block[1]))

    if len(blocks) > exact_limit:
        chosen: list[tuple[Span, Span]] = []
        used_p: set[int] = set()
        used_h: set[int] = set()
        for block in blocks:
            if fits(block, used_p, used_h):
                chosen.append(block)
                used_p.update(range(*block[0]))
                used_h.update(range(*block[1]))
        return chosen

    best: list[list[tuple[Span, Span]]] = [[]]
    best_size = [0]
    suffix = [sum(sizes[i:]) for i in range(len(sizes) + 1)]

    def search(i: int, chosen: list[tuple[Span, Span]], size: int, used_p: set[int], used_h: set[int]) -> None:
        if size > best_size[0]:
            best_size[0], best[0] = size, list(chosen)
        if i == len(blocks) or size + suffix[i] <= best_size[0]:
            return
        block = blocks[i]
        if fits(block, used_p, used_h):
            chosen.append(block)
            search(i + 1, chosen, size + sizes[i], used_p | set(range(*block[0])), used_h | set(range(*block[1])))
            chosen.pop()
        search(i + 1, chosen, size, used_p, used_h)

    search(0, [], 0, set(), set())
    return best[0]
