"""The Model/State split of the element families: a family's changing arrays live in
State.families (filled by System.initial_state, replaced by System.commit), so a kept State
rolls back and the family objects never change during a run; the registry gives every
family its Model methods, fields, builder and samples."""
import numpy as np

from mbdae.engine.model import Model
from mbdae.engine.system import System
from mbdae.elements.registry import ENTRIES, family_classes
from samples import SAMPLES, randomize_state


def _incremental_beam_system(seed=0):
    return System(SAMPLES["beam3"][1](np.random.default_rng(seed)))       # incremental interpolation


def test_initial_state_holds_the_stateful_families_arrays():
    system = _incremental_beam_system()
    st = system.initial_state(0.0)
    (beam,) = system.stateful
    assert set(st.families) == {beam.state_key}
    assert set(st.families[beam.state_key]) == {"R_prev", "kappa_prev"}
    model = SAMPLES["joint"][0](np.random.default_rng(0))
    assert "joint" not in System(model).initial_state(0.0).families    # nothing reads "r": no tracking
    model.element_drive("joint", 4, "rz", 1.0)                          # a reader of private data
    assert set(System(model).initial_state(0.0).families["joint"]) == {"theta"}
    driven = System(SAMPLES["driven"][0](np.random.default_rng(0)))
    assert set(driven.initial_state(0.0).families["driven"]) == {"committed"}


def test_commit_replaces_the_arrays_and_a_kept_state_rolls_back():
    system = _incremental_beam_system()
    rng = np.random.default_rng(1)
    st0 = randomize_state(system, rng)
    f0 = system.evaluate(st0, 0.1, want_jac=False)[0].copy()
    before = {k: v.copy() for k, v in st0.families[system.stateful[0].state_key].items()}
    st1 = st0.trial(st0.t, st0.y.copy(), st0.yp.copy())        # shares st0's family arrays
    st1.y[system.nodes.ig] += 0.05 * rng.normal(size=(system.nodes.n, 3))
    system.commit(st1)
    key = system.stateful[0].state_key
    assert st1.families is not st0.families
    assert not np.allclose(st1.families[key]["kappa_prev"], before["kappa_prev"])
    for name, value in before.items():                         # st0 untouched
        assert np.array_equal(st0.families[key][name], value)
    assert np.array_equal(system.evaluate(st0, 0.1, want_jac=False)[0], f0)


def test_a_context_without_family_arrays_sees_the_initial_ones():
    system = _incremental_beam_system()
    st = system.initial_state(0.0)
    ctx_state = system.context(st)
    ctx_bare = system.context(st)
    ctx_bare.families = {}
    fam = system.stateful[0]
    for a, b in zip(fam.residual_blocks(ctx_state), fam.residual_blocks(ctx_bare)):
        assert np.array_equal(a, b)


def test_every_family_module_is_complete():
    """Each registry module builds its families, has samples for each of its family classes
    and gives the Model its builder methods and spec fields."""
    model = Model()
    names = {cls.name for cls in family_classes()}
    sampled = {name for entry in ENTRIES for name in entry.samples}
    assert names == sampled
    for entry in ENTRIES:
        assert callable(entry.module.build)
        assert entry.build(model, None, []) == [], f"{entry.name}: families for an empty model"
        for method in entry.model_methods:
            assert getattr(Model, method.__name__) is method
        for field in entry.model_fields:
            assert hasattr(model, field)
