"""MBDyn's `aircraft instruments` element (input manual, "Aircraft Instruments"): the flight
instruments of an aircraft whose body axes are a structural node's frame R = R_node·R_h, read
as private data (by `element` drives, e.g. a stability-augmentation couple) and written to
the .aer file.  It has no equations.

Conventions (MBDyn's): the world is flat with z up; body x forward, y right, z down
(`orientation, flight mechanics`: R_h = I; `aeroelasticity`: R_h = diag(−1, 1, −1); or any
orientation relative to the node).  With the node's position X, velocity V, angular velocity
Ω, the body axes e1, e2, e3 (columns of R) and the air velocity V∞ at the node (the air
properties' free stream), VV = V − V∞:

    airspeed |VV|;  ground speed |(V1, V2)|;  altitude X3;  attitude asin(e1·z);
    bank asin(−e2·z);  turn Ω3·60 (rad/min);  slip atan2(VV2, VV1) (0 when both vanish);
    vertical speed VV3;  angle of attack −atan2((RᵀVV)3, (RᵀVV)1);
    heading −atan2(e1·y, e1·x) in [0, 2π) (0 with the nose vertical);
    longitude λ0 + (X2,0 − X2)/r_E,  latitude φ0 + (X1 − X1,0)/r_E (normalized to ±π, ±π/2);
    roll, pitch, yaw rate RᵀΩ.

MBDyn continues attitude and bank past ±π/2 from their value at the previous evaluation;
mbdae reports the principal asin values (equal away from a vertical nose or wing)."""
from dataclasses import dataclass
import math

import numpy as np

from mbdae.elements.base import ElementFamily, mat
from mbdae.engine.core.assembly import Pattern
from mbdae.engine.core import air as airmod
from mbdae.engine.core import rotations as rot

EARTH_RADIUS = 6371005.0         # m, MBDyn's default
MEASURES = ("airspeed", "groundspeed", "altitude", "attitude", "bank", "turn", "slip", "verticalspeed",
            "angleofattack", "heading", "init_x1", "init_x2", "init_longitude", "longitude",
            "init_latitude", "latitude", "rollrate", "pitchrate", "yawrate")
"""The .aer columns after the label, in MBDyn 1.7.3's order (its Measure enum); "aoa" is a
second name of "angleofattack"."""
ALIASES = {"aoa": "angleofattack"}
TOL = 1e-6                       # MBDyn's threshold for the degenerate slip and heading


@dataclass
class InstrumentsSpec:
    label: int
    node: int
    orientation: np.ndarray
    initial_latitude: float = 0.0
    initial_longitude: float = 0.0
    earth_radius: float = EARTH_RADIUS
    output: bool = True


def aircraft_instruments(model, label, node, orientation=None, initial_latitude=0.0, initial_longitude=0.0,
                         earth_radius=EARTH_RADIUS, output=True):
    """Aircraft instruments on structural node `node`; `orientation`: the body axes relative
    to the node (None: the node's own axes, MBDyn's `flight mechanics`)."""
    if not earth_radius > 0:
        raise ValueError(f"aircraft instruments {label}: the earth radius must be positive")
    model.aircraft_instruments_specs.append(InstrumentsSpec(int(label), node, mat(orientation),
                                                            float(initial_latitude), float(initial_longitude),
                                                            float(earth_radius), bool(output)))


MODEL_FIELDS = {"aircraft_instruments_specs": list}
MODEL_METHODS = (aircraft_instruments,)


def build(model, nodes, built):
    specs = model.aircraft_instruments_specs
    return [AircraftInstruments(specs, nodes, getattr(model, "air", None))] if specs else []


def normalize_longitude(lon):
    """MBDyn's wrap of a longitude beyond ±π (the integer part of lon/π, as its C cast)."""
    if -math.pi <= lon <= math.pi:
        return lon
    n = int(lon / math.pi)
    return lon - (n + (1 if n > 0 else -1)) * math.pi if n % 2 else lon - n * math.pi


def normalize_latitude(lat):
    """MBDyn's fold of a latitude beyond ±π/2."""
    if -math.pi / 2 <= lat <= math.pi / 2:
        return lat
    n = int(lat / math.pi)
    s = 1.0 if n > 0 else -1.0
    if n % 2:
        lat = -lat + n * math.pi
        return -lat - s * math.pi if abs(lat) > math.pi / 2 else lat
    lat = lat - n * math.pi
    return -lat + s * math.pi if abs(lat) > math.pi / 2 else lat


class AircraftInstruments(ElementFamily):
    """Every `aircraft instruments` element: measures from the node kinematics (module
    docstring); no unknowns, no equations."""
    name = "aircraft instruments"
    output_file = "aer"

    def __init__(self, specs, nodes, air):
        super().__init__(specs, nodes)
        self.air_spec = air
        self.node = self.node_index([s.node for s in self.specs])
        self.Rh = np.array([s.orientation for s in self.specs])
        self.radius = np.array([s.earth_radius for s in self.specs])
        self.x0 = nodes.x0[self.node]       # MBDyn reads the node's X when the element is built
        self.lat0 = np.array([normalize_latitude(s.initial_latitude) for s in self.specs])
        self.lon0 = np.array([normalize_longitude(s.initial_longitude) for s in self.specs])

    def build_pattern(self):
        self.pattern = Pattern()
        return self.pattern

    def evaluate(self, ctx, res_views, jac_views):
        return None

    def measures(self, ctx):
        """(ne, 19) measures in MEASURES order at ctx."""
        kin = ctx.kin
        X, V, W = kin.x[self.node], kin.v[self.node], kin.w[self.node]
        R = kin.R[self.node] @ self.Rh
        vinf = airmod.air_arrays(self.air_spec, ctx.t)[11:14] if self.air_spec is not None else np.zeros(3)
        VV = V - vinf
        e1, e2 = R[:, :, 0], R[:, :, 1]
        out = np.zeros((self.ne, len(MEASURES)))
        out[:, 0] = np.linalg.norm(VV, axis=1)
        out[:, 1] = np.hypot(V[:, 0], V[:, 1])
        out[:, 2] = X[:, 2]
        out[:, 3] = np.arcsin(np.clip(e1[:, 2], -1.0, 1.0))
        out[:, 4] = np.arcsin(np.clip(-e2[:, 2], -1.0, 1.0))
        out[:, 5] = W[:, 2] * 60.0
        level = (np.abs(VV[:, 1]) <= TOL) & (np.abs(VV[:, 0]) <= TOL)
        out[:, 6] = np.where(level, 0.0, np.arctan2(VV[:, 1], VV[:, 0]))
        out[:, 7] = VV[:, 2]
        vb = rot.mattvec(R, VV)
        out[:, 8] = -np.arctan2(vb[:, 2], vb[:, 0])
        vertical = (np.abs(e1[:, 1]) <= TOL) & (np.abs(e1[:, 0]) <= TOL)
        heading = np.where(vertical, 0.0, -np.arctan2(e1[:, 1], e1[:, 0]))
        out[:, 9] = np.where(heading < 0, heading + 2 * np.pi, heading)
        x0 = self.x0
        out[:, 10] = x0[:, 0]
        out[:, 11] = x0[:, 1]
        out[:, 12] = self.lon0
        out[:, 13] = [normalize_longitude(v) for v in self.lon0 + (x0[:, 1] - X[:, 1]) / self.radius]
        out[:, 14] = self.lat0
        out[:, 15] = [normalize_latitude(v) for v in self.lat0 + (X[:, 0] - x0[:, 0]) / self.radius]
        out[:, 16:19] = rot.mattvec(R, W)
        return out

    def private_data_names(self, i):
        return MEASURES + tuple(ALIASES)

    def private_data(self, ctx, name):
        key = ALIASES.get(name.lower(), name.lower())
        if key not in MEASURES:
            raise ValueError(f'aircraft instruments private datum "{name}" does not exist')
        return self.measures(ctx)[:, MEASURES.index(key)]

    def output_groups(self, ctx):
        sel = np.array([s.output for s in self.specs], bool)
        return [(self.labels[sel], self.measures(ctx)[sel])] if sel.any() else []


SAMPLES = {"aircraft instruments": []}      # no equations: nothing for the generated checks


# ---------------------------------------------------------------- MBDyn deck cards
def read_aircraft_instruments(reader, model, args, label, word):
    """`aircraft instruments: <label>, <node> [, orientation, {flight mechanics |
    aeroelasticity | <orientation relative to the node>}] [, initial latitude, <rad>]
    [, initial longitude, <rad>] [, earth radius, <m>] [, output, ...]`."""
    n, site = reader.node_site(args)
    Rh = np.eye(3)
    if args.is_keyword("orientation"):
        if args.is_keyword("flight mechanics"):
            Rh = np.eye(3)
        elif args.is_keyword("aeroelasticity"):
            Rh = np.diag([-1.0, 1.0, -1.0])
        else:
            Rh = reader.read_orientation(args, "rel", site)
    lat = args.real("the initial latitude") if args.is_keyword("initial latitude") else 0.0
    lon = args.real("the initial longitude") if args.is_keyword("initial longitude") else 0.0
    radius = EARTH_RADIUS
    if args.is_keyword("earth radius"):
        rw = args.peek()
        radius = args.real("the earth radius")
        if not radius > 0:
            raise rw.error("aircraft instruments: the earth radius must be positive")
    output = "aerodynamic elements" in reader.default_output
    if args.is_keyword("output"):
        output = reader.read_output_flag(args, "aerodynamic elements")
    model.aircraft_instruments(label, n.label, Rh, lat, lon, radius, output)


CARDS = {"aircraft instruments": read_aircraft_instruments}
