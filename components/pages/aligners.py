"""Aligners page: run the registered aligners over gold alignments, compare precision,
recall, F1 and exact match with MacCartney, Galley & Manning (2008, Table 1), and list
the problems worst first, each opening on the Pair page."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import streamlit as st

from components import analysis, workers
from components.data import SAMPLE_DIR, SAMPLE_ORIGIN, LoadedDataset, load_file, load_msr, msr_available
from components.guard import guarded
from components.state import current_dataset, open_pair, set_dataset
from components.text import plain
from explorer.aligners import ALIGNERS
from explorer.alignment import Alignment
from explorer.pairs import Pair
from explorer.published import PAPER_TABLE1
from runtime.pool import cost, tasks

#: Hand-made gold alignments for some pairs of each built-in sample.
SAMPLE_GOLD = {
    "Hand-written, typical sample (sample_data/typical_align.txt, 6 pairs)": SAMPLE_DIR / "typical_align.txt",
    "Hand-written, blind spots (sample_data/blind_spots_align.txt, 6 pairs)": SAMPLE_DIR / "blind_spots_align.txt",
}
MAX_PROBLEMS = 800


#: Problems per job (other visitors' jobs go between two; MANLI takes about 0.1-0.3 s each).
CHUNK = 25


def _evaluate(key: str, aligner: str, limit: int, pairs: tuple[Pair, ...], model: str = "") -> pd.DataFrame:
    """Per-problem figures of one aligner on the first ``limit`` gold problems
    (``model``: MANLI's shipped model by name; ignored for other aligners), aligned on the
    server's workers a chunk at a time, each chunk kept for the whole server."""
    from explorer.aligners.evaluation import score_pair

    gold = [p for p in pairs if p.gold_alignment is not None][:limit]
    alignments: list[Alignment] = []
    seconds: list[float] = []
    for start in range(0, len(gold), CHUNK):
        chunk = list(gold[start : start + CHUNK])
        done = analysis.kept(
            ("aligners_page", key, aligner, model, start, len(chunk)),
            lambda chunk=chunk, start=start: workers.run(  # type: ignore[misc]
                tasks.run_aligner_chunk, chunk, aligner, model,
                what=f"Aligning problems {start + 1}-{start + len(chunk)} with {aligner}",
                long=cost.is_long(chunk, [aligner])))
        alignments += done[0]
        seconds += done[1]
    rows = []
    for pair, alignment, secs in zip(gold, alignments, seconds, strict=True):
        assert pair.gold_alignment is not None  # filtered above
        s = score_pair(pair.id, alignment, pair.gold_alignment)
        rows.append({
            "id": pair.id, "F1": 100 * s.f1, "precision": 100 * s.precision, "recall": 100 * s.recall,
            "exact": s.exact, "predicted": s.predicted, "gold": s.gold, "ms": 1000 * secs,
            "hypothesis": pair.hypothesis,
        })
    return pd.DataFrame(rows)


def summary_row(name: str, frame: pd.DataFrame) -> dict[str, object]:
    """Macro P and R, F1 as their harmonic mean, exact match (the align-eval definitions)."""
    p, r = frame["precision"].mean(), frame["recall"].mean()
    return {
        "aligner": name, "problems": len(frame), "P": round(p, 1), "R": round(r, 1),
        "F1": round(2 * p * r / (p + r), 1) if p + r else 0.0,
        "exact %": round(100 * frame["exact"].mean(), 1), "median ms": round(frame["ms"].median(), 1),
    }


def paper_table() -> pd.DataFrame:
    return pd.DataFrame(
        [{"aligner": n, "P": p, "R": r, "F1": f, "exact %": e} for n, p, r, f, e in PAPER_TABLE1]
    )


def render_paper_table() -> None:
    """The paper's Table 1 under a line naming it; a figure the paper gives but we do not cite
    shows as a dash, not as an empty value."""
    st.markdown("**MacCartney et al. (2008), Table 1, on RTE2 test** (their dev rows are not cited here; "
                "– = not cited)")
    shown = paper_table().set_index("aligner").map(lambda v: "–" if v is None or pd.isna(v) else f"{v:.1f}")
    st.dataframe(shown, key="aligners_paper",
                 column_config={c: st.column_config.TextColumn(c) for c in shown.columns})


def gold_source() -> LoadedDataset | None:
    """The current dataset when it has gold alignments; otherwise offer gold files."""
    loaded = current_dataset()
    if loaded.dataset.has_gold_alignments:
        return loaded
    st.info(
        f"The current dataset ({plain(loaded.name)}) has no gold alignments. Load an MSR "
        "`.align.txt` or Edinburgh++ JSON file on the Dataset page, or pick one here."
    )
    options = {label: str(path) for label, path in SAMPLE_GOLD.items()}
    if msr_available():
        options["MSR RTE2 dev, annotators A/B/C merged (800 problems)"] = "msr"
    choice = st.selectbox("Gold alignments", list(options), key="aligners_gold")
    if st.button("Use these gold alignments", key="aligners_load"):
        if options[choice] == "msr":
            set_dataset(load_msr())
        else:
            set_dataset(load_file(Path(options[choice]), origin=SAMPLE_ORIGIN))
        st.rerun()
    return None


def is_manli_training_data(loaded: LoadedDataset, model: str | None = None) -> bool:
    """Whether these gold alignments are among the sets the MANLI model ``model`` (a
    shipped name; the default model when None) was trained on: the MSR RTE2 dev problems
    (the merged annotator files, or one of them loaded on its own) for every shipped
    model, the Edinburgh++ training file for the combined one."""
    from explorer.aligners.manli import DEFAULT_MODEL_NAME, SHIPPED_MODELS, training_set_of

    shipped = SHIPPED_MODELS[model or DEFAULT_MODEL_NAME]
    found = training_set_of(loaded.key) or training_set_of(loaded.name)
    return found is not None and found in shipped.training_sets


def manli_model_choice() -> str:
    """The MANLI model picker: a shipped model's name, and a line saying what it was trained on."""
    from explorer.aligners.manli import DEFAULT_MODEL_NAME, SHIPPED_MODELS

    names = list(SHIPPED_MODELS)
    model = st.selectbox(
        "MANLI model", names, index=names.index(DEFAULT_MODEL_NAME), key="aligners_manli_model",
        format_func=lambda n: f"{SHIPPED_MODELS[n].label} ({SHIPPED_MODELS[n].file})",
        help="The default is the model the `manli` scorer uses; `align-eval --model NAME` picks the same.",
    )
    shipped = SHIPPED_MODELS[str(model)]
    st.caption(f"MANLI model in use: `explorer/models/{shipped.file}`, trained on {shipped.trained_on}.")
    return str(model)


def body() -> None:
    st.title("Aligners")
    st.caption(
        "Precision and recall of aligned token pairs per problem (SURE gold links only), "
        "macro-averaged; F1 from the macro P and R; exact = the predicted links equal the "
        "gold SURE links. The same figures as `python -m explorer align-eval`."
    )
    loaded = gold_source()
    if loaded is None:
        st.subheader("Published figures")
        render_paper_table()
        return
    n_gold = sum(p.gold_alignment is not None for p in loaded.dataset.pairs)
    left, right = st.columns(2)
    default = [n for n in ("bow", "manli") if n in ALIGNERS] or list(ALIGNERS)[:1]
    chosen = left.multiselect("Aligners", list(ALIGNERS), default=default, key="aligners_names",
                              format_func=lambda n: ALIGNERS[n].label)
    limit = int(right.number_input(
        "Problems (first N)", min_value=1, max_value=min(n_gold, MAX_PROBLEMS), value=min(n_gold, 100), step=50,
        key="aligners_limit",
    ))
    if not chosen:
        st.info("Pick at least one aligner.")
        return
    from explorer.aligners.manli import SHIPPED_MODELS

    model = manli_model_choice() if "manli" in chosen else ""
    frames: dict[str, pd.DataFrame] = {}
    with st.spinner(f"Aligning {limit} problems..."):
        for name in chosen:
            frames[name] = _evaluate(loaded.key, name, limit, tuple(loaded.dataset.pairs),
                                     model if name == "manli" else "")
    st.subheader(f"{plain(loaded.name)}: {limit} of {n_gold} problems")
    training = "manli" in chosen and is_manli_training_data(loaded, model)
    if training:
        shipped = SHIPPED_MODELS[model]
        st.warning(
            f"MANLI's model `explorer/models/{shipped.file}` was trained on {shipped.trained_on}: these "
            "gold alignments are among them, so its figures here are **training-set figures**, not "
            "comparable with the paper's RTE2 *test* figures below."
        )
    rows = [summary_row(ALIGNERS[n].label, f) for n, f in frames.items()]
    for row, name in zip(rows, frames):
        if name == "manli":
            row["aligner"] = f"{row['aligner']} ({SHIPPED_MODELS[model].label})" + (
                " - training-set figures" if training else "")
    st.dataframe(pd.DataFrame(rows), hide_index=True, key="aligners_summary")
    render_paper_table()

    st.subheader("Problems, worst first")
    which = st.selectbox("Aligner", list(frames), key="aligners_worst", format_func=lambda n: ALIGNERS[n].label)
    worst = frames[which].sort_values(["F1", "id"], kind="stable").reset_index(drop=True)
    shown = worst[["id", "F1", "precision", "recall", "exact", "predicted", "gold", "hypothesis"]].round(1)
    event = st.dataframe(shown, hide_index=True, on_select="rerun", selection_mode="single-row", key="aligners_table")
    rows = list(getattr(getattr(event, "selection", None), "rows", []) or [])
    if rows:
        open_pair(str(shown.iloc[rows[0]]["id"]))
    pick = st.selectbox("Open a problem on the Pair page", list(shown["id"]), key="aligners_pick")
    # Named in full: a bare "Open" is also every select box's dropdown button (its aria-label).
    if st.button("Open on the Pair page", key="aligners_open"):
        open_pair(str(pick))


guarded(body, what="the Aligners page")
