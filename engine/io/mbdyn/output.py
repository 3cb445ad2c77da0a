"""MBDyn-compatible text output (.out, .mov, .jnt, .frc, .log), flushed as it goes so a
run that stops keeps everything up to its last converged step.  Rows: label right-aligned
in 8 characters, then numbers in C++ scientific notation with `precision` digits."""
import os
import numpy as np

from mbdae.engine.core import rotations as rot


def orientation_columns(R, description):
    """Columns 5- of a .mov row for orientation matrices R (n,3,3)."""
    d = description.lower()
    if d in ("euler123", "euler 123"):
        return np.degrees(rot.R_to_euler123(R))
    if d in ("euler313", "euler 313"):
        return np.degrees(rot.R_to_euler313(R))
    if d in ("euler321", "euler 321"):
        return np.degrees(rot.R_to_euler321(R))
    if d in ("orientation vector", "vector"):
        return rot.log_rotvec(R)
    if d in ("orientation matrix", "matrix"):
        return R.reshape(len(R), 9)
    raise ValueError(f"unknown orientation description '{description}'")


class TextOutput:
    def __init__(self, prefix, precision=6):
        self.prefix = prefix
        self.fmt = " %." + str(int(precision)) + "e"
        self.files = {}
        d = os.path.dirname(prefix)
        if d:
            os.makedirs(d, exist_ok=True)

    def file(self, ext):
        f = self.files.get(ext)
        if f is None:
            f = self.files[ext] = open(self.prefix + "." + ext, "w")
        return f

    def rows(self, ext, labels, values):
        """Write one row per label: label then the values (2-D array)."""
        if len(labels) == 0:
            return
        f = self.file(ext)
        values = np.asarray(values, float).reshape(len(labels), -1)
        fmt = "%8d" + self.fmt * values.shape[1] + "\n"
        f.writelines(fmt % ((int(l),) + tuple(v)) for l, v in zip(labels, values))

    def line(self, ext, text):
        self.file(ext).write(text + "\n")

    def flush(self):
        for f in self.files.values():
            f.flush()

    def close(self):
        for f in self.files.values():
            f.close()
        self.files = {}
