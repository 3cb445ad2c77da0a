"""Constitutive laws of MBDyn decks (manual §2.10): the reader's ``Laws`` part, 1-D, 3-D
and 6-D laws as engine.core.constitutive laws, and the laws of the solid elements (6-D and,
for the u/p-c elements, 7-D) as engine.core.solid_laws laws.  As in MBDyn (mbpar.cc), the
`constitutive law:` labels of each dimension are separate: label 1 may be both a 6-D and a
7-D law."""
from __future__ import annotations

import numpy as np

from mbdae.engine.core import constitutive, solid_laws
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
    "bistop", "drive caller wrapper", "invariant angular", "contact elastic", "mfront small strain",
    "mfront finite strain")}

# the laws of solid elements only (input manual §2.10.31-37), and their dimensions
SOLID_LAWS = {normalize(k): dims for k, dims in (
    ("hookean linear elastic isotropic", (6, 7)), ("hookean linear viscoelastic isotropic", (6,)),
    ("neo hookean elastic", (6,)), ("neo hookean viscoelastic", (6,)), ("mooney rivlin elastic", (6, 7)),
    ("bilinear isotropic hardening", (6, 7)), ("linear viscoelastic maxwell 1", (6,)),
    ("linear viscoelastic maxwell n", (6,)))}
UPC_LAW_NAMES = "hookean linear elastic isotropic, mooney rivlin elastic, bilinear isotropic hardening"
MAXWELL_LAWS = (normalize("linear viscoelastic maxwell 1"), normalize("linear viscoelastic maxwell n"))
# the names read_law_by_name reads (6-D solid laws through solid_view, never 7-D)
NON_SOLID_NAMES = {normalize(k) for k in (
    "linear elastic", "linear elastic isotropic", "linear elastic generic", "linear viscous",
    "linear viscous isotropic", "linear viscous generic", "linear viscoelastic", "linear viscoelastic isotropic",
    "linear viscoelastic generic", "linear time variant viscoelastic generic", "cubic elastic generic")}


class Laws:
    """Reader part: ConstitutiveLaw<1D | 3D | 6D | 7D>, by value or `reference, <label>`."""

    def law_reference(self, args, dim):
        """`reference, label` to a `constitutive law:` of the given dimension (manual §2.10);
        the law itself (a constitutive.Law, or a solid_laws.SolidLaw)."""
        lw = args.peek()
        label = args.label("a constitutive law label")
        law = self.laws.get((dim, label))
        if law is None:
            others = sorted(d for d, lab in self.laws if lab == label)
            if others:
                listed = ", ".join(f"{d}-D" for d in others)
                raise lw.error(f"constitutive law {label} is not defined as a {dim}-D law (it is {listed})")
            raise lw.error(f"constitutive law {label} is not defined")
        return law

    def unknown_law(self, name):
        if name.keyword in KNOWN_LAWS:
            return name.error(not_supported(f"{shown(name.text)} (constitutive law)"))
        return name.error(f"syntax error: unknown constitutive law '{name.text}'")

    def read_law(self, args, dim):
        """A constitutive law of dimension 1, 3, 6 or 7 (input manual §2.10), as MBDyn's
        GetConstLaw<dim>D: `reference, <label>` gives the law of that label as it is; the
        solid-element laws (6-D, and every 7-D law) are read by read_solid_law as a
        solid_laws.SolidLaw; the others as a constitutive.Law: `linear elastic [isotropic], k`,
        `linear elastic generic, K`, `linear viscous [isotropic | generic], C`, `linear
        viscoelastic [isotropic | generic], K, {C | proportional, r}`, `linear time variant
        viscoelastic generic, K, sK, {C | proportional, r}, {same | sC}`, `cubic elastic generic,
        k1, k2, k3` (1-D and 3-D, as MBDyn), `drive caller wrapper, w, <law>`; then [, prestress,
        <Entity>] [, prestrain, <TplDriveCaller>].  The scalars, matrices and vectors are those
        of the dimension (scalar, Mat3x3/Vec3, Mat6x6/Vec6).  The element decides whether a law
        suits it (a solid law in a beam does not)."""
        if args.is_keyword("reference"):
            return self.law_reference(args, dim)
        name = args.peek()
        if dim == 7 or (dim == 6 and name is not None and name.keyword in SOLID_LAWS):
            return self.read_solid_law(args, dim)
        name = args.take("a constitutive law")
        if name.keyword is None:
            raise name.error("syntax error: the name of a constitutive law expected "
                             "(e.g. linear elastic, or reference, <label>)")
        if name.keyword in SOLID_LAWS:
            if name.keyword in MAXWELL_LAWS and dim == 3:
                raise name.error(not_supported(f"{shown(name.text)} (constitutive law) outside solid elements"))
            raise name.error(f"'{name.text}' is not a {dim}-D constitutive law (a law of solid elements)")
        if name.keyword == "drivecallerwrapper":
            w = self.read_drive(args)
            return constitutive.scaled(self.read_law(args, dim), w)
        law = self.read_law_by_name(args, name, dim)
        self.read_law_prestress(args, law, dim)
        return law

    # ------------------------------------------------------------------ solid elements

    def read_solid_law(self, args, dim):
        """A law of the solid elements (input manual "Solid elements", §2.10.31-37): dimension 6
        (displacement-based elements) or 7 (u/p-c elements), as a solid_laws.SolidLaw:
        `reference, <label>`, the solid laws (read_solid_law_by_name) or, 6-D only, a linear
        law of read_law (`linear elastic [generic | isotropic]`, `linear viscous ...`,
        `linear viscoelastic [generic | isotropic], K, {C | proportional, r}`) without
        prestress, prestrain or drives.  A label names the same SolidLaw object every time."""
        if args.is_keyword("reference"):
            lw = args.peek()
            return self.solid_view(self.law_reference(args, dim), lw)
        name = args.peek()
        if name is not None and name.keyword in SOLID_LAWS:
            args.take("a constitutive law")
            law = self.read_solid_law_by_name(args, name, dim)
            if args.peek_keyword() in ("prestress", "prestrain"):
                raise args.peek().error(not_supported("prestress and prestrain of solid constitutive laws"))
            return law
        if dim == 7:
            name = args.take("a constitutive law")
            if name.keyword in KNOWN_LAWS or name.keyword in NON_SOLID_NAMES:
                raise name.error(f"'{name.text}' is not a 7-D constitutive law (the u/p-c laws are "
                                 f"{UPC_LAW_NAMES})")
            raise self.unknown_law(name)
        return self.solid_view(self.read_law(args, 6), name)

    def read_solid_laws(self, args, dim, count):
        """The `count` laws of a solid element, one per integration point: a law, then a law or
        `same` (the previous one) for each further point (input manual "Solid elements");
        as MBDyn, they must all be elastic or all viscoelastic."""
        laws = []
        for i in range(count):
            w = args.peek()
            if i > 0 and args.is_keyword("same"):
                laws.append(laws[-1])
                continue
            if w is None:
                args.take(f"the constitutive law of integration point {i + 1}")
            law = self.read_solid_law(args, dim)
            if laws and law.viscous != laws[0].viscous:
                raise w.error("all constitutive laws of a solid element must have the same type "
                              "(elastic or viscoelastic)")
            laws.append(law)
        return laws

    def solid_view(self, law, word):
        """The SolidLaw of a law: itself, or for a linear 6-D constitutive.Law (K, C; no
        prestress, prestrain, drive or cubic term) the generic S = K ε + C ε̇*, made once per law."""
        if isinstance(law, solid_laws.SolidLaw):
            return law
        known = self.solid_views.get(id(law))
        if known is not None:
            return known[1]
        if (law.dim != 6 or law.nonlinear or law.prestrain.terms or np.any(law.prestress) or law.scale is not None
                or law.stiffness_scale is not None or law.viscosity_scale is not None):
            raise word.error(not_supported(f"{law.name} law with prestress, prestrain, drives or cubic terms "
                                           f"in solid elements"))
        if law.viscous:
            view = solid_laws.linear_viscoelastic_generic(law.K, law.C)
        else:
            view = solid_laws.linear_elastic_generic(law.K)
        self.solid_views[id(law)] = (law, view)
        return view

    def read_solid_law_by_name(self, args, name, dim):
        """`hookean linear elastic isotropic, E, e, nu, ν` (6-D, 7-D), `hookean linear
        viscoelastic isotropic, E, e, nu, ν, beta, β`, `neo hookean elastic, E, e, nu, ν`,
        `neo hookean viscoelastic, E, e, nu, ν, beta, β`, `mooney rivlin elastic, {C1, c1, C2,
        c2, kappa, κ | E, e, nu, ν [, delta, δ]}` (6-D, 7-D), `bilinear isotropic hardening, E,
        e, nu, ν, ET, E_T, sigmayv, σ_y` (6-D, 7-D), `linear viscoelastic maxwell 1, E0, e0,
        E1, e1, eta1, η, C, <Mat6x6>`, `linear viscoelastic maxwell n, E0, e0, n, {E1, e1, eta1,
        η} × n, C, <Mat6x6>` (input manual §2.10.31-37; keywords as solidcsl.cc)."""
        kw, sl = name.keyword, solid_laws
        if dim not in SOLID_LAWS[kw]:
            raise name.error(f"'{name.text}' is not a {dim}-D constitutive law" +
                             (f" (the u/p-c laws are {UPC_LAW_NAMES})" if dim == 7 else ""))
        upc = dim == 7
        try:
            if kw == "hookeanlinearelasticisotropic":
                E, nu = self.law_keyword(args, "E"), self.law_keyword(args, "nu")
                return sl.hookean_linear_elastic_isotropic(E, nu, upc)
            if kw == "hookeanlinearviscoelasticisotropic":
                E, nu, beta = (self.law_keyword(args, k) for k in ("E", "nu", "beta"))
                return sl.hookean_linear_viscoelastic_isotropic(E, nu, beta)
            if kw == "neohookeanelastic":
                E, nu = self.law_keyword(args, "E"), self.law_keyword(args, "nu")
                return sl.neo_hookean_elastic(E, nu)
            if kw == "neohookeanviscoelastic":
                E, nu, beta = (self.law_keyword(args, k) for k in ("E", "nu", "beta"))
                return sl.neo_hookean_viscoelastic(E, nu, beta)
            if kw == "mooneyrivlinelastic":
                if args.is_keyword("E"):
                    E = args.real("E")
                    nu = self.law_keyword(args, "nu")
                    delta = args.real("delta") if args.is_keyword("delta") else 0.0
                    return sl.mooney_rivlin_elastic(*sl.mooney_rivlin_constants(E, nu, delta), upc)
                C1, C2, kappa = (self.law_keyword(args, k, "'E' or 'C1'" if k == "C1" else None)
                                 for k in ("C1", "C2", "kappa"))
                return sl.mooney_rivlin_elastic(C1, C2, kappa, upc)
            if kw == "bilinearisotropichardening":
                E, nu, ET, sy = (self.law_keyword(args, k) for k in ("E", "nu", "ET", "sigmayv"))
                return sl.bilinear_isotropic_hardening(E, nu, ET, sy, upc)
            E0 = self.law_keyword(args, "E0")
            one = kw == normalize("linear viscoelastic maxwell 1")
            if one:
                branches = [(self.law_keyword(args, "E1"), self.law_keyword(args, "eta1"))]
            else:
                nw = args.peek()
                n = args.integer("the number of Maxwell elements")
                if not 1 <= n <= sl.MAXWELL_MAX_BRANCHES:
                    raise nw.error(f"the number of Maxwell elements must be between 1 and "
                                   f"{sl.MAXWELL_MAX_BRANCHES} (mbdae's limit)")
                branches = [(self.law_keyword(args, "E1"), self.law_keyword(args, "eta1")) for _ in range(n)]
            args.expect_keyword("C")
            C = self.read_mat6(args)
            name_text = "linear viscoelastic maxwell " + ("1" if one else "n")
            return sl.linear_viscoelastic_maxwell(E0, branches, C, name=name_text)
        except ValueError as e:
            raise name.error(str(e)) from None

    @staticmethod
    def law_keyword(args, keyword, what=None):
        """`<keyword>, <real>` of a solid law (the keywords are required, as in MBDyn)."""
        args.expect_keyword(keyword, what=what)
        return args.real(keyword)

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
