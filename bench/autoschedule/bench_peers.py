#!/usr/bin/python3
"""bench_peers: the autoscheduler's test programs (bench/autoschedule/programs; sharpen
and morph5 of bench/autoschedule/; box3, box5 and the 3-D stencil7 of
bench/default_lowering/) timed with risec against their peers, on the same inputs, on 1
and 2 threads (issue 34, docs/performance.md "Autoscheduler targets: peers").

  /usr/bin/python3 bench/autoschedule/bench_peers.py [--risec build/risec]
      [--bench-dir build/bench] [--risec-strategy DIR] [--repeat K] [--only P,Q]
      [--quick] [--markdown FILE]

risec: `risec run --warmup 1 --repeat K` with the default lowering (--target c on one
thread, --target openmp on 1 and 2 threads, OMP_NUM_THREADS) and, with --risec-strategy DIR,
DIR/PROGRAM.elv on --target openmp (1 and 2 threads; a program without its .elv is
skipped): the place where `risec tune`'s best.elv plugs in.
Peers: the image programs in Halide 14 (build/bench/halide_peers: an expert schedule
and the Mullapudi2016, Adams2019 and Li2018 autoschedulers; HL_NUM_THREADS), the ML
layers in PyTorch (torch.set_num_threads) and oneDNN (build/bench/dnnl_peers;
OMP_NUM_THREADS). A peer that is not built, not importable or fails is reported as
such and skipped. Every output is compared with risec's default lowering
(max |x - ref| / max(1, |ref|)).

Times: min and median of K calls after a warm-up call, in ms, for risec as for the
peers (`risec run --warmup 1`, whose inputs and output lie at one offset in their pages,
as oneDNN's std::vector buffers do; PyTorch's output is its own allocation). The script
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--risec", default=os.path.join(ROOT, "build/risec"))
    ap.add_argument("--bench-dir", default=os.path.join(ROOT, "build/bench"),
                    help="where halide_peers and dnnl_peers are built")
    ap.add_argument("--risec-strategy", metavar="DIR",
                    help="a folder with PROGRAM.elv per program (e.g. risec tune's best.elv)")
    ap.add_argument("--repeat", type=int, default=30)
    ap.add_argument("--only", default="")
    ap.add_argument("--quick", action="store_true", help="tiny sizes: checks the script")
    ap.add_argument("--markdown", help="also write the tables to this file")
    args = ap.parse_args()
    only = [p for p in args.only.split(",") if p]
    for p in only:
        if p not in PROGRAMS:
            ap.error("unknown program %s (%s)" % (p, ", ".join(PROGRAMS)))
    try:
        import torch
    except ImportError:
        torch = None
    halide = os.path.join(args.bench_dir, "halide_peers")
    dnnl = os.path.join(args.bench_dir, "dnnl_peers")
    lines = []

    def say(s=""):
        print(s, flush=True)
        lines.append(s)

    say("bench_peers: %s, %d logical CPUs; load average at start %s; repeat %d; %s" %
        (cpu_model(), os.cpu_count(), " ".join("%.2f" % x for x in os.getloadavg()), args.repeat,
         time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())))
    say("command: /usr/bin/python3 bench/autoschedule/bench_peers.py " + " ".join(sys.argv[1:]))
    failed = False
    for name, (full, quick, inputs, kind) in PROGRAMS.items():
        if only and name not in only:
            continue
        sizes = quick if args.quick else full
        with tempfile.TemporaryDirectory() as work:
            arrays = make_inputs(name, sizes, inputs, work)
            rows = []  # (variant, threads, (min, median) or None, check or reason)
            ref = None
            for target, threads in [("c", 1), ("openmp", 1), ("openmp", 2)]:
                t, out, err = risec_row(args, name, sizes, work, target, threads)
                if err:
                    rows.append(("risec default (--target %s)" % target, threads, None,
                                 "failed: " + " ".join(err)))
                    failed = True
                    continue
                if ref is None:
                    ref = out
                rows.append(("risec default (--target %s)" % target, threads, t,
                             "reference" if out is ref else check(name, target, out, ref)))
            if args.risec_strategy:
                elv = os.path.join(args.risec_strategy, name + ".elv")
                if os.path.exists(elv):
                    for threads in (1, 2):
                        t, out, err = risec_row(args, name, sizes, work, "openmp", threads, elv)
                        rows.append(("risec %s (--target openmp)" % os.path.basename(elv),
                                     threads, t, "failed: " + " ".join(err) if err else
                                     check(name, elv, out, ref)))
            if kind == "image":
                if not os.path.exists(halide):
                    rows.append(("Halide 14", 0, None, "not built (%s)" % halide))
                else:
                    shape = inputs[0][1](sizes)
                    for sched in HALIDE_SCHEDULES:
                        for threads in (1, 2):
                            o = os.path.join(work, "halide.f32")
                            cmd = [halide, name, sched] + [str(d) for d in shape] + [
                                str(args.repeat), os.path.join(work, inputs[0][0] + ".f32"), o]
                            out, err = run(cmd, {"HL_NUM_THREADS": str(threads)})
                            label = "Halide 14 " + ("expert schedule" if sched == "expert" else
                                                    sched)
                            if err:
                                rows.append((label, threads, None, "failed: " + " ".join(err)))
                                continue
                            got = np.fromfile(o, dtype=np.float32)
                            rows.append((label, threads, peer_times(out),
                                         check(name, label, got, ref)))
            else:
                for threads in (1, 2):
                    if torch is None:
                        rows.append(("PyTorch", threads, None, "torch not importable"))
                        break
                    torch.set_num_threads(threads)
                    t = {k: torch.from_numpy(v) for k, v in arrays.items()}
                    if name == "mlp":
                        f = lambda: torch.addmm(t["b2"], torch.relu(  # noqa: E731
                            torch.addmm(t["b1"], t["x"], t["W1"])), t["W2"])
                    elif name == "layernorm":
                        f = lambda: torch.nn.functional.layer_norm(  # noqa: E731
                            t["x"], (sizes["d"],), t["gamma"], t["beta"], 1e-5)
                    else:
                        f = lambda: torch.softmax(t["x"], dim=1)  # noqa: E731
                    with torch.no_grad():
                        got = f()
                        ms = []
                        for _ in range(args.repeat):
                            t0 = time.perf_counter()
                            f()
                            ms.append((time.perf_counter() - t0) * 1e3)
                    ms.sort()
                    rows.append(("PyTorch %s" % torch.__version__, threads,
                                 (ms[0], ms[len(ms) // 2]),
                                 check(name, "PyTorch", got.numpy(), ref)))
                if not os.path.exists(dnnl):
                    rows.append(("oneDNN", 0, None, "not built (%s)" % dnnl))
                else:
                    for threads in (1, 2):
                        o = os.path.join(work, "dnnl.f32")
                        cmd = [dnnl, name, str(args.repeat), o] + [str(v) for v in sizes.values()]
                        cmd += [os.path.join(work, p + ".f32") for p, _ in inputs]
                        out, err = run(cmd, {"OMP_NUM_THREADS": str(threads)})
                        if err:
                            rows.append(("oneDNN", threads, None, "failed: " + " ".join(err)))
                            continue
                        got = np.fromfile(o, dtype=np.float32)
                        rows.append(("oneDNN", threads, peer_times(out),
                                     check(name, "oneDNN", got, ref)))
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
