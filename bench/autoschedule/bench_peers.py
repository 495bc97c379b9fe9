#!/usr/bin/python3
"""bench_peers: the autoscheduler's test programs (bench/autoschedule/programs; sharpen
and morph5 of bench/autoschedule/; box3, box5 and the 3-D stencil7 of
bench/default_lowering/) timed with risec against their peers, on the same inputs, on 1
and 2 threads (issue 34, docs/performance.md "Autoscheduler targets: peers").

  /usr/bin/python3 bench/autoschedule/bench_peers.py [--risec build/risec]
      [--bench-dir build/bench] [--risec-strategy DIR] [--repeat K] [--rounds R]
      [--only P,Q] [--quick] [--markdown FILE]

risec: `risec run --warmup 1 --repeat K` with the default lowering (--target c on one
thread, --target openmp on 1 and 2 threads, OMP_NUM_THREADS) and, with --risec-strategy DIR,
DIR/PROGRAM.elv on --target openmp (1 and 2 threads; a program without its .elv is
skipped): the place where `risec tune`'s best.elv plugs in.
Peers: the image programs in Halide 14 (build/bench/halide_peers: an expert schedule
and the Mullapudi2016, Adams2019 and Li2018 autoschedulers; HL_NUM_THREADS), the ML
layers in PyTorch (torch_peer.py, torch.set_num_threads) and oneDNN
(build/bench/dnnl_peers; OMP_NUM_THREADS). A peer that is not built, not importable or fails is reported as
such and skipped; so is a program without its .elv in --risec-strategy. A --risec
that is not an executable, a --risec-strategy that is not a folder and a --markdown
file in no writable folder are usage errors (exit 2) before anything runs. Every output is compared with risec's default lowering
(max |x - ref| / max(1, |ref|)).

Times: every variant, risec's as the peers', runs in R rounds (default 3), each a fresh
process timing K calls after a warm-up call (`risec run --warmup 1`, whose inputs and
output lie at one offset in their pages, as oneDNN's std::vector buffers do; PyTorch's
output is its own allocation); the variants take turns in each round, every other
round in reverse order. A row's min is the least of its rounds' minima, its median the
median of its rounds' medians, in ms: a shared virtual machine runs a process fast or
slow for seconds at a time (the same program 4.2 or 6.6 ms a call on the Zen 3 of 1
December 2026), and one process per variant made a ratio a coin toss. The script
never fails on time: it exits 1 when risec cannot run a program, 3 when an output
differs from risec's by more than 1e-3 (relative; a peer written wrong, or a risec bug),
77 without numpy, else 0.
"""
import argparse
import os
import platform
import re
import subprocess
import sys
import tempfile
import time

try:
    import numpy as np
except ImportError:
    print("bench_peers: needs numpy (run it with Debian's /usr/bin/python3)", file=sys.stderr)
    sys.exit(77)  # ctest's skip code

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# name -> (size names and values, quick values, inputs (name, shape from the sizes), kind)
PROGRAMS = {
    "bilateral": ({"n": 1024, "m": 1024}, {"n": 33, "m": 47},
                  [("img", lambda s: (s["n"], s["m"]))], "image"),
    "pyrdown": ({"n": 1024, "m": 1024}, {"n": 17, "m": 23},
                [("img", lambda s: (2 * s["n"], 2 * s["m"]))], "image"),
    "lapband": ({"n": 1024, "m": 1024}, {"n": 17, "m": 23},
                [("img", lambda s: (2 * s["n"], 2 * s["m"]))], "image"),
    "mlp": ({"b": 64, "k": 256, "h": 512, "o": 128}, {"b": 5, "k": 7, "h": 9, "o": 3},
            [("x", lambda s: (s["b"], s["k"])), ("W1", lambda s: (s["k"], s["h"])),
             ("b1", lambda s: (s["h"],)), ("W2", lambda s: (s["h"], s["o"])),
             ("b2", lambda s: (s["o"],))], "ml"),
    "layernorm": ({"n": 4096, "d": 1024}, {"n": 9, "d": 13},
                  [("x", lambda s: (s["n"], s["d"])), ("gamma", lambda s: (s["d"],)),
                   ("beta", lambda s: (s["d"],))], "ml"),
    "softmax": ({"n": 4096, "d": 1024}, {"n": 9, "d": 13},
                [("x", lambda s: (s["n"], s["d"]))], "ml"),
    "sharpen": ({"n": 2048, "m": 2048}, {"n": 19, "m": 29},
                [("img", lambda s: (s["n"], s["m"]))], "image"),
    "morph5": ({"n": 2048, "m": 2048}, {"n": 19, "m": 29},
               [("img", lambda s: (s["n"], s["m"]))], "image"),
    "box3": ({"n": 2048, "m": 2048}, {"n": 19, "m": 29},
             [("img", lambda s: (s["n"], s["m"]))], "image"),
    "box5": ({"n": 2048, "m": 2048}, {"n": 19, "m": 29},
             [("img", lambda s: (s["n"], s["m"]))], "image"),
    # 3-D: the input n.m.o, o innermost (Halide: planes n, rows m, columns o)
    "stencil7": ({"n": 128, "m": 256, "o": 256}, {"n": 6, "m": 7, "o": 21},
                 [("A", lambda s: (s["n"], s["m"], s["o"]))], "image"),
}
# where a program's .rise file is, when not in bench/autoschedule/programs/
FILES = {"sharpen": "bench/autoschedule/sharpen.rise", "morph5": "bench/autoschedule/morph5.rise",
         "box3": "bench/default_lowering/box3.rise", "box5": "bench/default_lowering/box5.rise",
         "stencil7": "bench/default_lowering/stencil7.rise"}
HALIDE_SCHEDULES = ["expert", "Mullapudi2016", "Adams2019", "Li2018"]
TIME_RE = re.compile(r"time: min ([0-9.e+-]+) (ms|s|us) *, median ([0-9.e+-]+) (ms|s|us)")
UNIT = {"s": 1e3, "ms": 1.0, "us": 1e-3}


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def run(cmd, env_extra, timeout=1800):
    env = dict(os.environ, **env_extra)
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout,
                           cwd=ROOT)
    except subprocess.TimeoutExpired:
        return None, "timed out after %d s" % timeout
    if p.returncode != 0:
        return None, (p.stderr.strip() or p.stdout.strip()).splitlines()[-1:] or ["exit %d" %
                                                                                  p.returncode]
    return p.stdout, None


def peer_times(out):
    m = re.search(r"min_ms ([0-9.]+) median_ms ([0-9.]+)", out)
    return (float(m.group(1)), float(m.group(2))) if m else None


TOLERANCE = 1e-3
mismatches = []


def check(name, variant, x, ref):
    """The error of x against risec's output, as a table cell; records a mismatch."""
    if ref is None:
        return "-"
    e = rel_error(x, ref)
    if not e <= TOLERANCE:
        mismatches.append("%s: %s (%.2g)" % (name, variant, e))
        return "MISMATCH %.1e" % e
    return "%.1e" % e


def rel_error(x, ref):
    x = np.asarray(x, dtype=np.float64).reshape(-1)
    ref = np.asarray(ref, dtype=np.float64).reshape(-1)
    if x.shape != ref.shape:
        return float("inf")
    return float(np.max(np.abs(x - ref) / np.maximum(1.0, np.abs(ref))))


def make_inputs(name, sizes, inputs, work):
    rng = np.random.default_rng(4242)
    arrays = {}
    for pname, shape in inputs:
        a = rng.random(shape(sizes), dtype=np.float32)
        if PROGRAMS[name][3] == "ml":
            a = (a * 2 - 1).astype(np.float32)  # [-1, 1): relu and softmax see both signs
        arrays[pname] = a
        np.save(os.path.join(work, pname + ".npy"), a)
        a.tofile(os.path.join(work, pname + ".f32"))
    return arrays


def risec_row(args, name, sizes, work, target, threads, strategy=None):
    prog = os.path.join(ROOT, FILES.get(name, "bench/autoschedule/programs/%s.rise" % name))
    out = os.path.join(work, "risec_%s_%d_%s.npy" % (target, threads, "s" if strategy else "d"))
    cmd = [args.risec, "run", prog, "--target", target, "--size",
           ",".join("%s=%d" % kv for kv in sizes.items()), "--warmup", "1", "--repeat",
           str(args.repeat), "--output", out]
    for pname, _ in PROGRAMS[name][2]:
        cmd += ["--input", "%s=%s" % (pname, os.path.join(work, pname + ".npy"))]
    if strategy:
        cmd += ["--strategy", strategy]
    stdout, err = run(cmd, {"OMP_NUM_THREADS": str(threads)})
    if err:
        return None, None, err
    m = TIME_RE.search(stdout)
    if not m:
        return None, None, ["no time in risec's output"]
    t = (float(m.group(1)) * UNIT[m.group(2)], float(m.group(3)) * UNIT[m.group(4)])
    return t, np.load(out), None


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def peer_run(cmd, env_extra, out_path):
    """A peer's process: its (min, median) and its output file's floats."""
    out, err = run(cmd, env_extra)
    if err:
        return None, None, err
    t = peer_times(out)
    if not t:
        return None, None, ["no time in the output"]
    return t, np.fromfile(out_path, dtype=np.float32), None


def program_variants(args, name, sizes, inputs, kind, work, halide, dnnl):
    """The rows of one program, in order: (label, threads, runner or None, reason). A
    runner times one process and returns ((min, median), output, None) or
    (None, None, error lines); a row without one is not available (the reason)."""
    v = []
    for target, threads in [("c", 1), ("openmp", 1), ("openmp", 2)]:
        v.append(("risec default (--target %s)" % target, threads,
                  lambda target=target, threads=threads: risec_row(args, name, sizes, work, target,
                                                                    threads), None))
    if args.risec_strategy:
        elv = os.path.join(args.risec_strategy, name + ".elv")
        if os.path.exists(elv):
            for threads in (1, 2):
                v.append(("risec %s (--target openmp)" % os.path.basename(elv), threads,
                          lambda threads=threads: risec_row(args, name, sizes, work, "openmp",
                                                            threads, elv), None))
        else:
            v.append(("risec %s.elv" % name, 0, None, "skipped: no %s" % elv))
    if kind == "image":
        if not os.path.exists(halide):
            return v + [("Halide 14", 0, None, "not built (%s)" % halide)]
        shape = inputs[0][1](sizes)
        for sched in HALIDE_SCHEDULES:
            label = "Halide 14 " + ("expert schedule" if sched == "expert" else sched)
            for threads in (1, 2):
                o = os.path.join(work, "halide_%s_%d.f32" % (sched, threads))
                cmd = [halide, name, sched] + [str(d) for d in shape] + [
                    str(args.repeat), os.path.join(work, inputs[0][0] + ".f32"), o]
                v.append((label, threads,
                          lambda cmd=cmd, threads=threads, o=o: peer_run(
                              cmd, {"HL_NUM_THREADS": str(threads)}, o), None))
        return v
    try:
        import torch
        torch_label = "PyTorch %s" % torch.__version__
    except ImportError:
        torch_label = None
    for threads in (1, 2) if torch_label else ():
        o = os.path.join(work, "torch_%d.f32" % threads)
        cmd = [sys.executable, os.path.join(HERE, "torch_peer.py"), name, str(threads),
               str(args.repeat), work, o] + ["%s=%d" % kv for kv in sizes.items()]
        v.append((torch_label, threads, lambda cmd=cmd, o=o: peer_run(cmd, {}, o), None))
    if not torch_label:
        v.append(("PyTorch", 0, None, "torch not importable"))
    if not os.path.exists(dnnl):
        return v + [("oneDNN", 0, None, "not built (%s)" % dnnl)]
    for threads in (1, 2):
        o = os.path.join(work, "dnnl_%d.f32" % threads)
        cmd = [dnnl, name, str(args.repeat), o] + [str(x) for x in sizes.values()]
        cmd += [os.path.join(work, p + ".f32") for p, _ in inputs]
        v.append(("oneDNN", threads,
                  lambda cmd=cmd, threads=threads, o=o: peer_run(
                      cmd, {"OMP_NUM_THREADS": str(threads)}, o), None))
    return v


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--risec", default=os.path.join(ROOT, "build/risec"))
    ap.add_argument("--bench-dir", default=os.path.join(ROOT, "build/bench"),
                    help="where halide_peers and dnnl_peers are built")
    ap.add_argument("--risec-strategy", metavar="DIR",
                    help="a folder with PROGRAM.elv per program (e.g. risec tune's best.elv)")
    ap.add_argument("--repeat", type=int, default=30, help="timed calls per process")
    ap.add_argument("--rounds", type=int, default=3,
                    help="processes per variant, the variants taking turns")
    ap.add_argument("--only", default="")
    ap.add_argument("--quick", action="store_true", help="tiny sizes: checks the script")
    ap.add_argument("--markdown", help="also write the tables to this file")
    args = ap.parse_args()
    if args.rounds < 1 or args.repeat < 1:
        ap.error("--rounds and --repeat take a positive count")
    only = [p.strip() for p in args.only.split(",") if p.strip()]
    if args.only and not only:
        ap.error("--only names no program (%s)" % ", ".join(PROGRAMS))
    # what the run needs, checked before the first variant runs
    if not (os.path.isfile(args.risec) and os.access(args.risec, os.X_OK)):
        ap.error("--risec %s is not an executable file" % args.risec)
    if args.risec_strategy and not os.path.isdir(args.risec_strategy):
        ap.error("--risec-strategy %s is not a folder" % args.risec_strategy)
    if args.markdown:
        folder = os.path.dirname(os.path.abspath(args.markdown))
        if not os.path.isdir(folder) or not os.access(folder, os.W_OK):
            ap.error("--markdown %s: no writable folder %s" % (args.markdown, folder))
    for p in only:
        if p not in PROGRAMS:
            ap.error("unknown program %s (%s)" % (p, ", ".join(PROGRAMS)))
    halide = os.path.join(args.bench_dir, "halide_peers")
    dnnl = os.path.join(args.bench_dir, "dnnl_peers")
    lines = []

    def say(s=""):
        print(s, flush=True)
        lines.append(s)

    say("bench_peers: %s, %d logical CPUs; load average at start %s; %d rounds of %d calls;"
        " %s" % (cpu_model(), os.cpu_count(), " ".join("%.2f" % x for x in os.getloadavg()),
                 args.rounds, args.repeat, time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())))
    say("command: /usr/bin/python3 bench/autoschedule/bench_peers.py " + " ".join(sys.argv[1:]))
    failed = False
    for name, (full, quick, inputs, kind) in PROGRAMS.items():
        if only and name not in only:
            continue
        sizes = quick if args.quick else full
        with tempfile.TemporaryDirectory() as work:
            make_inputs(name, sizes, inputs, work)
            variants = program_variants(args, name, sizes, inputs, kind, work, halide, dnnl)
            # per variant: its rounds' (min, median), its first output, its failure
            times = [[] for _ in variants]
            outs = [None] * len(variants)
            errs = [None] * len(variants)
            for r in range(args.rounds):
                order = range(len(variants)) if r % 2 == 0 else reversed(range(len(variants)))
                for i in order:
                    if errs[i] or variants[i][2] is None:
                        continue
                    t, out, err = variants[i][2]()
                    if err:
                        errs[i] = err
                        continue
                    times[i].append(t)
                    if outs[i] is None:
                        outs[i] = out
            ref = next((outs[i] for i, v in enumerate(variants)
                        if v[0].startswith("risec default") and outs[i] is not None), None)
            rows = []  # (variant, threads, (min, median) or None, check or reason)
            for i, (label, threads, runner, reason) in enumerate(variants):
                if runner is None:
                    rows.append((label, threads, None, reason))
                elif errs[i]:
                    rows.append((label, threads, None, "failed: " + " ".join(errs[i])))
                    failed |= label.startswith("risec default")
                else:
                    t = (min(x[0] for x in times[i]), median([x[1] for x in times[i]]))
                    rows.append((label, threads, t, "reference" if outs[i] is ref else
                                 check(name, label, outs[i], ref)))
            report(say, name, sizes, rows)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write("\n".join(lines) + "\n")
    if mismatches:
        print("bench_peers: outputs differ from risec's: " + "; ".join(mismatches),
              file=sys.stderr)
        return 3
    return 1 if failed else 0


def report(say, name, sizes, rows):
    say()
    say("### %s (%s)" % (name, ", ".join("%s=%d" % kv for kv in sizes.items())))
    say()
    say("| variant | threads | min ms | median ms | max rel. error vs risec |")
    say("|---|---|---|---|---|")
    for v, th, t, check in rows:
        say("| %s | %s | %s | %s | %s |" % (v, th or "-", "%.3f" % t[0] if t else "-",
                                            "%.3f" % t[1] if t else "-", check))
    # risec's default lowering against the fastest peer (by min) on the same threads
    for threads in (1, 2):
        mine = [t for v, th, t, _ in rows if v.startswith("risec default") and th == threads and t]
        peers = [(t[0], v) for v, th, t, c in rows
                 if not v.startswith("risec") and th == threads and t and not
                 c.startswith("failed")]
        if mine and peers:
            best = min(peers)
            say("\nrisec default / best peer, %d thread%s (min): %.1fx (%.3f ms vs %s %.3f ms)" %
                (threads, "" if threads == 1 else "s", min(t[0] for t in mine) / best[0],
                 min(t[0] for t in mine), best[1], best[0]))


if __name__ == "__main__":
    sys.exit(main())
