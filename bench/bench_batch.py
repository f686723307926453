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
                ``--pairs`` pairs (cluster start and scorer warm-up excluded; medians of
                ``--repeats`` alternating runs), the speed-up, the client's CPU share and the
                workers' read / score / write split, peak resident memory per worker, and
                the projected time for SNLI train (570,152 pairs) at the 2-worker rate.
                With no options: the one command for the 1.8x target.
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
    NLTK_DATA=... python bench/bench_batch.py throughput --corpus /tmp/bench500k.jsonl
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

from bench import median_seconds  # noqa: E402

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


def _head(corpus: str, n: int) -> Path:
    """The first ``n`` lines of the corpus as a file of their own (what `batch` reads)."""
    out = Path(tempfile.gettempdir()) / f"bench-batch-head-{n}.jsonl"
    if not out.exists() or sum(1 for _ in out.open(encoding="utf-8")) != n:
        with open(corpus, encoding="utf-8") as src, out.open("w", encoding="utf-8") as dst:
            for _, line in zip(range(n), src, strict=False):
                dst.write(line)
    return out


def throughput(args: argparse.Namespace) -> None:
    """1 vs 2 workers per scorer, medians of ``--repeats`` alternating runs on the same
    two clusters; plus where the time goes: the client's CPU (chunking, scheduling: the
    scheduler runs in the client process) and the workers' read / score / write."""
    import contextlib

    from distributed import Client

    from explorer.batch import runner
    from explorer.batch.runner import local_cluster, run_batch

    print(_load_avg())
    print(f"chunk size {args.chunk_size} (slow scorers {args.slow_chunk_size}); medians of {args.repeats} runs per "
          f"cell; mode: {args.mode}")
    print(f"{'scorer':<9} {'pairs':>6} {'1 worker':>10} {'2 workers':>10} {'speed-up':>8} {'runs (2w/1w)':>19} "
          f"{'client CPU':>10} {'read/score/write us/pair':>25} {'peak MiB/w':>10} {'SNLI (2w)':>10}")
    for scorer in args.scorers.split(","):
        slow = scorer in args.slow.split(",")
        n = int(args.slow_pairs) if slow else int(args.pairs)
        chunk = args.slow_chunk_size if slow else args.chunk_size
        path = _head(args.corpus, n)
        rates: dict[int, list[float]] = {1: [], 2: []}
        cpu: list[float] = []
        parts = {"read": 0.0, "score": 0.0, "write": 0.0}
        peaks = []
        with contextlib.ExitStack() as stack:
            clients = {}
            for workers in (1, 2):
                cluster = stack.enter_context(local_cluster(workers))
                clients[workers] = stack.enter_context(Client(cluster))
            if args.mode == "client-writes":  # the old way: bytes out, tables back, the client writes
                original = runner.can_share
                runner.can_share = lambda path, size, out: False  # type: ignore[assignment]
                stack.callback(setattr, runner, "can_share", original)
            for repeat in range(args.repeats):
                for workers in ((1, 2) if repeat % 2 == 0 else (2, 1)):
                    out = Path(tempfile.mkdtemp(prefix="bench-batch-"))
                    seen: list = []
                    done: list = []
                    clock: list[float] = []

                    def progress(p, seen=seen, clock=clock) -> None:  # type: ignore[no-untyped-def]
                        seen.append(p)
                        clock.append(time.process_time())

                    run_batch(path, [scorer], out / "r", chunk_size=chunk, client=clients[workers],
                              progress=progress, chunk_done=done.append)
                    rates[workers].append(seen[-1].pairs_per_second)
                    if workers == 2:  # the client's CPU from the first chunk sent to the last one back
                        cpu.append((clock[-1] - clock[1]) / seen[-1].seconds)
                        for d in done:
                            for k in parts:
                                parts[k] += d.timings.get(k, 0.0) / (n * args.repeats)
                    shutil.rmtree(out)
            peaks = [max(clients[w].run(_peak_rss_mib).values()) for w in (1, 2)]
        one, two = statistics.median(rates[1]), statistics.median(rates[2])
        runs = "/".join(f"{r:.0f}" for r in rates[2]) + " " + "/".join(f"{r:.0f}" for r in rates[1])
        split = "/".join(f"{1e6 * parts[k]:.0f}" for k in ("read", "score", "write"))
        print(f"{scorer:<9} {n:>6} {one:>8.0f}/s {two:>8.0f}/s {two / one:>7.2f}x {runs:>19} "
              f"{100 * statistics.median(cpu):>9.0f}% {split:>25} {max(peaks):>10.0f} "
              f"{SNLI_TRAIN / two / 60:>6.1f} min", flush=True)
        print(f"  {_load_avg()}", flush=True)
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
    rate = (body["chunks_run"] * args.chunk_size) / max(1e-9, body["seconds"])
    print(f"{'resumed' if args.kill_after else 'ran'}: {body['chunks_run']} chunks scored, "
          f"{body['chunks_skipped']} skipped, complete={body['complete']}, {seconds:.0f} s wall "
          f"(batch {body['seconds']:.0f} s, {body['workers']} workers)")
    if args.kill_after:
        unfinished = body["chunks"] - at_kill
        print(f"the resumed run scored {body['chunks_run']} chunks; {unfinished} were unfinished at the kill, "
              f"so {body['chunks_run'] - unfinished} finished chunks were scored twice. Lost at the kill: the "
              f"partial work on the chunks being scored (one per worker: at most {body['workers']} x "
              f"{args.chunk_size:,} pairs, about {body['workers'] * args.chunk_size / max(1e-9, rate):.1f} s of "
              f"the cluster's work at the resumed run's {rate:,.0f} pairs/s)")
    print(f"refused: {body['refused']}")
    print(f"client (the batch command) resident memory: at most {body.get('client_mib_while_scoring')} MiB while "
          f"the chunks ran, peak {body.get('client_peak_mib')} MiB (scan, chunks, completion figures); the workers "
          f"{'read the file and wrote the chunks' if body.get('workers_read_the_file') else 'were sent bytes'}")
    if args.compare_load:
        probe = ("import sys; sys.path.insert(0, '.'); from bench.bench_batch import _peak_rss_mib; "
                 "from explorer.datasets import load; d = load(sys.argv[1]); print(len(d), _peak_rss_mib())")
        got = subprocess.run([sys.executable, "-c", probe, args.corpus], cwd=ROOT, capture_output=True, text=True,
                             check=True).stdout.split()
        print(f"for comparison, loading the whole file as `evaluate` does ({int(got[0]):,} pairs): "
              f"peak {float(got[1]):.0f} MiB")
    print(_load_avg())


def _median_ms(fn, runs: int) -> float:  # type: ignore[no-untyped-def]
    return 1000 * median_seconds(fn, runs)


def query(args: argparse.Namespace) -> None:
    from explorer.batch.query import CORRECT, FIRST_PAGE, NO_LABEL, BatchResult, Filters, first_page_columns

    scorers = args.scorers.split(",")
    print(_load_avg())
    result = BatchResult.open(args.result)
    print(f"{result.manifest.dataset}: {result.count():,} rows, {len(result.manifest.scorers)} scorers")
    first = scorers[0]

    def first_paint() -> None:
        fresh = BatchResult.open(args.result)  # a new server: only figures.json, if any, is known
        fresh.count()
        fresh.page(Filters(), sort=first, descending=True, limit=FIRST_PAGE, columns=first_page_columns(first))
        fresh.distinct("label")
        fresh.distinct("task")
        fresh.count(Filters(labels=(NO_LABEL,)))
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

    for name, fn in (("Dataset first paint (count, page 1 sorted by score, labels, tasks, range, best cutoff)",
                      first_paint),
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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("corpus")
    c.add_argument("--out", default="/tmp/bench500k.jsonl")
    c.add_argument("--pairs", type=int, default=500_000)
    c.add_argument("--shared", default=str(ROOT.parent / "shared") if (ROOT.parent / "shared").is_dir() else "/work/shared")
    t = sub.add_parser("throughput")
    t.add_argument("--corpus", default="/tmp/bench500k.jsonl")
    t.add_argument("--scorers", default="bleu,mbleu,bleu_pa,bleu4,wer,per,nist5,itg,bow,manli")
    t.add_argument("--pairs", type=int, default=60_000)
    t.add_argument("--slow", default="pos_per,bow,itg_lex,manli,pfsm,ppda")
    t.add_argument("--slow-pairs", type=int, default=2000)
    t.add_argument("--chunk-size", type=int, default=1000,
                   help="60 chunks of the 60,000 pairs: the last chunk, when one worker may idle, weighs under 2%%")
    t.add_argument("--slow-chunk-size", type=int, default=100)
    t.add_argument("--repeats", type=int, default=3)
    t.add_argument("--mode", choices=("ranges", "client-writes"), default="ranges",
                   help="ranges: workers read and write the files (the default); client-writes: the client sends "
                        "bytes and writes the tables (remote workers without a shared file system)")
    r = sub.add_parser("run")
    r.add_argument("--corpus", default="/tmp/bench500k.jsonl")
    r.add_argument("--out", default="/tmp/bench500k.out")
    r.add_argument("--scorers", default="bleu,mbleu,bleu_pa,wer,per")
    r.add_argument("--chunk-size", type=int, default=2000)
    r.add_argument("--kill-after", type=float, default=0)
    r.add_argument("--compare-load", action="store_true",
                   help="also measure the memory of loading the whole file in one process (as before streaming)")
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
    args = parser.parse_args(argv)
    {"pages": pages, "paths": paths, "corpus": corpus, "throughput": throughput, "run": run, "query": query}[args.command](args)


if __name__ == "__main__":
    main()
