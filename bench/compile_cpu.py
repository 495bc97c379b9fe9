#!/usr/bin/env python3
"""CPU time (user + system, the compiler driver and its children) of compiling chosen
sources with variants of their build's flags: docs/testing.md, "Where the time goes".

    bench/compile_cpu.py [--rounds N] BUILD_DIR VARIANTS SOURCE...

BUILD_DIR has a compile_commands.json (configure only; a test source needs its
precompiled header made first, see bench/ci_compile_cpu.sh). VARIANTS is a
comma-separated list of variant names (below); each source is compiled once per
variant per round, the variants interleaved, and the least CPU time of the rounds is
printed, with the load average. A SOURCE of the form unity:NAME=A.cpp+B.cpp+... is a
unity file of those sources (#include'd in that order), compiled with the command of
A.cpp, as CMake's unity build does; unity:NAME=DIR/*.cpp takes the folder's sources.
"""
import glob
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

# name -> list of (regex, replacement) applied to the compile command's words, joined
# by single spaces.
VARIANTS = {
    "now": [],
    "O0": [(r" -O1 ", " -O0 ")],
    "noubsan": [(r"-fsanitize=fuzzer-no-link,address,undefined", "-fsanitize=fuzzer-no-link,address"),
                (r"-fsanitize=address,undefined", "-fsanitize=address")],
    "O0-noubsan": [(r" -O1 ", " -O0 "),
                   (r"-fsanitize=fuzzer-no-link,address,undefined", "-fsanitize=fuzzer-no-link,address")],
    "clang": [(r"^\S+ ", "clang++-14 "), (r" -Wno-(restrict|stringop-overflow|maybe-uninitialized)", ""),
              (r" -Werror", "")],
}


def cpu_of(cmd):
    """Runs cmd (a list), returns (user+sys seconds, exit status, stderr tail)."""
    with tempfile.TemporaryFile() as err:
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err)
        _, status, ru = os.wait4(p.pid, 0)
        err.seek(0)
        tail = err.read().decode(errors="replace")[-2000:]
    return ru.ru_utime + ru.ru_stime, os.waitstatus_to_exitcode(status), tail


def main():
    args = sys.argv[1:]
    rounds = 1
    if args[:1] == ["--rounds"]:
        rounds = int(args[1])
        args = args[2:]
    build, variants, sources = args[0], args[1].split(","), args[2:]
    db = {os.path.realpath(e["file"]): e for e in json.load(open(os.path.join(build, "compile_commands.json")))}
    tmp = tempfile.mkdtemp(prefix="compile_cpu_")
    jobs = []  # (label, base command string, directory)
    for src in sources:
        if src.startswith("unity:"):
            name, files = src[len("unity:"):].split("=", 1)
            parts = sorted(glob.glob(files)) if "*" in files else files.split("+")
            parts = [os.path.realpath(f) for f in parts]
            unity = os.path.join(tmp, name + ".cpp")
            with open(unity, "w") as f:
                f.writelines('#include "%s"\n' % p for p in parts)
            e = db[parts[0]]
            cmd = e["command"].replace(e["file"], unity)
            jobs.append(("%s (%d sources)" % (name, len(parts)), cmd, e["directory"]))
        else:
            e = db[os.path.realpath(src)]
            jobs.append((src, e["command"], e["directory"]))
    best = {}
    for r in range(rounds):
        for label, cmd, d in jobs:
            for v in variants:
                c = re.sub(r" -o \S+", " -o " + os.path.join(tmp, "out.o"), cmd)
                for pat, rep in VARIANTS[v]:
                    c = re.sub(pat, rep, c)
                os.chdir(d)
                t, rc, tail = cpu_of(shlex.split(c))
                if rc != 0:
                    print("FAILED %s [%s]:\n%s" % (label, v, tail), file=sys.stderr)
                    t = float("nan")
                key = (label, v)
                best[key] = t if key not in best else min(best[key], t)
                print("  round %d %-60s %-12s %7.1f s  load %s" %
                      (r + 1, label, v, t, open("/proc/loadavg").read().split()[0]), file=sys.stderr)
    print("| source | " + " | ".join(variants) + " |")
    print("|---|" + "---|" * len(variants))
    for label, _, _ in jobs:
        print("| `%s` | " % label + " | ".join("%.1f" % best[(label, v)] for v in variants) + " |")
    print("(least CPU seconds of %d round(s); load average now %s)" %
          (rounds, open("/proc/loadavg").read().split()[0]))


if __name__ == "__main__":
    main()
