"""The split of a model over processes (engine/distributed.py), checked on one process: for
any partition of the nodes, every process's local System evaluated at the same state gives,
on the rows it owns, exactly the full System's residual, Σ|f| and Jacobian rows; every
unknown has one owner; every element instance is the output home of one process."""
import os
import sys

import numpy as np
import pytest

from mbdae.engine.distributed import (DistributedSystem, local_model, plan_processes, unknown_vertices,
                                      vertex_graph)
from mbdae.engine.io.mbdyn.deck import parse_deck
from mbdae.engine.system import System

HERE = os.path.dirname(__file__)
sys.path.insert(0, os.path.join(HERE, "..", "benchmarks"))
from decks import beam_deck, chain_deck   # noqa: E402

DECKS = {"chain": lambda: chain_deck(7, final_time=0.01), "beam": lambda: beam_deck(5, final_time=0.01)}


def split(model, parts, how, rng):
    """The full System and each process's DistributedSystem (not connected: no MPI here)."""
    full = System(model)
    vertex = unknown_vertices(full)
    nv = int(vertex.max()) + 1
    part = (np.arange(nv) * parts // nv) if how == "blocks" else rng.permutation(np.arange(nv) % parts)
    owner, shares = plan_processes(model, full, parts, vertex, part)
    systems = [DistributedSystem(local_model(model, share),
                                 dict(owner=owner, share=share, method=how, summary=None,
                                      node_start=full.nodes.start[share["nodes"]]))
               for share in shares]
    return full, owner, systems


def perturbed_state(full, rng):
    st = full.initial_state(0.0)
    st.y += 1e-2 * rng.normal(size=full.n)
    st.yp += 1e-1 * rng.normal(size=full.n)
    return st


def local_state(system, st):
    local = system.initial_state(0.0)
    local.y[:] = st.y[system.natural]
    local.yp[:] = st.yp[system.natural]
    local.R_ref = st.R_ref[system.global_nodes]
    return local


@pytest.mark.parametrize("how", ["blocks", "random"])
@pytest.mark.parametrize("name", sorted(DECKS))
def test_owned_rows_of_the_local_systems_are_the_full_systems_rows(name, how):
    rng = np.random.default_rng(7)
    model = parse_deck(DECKS[name](), echo=lambda *a: None).model
    parts = 3
    full, owner, systems = split(model, parts, how, rng)
    st = perturbed_state(full, rng)
    dcoef = 0.37e-2
    f, fabs, J = full.evaluate(st, dcoef)
    J = J.toarray()
    covered = np.zeros(full.n, int)
    for p, system in enumerate(systems):
        natural = system.natural
        assert len(np.unique(natural)) == system.n          # one local unknown per global one
        owned = np.flatnonzero(owner[natural] == p)
        covered[natural[owned]] += 1
        fl, fabsl, Jl = System.evaluate(system, local_state(system, st), dcoef)
        rows = natural[owned]
        assert np.allclose(fl[owned], f[rows], rtol=1e-12, atol=1e-12 * np.abs(f).max())
        assert np.allclose(fabsl[owned], fabs[rows], rtol=1e-12, atol=1e-12 * np.abs(fabs).max())
        Jrows = np.zeros((len(owned), full.n))
        Jrows[:, natural] = Jl.toarray()[owned]
        assert np.allclose(Jrows, J[rows], rtol=1e-12, atol=1e-12 * np.abs(J).max())
    assert np.all(covered == 1)                               # every row owned exactly once


@pytest.mark.parametrize("name", sorted(DECKS))
def test_every_instance_is_home_on_one_process(name):
    rng = np.random.default_rng(3)
    model = parse_deck(DECKS[name](), echo=lambda *a: None).model
    full, owner, systems = split(model, 2, "random", rng)
    for fam in full.families:
        homes = np.concatenate([labels for s in systems for f, labels in zip(s.families, s.home_labels)
                                if f.name == fam.name] + [np.zeros(0, np.int64)])
        assert sorted(homes.tolist()) == sorted(fam.labels.tolist())


def test_partition_graph_couples_the_chains_neighbours():
    """The vertex graph of a chain of bodies and spherical hinges is a path: each link's
    node couples only the nodes of the links next to it (the joints' multipliers go with a
    node they couple)."""
    model = parse_deck(chain_deck(6, final_time=0.01), echo=lambda *a: None).model
    full = System(model)
    vertex = unknown_vertices(full)
    assert vertex.max() + 1 == full.nodes.n
    graph = vertex_graph(full, vertex)
    degree = np.diff(graph.indptr)
    assert sorted(degree.tolist()) == [1, 1] + [2] * (full.nodes.n - 2)
