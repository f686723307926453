"""The best edit sequence of a pFSM / pPDA as a figure (pure Plotly, no Streamlit).

One row per operation, top to bottom in the order the machine applies them, as in
Wang & Cer (2012, Figure 1): deletions, insertions, substitutions by class, blocks and
the pPDA's jumps. The bar is the operation's posterior probability at that position
(over every edit sequence, not only the best one); the label names the words; hover
shows the edge's log weight and the positions.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import plotly.graph_objects as go

from explorer.edit_distance.model import EditStep

#: Colour of each operation class.
STEP_COLOURS: dict[str, str] = {
    "S_WORD": "#2e7d32",
    "S_LEMMA": "#66bb6a",
    "S_PUNC": "#a5d6a7",
    "S_BLOCK": "#388e3c",
    "S_PARA": "#1565c0",
    "S_SYN": "#42a5f5",
    "S_OTHER": "#8e24aa",
    "DEL": "#c62828",
    "INS": "#ef6c00",
    "JUMP_F": "#455a64",
    "JUMP_B": "#90a4ae",
}


def _words(tokens: Sequence[str], span: tuple[int, int] | None) -> str:
    return " ".join(tokens[span[0] : span[1]]) if span else ""


def step_label(step: EditStep, text_tokens: Sequence[str], hypothesis_tokens: Sequence[str]) -> str:
    """A one-line description: ``S_WORD  man → man``, ``DEL  the``, ``JUMP_F +2``."""
    t = _words(text_tokens, step.text_span)
    h = _words(hypothesis_tokens, step.hyp_span)
    if step.op == "JUMP_F":
        return f"JUMP_F +{step.jump} (to text token {step.text_position + step.jump + 1})"
    return _LABELS.get(step.op, "{cls}  {t} → {h}").format(t=t, h=h, cls=step.cls)


#: The label of each operation that is not a forward jump; any other (a substitution or
#: a block) is labelled by its class. ``{t}`` and ``{h}`` are the text's and the
#: hypothesis's words the step covers.
_LABELS = {"JUMP_B": "JUMP_B (back to the skipped words)", "DEL": "DEL  {t}", "INS": "INS  {h}"}


def edit_sequence_figure(
    steps: Sequence[EditStep],
    probabilities: Sequence[float],
    text_tokens: Sequence[str],
    hypothesis_tokens: Sequence[str],
    *,
    title: str = "",
) -> go.Figure:
    """Draw an edit sequence as rows of operations with their posterior probabilities.

    Raises:
        ValueError: if ``probabilities`` does not have one value per step.
    """
    if len(probabilities) != len(steps):
        raise ValueError(f"{len(probabilities)} probabilities for {len(steps)} steps")
    labels = [f"{k + 1:>2}. {step_label(s, text_tokens, hypothesis_tokens)}" for k, s in enumerate(steps)]
    figure = go.Figure()
    for cls, colour in STEP_COLOURS.items():
        rows = [k for k, s in enumerate(steps) if (s.op if s.op.startswith("JUMP") else s.cls) == cls]
        if not rows:
            continue
        figure.add_trace(go.Bar(
            orientation="h", name=cls, marker={"color": colour},
            y=[labels[k] for k in rows], x=[min(1.0, probabilities[k]) for k in rows],
            customdata=[[steps[k].log_weight, steps[k].text_position, steps[k].hyp_position, probabilities[k]]
                        for k in rows],
            hovertemplate=("%{y}<br>posterior %{customdata[3]:.3f}<br>log weight %{customdata[0]:.3f}"
                           "<br>text position %{customdata[1]}, hypothesis position %{customdata[2]}<extra></extra>"),
        ))
    figure.update_layout(
        title=title or None, barmode="overlay",
        height=max(220, 90 + 22 * len(steps)),
        margin={"l": 10, "r": 10, "t": 40 if title else 10, "b": 30},
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.0, "x": 0},
    )
    figure.update_yaxes(categoryorder="array", categoryarray=labels, autorange="reversed", automargin=True)
    figure.update_xaxes(range=[0, 1], title="posterior probability at this position")
    return figure


@dataclass(frozen=True)
class Reinsertion:
    """A word the best sequence deletes from the text and inserts, unchanged, into the
    hypothesis; ``crossing`` says whether matching it would cross a link the sequence made."""

    word: str
    text_index: int
    hyp_index: int
    crossing: bool


def reinsertions(steps: Sequence[EditStep], text_tokens: Sequence[str], hypothesis_tokens: Sequence[str],
                 links: Iterable[tuple[int, int]]) -> list[Reinsertion]:
    """Deleted text words that come back as identical inserted hypothesis words (case
    ignored), each paired once, in hypothesis order."""
    deleted: dict[str, list[int]] = {}
    for step in steps:
        if step.op == "DEL" and step.text_span:
            for i in range(*step.text_span):
                deleted.setdefault(text_tokens[i].lower(), []).append(i)
    made = list(links)
    found = []
    for step in steps:
        if step.op != "INS" or not step.hyp_span:
            continue
        for j in range(*step.hyp_span):
            waiting = deleted.get(hypothesis_tokens[j].lower())
            if not waiting:
                continue
            i = waiting.pop(0)
            crossing = any((a < i and b > j) or (a > i and b < j) for a, b in made)
            found.append(Reinsertion(hypothesis_tokens[j], i, j, crossing))
    return sorted(found, key=lambda r: r.hyp_index)


def reinsertion_note(found: Sequence[Reinsertion], kind: str) -> str:
    """One plain sentence on why a sequence deletes and re-inserts the same words ("" for none)."""
    if not found:
        return ""
    crossing = [r.word for r in found if r.crossing]
    other = [r.word for r in found if not r.crossing]
    parts = []
    if crossing:
        words = ", ".join(f"'{w}'" for w in crossing)
        if kind == "ppda":
            parts.append(f"It deletes {words} from the text and inserts the same word(s) into the hypothesis: they "
                         "stand in a different order on the two sides, and reaching them with a jump scored lower "
                         "under the trained weights than deleting and re-inserting.")
        else:
            parts.append(f"It deletes {words} from the text and inserts the same word(s) into the hypothesis: the "
                         "pFSM reads both sentences left to right, and these words stand on the other side of a "
                         "matched stretch in the two sentences, so matching them would cross a link already made "
                         "(the pPDA's jumps can reach such words).")
    if other:
        words = ", ".join(f"'{w}'" for w in other)
        parts.append(f"It deletes and re-inserts {words} although a match would cross no link: under the trained "
                     "weights that path scores at least as high as the match here.")
    return " ".join(parts)
