"""Benchmark: whole-corpus batch scoring on Dask and browsing its 500k-pair result.

Subcommands (each prints figures; see docs/BENCHMARKS.md for the recorded ones):

``corpus``      build the benchmark corpus: the real development pairs on this machine
                (RTE1-3 dev XML from NLTK's rte corpus, MSRP train+val, SICK train+trial,
                STS 2012 MSRpar+SMTeuroparl) repeated to ``--pairs`` pairs, as JSON lines
                under /tmp (never in the repository). Copy k > 0 of a pair gets `` #k``
                appended to its text, so the per-process caches (the analysis cache, the
                BLEU n-gram count cache) cannot serve repeats: every pair costs what a new
                pair would. The task is the source corpus.
``throughput``  per scorer: pairs/s with 1 and 2 local worker processes on the first
                ``--pairs`` pairs (cluster start and scorer warm-up excluded), the speed-up,
                peak resident memory per worker, and the projected time for SNLI train
                (570,152 pairs) at the 2-worker rate.
``run``         the whole corpus through ``python -m explorer batch`` (a subprocess),
                optionally killed with SIGKILL after ``--kill-after`` seconds and then
                resumed: reports chunks finished at the kill, chunks the resumed run
                scored, and the work lost.
``query``       the query layer on a finished result: the Dataset page's first paint
                (count, first sorted page, labels, tasks, range, best cutoff) and a filter
                change; the Evaluate page's figures (sweep, thinned curve, report with
                per-task figures, histograms) per scorer; a 5,000-row scatter sample.
                Medians over ``--runs``.

Usage:
    NLTK_DATA=../shared/nltk_data python bench/bench_batch.py corpus --out /tmp/bench500k.jsonl
    NLTK_DATA=... python bench/bench_batch.py throughput --corpus /tmp/bench500k.jsonl --pairs 4000 --scorers bleu,mbleu,wer
    NLTK_DATA=... python bench/bench_batch.py run --corpus /tmp/bench500k.jsonl --out /tmp/bench500k.out --scorers bleu,mbleu,bleu_pa,wer,per --kill-after 120
    python bench/bench_batch.py query --result /tmp/bench500k.out --scorers bleu,mbleu,bleu_pa
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SNLI_TRAIN = 570_152


def _load_avg() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.1f} / {five:.1f} / {fifteen:.1f} on {os.cpu_count()} cores"


def _sources(shared: Path) -> list[Path]:
    import nltk

    rte = Path(str(nltk.data.find("corpora/rte")))
    return [
        rte / "rte1_dev.xml", rte / "rte2_dev.xml", rte / "rte3_dev.xml",
        shared / "data/msrp/msr-para-train.tsv", shared / "data/msrp/msr-para-val.tsv",
        shared / "data/sick/SICK_train.txt", shared / "data/sick/SICK_trial.txt",
        shared / "data/sts2012/MSRpar.train.tsv", shared / "data/sts2012/SMTeuroparl.train.tsv",
    ]


def corpus(args: argparse.Namespace) -> None:
    from explorer.datasets import load

    real = []
    for path in _sources(Path(args.shared)):
        data = load(path)
        task = path.stem.replace(".train", "").replace("-", "_")
        real += [(task, p) for p in data.pairs]
        print(f"{path.name}: {len(data)} pairs", file=sys.stderr)
    print(f"{len(real)} real pairs, repeated to {args.pairs:,}", file=sys.stderr)
    with open(args.out, "w", encoding="utf-8") as out:
        for i in range(args.pairs):
            copy, k = divmod(i, len(real))
            task, p = real[k]
            record = {"id": f"{copy}-{task}-{p.id}", "text": p.text + (f" #{copy}" if copy else ""),
                      "hypothesis": p.hypothesis, "task": task}
            if p.label is not None:
                record["label"] = p.label
            if p.score is not None:
                record["score"] = p.score
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
    print(f"wrote {args.out}: {os.path.getsize(args.out) / 2**20:.1f} MiB", file=sys.stderr)


def _peak_rss_mib() -> float:
    """This process's peak resident memory (VmHWM: unlike ru_maxrss it is not inherited
    from the parent a worker was started from)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def throughput(args: argparse.Namespace) -> None:
    from distributed import Client

    from explorer.batch.runner import local_cluster, run_batch
    from explorer.datasets import Dataset, load

    full = load(args.corpus)
    print(_load_avg())
    print(f"{'scorer':<10} {'pairs':>6} {'1 worker':>12} {'2 workers':>12} {'speed-up':>8} "
          f"{'peak MiB/worker':>16} {'SNLI train (2 w)':>17}")
    for scorer in args.scorers.split(","):
        n = int(args.slow_pairs) if scorer in args.slow.split(",") else int(args.pairs)
        data = Dataset(full.name, full.format, full.pairs[:n])
        rates, peaks = {}, {}
        for workers in (1, 2):
            out = Path(tempfile.mkdtemp(prefix="bench-batch-"))
            seen = []
            with local_cluster(workers) as cluster, Client(cluster) as client:
                # at least 20 chunks, so both workers stay busy to the end
                run_batch(data, [scorer], out / "r", chunk_size=min(args.chunk_size, max(1, n // 20)), client=client,
                          progress=seen.append)
                peaks[workers] = max(client.run(_peak_rss_mib).values())
            rates[workers] = seen[-1].pairs_per_second
            shutil.rmtree(out)
        print(f"{scorer:<10} {n:>6} {rates[1]:>10.0f}/s {rates[2]:>10.0f}/s {rates[2] / rates[1]:>7.2f}x "
              f"{max(peaks.values()):>16.0f} {SNLI_TRAIN / rates[2] / 60:>13.1f} min", flush=True)
    print(_load_avg())


def paths(args: argparse.Namespace) -> None:
    """Where a worker's time goes, in one process: analysing (tokenising) the pairs, then
    each scorer through its batch path (values + breakdown, what a chunk stores) and
    through ``score()`` (the full result the Pair page draws). Caches cleared per run."""
    from explorer.batch.worker import _score_with
    from explorer.datasets import load
    from explorer.metrics.bleu import order_counts
    from explorer.preprocess import analyze, analyze_pair
    from explorer.scorers import get_scorer

    if args.data is None:
        import nltk

        args.data = str(Path(str(nltk.data.find("corpora/rte"))) / "rte3_dev.xml")
    pairs = list(load(args.data).pairs)
    scorers = args.scorers.split(",")
    for name in scorers:  # build and warm once
        get_scorer(name)
        _score_with(name, [analyze_pair(pairs[0])], [None])

    def clear() -> None:
        analyze.cache_clear()
        order_counts.cache_clear()

    def analysing() -> None:
        clear()
        [analyze_pair(p) for p in pairs]

    print(_load_avg())
    print(f"{len(pairs)} pairs of {args.data}; microseconds per pair, median of {args.runs} runs")
    print(f"{'analyse (tokenise)':<22} {1e6 * _median_ms(analysing, args.runs) / 1000 / len(pairs):8.0f}")
    analysed = [analyze_pair(p) for p in pairs]
    for name in scorers:
        scorer = get_scorer(name)

        def batch_path(name: str = name) -> None:
            order_counts.cache_clear()
            _score_with(name, analysed, [None] * len(analysed))

        def full_result(scorer: object = scorer) -> None:
            order_counts.cache_clear()
            [scorer.score(a) for a in analysed]  # type: ignore[attr-defined]

        b = 1e3 * _median_ms(batch_path, args.runs) / len(pairs)
        f = 1e3 * _median_ms(full_result, args.runs) / len(pairs)
        print(f"{name:<22} batch path {b:8.0f}   score() {f:8.0f}   ratio {f / b:5.1f}x")


def _finished(out: Path) -> int:
    from explorer.batch.schema import finished_chunks

    return len(finished_chunks(out))


def run(args: argparse.Namespace) -> None:
    from explorer.batch.schema import read_manifest

    command = [sys.executable, "-m", "explorer", "batch", args.corpus, "--scorer", args.scorers,
               "--out", args.out, "--chunk-size", str(args.chunk_size), "--no-register", "--json"]
    print(_load_avg())
    print("$ " + " ".join(command))
    if args.kill_after:
        start = time.perf_counter()
        # its own session, so the kill reaches the local cluster it starts (and nothing else)
        process = subprocess.Popen(command, start_new_session=True, cwd=ROOT,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            process.wait(timeout=args.kill_after)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        at_kill = _finished(Path(args.out))
        manifest = read_manifest(args.out)
        print(f"killed after {time.perf_counter() - start:.0f} s: {at_kill} of {manifest.n_chunks} chunks finished "
              f"({at_kill * manifest.chunk_size:,} pairs)")
        temporaries = list((Path(args.out) / "chunks").glob(".chunk-*"))
        print(f"temporary (half-written) chunk files left by the kill: {len(temporaries)}")
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        print(done.stderr)
        raise SystemExit(done.returncode)
    body = json.loads(done.stdout)
    print(f"{'resumed' if args.kill_after else 'ran'}: {body['chunks_run']} chunks scored, "
          f"{body['chunks_skipped']} skipped, complete={body['complete']}, {seconds:.0f} s wall "
          f"(batch {body['seconds']:.0f} s, {body['workers']} workers)")
    if args.kill_after:
        unfinished = body["chunks"] - at_kill
        print(f"the resumed run scored {body['chunks_run']} chunks; {unfinished} were unfinished at the kill, "
              f"so {body['chunks_run'] - unfinished} finished chunks were scored twice. Lost at the kill: the "
              f"partial work on the chunks in flight (at most 2 per worker, {2 * body['workers']} chunks here)")
    print(f"refused: {body['refused']}")
    print(_load_avg())


def _median_ms(fn, runs: int) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return 1000 * statistics.median(times)


def query(args: argparse.Namespace) -> None:
    from explorer.batch.query import CORRECT, BatchResult, Filters

    scorers = args.scorers.split(",")
    print(_load_avg())
    result = BatchResult.open(args.result)
    print(f"{result.manifest.dataset}: {result.count():,} rows, {len(result.manifest.scorers)} scorers")
    first = scorers[0]

    def first_paint() -> None:
        fresh = BatchResult.open(args.result)  # nothing cached: a new session
        fresh.count()
        fresh.page(Filters(), sort="position", limit=50,
                   columns=["id", "task", "label", "text", "hypothesis", first])
        fresh.distinct("label")
        fresh.distinct("task")
        fresh.value_range(first)
        fresh.best_cutoff(first)

    cutoff = result.best_cutoff(first)[0]
    tasks = result.distinct("task")
    turn = iter(range(10_000))  # every run a new filter, so no count is remembered

    def filter_change() -> None:
        k = next(turn)
        f = Filters(labels=("entailment",), tasks=tuple(tasks[k % 5: k % 5 + 3]), scorer=first, cutoff=cutoff,
                    outcome=CORRECT, score_range=(0.1 + k / 1000, 0.9))
        result.page(f, sort=first, descending=True, limit=50,
                    columns=["id", "task", "label", "text", "hypothesis", first])

    words = iter(["percent", "market", "police", "children", "company", "water", "minister", "guitar", "river", "school"] * 10)

    def search() -> None:
        result.page(Filters(search=next(words)), sort=first, limit=50, columns=["id", "text", "hypothesis", first])

    def evaluate_figures() -> None:
        fresh = BatchResult.open(args.result)
        for s in scorers:
            fresh.curve(s)
            fresh.report(s)
            fresh.histogram(s)

    def scatter() -> None:
        result.sample([scorers[0], scorers[-1], "label"], n=5000, seed=1)

    for name, fn in (("Dataset first paint (count, page 1 sorted, labels, tasks, range, best cutoff)", first_paint),
                     ("Dataset filter change (label, 3 tasks, correct, score range; sorted by score)", filter_change),
                     ("Dataset text search", search),
                     (f"Evaluate figures for {len(scorers)} scorers (curves, reports by task, histograms)", evaluate_figures),
                     ("Compare scatter sample (5,000 rows)", scatter)):
        print(f"{_median_ms(fn, args.runs):8.0f} ms  {name}")
    print(f"peak resident memory of this process: {_peak_rss_mib():.0f} MiB")
    print(_load_avg())


def pages(args: argparse.Namespace) -> None:
    """The pages themselves under Streamlit's AppTest (script, widgets, tables, figures;
    no browser): the Dataset page opened on the result, a filter change, a text search,
    the Evaluate page with its default three scorers. Medians over ``--runs`` fresh app
    sessions (the query layer's caches are per opened result and shared, as on a server)."""
    from streamlit.testing.v1 import AppTest

    from components import state

    print(_load_avg())
    timings: dict[str, list[float]] = {}

    def timed(label: str, at: AppTest) -> None:
        start = time.perf_counter()
        at.run()
        timings.setdefault(label, []).append(time.perf_counter() - start)
        assert not at.exception, at.exception

    for k in range(args.runs):
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
        at.session_state[state.BATCH_DIR.key] = args.result
        at.run()
        at.switch_page("components/pages/dataset.py")
        timed("Dataset page, first paint", at)
        at.multiselect(key="batch_filter_label").set_value(["entailment"] if k % 2 else ["neutral"])
        timed("Dataset page, filter change (gold label)", at)
        at.text_input(key="batch_filter_search").set_value(["percent", "market", "police", "water", "river"][k % 5])
        timed("Dataset page, text search", at)
        at.switch_page("components/pages/evaluate.py")
        timed("Evaluate page (3 scorers: curves, histograms, per task)", at)
        at.switch_page("components/pages/compare.py")
        timed("Compare page (5,000-pair sample scatter)", at)
    for label, values in timings.items():
        print(f"{1000 * statistics.median(values):8.0f} ms  {label}  (runs: {', '.join(f'{1000 * v:.0f}' for v in values)})")
    print(_load_avg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("corpus")
    c.add_argument("--out", default="/tmp/bench500k.jsonl")
    c.add_argument("--pairs", type=int, default=500_000)
    c.add_argument("--shared", default=str(ROOT.parent / "shared") if (ROOT.parent / "shared").is_dir() else "/work/shared")
    t = sub.add_parser("throughput")
    t.add_argument("--corpus", default="/tmp/bench500k.jsonl")
    t.add_argument("--scorers", default="bleu,mbleu,bleu_pa,bleu4,wer,per,nist5")
    t.add_argument("--pairs", type=int, default=4000)
    t.add_argument("--slow", default="pos_per,bow,itg,itg_lex,manli,pfsm,ppda")
    t.add_argument("--slow-pairs", type=int, default=200)
    t.add_argument("--chunk-size", type=int, default=200)
    r = sub.add_parser("run")
    r.add_argument("--corpus", default="/tmp/bench500k.jsonl")
    r.add_argument("--out", default="/tmp/bench500k.out")
    r.add_argument("--scorers", default="bleu,mbleu,bleu_pa,wer,per")
    r.add_argument("--chunk-size", type=int, default=2000)
    r.add_argument("--kill-after", type=float, default=0)
    q = sub.add_parser("query")
    q.add_argument("--result", default="/tmp/bench500k.out")
    q.add_argument("--scorers", default="bleu,mbleu,bleu_pa")
    q.add_argument("--runs", type=int, default=5)
    p = sub.add_parser("paths")
    p.add_argument("--data", help="dataset file (default: NLTK's rte3_dev.xml)")
    p.add_argument("--scorers", default="bleu,mbleu,bleu_pa,bleu4,wer,per,nist5")
    p.add_argument("--runs", type=int, default=5)
    a = sub.add_parser("pages")
    a.add_argument("--result", default="/tmp/bench500k.out")
    a.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    {"pages": pages, "paths": paths, "corpus": corpus, "throughput": throughput, "run": run, "query": query}[args.command](args)


if __name__ == "__main__":
    main()
