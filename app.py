"""Entailment Alignment Explorer: the Streamlit entry point.

Run with ``make run`` (or ``streamlit run app.py``). The app opens on the built-in sample
(``sample_data/typical.xml``); the Dataset page loads others. To add a page, add one
row to :data:`PAGES`: a script under ``components/pages/``, its title and an icon.
"""

from __future__ import annotations

import sys

import streamlit as st

TITLE = "Entailment Alignment Explorer"

# A new server's first visitor sees progress before the app's own modules are imported
# (about two seconds of imports on this machine; a bare Streamlit page paints in about one):
# set_page_config must come first, then one bar, cleared once the imports are done. Later
# runs find the modules loaded and draw nothing here.
st.set_page_config(page_title=TITLE, page_icon=":material/join_inner:", layout="wide")
_BOOT = None if "components.warmup" in sys.modules else st.empty()
if _BOOT is not None:
    _BOOT.progress(0.0, text="Starting the explorer on this server (loading its modules)…")
    from components.workers import start_early  # noqa: E402  (light: the pool, not the pages)

    start_early()  # the workers warm up on another core while the modules below load

from components import upload_answers, upload_bounds  # noqa: E402
from components.access import require_access  # noqa: E402  (after the progress bar: see above)
from components.charts import format_picker  # noqa: E402
from components.guard import guarded  # noqa: E402
from components.sections import batch_results  # noqa: E402
from components.state import current_dataset, link_missing, link_notice  # noqa: E402
from components.store_access import author_box  # noqa: E402
from components.text import count, plain  # noqa: E402
from components.warmup import sidebar_note, start_warmup, summary, wait_for_warmup  # noqa: E402
from explorer import resources  # noqa: E402
from runtime import memory_budget, run_slots, server_log  # noqa: E402

#: (script, title, icon). The first page is the one the app opens on.
PAGES: list[tuple[str, str, str]] = [
    ("components/pages/pair.py", "Pair", ":material/compare_arrows:"),
    ("components/pages/dataset.py", "Dataset", ":material/table_view:"),
    ("components/pages/evaluate.py", "Evaluate", ":material/monitoring:"),
    ("components/pages/errors.py", "Errors", ":material/label:"),
    ("components/pages/compare.py", "Compare", ":material/scatter_plot:"),
    ("components/pages/groups.py", "Groups", ":material/category:"),
    ("components/pages/mtmetrics.py", "MT metrics", ":material/translate:"),
    ("components/pages/aligners.py", "Aligners", ":material/join_inner:"),
    ("components/pages/teach.py", "Teach", ":material/school:"),
]


def sidebar() -> None:
    """The working dataset and the NLTK resources that are missing, with what degrades."""
    loaded = current_dataset()
    st.sidebar.caption(batch_results.describe()
                       or f"Dataset: **{plain(loaded.name)}** ({count(len(loaded.dataset), 'pair')}, {loaded.origin})")
    author_box()
    format_picker()
    missing = resources.missing()
    note = resources.degraded_note(missing)
    if note:
        # One line, not a box: the table below says what each missing resource changes.
        st.sidebar.caption(f":orange[:material/warning:] {note}")
    failed = sidebar_note()
    if failed:
        st.sidebar.caption(f":orange[:material/warning:] {failed}")
    with st.sidebar.expander(f"NLTK resources ({len(missing)} missing)" if missing else "NLTK resources"):
        st.dataframe(resources.describe(), hide_index=True)
        warmed = summary()
        if warmed:
            st.caption(warmed)


def main() -> None:
    if _BOOT is not None:
        _BOOT.empty()
    server_log.install()  # a closed tab's failed sends are not errors (once per process)
    memory_budget.check()  # over its budget, this process sheds its caches (largest first)
    memory_budget.watch()  # and so it does when idle: a thread checks every 30 s (once per process)
    upload_bounds.install()  # uploads bounded per session and server, dropped with their session
    upload_answers.install()  # a run starting meanwhile no longer drops an answer for upload URLs
    if not require_access():
        return
    start_warmup()  # at once, on a thread: it runs while this page imports and draws
    page = st.navigation([st.Page(script, title=title, icon=icon) for script, title, icon in PAGES])
    # The working dataset before any page: one a fresh session's URL names, and while a
    # batch result is open, the page of it that pages needing pairs in memory show.
    guarded(batch_results.ensure_window, what="the batch result")
    if link_missing():  # a link to data this server lacks: said on every page, the URL kept
        st.warning(link_notice() or "")
    if page.title != "Pair":  # the Pair page draws its text boxes first, then waits itself
        guarded(wait_for_warmup, what="the warm-up")
    guarded(page.run, what=f"the {page.title} page")
    # After the page, so the sidebar names a dataset the page has just loaded.
    guarded(sidebar, what="the sidebar")


with run_slots.slot():  # a few runs of this process at once, the rest in turn
    main()
