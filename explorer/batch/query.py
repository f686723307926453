"""Read a batch result without loading it: DuckDB over the Parquet chunks.

What the pages need from a 500k-pair result, each answered by one query that returns
little: a filtered and sorted page of rows with the total count, the distinct labels
and tasks, a scorer's range, a random sample for scatter plots, a pair by id; and,
from one scorer's stored values (a float and a bool per pair, a few MB), the
accuracy-vs-cutoff sweep, the best cutoff, histograms by gold label and per-task
figures, computed with the same functions as :mod:`explorer.decision.measures`.

Every identifier that reaches SQL is checked against the result's own columns; every
value is a bound parameter.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import duckdb
    import pandas as pd

from explorer.batch.folder import storage_error
from explorer.batch.schema import (
    CHUNK_DIR,
    CHUNK_GLOB,
    PAIR_COLUMNS,
    BatchError,
    Manifest,
    breakdown,
    breakdown_column,
    error_column,
    finished_chunks,
    read_manifest,
)
from explorer.decision.cutoffs import CutoffChoice
from explorer.decision.resolve import Scored, reported_source, resolve_cutoff
from explorer.decision.rules import DEFAULT_RULE

#: Longest page of rows one query returns.
MAX_PAGE = 1000
#: Largest scatter sample.
MAX_SAMPLE = 20_000
#: Points kept of an accuracy-vs-cutoff curve for drawing (the sweep itself is exact).
CURVE_POINTS = 500
ALL, CORRECT, INCORRECT, REFUSED = "all", "correct", "incorrect", "refused"
#: The label filter's name for pairs without a gold label.
NO_LABEL = "(none)"
#: Rows of the Dataset page's table, and the columns it shows for a scorer; its first,
#: unfiltered page sorted by each scorer is kept with the figures.
FIRST_PAGE = 50


def first_page_columns(scorer: str) -> list[str]:
    return ["id", "task", "label", scorer, "text", "hypothesis", error_column(scorer)]


#: The figures the pages paint first, kept in the result folder (JSON; recomputed when
#: the chunk files change): written by ``batch`` when it completes, else by the first
#: page that computes them. A read-only folder keeps them in memory only.
FIGURES = "figures.json"
_FIGURES_VERSION = 1


@dataclass(frozen=True)
class Filters:
    """Which rows to show; empty means no filter.

    ``outcome`` (correct / incorrect / refused) is judged for ``scorer`` at ``cutoff``
    (entailed when value > cutoff); ``score_range`` bounds ``scorer``'s value.
    """

    labels: tuple[str, ...] = ()
    tasks: tuple[str, ...] = ()
    scorer: str | None = None
    cutoff: float | None = None
    outcome: str = ALL
    score_range: tuple[float, float] | None = None
    search: str = ""


@dataclass(frozen=True)
class Page:
    rows: pd.DataFrame  # at most MAX_PAGE rows
    total: int  # rows passing the filters
    offset: int


@dataclass(frozen=True)
class ScoreColumn:
    """One scorer's values over the whole result (nulls dropped), with the gold
    labels, tasks and graded scores of the same pairs."""

    values: np.ndarray
    entails: np.ndarray  # float: 1.0 / 0.0, NaN when unlabelled
    task_codes: np.ndarray  # int: index into task_names
    task_names: tuple[str, ...]  # "" for pairs without a task
    gold_score: np.ndarray  # float, NaN when none
    refused: int


@dataclass
class BatchResult:
    """A batch folder opened for queries (a finished or a partial run: only finished
    chunk files are read)."""

    directory: Path
    manifest: Manifest
    _local: threading.local = field(default_factory=threading.local, repr=False)
    _columns_cache: dict[str, ScoreColumn] = field(default_factory=dict, repr=False)
    _sweeps: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict, repr=False)
    _counts: dict[Filters, int] = field(default_factory=dict, repr=False)
    _figures: dict[str, Any] | None = field(default=None, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _unsaved: bool = field(default=False, repr=False)
    _db: duckdb.DuckDBPyConnection | None = field(default=None, repr=False)

    @classmethod
    def open(cls, directory: str | Path) -> BatchResult:
        """Raises:
            BatchError: when the folder holds no batch result or no finished chunk.
        """
        directory = Path(directory)
        manifest = read_manifest(directory)
        if not finished_chunks(directory):
            raise BatchError(f"{directory}: no finished chunk yet; run or resume the batch first")
        return cls(directory, manifest)

    # ---------------------------------------------------------------- plumbing
    def _connection(self) -> duckdb.DuckDBPyConnection:
        """This thread's DuckDB connection. All of them share one in-memory database, so
        the chunk files' footers, read once, serve every thread (a Streamlit session runs
        its script in a thread of its own)."""
        con = getattr(self._local, "con", None)
        if con is None:
            with self._lock:
                if self._db is None:
                    import duckdb

                    self._db = duckdb.connect()
                    self._db.execute("SET GLOBAL parquet_metadata_cache = true")
                con = self._db.cursor()
            con.execute("SET enable_progress_bar = false")
            self._local.con = con
        return con

    def warm(self) -> None:
        """Start DuckDB and read every chunk file's footer in a background thread, so the
        first filter change does not pay for them (the first paint needs neither)."""
        def read_footers() -> None:
            try:
                self.query("SELECT count(*) FROM {source}").fetchall()
            except Exception:  # best effort: the query that needs it reports the error
                pass

        threading.Thread(target=read_footers, name="batch-warm", daemon=True).start()

    @property
    def _source(self) -> str:
        pattern = str(self.directory / CHUNK_DIR / CHUNK_GLOB).replace("'", "''")
        return f"read_parquet('{pattern}')"

    @property
    def columns(self) -> list[str]:
        names = [name for name, _ in PAIR_COLUMNS]
        for s in self.manifest.scorers:
            names += [s, error_column(s), *(breakdown_column(s, f) for f in breakdown(s))]
        return names + list(self.manifest.phenomenon_columns.values())

    def _column(self, name: str) -> str:
        if name not in self.columns:
            raise BatchError(f"no column {name!r} in this result; columns: {', '.join(self.columns)}")
        return f'"{name}"'

    def _scorer(self, name: str) -> str:
        if name not in self.manifest.scorers:
            raise BatchError(f"scorer {name!r} is not in this result; it has {', '.join(self.manifest.scorers)}")
        return f'"{name}"'

    def query(self, sql: str, params: Sequence[object] = ()) -> duckdb.DuckDBPyConnection:
        """Run SQL in which ``{source}`` stands for the result's rows; a DuckDB relation
        (the result is computed here, so a chunk that cannot be read fails here).

        Raises:
            BatchError: when a chunk file cannot be read, naming the damaged chunk.
        """
        import duckdb

        # a cursor per query: DuckDB refuses new work on a connection whose last result
        # was not read to the end (a count's fetchone, say)
        try:
            return self._connection().cursor().execute(sql.replace("{source}", self._source), list(params))
        except duckdb.Error as err:
            raise storage_error(self.directory, err) from None

    def _aggregate(self, sql: str, params: Sequence[object] = ()) -> tuple[Any, ...]:
        """The one row of an aggregate query (count, min, max ...)."""
        row = self.query(sql, params).fetchone()
        if row is None:  # DuckDB gives an aggregate one row even over no rows
            raise BatchError(f"{self.directory}: the query returned no row: {sql}")
        return row

    # ------------------------------------------------- figures kept on disk
    def _chunk_key(self) -> str:
        """Which chunk files the figures were computed from (number and bytes)."""
        chunks = finished_chunks(self.directory)
        size = 0
        for path in chunks.values():
            try:
                size += path.stat().st_size
            except OSError:
                pass
        return f"{len(chunks)}:{size}"

    def _stored_figures(self) -> dict[str, Any]:
        """The figures cache (:data:`FIGURES`): read from the folder when it matches the
        chunk files, else empty (and from then on filled as figures are computed)."""
        if self._figures is None:
            import json

            key = self._chunk_key()
            try:
                data = json.loads((self.directory / FIGURES).read_text(encoding="utf-8"))
            except (OSError, ValueError):
                data = None
            if not isinstance(data, dict) or data.get("chunks") != key or data.get("version") != _FIGURES_VERSION:
                data = {"chunks": key, "version": _FIGURES_VERSION}
            self._figures = data
        return self._figures

    def _remember(self, section: str, name: str, compute: Any) -> Any:
        """A figure from the cache, else computed, kept and (best effort) saved."""
        figures = self._stored_figures()
        stored = figures.get(section, {})
        if name in stored:
            return stored[name]
        value = compute()
        with self._lock:
            figures.setdefault(section, {})[name] = value
            self._unsaved = True
        return value

    def save_figures(self) -> bool:
        """Write the figures computed so far into the folder (temporary file, then
        rename), so a new server paints from them; False when the folder is read-only."""
        import json
        import os

        figures = self._stored_figures()
        if not self._unsaved:
            return True
        path = self.directory / FIGURES
        tmp = path.with_name(f".{FIGURES}.tmp-{os.getpid()}")
        try:
            with self._lock:
                text = json.dumps(figures)
                self._unsaved = False
            tmp.write_text(text, encoding="utf-8")
            os.replace(tmp, path)
        except OSError:
            tmp.unlink(missing_ok=True)
            return False
        return True

    def precompute(self, scorers: Sequence[str] | None = None) -> None:
        """Compute what the pages paint first (the summary; per scorer its range, best
        cutoff, report, curve and histogram) and save it in the folder."""
        self.count()
        self.distinct("label")
        self.distinct("task")
        self.count(Filters(labels=(NO_LABEL,)))
        labelled = self.manifest.kind in ("binary", "three_way")
        for scorer in scorers or self.manifest.scorers:
            self.value_range(scorer)
            self.page(sort=scorer, descending=True, limit=FIRST_PAGE, columns=first_page_columns(scorer))
            if labelled and self.scores(scorer).values.size:
                try:
                    self.report(scorer)
                    self.curve(scorer)
                except BatchError:  # no labelled pair has a value
                    pass
            self.histogram(scorer)
            # one scorer's values at a time: what is kept is the figures, not the columns
            self._columns_cache.pop(scorer, None)
            self._sweeps.pop(scorer, None)
        self.save_figures()

    # ---------------------------------------------------------------- filters
    def _where(self, f: Filters) -> tuple[str, list[object]]:
        clauses: list[str] = []
        params: list[object] = []
        if f.labels:
            clauses.append(f"coalesce(label, '') IN ({', '.join('?' for _ in f.labels)})")
            params += [("" if lab == NO_LABEL else lab) for lab in f.labels]
        if f.tasks:
            clauses.append(f"coalesce(task, '') IN ({', '.join('?' for _ in f.tasks)})")
            params += list(f.tasks)
        if f.scorer is not None:
            col = self._scorer(f.scorer)
            if f.outcome == REFUSED:
                clauses.append(f"{col} IS NULL")
            elif f.outcome in (CORRECT, INCORRECT):
                if f.cutoff is None:
                    raise BatchError("correct / incorrect needs a cutoff")
                same = "=" if f.outcome == CORRECT else "<>"
                clauses.append(f"entails IS NOT NULL AND {col} IS NOT NULL AND ({col} > ?) {same} entails")
                params.append(float(f.cutoff))
            if f.score_range is not None:
                clauses.append(f"{col} BETWEEN ? AND ?")
                params += [float(f.score_range[0]), float(f.score_range[1])]
        needle = f.search.strip()
        if needle:
            # ILIKE: case-insensitive without building lower-cased copies (twice as fast)
            pattern = "%" + needle.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
            clauses.append("(id ILIKE ? ESCAPE '\\' OR text ILIKE ? ESCAPE '\\' OR hypothesis ILIKE ? ESCAPE '\\')")
            params += [pattern] * 3
        return (" WHERE " + " AND ".join(clauses)) if clauses else "", params

    def count(self, filters: Filters = Filters()) -> int:
        """Rows passing ``filters`` (remembered: paging and sorting do not count again)."""
        if filters not in self._counts:
            where, params = self._where(filters)

            def counted() -> int:
                return int(self._aggregate(f"SELECT count(*) FROM {{source}}{where}", params)[0])

            # the unfiltered count and that of unlabelled pairs are asked on every paint
            kept = "all" if not where else "unlabelled" if filters == Filters(labels=(NO_LABEL,)) else None
            self._counts[filters] = self._remember("counts", kept, counted) if kept else counted()
        return self._counts[filters]

    def page(self, filters: Filters = Filters(), *, sort: str = "position", descending: bool = False,
             offset: int = 0, limit: int = 50, columns: Sequence[str] | None = None) -> Page:
        """One page of the rows passing ``filters``, sorted (nulls last), with the count."""
        if not 0 < limit <= MAX_PAGE:
            raise BatchError(f"a page holds 1-{MAX_PAGE} rows, not {limit}")
        where, params = self._where(filters)
        names = list(columns or self.columns)
        chosen = [self._column(c) for c in names]
        order = f"{self._column(sort)} {'DESC' if descending else 'ASC'} NULLS LAST, position"

        def fetch() -> pd.DataFrame:
            return self.query(
                f"SELECT {', '.join(chosen)} FROM {{source}}{where} ORDER BY {order} LIMIT ? OFFSET ?",
                [*params, int(limit), max(0, int(offset))],
            ).df()

        if where or offset > 0:
            rows = fetch()
        else:  # an unfiltered first page: the one a page paints first, kept with the figures
            import pandas as pd

            def stored() -> dict[str, list[Any]]:
                frame = fetch()
                return {c: [None if v is None or (isinstance(v, float) and v != v) else v
                            for v in frame[c].tolist()] for c in frame.columns}

            kept = self._remember("first_page", f"{sort}:{descending}:{limit}:{','.join(names)}", stored)
            rows = pd.DataFrame(kept, columns=names)
            for name in names:
                if self._is_number(name):
                    rows[name] = rows[name].astype(float)
                elif name == "entails":
                    rows[name] = rows[name].astype(object)
        return Page(rows=rows, total=self.count(filters), offset=max(0, int(offset)))

    def _is_number(self, column: str) -> bool:
        """Whether a column holds float64 values (scores, breakdowns, gold score)."""
        return column == "gold_score" or column in self.manifest.scorers or (
            "__" in column and not column.endswith("__error"))

    def distinct(self, column: str) -> list[str]:
        """The distinct non-empty values of a text column (labels, tasks), sorted."""
        col = self._column(column)

        def compute() -> list[str]:
            rows = self.query(f"SELECT DISTINCT {col} FROM {{source}} WHERE {col} IS NOT NULL ORDER BY 1").fetchall()
            return [str(r[0]) for r in rows if str(r[0])]

        return list(self._remember("distinct", column, compute))

    def value_range(self, scorer: str) -> tuple[float, float] | None:
        col = self._scorer(scorer)

        def compute() -> list[float] | None:
            low, high = self._aggregate(f"SELECT min({col}), max({col}) FROM {{source}}")
            return None if low is None else [float(low), float(high)]

        found = self._remember("range", scorer, compute)
        return None if found is None else (float(found[0]), float(found[1]))

    def pair(self, pair_id: str) -> dict[str, Any] | None:
        """Every column of one pair, or None."""
        rel = self.query("SELECT * FROM {source} WHERE id = ? LIMIT 1", [pair_id])
        names = [d[0] for d in rel.description]
        row = rel.fetchone()
        return None if row is None else dict(zip(names, row, strict=True))

    def pairs(self, pair_ids: Sequence[str], scorers: Sequence[str] = ()) -> pd.DataFrame:
        """The pair columns of the given ids (at most :data:`MAX_PAGE`), in dataset order,
        as a DataFrame, with the stored values of ``scorers``."""
        ids = list(dict.fromkeys(str(i) for i in pair_ids))
        if not 0 < len(ids) <= MAX_PAGE:
            raise BatchError(f"ask for 1-{MAX_PAGE} pairs, not {len(ids)}")
        names = ", ".join([*(f'"{name}"' for name, _ in PAIR_COLUMNS), *map(self._scorer, scorers)])
        return self.query(
            f"SELECT {names} FROM {{source}} WHERE id IN ({', '.join('?' for _ in ids)}) ORDER BY position", ids
        ).df()

    def sample(self, columns: Sequence[str], n: int = 5000, *, seed: int = 0,
               filters: Filters = Filters()) -> pd.DataFrame:
        """A reproducible random sample of at most ``n`` rows (reservoir sampling), as a
        DataFrame."""
        if not 0 < n <= MAX_SAMPLE:
            raise BatchError(f"a sample holds 1-{MAX_SAMPLE} rows, not {n}")
        chosen = ", ".join(self._column(c) for c in dict.fromkeys(["id", *columns]))
        where, params = self._where(filters)
        return self.query(
            f"SELECT {chosen} FROM (SELECT * FROM {{source}}{where}) "
            f"USING SAMPLE reservoir({int(n)} ROWS) REPEATABLE ({int(seed)}) ORDER BY position",
            params,
        ).df()

    # ---------------------------------------------------------- evaluation
    def scores(self, scorer: str) -> ScoreColumn:
        """One scorer's non-null values with the gold of the same pairs (cached)."""
        if scorer in self._columns_cache:
            return self._columns_cache[scorer]
        col = self._scorer(scorer)
        table = self._connection().cursor().sql(
            f"SELECT {col} AS v, CAST(entails AS DOUBLE) AS e, coalesce(task, '') AS t, gold_score AS g "
            f"FROM {self._source} ORDER BY position").to_arrow_table()
        values = table.column("v").to_numpy(zero_copy_only=False).astype(float)
        keep = ~np.isnan(values)
        # tasks as integer codes: no Python string per pair
        tasks = table.column("t").combine_chunks().dictionary_encode()
        column = ScoreColumn(
            values=values[keep],
            entails=table.column("e").to_numpy(zero_copy_only=False).astype(float)[keep],
            task_codes=tasks.indices.to_numpy(zero_copy_only=False)[keep],
            task_names=tuple(str(t) for t in tasks.dictionary.to_pylist()),
            gold_score=table.column("g").to_numpy(zero_copy_only=False).astype(float)[keep],
            refused=int((~keep).sum()),
        )
        self._columns_cache[scorer] = column
        return column

    def _labelled(self, scorer: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        c = self.scores(scorer)
        known = ~np.isnan(c.entails)
        if not known.any():
            raise BatchError(f"{self.manifest.dataset} has no entailment labels, so no accuracy")
        return c.values[known], c.entails[known].astype(bool), c.task_codes[known]

    def sweep(self, scorer: str) -> tuple[np.ndarray, np.ndarray]:
        """Accuracy at every distinct cutoff over the labelled, scored pairs (exact; as
        :func:`explorer.decision.measures.sweep`)."""
        from explorer.decision.measures import sweep

        if scorer not in self._sweeps:
            values, gold, _ = self._labelled(scorer)
            self._sweeps[scorer] = sweep(values, gold)
        return self._sweeps[scorer]

    def scored(self, scorer: str) -> Scored:
        """The scorer's values on the labelled, scored pairs, as a set a cutoff is chosen on
        (this result as another's development set: ``other.cutoff(s, dev=this.scored(s))``)."""
        values, gold, _ = self._labelled(scorer)
        return Scored(f"the whole batch result {self.manifest.dataset}", values, gold)

    def own_cutoff(self, scorer: str) -> CutoffChoice:
        """The result's own cutoff: the best on its labelled, scored pairs
        (:data:`explorer.decision.rules.OWN_RULE`), kept with the figures.

        Raises:
            BatchError: when no labelled pair has a value.
        """
        from dataclasses import asdict

        from explorer.decision import cutoffs

        def compute() -> dict[str, Any]:
            own = self.scored(scorer)
            return asdict(cutoffs.choose(scorer, own.scores, own.gold, source=cutoffs.DATASET, name=own.name,
                                         refused=self.scores(scorer).refused))

        self._scorer(scorer)
        return cutoffs.CutoffChoice(**self._remember("own", scorer, compute))

    def best_cutoff(self, scorer: str) -> tuple[float, float]:
        """The result's own cutoff (:meth:`own_cutoff`) and its accuracy."""
        own = self.own_cutoff(scorer)
        return own.value, own.accuracy

    def cutoff(self, scorer: str, *, given: float | None = None, dev: Scored | None = None,
               rule: str = DEFAULT_RULE) -> CutoffChoice:
        """The cutoff this result's decisions use, by the one precedence of
        :func:`explorer.decision.resolve.resolve_cutoff`: ``given``, a trained classifier's
        own, one chosen on ``dev`` by ``rule``, the result's own (when it has entailment
        labels), the shipped default."""
        own = None
        if self.manifest.kind in ("binary", "three_way"):
            try:
                own = self.own_cutoff(scorer)
            except BatchError:  # no labelled pair has a value
                own = None
        return resolve_cutoff(scorer, given=given, dev=dev, own=own, rule=rule)

    def curve(self, scorer: str, points: int = CURVE_POINTS) -> tuple[np.ndarray, np.ndarray]:
        """The sweep thinned to at most ``points`` cutoffs for drawing (evenly by rank,
        keeping the first, the last and the best)."""
        def compute() -> list[list[float]]:
            cutoffs, accuracies = self.sweep(scorer)
            if cutoffs.size > points:
                keep = np.unique(np.concatenate([
                    np.linspace(0, cutoffs.size - 1, points).round().astype(int), [int(np.argmax(accuracies))]]))
                cutoffs, accuracies = cutoffs[keep], accuracies[keep]
            return [cutoffs.tolist(), accuracies.tolist()]

        self._scorer(scorer)
        cutoffs, accuracies = self._remember("curve", f"{scorer}:{points}", compute)
        return np.asarray(cutoffs, dtype=float), np.asarray(accuracies, dtype=float)

    def report(self, scorer: str, cutoff: float | None = None) -> dict[str, Any]:
        """Accuracy, CWS and average precision at ``cutoff`` (when None, :meth:`cutoff`'s:
        a trained classifier's own, else the best on this result), overall and per task; as
        ``evaluate --json`` reports them."""
        self._scorer(scorer)
        return dict(self._remember("report", f"{scorer}:{cutoff!r}", lambda: self._report(scorer, cutoff)))

    def _report(self, scorer: str, cutoff: float | None) -> dict[str, Any]:
        from explorer.decision.measures import accuracy, average_precision, confidence_weighted_score

        values, gold, codes = self._labelled(scorer)
        names = self.scores(scorer).task_names
        choice = self.cutoff(scorer, given=cutoff)
        cutoff, source = choice.value, reported_source(choice)
        by_task = {}
        for code, task in sorted(enumerate(names), key=lambda item: item[1]):
            mask = codes == code
            if not task or not mask.any():
                continue
            by_task[task] = {
                "n": int(mask.sum()), "accuracy": accuracy(values[mask], gold[mask], cutoff),
                "cws": confidence_weighted_score(values[mask], gold[mask], cutoff),
                "average_precision": average_precision(values[mask], gold[mask]),
            }
        return {
            "scorer": scorer, "n": int(values.size), "refused": self.scores(scorer).refused,
            "cutoff": float(cutoff), "cutoff_source": source,
            "accuracy": accuracy(values, gold, cutoff),
            "cws": confidence_weighted_score(values, gold, cutoff),
            "average_precision": average_precision(values, gold), "by_task": by_task,
        }

    def correlations(self, scorer: str) -> tuple[float, float]:
        """Pearson and Spearman against the graded gold score (NaN when there is none)."""
        from explorer.decision.measures import correlations

        c = self.scores(scorer)
        known = ~np.isnan(c.gold_score)
        return correlations(c.values[known], c.gold_score[known])

    def histogram(self, scorer: str, bins: int = 40) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Gold label -> (bin edges, counts) of the scorer's values, on shared edges."""
        def compute() -> dict[str, list[list[float]]]:
            c = self.scores(scorer)
            if c.values.size == 0:
                return {}
            edges = np.histogram_bin_edges(c.values, bins=bins)
            groups = {"entailment": c.entails == 1.0, "not entailment": c.entails == 0.0,
                      "unlabelled": np.isnan(c.entails)}
            return {name: [edges.tolist(), np.histogram(c.values[mask], bins=edges)[0].tolist()]
                    for name, mask in groups.items() if mask.any()}

        self._scorer(scorer)
        found = self._remember("histogram", f"{scorer}:{bins}", compute)
        return {name: (np.asarray(edges, dtype=float), np.asarray(counts, dtype=np.int64))
                for name, (edges, counts) in found.items()}


__all__ = ["ALL", "CORRECT", "FIRST_PAGE", "first_page_columns", "INCORRECT", "NO_LABEL", "REFUSED", "BatchResult", "Filters", "Page", "ScoreColumn"]
