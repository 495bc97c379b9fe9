"""`profile=True`: the stages of the generated code timed by the code itself, as
`risec run --profile` prints them (docs/python.md), read with `kernel.profile()`."""
import numpy as np
import pytest

import risec

PROGRAM = """def rowsums = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 =>
  let y = x |> transpose |> map(map(fun(a => a * 2.0f))) in
  y |> transpose |> map(reduce(add)(0.0f))))
"""


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_stages_are_named_and_timed(target):
    k = risec.compile(PROGRAM, target=target, profile=True)
    x = np.random.default_rng(0).random((33, 17), dtype=np.float32)
    assert k.profile()[0]["ms"] == 0.0  # loaded, not called yet
    for _ in range(3):
        np.testing.assert_allclose(k(x), 2 * x.sum(axis=1), rtol=1e-5)
    stages = k.profile()
    assert len(stages) == 2
    first, second = stages
    # Each stage is placed at the map the program wrote (line 2 and 3 of the text).
    assert first["where"].endswith(":2:29") and first["source"].startswith("let y = x")
    assert second["where"].endswith(":3:21") and second["writes"] == "output"
    assert first["what"] in ("mapSeq", "mapPar") and second["what"] == first["what"]
    assert all(s["ms"] > 0 for s in stages)


def test_without_profile_there_are_no_stages():
    k = risec.compile(PROGRAM)
    k(np.ones((4, 4), np.float32))
    assert k.profile() == []


def test_profile_is_for_the_cpu_targets():
    with pytest.raises(risec.Error) as e:
        risec.compile(PROGRAM, target="opencl", profile=True)
    assert e.value.exit_code == 2 and "profile" in str(e.value)
