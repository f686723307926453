"""Entailment Alignment Explorer: the Streamlit entry point.

Run with ``make run`` (or ``streamlit run app.py``). The app opens on the built-in sample
(``sample_data/typical.xml``); the Dataset page loads others. To add a page, add one
row to :data:`PAGES`: a script under ``components/pages/``, its title and an icon.
"""

from __future__ import annotations

import streamlit as st

from components.access import require_access
from components.charts import format_picker
from components.guard import guarded
from components.sections import batch_results
from components.state import current_dataset
from components.store_access import author_box
from components.text import count, plain
from explorer import resources

TITLE = "Entailment Alignment Explorer"

#: (script, title, icon). The first page is the one the app opens on.
PAGES: list[tuple[str, str, str]] = [
    ("components/pages/pair.py", "Pair", ":material/compare_arrows:"),
    ("components/pages/dataset.py", "Dataset", ":material/table_view:"),
    ("components/pages/evaluate.py", "Evaluate", ":material/monitoring:"),
    ("components/pages/errors.py", "Errors", ":material/label:"),
    ("components/pages/compare.py", "Compare", ":material/scatter_plot:"),
    ("components/pages/mtmetrics.py", "MT metrics", ":material/translate:"),
    ("components/pages/aligners.py", "Aligners", ":material/join_inner:"),
    ("components/pages/teach.py", "Teach", ":material/school:"),
]


def sidebar() -> None:
    """The current dataset and the NLTK resources that are missing, with what degrades."""
    loaded = current_dataset()
    batch_results.sidebar_note()
    st.sidebar.caption(f"Dataset: **{plain(loaded.name)}** ({count(len(loaded.dataset), 'pair')}, {loaded.origin})")
    author_box()
    format_picker()
    missing = resources.missing()
    note = resources.degraded_note(missing)
    if note:
        # One line, not a box: the table below says what each missing resource changes.
        st.sidebar.caption(f":orange[:material/warning:] {note}")
    with st.sidebar.expander(f"NLTK resources ({len(missing)} missing)" if missing else "NLTK resources"):
        st.dataframe(resources.describe(), hide_index=True)


def main() -> None:
    st.set_page_config(page_title=TITLE, page_icon=":material/join_inner:", layout="wide")
    if not require_access():
        return
    page = st.navigation([st.Page(script, title=title, icon=icon) for script, title, icon in PAGES])
    guarded(page.run, what=f"the {page.title} page")
    # After the page, so the sidebar names a dataset the page has just loaded.
    guarded(sidebar, what="the sidebar")


main()
