"""risec.tuning (docs/tuning.md, "Several machines"): Optuna over a shared SQLite
study, each trial compiled and measured by the compiler's own code."""

import os
import pathlib
import re
import subprocess
import sys

import numpy as np
import optuna
import pytest

import risec
import risec.tuning

ROOT = pathlib.Path(__file__).resolve().parents[2]
# scal on 48 floats: vectorize(v) needs v to divide 48, so v = 5 and v = 32 are
# pruned by the rewrite before anything is built.
SCAL = """
def scal = depFun(n: Nat => fun(alpha: f32 => fun(x: n.f32 =>
  x |> map(fun(xi => alpha * xi)))))
"""
TEMPLATE = """param v in [4, 2, 8, 16, 32, 5];
param u in [1, 2];
let main = (vectorize(v) @ outermost(isApplied(isMap))) ; lowerToC;
"""
SIZES = {"n": 48}
States = optuna.trial.TrialState


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return p


def check_valid(strategy_text):
    """The strategy compiles and computes scal."""
    k = risec.compile(SCAL, strategy=strategy_text, sizes=SIZES)
    x = np.arange(48, dtype=np.float32)
    np.testing.assert_allclose(k(np.float32(3), x), 3 * x)


def test_two_workers_share_one_sqlite_study(tmp_path):
    prog = write(tmp_path, "scal.rise", SCAL)
    tmpl = write(tmp_path, "scal.elv", TEMPLATE)
    url = f"sqlite:///{tmp_path / 'study.db'}"
    budget = 4
    cmd = [sys.executable, "-m", "risec.tuning", str(prog), "--strategy", str(tmpl),
           "--size", "n=48", "--storage", url, "--budget", str(budget), "--repeat", "1"]
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    workers = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=env) for _ in range(2)]
    outs = [w.communicate(timeout=120) for w in workers]
    for w, (out, err) in zip(workers, outs):
        assert w.returncode == 0, err
        assert out.startswith("// risec.tuning: best ")

    name = risec.tuning.study_name(prog, tmpl, sizes=SIZES)
    study = optuna.load_study(study_name=name, storage=url)
    trials = study.get_trials(deepcopy=False)
    counted = [t for t in trials if t.state in (States.COMPLETE, States.FAIL)]
    # Together they reach the budget, not twice the budget: each worker counted the
    # other's trials (a worker stops after its trial in flight, so the study may hold
    # one more per worker).
    assert budget <= len(counted) <= budget + 2
    # Every trial of the study is one of theirs: the numbers they report add up.
    made = [int(re.search(r"\((\d+) trial\(s\) by this worker\)", out).group(1))
            for out, _ in outs]
    assert sum(made) == len(trials)
    assert len({t.user_attrs["worker"] for t in trials}) == len([m for m in made if m])
    # Each trial records its strategy (the template with its values substituted).
    for t in trials:
        assert "param " not in t.user_attrs["strategy"]
        assert f"vectorize({t.params['v']})" in t.user_attrs["strategy"]
        assert t.user_attrs["status"] in ("measured", "invalid", "failed")
    # The template's own point was queued first.
    assert trials[0].params == {"v": 4, "u": 1}
    # The best is a measured, valid point.
    best = study.best_trial
    assert best.user_attrs["status"] == "measured" and best.params["v"] in (2, 4, 8, 16)
    check_valid(best.user_attrs["strategy"])


def test_invalid_points_are_pruned_before_measuring(tmp_path):
    url = f"sqlite:///{tmp_path / 'study.db'}"
    name = "scal-pruned"
    study = optuna.create_study(study_name=name, storage=url)
    study.enqueue_trial({"v": 5, "u": 1})
    study.enqueue_trial({"v": 32, "u": 2})
    r = risec.tuning.tune(SCAL, TEMPLATE, sizes=SIZES, storage=url, study=name, budget=2,
                          repeat=1, output=tmp_path / "best.elv")
    trials = optuna.load_study(study_name=name, storage=url).get_trials(deepcopy=False)
    pruned = [t for t in trials if t.state == States.PRUNED]
    assert {(t.params["v"], t.params["u"]) for t in pruned} >= {(5, 1), (32, 2)}
    for t in pruned:
        assert t.user_attrs["status"] == "invalid" and t.user_attrs["error"]
    assert len([t for t in trials if t.state == States.COMPLETE]) == 2
    assert r.params["v"] in (2, 4, 8, 16) and r.time_ms > 0
    assert (tmp_path / "best.elv").read_text() == r.strategy
    check_valid(r.strategy)


CONSTRAINED = """param v in [4, 2, 8, 16, 32, 5];
param u in [1, 2];
constraint 48 % v == 0 && v < 32;
let main = (vectorize(v) @ outermost(isApplied(isMap))) ; lowerToC;
"""


def test_points_that_violate_a_constraint_are_pruned_before_the_rewrite(tmp_path):
    url = f"sqlite:///{tmp_path / 'constrained.db'}"
    name = "scal-constrained"
    study = optuna.create_study(study_name=name, storage=url)
    study.enqueue_trial({"v": 5, "u": 1})
    study.enqueue_trial({"v": 32, "u": 2})
    r = risec.tuning.tune(SCAL, CONSTRAINED, sizes=SIZES, storage=url, study=name, budget=2,
                          repeat=1)
    trials = optuna.load_study(study_name=name, storage=url).get_trials(deepcopy=False)
    pruned = [t for t in trials if t.state == States.PRUNED]
    assert {(t.params["v"], t.params["u"]) for t in pruned} >= {(5, 1), (32, 2)}
    for t in pruned:
        if t.params["v"] in (5, 32):
            assert "violates the constraint `48 % v == 0 && v < 32`" in t.user_attrs["error"]
    for t in trials:
        if t.state == States.COMPLETE:
            assert 48 % t.params["v"] == 0 and t.params["v"] < 32
    assert "constraint" not in r.strategy
    check_valid(r.strategy)


SQUARE = """
def sq = depFun(n: Nat => fun(A: n.n.f32 =>
  A |> map(fun(r => r |> map(fun(x => x * x))))))
"""
PERM_TEMPLATE = """param (a, b, c) in permutations([1, 2, 3]);
let main = (tile(4, 4) @ outermost(mapNest(2))) ; reorder([a, b, c, 4]) ; lowerToC;
"""


def test_a_permutation_is_one_categorical_over_its_orders(tmp_path):
    url = f"sqlite:///{tmp_path / 'perm.db'}"
    r = risec.tuning.tune(SQUARE, PERM_TEMPLATE, sizes={"n": 8}, storage=url, study="perm",
                          budget=4, repeat=1)
    trials = optuna.load_study(study_name="perm", storage=url).get_trials(deepcopy=False)
    assert trials[0].params == {"a,b,c": "1,2,3"}  # the template's own order first
    for t in trials:
        assert set(t.params) == {"a,b,c"}
        assert sorted(t.params["a,b,c"].split(",")) == ["1", "2", "3"]
        assert t.state == States.COMPLETE, t.user_attrs.get("error")
    assert sorted(r.params) == ["a", "b", "c"]
    assert sorted(r.params.values()) == [1, 2, 3]
    order = ", ".join(str(r.params[n]) for n in "abc")
    assert f"reorder([{order}, 4])" in r.strategy
    k = risec.compile(SQUARE, strategy=r.strategy, sizes={"n": 8})
    x = np.arange(64, dtype=np.float32).reshape(8, 8)
    np.testing.assert_allclose(k(x), x * x)


def test_a_template_without_parameters_is_an_error():
    with pytest.raises(risec.Error, match="declares no parameters"):
        risec.tuning.tune(SCAL, "let main = lowerToC;\n", sizes=SIZES, budget=1)


def test_every_size_must_be_given():
    with pytest.raises(risec.Error):
        risec.tuning.tune(SCAL, TEMPLATE, sizes={}, budget=1)
