"""Parameter nodes and `bind` (MBDyn input manual §6.6 and §8.20.1; spec
mbdyn-input-language.md §4.5, §7.10).

A parameter node owns no unknowns: it holds a value that is
* `value`: a constant given in the deck;
* `element`: an element private datum, copied by a `bind: <elem>, <type>, <node>,
  {name, "<datum>" | [index,] <i>}` card each time the node is read or output;
* `beam strain gage, y, z`: bound to a beam with `bind: <beam>, beam, <node>, <i>`, the strain
  of the fibre at (y, z) of the section of evaluation point i,
      ε = ν_x + z κ_y - y κ_z
  from the axial strain ν_x and the curvatures κ_y, κ_z there (the beam's private data
  "ex", "ky", "kz" of that point: strains net of the reference configuration).

The family has no rows; it writes the .prm file (label, value per node)."""
from dataclasses import dataclass
import numpy as np

from mbdae.elements.base import ElementFamily
from mbdae.engine.core.assembly import Pattern
from mbdae.engine.core.compiled import kernel
from mbdae.engine.core import privdata
from mbdae.elements.beam import beam3_sample

KINDS = ("value", "element", "beam strain gage")


@dataclass
class ParameterNodeSpec:
    label: int
    kind: str = "value"
    value: float = 0.0
    y: float = 0.0                 # beam strain gage fibre position in the section frame
    z: float = 0.0
    output: bool = True


@dataclass
class BindSpec:
    element: int
    element_type: str              # "beam", "joint", "body", "force"
    node: int                      # parameter node label
    name: str = None               # private datum name, or
    index: int = None              # MBDyn's 1-based private datum index (strain gage: the point)


# ---------------------------------------------------------------------- Model builder methods
# (engine/model.py makes each of MODEL_METHODS a Model method through the registry; the
# first argument is the model)

def parameter_node(model, label, kind="value", value=0.0, y=0.0, z=0.0, output=True):
    """Parameter node (input manual §6.6): kind "value" (a constant), "element" or
    "beam strain gage" (fibre y, z of a beam section), filled by `bind` (engine/parameters.py)."""
    nodes = model.parameter_nodes
    if any(s.label == label for s in nodes):
        raise ValueError(f"parameter node {label} is already defined")
    nodes.append(ParameterNodeSpec(label, kind, float(value), float(y), float(z), output))
    return label


def bind(model, element, element_type, parameter_node, name=None, index=None):
    """Bind element private datum `name` (or 1-based `index`; for a beam strain gage the
    evaluation point) to a parameter node (input manual §8.20.1)."""
    if (name is None) == (index is None):
        raise ValueError("bind: give either a private datum name or an index")
    model.binds.append(
        BindSpec(element, element_type, parameter_node, name, None if index is None else int(index)))
    return parameter_node


MODEL_FIELDS = {"parameter_nodes": list, "binds": list}   # Model attributes: factory (None: None)
MODEL_METHODS = (parameter_node, bind,)


def build(model, nodes, built):
    """Parameter nodes read the families built before them (their bound elements)."""
    binds = model.binds
    if model.parameter_nodes:
        return [ParameterNodes(model.parameter_nodes, nodes, binds, list(built))]
    if binds:
        raise KeyError(f"bind: parameter node {binds[0].node} is not defined")
    return []


# ---------------------------------------------------------------------- samples
# small random models for the generated checks (tests/test_element_checks.py): each
# sample(model, rng) fills an empty Model and returns it

def parameter_sample(model, rng):
    """A beam3 with strain-gage and element parameter nodes bound to it (no rows: the FD
    check covers that they add none)."""
    m = beam3_sample(model, rng)
    m.parameter_node(1, "beam strain gage", y=0.01, z=0.02)
    m.parameter_node(2, "element")
    m.parameter_node(3, "value", 2.5)
    m.bind(1, "beam", 1, index=2)
    m.bind(2, "beam", 2, name="pI.kz")
    return m


SAMPLES = {"parameter node": [parameter_sample]}


class ParameterNodes(ElementFamily):
    name = "parameter node"
    output_file = "prm"

    def __init__(self, specs, nodes, binds=(), families=()):
        super().__init__(specs, nodes)
        labels = self.labels.tolist()
        if len(set(labels)) != len(labels):
            raise ValueError("parameter nodes: duplicate labels")
        for s in self.specs:
            if s.kind not in KINDS:
                raise ValueError(f"parameter node {s.label}: kind must be one of {KINDS}, not {s.kind!r}")
        self.value = np.array([s.value for s in self.specs], float)
        # per bound node: (family, instance, [(name, weight), ...]); value = Σ w · datum
        self.sources = {}
        pos = {l: i for i, l in enumerate(labels)}
        for b in binds:
            if b.node not in pos:
                raise KeyError(f"bind: parameter node {b.node} is not defined")
            i = pos[b.node]
            spec = self.specs[i]
            if spec.kind == "value":
                raise ValueError(f"bind: parameter node {b.node} holds a value; only 'element' and "
                                 "'beam strain gage' parameter nodes can be bound")
            if i in self.sources:
                raise ValueError(f"bind: parameter node {b.node} is already bound")
            fam, k = _find_element(families, b.element_type, b.element)
            self.sources[i] = (fam, k, _terms(fam, k, spec, b))
        for i, s in enumerate(self.specs):
            if s.kind != "value" and i not in self.sources:
                raise ValueError(f"parameter node {s.label}: never bound (add a 'bind' card)")
        # the terms grouped by (family, datum), so each datum is looked up once for all nodes:
        # term t adds weight[t] · datum group[t] of instance inst[t] to node node[t]
        groups, node, group, inst, weight = {}, [], [], [], []
        for i, (fam, k, terms) in self.sources.items():
            for name, w in terms:
                g = groups.setdefault((id(fam), name), (len(groups), fam, name))[0]
                node.append(i)
                group.append(g)
                inst.append(k)
                weight.append(w)
        self.data_groups = [(fam, name) for _, fam, name in sorted(groups.values(), key=lambda e: e[0])]
        order = np.argsort(group, kind="stable")            # group by group, in binding order
        self.term_node, self.term_group, self.term_inst = (np.array(a, np.int64)[order].reshape(-1)
                                                           for a in (node, group, inst))
        self.term_weight = np.array(weight, float)[order].reshape(-1)
        self.base = np.where([s.kind == "value" for s in self.specs], self.value, 0.0)

    def build_pattern(self):
        self.pattern = Pattern()
        return self.pattern

    def evaluate(self, ctx, res_views, jac_views):
        """A parameter node has no unknowns and writes no rows (an empty pattern): its value
        is copied in when read (`values`)."""

    def values(self, ctx):
        """Current value of every parameter node: the bound private data, looked up once per
        (family, datum) (Python: the families answer them), summed into the nodes by one
        compiled call (parameter_values)."""
        data = [np.asarray(privdata.private_data(fam, ctx, name), float).reshape(-1)
                for fam, name in self.data_groups]
        start = np.cumsum([0] + [len(d) for d in data])
        flat = np.concatenate(data) if data else np.zeros(0)
        out = np.empty(self.ne)
        parameter_values(self.base, flat, start, self.term_node, self.term_group, self.term_inst,
                         self.term_weight, out)
        return out

    def output_groups(self, ctx):
        """.prm rows: label, value."""
        out = np.array([s.output for s in self.specs], bool)
        return [(self.labels[out], self.values(ctx)[out, None])]


@kernel
def parameter_values(base, flat, start, node, group, inst, weight, out):
    """out = base (the `value` nodes' constants, 0 elsewhere) + Σ_t weight[t] · datum
    group[t] of instance inst[t] at node node[t]; the data of group g are flat[start[g]:]."""
    for i in range(len(base)):
        out[i] = base[i]
    for t in range(len(node)):
        out[node[t]] += weight[t] * flat[start[group[t]] + inst[t]]


def _find_element(families, kind, label):
    for fam in families:
        if privdata._element_kind(fam) == kind and label in fam.labels:
            if not privdata.has_private_data(fam):
                raise ValueError(f"bind: {fam.name} {label} has no private data in mbdae")
            return fam, int(np.flatnonzero(fam.labels == label)[0])
    raise KeyError(f"bind: {kind} {label} is not defined")


def _terms(fam, k, spec, b):
    """[(datum name, weight)] whose weighted sum is the bound node's value."""
    names = privdata.private_data_names(fam, k)
    what = f"bind: {fam.name} {b.element}"
    if spec.kind == "beam strain gage":
        if not fam.name.startswith("beam"):
            raise ValueError(f"{what}: a beam strain gage binds to a beam")
        if b.index is None or b.name is not None:
            raise ValueError(f"{what}: a beam strain gage needs the evaluation point index")
        if not 1 <= b.index <= fam.NP:
            raise ValueError(f"{what}: evaluation point {b.index} out of range 1..{fam.NP}")
        prefix = ("pI.", "pII.")[b.index - 1] if fam.NP == 2 else ""
        return [(prefix + "ex", 1.0), (prefix + "ky", spec.z), (prefix + "kz", -spec.y)]
    if b.name is not None:
        if b.name not in names:
            listed = ", ".join(f'"{n}"' for n in names) or "none"
            raise ValueError(f'{what}: no private datum "{b.name}" (it has: {listed})')
        return [(b.name, 1.0)]
    if not 1 <= b.index <= len(names):
        raise ValueError(f"{what}: private datum index {b.index} out of range 1..{len(names)}")
    return [(names[b.index - 1], 1.0)]
