"""MT metrics page (Finch, Hwang & Sumita 2005): the paper's Table 1 for the current
dataset, and the SVM-over-MT-metrics experiment beside the paper's figures.

The training data is the current dataset (chosen on the Dataset page); the test data is
optional: without it the experiment is k-fold cross-validation over the training data.
"""

from __future__ import annotations

import streamlit as st

from components import uploads
from components.data import LoadedDataset, load_file, load_uploaded, nltk_rte_files
from components.sections.mt_experiment import render_corpus_statistics, render_mtmetrics_comparison
from components.state import current_dataset
from components.text import count, plain
from explorer.datasets import DatasetError

NONE = "none: cross-validate on the training data"
UPLOAD = "an uploaded file"


def test_controls(loaded: LoadedDataset) -> LoadedDataset | None:
    """The optional test set: an NLTK RTE file or an upload."""
    rte = {f"NLTK RTE: {name}": path for name, path in nltk_rte_files().items()}
    choice = st.selectbox("Test data", [NONE, *rte, UPLOAD], key="mtmetrics_test")
    try:
        if choice in rte:
            return load_file(rte[choice], origin="NLTK RTE corpus")
        if choice == UPLOAD:
            upload = st.file_uploader("Test set", key="mtmetrics_test_upload", max_upload_size=uploads.MAX_UPLOAD_MB,
                                      help=uploads.describe_limits())
            return load_uploaded(upload.getvalue(), upload.name) if upload is not None else None
    except DatasetError as err:
        st.error(f"Could not load the test set: {plain(err)}")
    return None


def main() -> None:
    st.title("MT metrics")
    loaded = current_dataset()
    st.subheader(f"Corpus statistics: {plain(loaded.name)}")
    render_corpus_statistics(loaded.dataset)
    st.subheader("Classifier over MT-metric features")
    if not loaded.binary_labels:
        st.info(f"{plain(loaded.name)} has no entailment labels; load a labelled dataset on the Dataset page to train.")
        return
    st.caption(f"Training data: **{plain(loaded.name)}** ({count(len(loaded.dataset), 'pair')}).")
    test = test_controls(loaded)
    render_mtmetrics_comparison(loaded.dataset, test.dataset if test is not None else None)


main()
