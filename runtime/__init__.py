"""The app server's machinery, apart from the library and without Streamlit.

``explorer/`` is the library (what the CLI, the experiments and a Python user import);
``components/`` draws pages with Streamlit; this package runs the processes and caches a
server needs around them, and imports the library but never Streamlit nor ``components``:

- :mod:`runtime.pool`: the warm worker pool pages send their scoring to;
- :mod:`runtime.warmup`, :mod:`runtime.disk_caches`: the methods warmed once per server,
  and their disk caches built in parallel on first start;
- :mod:`runtime.cutoff_jobs`: a dataset's cutoffs chosen in a background child process;
- :mod:`runtime.isolated_reader`: an uploaded file parsed in a bounded child process;
- :mod:`runtime.processes`: how each of those children is started, bounded and stopped;
- :mod:`runtime.lru`, :mod:`runtime.server_log`, :mod:`runtime.timing`,
  :mod:`runtime.streamlit_config`: a size-bounded cache, the server log's filter, page
  timings, and the upload limit read from ``.streamlit/config.toml`` (plain TOML, no
  Streamlit import), which the class server (``serve/``) reads too.

Nothing is imported here: importing a submodule stays as cheap as the submodule.
"""
