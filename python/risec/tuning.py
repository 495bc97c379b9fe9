"""Scale-out tuning: a strategy template's parameters searched by Optuna
(https://optuna.org) on a shared database, so that several processes or machines
share one study without a scheduler of risec's own (docs/tuning.md, "Several
machines: risec.tuning").

Optuna proposes the points (its TPE sampler by default); each trial is compiled and
measured by the compiler's own code, the same as a trial of `risec tune` (the rewrite
and the type checker prune invalid points before the C compiler runs; the fastest of
`repeat` runs on seeded inputs). Every process that calls `tune` with the same
program, template, sizes, target and storage joins the same study; the storage is
any Optuna RDB URL: ``sqlite:///tune.db`` on one machine, ``postgresql://...`` for
many.

Run from a shell on each machine (the same command everywhere):

    python -m risec.tuning examples/mm/mm.rise --strategy examples/mm/tune.elv \\
        --target openmp --size n=1024,m=1024,k=1024 --storage sqlite:///mm.db --budget 200
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import socket
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import Mapping, Optional

from . import Error, PathOrText, _program, _risec, _sizes_arg, _str_arg, _strategy

__all__ = ["TuneResult", "tune", "study_name", "main"]

# Trial states the budget counts: measured (COMPLETE) and failed (FAIL). Pruned points
# cost only a rewrite, as in `risec tune`.


@dataclass
class TuneResult:
    """The outcome of `tune`: the best point of the whole study (every process's
    trials), its fastest time, and the template with its values substituted."""

    study: "object"  # optuna.Study
    params: dict[str, int]
    time_ms: float
    strategy: str
    new_trials: int  # trials this call (this worker) ran, in any state


def _tuner(program: PathOrText, strategy: PathOrText, sizes: Mapping[str, int], target: str,
           entry: str, repeat: int, seed: int) -> "_risec.Tuner":
    text, is_path = _program(program)
    if strategy is None:
        raise Error("strategy=: tune needs a strategy template (a .elv path or text with "
                    "param declarations)", exit_code=2)
    stext, sis_path = _strategy(strategy)
    target = _str_arg("target=", target, 'a str ("c", "openmp", "opencl" or "cuda")')
    entry = _str_arg("entry=", entry, "a str (the name of a definition; \"\" for the last)")
    return _risec.Tuner(text, is_path, stext, sis_path, target, entry,
                        _sizes_arg("sizes=", sizes), repeat, seed)


def _import_optuna() -> "object":
    """Optuna, the optional dependency of risec.tuning, or an Error saying how to get it."""
    try:
        import optuna
    except ImportError as e:
        raise Error("risec.tuning needs Optuna, which is not installed here "
                    f"({type(e).__name__}: {e}); install it with `pip install optuna` (or "
                    "`pip install 'risec[tune]'`)", exit_code=2) from e
    return optuna


def _open_study(optuna, name: str, storage: Optional[str], sampler) -> "object":
    """Creates or joins the study. Workers that start together on a new database race
    to create Optuna's tables; the loser's error is retried."""
    from sqlalchemy.exc import DBAPIError  # Optuna's own dependency

    for attempt in range(8):
        try:
            return optuna.create_study(study_name=name, storage=storage, direction="minimize",
                                       load_if_exists=True, sampler=sampler)
        except DBAPIError:  # OperationalError, IntegrityError
            if attempt == 7:
                raise
            time.sleep(0.1 * (attempt + 1))
    raise AssertionError("unreachable")


def study_name(program: PathOrText, strategy: PathOrText, *, sizes: Mapping[str, int],
               target: str = "c", entry: str = "") -> str:
    """The default study name: "risec-" and the key `risec tune` gives the same
    (program, template, sizes, target, entry, lanes) combination."""
    return "risec-" + _tuner(program, strategy, sizes, target, entry, 1, 0).key


def tune(program: PathOrText, strategy: PathOrText, *, sizes: Mapping[str, int],
         target: str = "c", entry: str = "", storage: Optional[str] = None,
         study: Optional[str] = None, budget: int = 50, repeat: int = 5, seed: int = 0,
         sampler: "object" = None, output: Optional[PathOrText] = None,
         progress: bool = False) -> TuneResult:
    """Search the `param` declarations of `strategy` (a template, path or text) for
    `program` at `sizes` (every size given) by measuring, with Optuna.

    `storage`: an Optuna storage URL shared by the workers (``sqlite:///tune.db``,
    ``postgresql://user@host/db``); None keeps the study in memory. `study`: its name
    (default `study_name(...)`, so workers agree without being told). `budget`: the
    number of measured or failed trials the *study* should reach, all workers
    together (a worker stops when the study has them; points the rewrite or the
    checker rejects are pruned trials and do not count; a point another trial
    measured already is not measured again, its time is reused). `sampler`: an
    Optuna sampler (default TPESampler, seeded by `seed`, and by the process id too
    when the storage is shared). `output`: a path to write the best strategy to.

    Each trial records `status` (measured, invalid, failed), `strategy` (the template
    with the trial's values), `worker` (host:pid) and, when not measured, `error` as
    user attributes. The template's own values (each parameter's first) are queued
    as the study's first trial."""
    optuna = _import_optuna()

    if budget < 1:
        raise Error("budget must be at least 1", exit_code=2)
    tuner = _tuner(program, strategy, sizes, target, entry, repeat, seed)
    if output is not None:  # before the search: the output is none of the inputs
        _check_output(os.fspath(output), _inputs(program, strategy, storage))
    params = dict(tuner.params)
    dims = _dimensions(params, tuner.permutations)
    if not progress:
        optuna.logging.set_verbosity(optuna.logging.WARNING)
    if sampler is None:
        # Workers of one shared study must not draw the same points: each one's seed
        # differs (a search over a shared storage is not repeatable anyway).
        worker_seed = seed if storage is None else seed * 1_000_003 + os.getpid()
        sampler = optuna.samplers.TPESampler(seed=worker_seed)
    s = _open_study(optuna, study or "risec-" + tuner.key, storage, sampler)
    s.enqueue_trial({name: choices[0] for name, choices in dims.items()}, skip_if_exists=True)
    States = optuna.trial.TrialState
    counted = (States.COMPLETE, States.FAIL)
    worker = f"{socket.gethostname()}:{os.getpid()}"

    made = []  # the numbers of this worker's trials

    def objective(trial: "optuna.Trial") -> float:
        made.append(trial.number)
        chosen = {name: trial.suggest_categorical(name, cs) for name, cs in dims.items()}
        values = _values(chosen)
        trial.set_user_attr("strategy", tuner.strategy(values))
        trial.set_user_attr("worker", worker)
        # A point measured before (by any worker): its time, without measuring again.
        for t in trial.study.get_trials(deepcopy=False, states=(States.COMPLETE,)):
            if t.params == chosen and t.number != trial.number:
                trial.set_user_attr("status", "measured")
                trial.set_user_attr("repeat_of", t.number)
                return t.value
        status, ms, err = tuner.trial(values)
        trial.set_user_attr("status", status)
        if status == "measured":
            return ms
        trial.set_user_attr("error", err.split("\n")[0][:500])
        if status == "invalid":
            raise optuna.TrialPruned(err.split("\n")[0])
        return math.nan  # Optuna records the trial as FAIL

    space = math.prod(len(c) for c in dims.values())
    if len(s.get_trials(deepcopy=False, states=counted)) < budget:
        # The callback stops this worker when the study has `budget` counted trials;
        # n_trials bounds a worker whose proposals keep being pruned or repeated.
        s.optimize(objective, n_trials=budget + space,
                   callbacks=[optuna.study.MaxTrialsCallback(budget, states=counted)],
                   show_progress_bar=progress)
    try:
        best = s.best_trial
    except ValueError:
        reasons = [t.user_attrs.get("error", "") for t in s.get_trials(deepcopy=False)]
        last = next((r for r in reversed(reasons) if r), "")
        raise Error("no point of the template could be measured" +
                    (f"; last reason: {last}" if last else "")) from None
    best_values = _values(best.params)
    text = best.user_attrs.get("strategy") or tuner.strategy(best_values)
    if output is not None:
        _write_output(os.fspath(output), text, _inputs(program, strategy, storage))
    return TuneResult(study=s, params=best_values, time_ms=best.value, strategy=text,
                      new_trials=len(made))


def _inputs(program: PathOrText, strategy: PathOrText,
            storage: Optional[str]) -> list[tuple[str, str]]:
    """(path, role) of the files `tune` reads: the program, the template and a SQLite
    storage."""
    out = []
    for x, role, read in ((program, "the program", _program),
                          (strategy, "the strategy", _strategy)):
        text, is_path = read(x)
        if is_path:
            out.append((text, role))
    if storage and storage.startswith("sqlite:///"):
        out.append((storage[len("sqlite:///"):], "storage="))
    return out


def _check_output(path: str, inputs: list[tuple[str, str]]) -> None:
    """Refuses an output that is the same file as an input (compared as the command
    line does: the same device and inode, so links and other spellings are caught)."""
    for given, role in inputs:
        try:
            same = os.path.samefile(path, given)
        except OSError:  # one of them does not exist
            same = False
        if same:
            raise Error(f"output={path!r} is the same file as the input {given!r} ({role}); "
                        "risec does not overwrite its inputs: choose another output",
                        exit_code=2)


def _write_output(path: str, text: str, inputs: list[tuple[str, str]]) -> None:
    """Writes `text` to `path` as the command line writes its outputs: a temporary file
    in the same folder, flushed to disk, renamed over the target, so that a failed
    write leaves the old file as it was."""
    _check_output(path, inputs)
    target = os.path.realpath(path)
    folder = os.path.dirname(target) or "."
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix="." + os.path.basename(target) + ".risec-")
        with os.fdopen(fd, "w") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        if os.path.exists(target):
            os.chmod(tmp, os.stat(target).st_mode & 0o7777)
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, target)
    except OSError as e:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        raise Error(f"cannot write {path!r}: {e.strerror or e}", exit_code=4) from None


def _dimensions(params: dict[str, list[int]],
                permutations: list[list[str]]) -> dict[str, list]:
    """Optuna's categorical parameters, in declaration order, defaults first: a plain
    parameter's values, and for a permutation declaration (names a, b, ...) one
    parameter "a,b" whose choices are its orders as text ("1,2", "2,1"), the list as
    written first (itertools gives them in the list's order), so only orders are
    proposed."""
    grouped = {names[0]: names for names in permutations}
    member = {n for names in permutations for n in names}
    dims: dict[str, list] = {}
    for name, values in params.items():
        if name in grouped:
            dims[",".join(grouped[name])] = [",".join(map(str, p))
                                             for p in itertools.permutations(values)]
        elif name not in member:
            dims[name] = list(values)
    return dims


def _values(chosen: dict) -> dict[str, int]:
    """Each template parameter's value from Optuna's parameters (_dimensions)."""
    out = {}
    for name, choice in chosen.items():
        if "," in name:
            out.update(zip(name.split(","), map(int, choice.split(","))))
        else:
            out[name] = choice
    return out


def _sizes(text: str) -> dict[str, int]:
    out = {}
    for item in filter(None, text.split(",")):
        name, _, value = item.partition("=")
        if not value.isdigit():
            raise SystemExit(f"--size: '{item}' is not NAME=VALUE")
        out[name.strip()] = int(value)
    return out


def main(argv: Optional[list[str]] = None) -> int:
    """`python -m risec.tuning`: one worker of a shared study (the arguments of
    `risec tune`, with --storage an Optuna storage URL)."""
    ap = argparse.ArgumentParser(prog="python -m risec.tuning", description=__doc__.split("\n\n")[0])
    ap.add_argument("program")
    ap.add_argument("--strategy", required=True, help="the template (.elv with param declarations)")
    ap.add_argument("--size", default="", help="n=1024,m=1024: every size of the entry")
    ap.add_argument("--target", default="c")
    ap.add_argument("--entry", default="")
    ap.add_argument("--storage", default=None, help="sqlite:///tune.db, postgresql://...")
    ap.add_argument("--study", default=None)
    ap.add_argument("--budget", type=int, default=50)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("-o", "--output", default=None)
    a = ap.parse_args(argv)
    try:
        r = tune(a.program, a.strategy, sizes=_sizes(a.size), target=a.target, entry=a.entry,
                 storage=a.storage, study=a.study, budget=a.budget, repeat=a.repeat, seed=a.seed,
                 output=a.output)
    except Error as e:
        print(str(e), file=sys.stderr)
        return e.exit_code
    point = ",".join(f"{k}={v}" for k, v in r.params.items())
    print(f"// risec.tuning: best {r.time_ms:.3f} ms with {point} "
          f"({r.new_trials} trial(s) by this worker)")
    print(r.strategy, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
