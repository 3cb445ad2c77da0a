"""Constitutive laws of MBDyn decks (manual §2.10): the reader's ``Laws`` part, 1-D, 3-D
and 6-D laws as engine.core.constitutive laws."""
from __future__ import annotations

import numpy as np

from mbdae.engine.core import constitutive
from mbdae.engine.io.mbdyn.geometry import GLOBAL_SITE
from mbdae.engine.io.mbdyn.lexer import normalize, not_supported, shown

# MBDyn's law names: one mbdae does not read stops with "not supported yet", other words are
# syntax errors
KNOWN_LAWS = {normalize(k) for k in (
    "linear elastic generic axial torsion coupling", "cubic elastic generic", "inverse square elastic",
    "log elastic", "linear elastic bistop", "double linear elastic", "isotropic hardening elastic",
    "scalar function elastic", "scalar function elastic isotropic", "scalar function elastic orthotropic",
    "linear time variant viscoelastic generic", "linear viscoelastic generic axial torsion coupling",
    "cubic viscoelastic generic", "double linear viscoelastic", "turbulent viscoelastic",
    "linear viscoelastic bistop", "shock absorber", "symbolic elastic", "symbolic viscous",
    "symbolic viscoelastic", "ann elastic", "ann viscoelastic", "nlsf elastic", "nlsf viscous",
    "nlsf viscoelastic", "nlp elastic", "nlp viscous", "nlp viscoelastic", "array", "axial wrapper",
    "bistop", "drive caller wrapper", "invariant angular", "contact elastic")}


class Laws:
    """Reader part: ConstitutiveLaw<1D | 3D | 6D>, by value or `reference, <label>`."""

    def law_reference(self, args, dim):
        """`reference, label` to a `constitutive law:` of the given dimension (manual §2.10)."""
        lw = args.peek()
        label = args.label("a constitutive law label")
        entry = self.laws.get(label)
        if entry is None:
            raise lw.error(f"constitutive law {label} is not defined")
        if entry[0] != dim:
            raise lw.error(f"constitutive law {label} is {entry[0]}-D; a {dim}-D law is required")
        return entry[1]

    def unknown_law(self, name):
        if name.keyword in KNOWN_LAWS:
            return name.error(not_supported(f"{shown(name.text)} (constitutive law)"))
        return name.error(f"syntax error: unknown constitutive law '{name.text}'")

    def read_law(self, args, dim):
        """A constitutive law of dimension 1, 3 or 6 (input manual §2.10), as a constitutive.Law:
        `linear elastic [isotropic], k`, `linear elastic generic, K`, `linear viscous [isotropic |
        generic], C`, `linear viscoelastic [isotropic | generic], K, {C | proportional, r}`,
        `linear time variant viscoelastic generic, K, sK, {C | proportional, r}, {same | sC}`,
        `cubic elastic generic, k1, k2, k3` (1-D and 3-D, as MBDyn), `drive caller wrapper, w,
        <law>`, `reference, <label>`; then [, prestress, <Entity>] [, prestrain, <TplDriveCaller>].
        The scalars, matrices and vectors are those of the dimension (scalar, Mat3x3/Vec3,
        Mat6x6/Vec6)."""
        if args.is_keyword("reference"):
            return self.law_reference(args, dim)
        name = args.take("a constitutive law")
        if name.keyword == "drivecallerwrapper":
            w = self.read_drive(args)
            return constitutive.scaled(self.read_law(args, dim), w)
        law = self.read_law_by_name(args, name, dim)
        self.read_law_prestress(args, law, dim)
        return law

    def read_law_by_name(self, args, name, dim):
        """The law named by the word `name`, with its coefficients."""
        kw, cl = name.keyword, constitutive
        generic = kw.endswith("generic")
        if kw in ("linearelastic", "linearelasticisotropic", "linearelasticgeneric"):
            return cl.linear_elastic(dim, self.read_law_matrix(args, dim, generic, "the stiffness"))
        if kw in ("linearviscous", "linearviscousisotropic", "linearviscousgeneric"):
            return cl.linear_viscous(dim, self.read_law_matrix(args, dim, generic, "the viscosity"))
        if kw in ("linearviscoelastic", "linearviscoelasticisotropic", "linearviscoelasticgeneric"):
            K = self.read_law_matrix(args, dim, generic, "the stiffness")
            return cl.linear_viscoelastic(dim, K, self.read_viscosity(args, dim, generic, K))
        if kw == "lineartimevariantviscoelasticgeneric":
            K = self.read_law_matrix(args, dim, generic, "the stiffness")
            sK = self.read_drive(args)
            C = self.read_viscosity(args, dim, generic, K)
            sC = sK if args.is_keyword("same") else self.read_drive(args)
            return cl.linear_viscoelastic(dim, K, C, stiffness_scale=sK, viscosity_scale=sC)
        if kw == "cubicelasticgeneric" and dim in (1, 3):
            k1, k2, k3 = (self.read_entity(args, dim, what) for what in
                          ("the linear coefficient", "the quadratic coefficient", "the cubic coefficient"))
            return cl.cubic_elastic(dim, k1, k2, k3)
        raise self.unknown_law(name)

    def read_law_matrix(self, args, dim, generic, what):
        """(DerivativeOf)Entity: a scalar, or for generic laws a Mat3x3 or Mat6x6."""
        if not generic or dim == 1:
            return args.real(what)
        return self.read_mat3(args) if dim == 3 else self.read_mat6(args)

    def read_viscosity(self, args, dim, generic, K):
        """`C` or `proportional, r` (C = r K)."""
        if args.is_keyword("proportional"):
            return np.asarray(K, float) * args.real("the proportional factor")
        return self.read_law_matrix(args, dim, generic, "the viscosity")

    def read_law_prestress(self, args, law, dim):
        """`[, prestress, <Entity>] [, prestrain, <TplDriveCaller>]` after a law."""
        while args.peek_keyword() in ("prestress", "prestrain"):
            pw = args.peek()
            if args.is_keyword("prestress"):
                law.prestress = self.read_entity(args, dim, "the prestress") * np.ones(dim)
            else:
                args.is_keyword("prestrain")
                if not law.elastic:
                    raise pw.error("a viscous law has no prestrain")
                law.prestrain = self.read_tpl_entity(args, dim)

    def read_entity(self, args, dim, what):
        """An Entity of the law's dimension: a scalar, a Vec3 or a Vec6."""
        if dim == 1:
            return np.array([args.real(what)])
        return self.read_plain_vector(args, dim)

    def read_tpl_entity(self, args, dim):
        """TplDriveCaller<Entity> of the law's dimension, as a constitutive.TemplateDrive."""
        if dim == 1:
            return constitutive.TemplateDrive(1, [(np.ones(1), self.read_tpl_scalar(args))])
        if dim == 3:
            return constitutive.TemplateDrive.of(self.read_tpl_vec3(args, "rel direction", GLOBAL_SITE), 3)
        return self.read_tpl_vec6(args)
