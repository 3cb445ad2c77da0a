"""The element registry: the one ordered table of element families.

Each entry names a family module; the module owns
- its spec (what the Model stores: `MODEL_FIELDS`, the Model attributes holding its specs)
  and its Model builder methods (`MODEL_METHODS`, functions whose first argument is the
  model, attached to engine.model.Model);
- `build(model, nodes, built) -> [families]`: its families for a model (`built`: the
  families of the entries before it, for families that act on others);
- its family classes (evaluation, ElementFamily protocol; outputs: `output_groups(ctx)`
  and `output_file`);
- its MBDyn deck card readers (`CARDS`: card name -> reader);
- its generated-check samples (`SAMPLES`: {family name: [sample(model, rng)]}).
Adding a family is a new module and one line here.  The order of the table is the order
of assembly and of output."""
from dataclasses import dataclass
from types import ModuleType

from mbdae.elements.base import ElementFamily
from mbdae.elements import (body, forces, hull_buoyancy, userforce, rod, deformable, viscous_body, beam, hbeam,
                            joints, angular_velocity, regularization, abstract_nodes, genel, parameters,
                            driven, solid, surface_load, rigid_body_displacement, inertia,
                            membrane, shell, shell_mass, modal, mooring, hydro_body, power_take_off,
                            rotor, aerodynamic, instruments, genfm)


@dataclass(frozen=True)
class Entry:
    name: str
    module: ModuleType

    @property
    def cards(self):
        """MBDyn element cards this family reads ({} when it has none)."""
        return getattr(self.module, "CARDS", {})

    @property
    def model_fields(self):
        """{Model attribute: factory of its initial value (None: the value None)}: the lists
        of this family's specs (and its other model data)."""
        return getattr(self.module, "MODEL_FIELDS", {})

    @property
    def model_methods(self):
        """The Model builder methods of this family (functions whose first argument is the model)."""
        return getattr(self.module, "MODEL_METHODS", ())

    @property
    def samples(self):
        """{family name: [sample(model, rng) that fills an empty Model]} for the generated checks."""
        return getattr(self.module, "SAMPLES", {})

    def build(self, model, nodes, built):
        """The families of this entry for `model` (a list, empty when the model has none);
        `built`: the families of the entries before it."""
        return self.module.build(model, nodes, built)


ENTRIES = (
    Entry("body", body),
    Entry("forces", forces),
    Entry("hull_buoyancy", hull_buoyancy),
    Entry("userforce", userforce),
    Entry("rod", rod),
    Entry("deformable", deformable),
    Entry("viscous_body", viscous_body),
    Entry("mooring", mooring),
    Entry("beam", beam),
    Entry("hbeam", hbeam),
    Entry("solid", solid),
    Entry("shell", shell),
    Entry("shell_mass", shell_mass),
    Entry("surface_load", surface_load),
    Entry("membrane", membrane),
    Entry("joints", joints),
    Entry("modal", modal),
    Entry("hydro_body", hydro_body),
    Entry("rotor", rotor),                      # induced velocity: before the aerodynamic elements
    Entry("angular_velocity", angular_velocity),
    Entry("rigid_body_displacement", rigid_body_displacement),
    Entry("regularization", regularization),
    Entry("abstract_nodes", abstract_nodes),
    Entry("genel", genel),
    Entry("parameters", parameters),
    Entry("inertia", inertia),
    Entry("genfm", genfm),                       # before driven: a generic aerodynamic force may be driven
    Entry("driven", driven),
    Entry("power_take_off", power_take_off),     # reads the rods, deformable joints and driven ones
    Entry("aerodynamic", aerodynamic),
    Entry("instruments", instruments),
)


def family_classes():
    """Every element family class the registry's modules define, in registry order."""
    classes = []
    for entry in ENTRIES:
        for value in vars(entry.module).values():
            if (isinstance(value, type) and issubclass(value, ElementFamily) and value is not ElementFamily
                    and value.__module__ == entry.module.__name__ and "name" in vars(value)):
                classes.append(value)
    return classes


def build_families(model, nodes):
    """The model's element families, in registry order."""
    families = []
    for entry in ENTRIES:
        families += entry.build(model, nodes, families)
    return families


def element_cards():
    """{card name: reader} over every family, in registry order."""
    cards = {}
    for entry in ENTRIES:
        for name, reader in entry.cards.items():
            if name in cards:
                raise ValueError(f"element card '{name}' is read by two families")
            cards[name] = reader
    return cards
