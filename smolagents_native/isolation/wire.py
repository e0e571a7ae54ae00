"""The extension types of the process-boundary codec (`_core.wire_dumps` / `wire_loads`).

The C codec (csrc/module/wire.c) encodes the builtin data types itself. Every other value goes
through the two hooks here, which describe it as plain data and rebuild it from that data:

- `describe(obj)`, the `ext` hook of the worker side: `(name, payload)` for a value of one of
  the types below, whose type is EXACTLY the listed one (a subclass defined by untrusted code
  does not cross: it could carry any behaviour), else None (the value cannot cross).
- `build(name, payload)`, the `build` hook of the host side: the payload comes from an
  untrusted worker, so its shape and types are checked strictly before anything is made;
  sizes are checked before anything is allocated; nothing is looked up by a name from the
  payload (a fixed table maps the extension name to its builder); no eval, no pickle. An
  unknown name or a refused payload is a ValueError "malformed value: ...".
- `dumps(obj)` / `loads(data, deadline=None)`: the codec with these hooks. `loads` also bounds
  what the builders may make in all (`Builder`): a payload can be shared (a memo reference)
  by many extension records, and each builder copies its payload (a deque, an OrderedDict,
  a DataFrame's columns...), so an input of n bytes could otherwise ask for n copies of an
  n-byte list.

Types: datetime.date / datetime / time / timedelta / timezone, zoneinfo.ZoneInfo (by key), a
pytz zone (by name, when pytz is imported; not a localized pytz tzinfo),
decimal.Decimal, fractions.Fraction, collections.OrderedDict / deque / Counter / defaultdict
(default_factory None or one of list, dict, set, int, str, float), uuid.UUID,
pathlib.PurePosixPath / PosixPath, range, slice; with numpy (when the worker has imported it):
ndarray (raw bytes of simple dtypes; object arrays element by element), numpy scalars,
dtype; with pandas (when imported): Series, DataFrame, Index, RangeIndex, MultiIndex,
DatetimeIndex, Categorical, Timestamp, Timedelta, NaT and NA. A pandas column or index is
described by its values: a numpy array, a datetime64 array of UTC instants and a time zone,
a categorical's codes and categories, or the elements (as objects) and dtype name of a
nullable extension dtype (Int64, boolean, string, ...).

The host imports numpy or pandas only when a value needs them (`loads` of a frame without
them never does), and raises ValueError when they are not installed.

Known limits. A cycle through a tuple, set, frozenset or extension value (an OrderedDict that
contains itself) cannot cross: the encoder refuses it. A decoded value keeps the sharing of
the worker's, so it can be a graph whose expansion as a tree is exponential in its size
(t = [u, u], u = [v, v], ...): host code that walks it as a tree (repr, json, ==) must bound
its own work, as with any unpickled value. The pandas builders hand validated arrays to
pandas, whose own hash tables (unique categories, MultiIndex levels) are filled in C outside
the deadline's reach: int64 values crafted to collide there cost quadratic time.
"""

from __future__ import annotations

import collections
import datetime
import decimal
import fractions
import math
import pathlib
import re
import sys
import uuid
import zoneinfo  # imported now, never at a worker's request (a value naming a zone)
from typing import Any

from .. import _core

__all__ = ["describe", "build", "Builder", "dumps", "loads"]

# ----------------------------------------------------------------------------- names

N_DATE = "datetime.date"
N_DATETIME = "datetime.datetime"
N_TIME = "datetime.time"
N_TIMEDELTA = "datetime.timedelta"
N_TIMEZONE = "datetime.timezone"
N_ZONEINFO = "zoneinfo.ZoneInfo"
N_PYTZ = "pytz.timezone"
N_DECIMAL = "decimal.Decimal"
N_FRACTION = "fractions.Fraction"
N_ORDEREDDICT = "collections.OrderedDict"
N_DEQUE = "collections.deque"
N_COUNTER = "collections.Counter"
N_DEFAULTDICT = "collections.defaultdict"
N_UUID = "uuid.UUID"
N_PUREPOSIXPATH = "pathlib.PurePosixPath"
N_POSIXPATH = "pathlib.PosixPath"
N_RANGE = "range"
N_SLICE = "slice"
N_NDARRAY = "numpy.ndarray"
N_NDARRAY_OBJECT = "numpy.ndarray[object]"
N_NPSCALAR = "numpy.generic"
N_NPDTYPE = "numpy.dtype"
N_SERIES = "pandas.Series"
N_DATAFRAME = "pandas.DataFrame"
N_INDEX = "pandas.Index"
N_RANGEINDEX = "pandas.RangeIndex"
N_MULTIINDEX = "pandas.MultiIndex"
N_DATETIMEINDEX = "pandas.DatetimeIndex"
N_CATEGORICAL = "pandas.Categorical"
N_TIMESTAMP = "pandas.Timestamp"
N_PDTIMEDELTA = "pandas.Timedelta"
N_NAT = "pandas.NaT"
N_NA = "pandas.NA"

# defaultdict factories that may cross, both ways by identity
_FACTORY_NAMES = {list: "list", dict: "dict", set: "set", int: "int", str: "str", float: "float"}
_FACTORIES = {name: f for f, name in _FACTORY_NAMES.items()}

# Simple numpy dtypes: byte order, kind, size, and a datetime unit for m / M. No object,
# structured, void or sub-array dtypes (np.dtype() of such a string cannot make one either;
# _np_dtype checks the result too).
_DTYPE_RE = re.compile(r"[<>|=]?[biufcmMSU][0-9]{1,9}(\[[0-9]{0,6}[a-zA-Z]{1,7}\])?")
# pandas extension dtypes whose arrays cross as their elements (objects) and dtype name
_EXT_DTYPES = frozenset(
    ["Int8", "Int16", "Int32", "Int64", "UInt8", "UInt16", "UInt32", "UInt64",
     "Float32", "Float64", "boolean", "string", "str"]
)
_ZONE_KEY_RE = re.compile(r"[A-Za-z0-9_+\-]{1,40}(/[A-Za-z0-9_+\-]{1,40}){0,3}")
_FREQ_RE = re.compile(r"[A-Za-z0-9\-]{1,24}")

_MAX_NDIM = 32
_MAX_DIM = 1 << 48
_MAX_FRACTION_BITS = 1 << 16  # Fraction() reduces by gcd: quadratic in the size


# ----------------------------------------------------------------------------- describe


def _d_date(v):
    return N_DATE, (v.year, v.month, v.day)


def _d_datetime(v):
    return N_DATETIME, (
        v.year, v.month, v.day, v.hour, v.minute, v.second, v.microsecond, v.tzinfo, v.fold,
    )


def _d_time(v):
    return N_TIME, (v.hour, v.minute, v.second, v.microsecond, v.tzinfo, v.fold)


def _d_timedelta(v):
    return N_TIMEDELTA, (v.days, v.seconds, v.microseconds)


def _d_timezone(v):
    args = v.__getinitargs__()  # (offset,) or (offset, name)
    return N_TIMEZONE, (args[0], args[1] if len(args) > 1 else None)


def _d_zoneinfo(v):
    key = v.key
    return None if key is None else (N_ZONEINFO, key)


def _pytz_base(pytz, v):
    """The zone object pytz.timezone() gives for the zone of `v` (a pytz tzinfo), or None when
    `v` is not a genuine pytz tzinfo: a localized instance (a pytz datetime's tzinfo: an
    offset in force, not a zone) has the base zone's class."""
    zone = getattr(v, "zone", None)
    if type(zone) is not str:
        return None
    try:
        base = pytz.timezone(zone)
    except (KeyError, ValueError):
        return None
    return base if type(base) is type(v) else None


def _d_pytz(pytz, v):
    """A pytz zone by name, only the zone itself (what pytz.timezone(name) returns, as pandas
    keeps it in a dtype). A localized instance cannot cross: the host would attach the
    zone's first offset (LMT) to a datetime, not the offset the worker's had."""
    base = _pytz_base(pytz, v)
    return (N_PYTZ, v.zone) if base is v else None


def _d_decimal(v):
    return N_DECIMAL, str(v)


def _d_fraction(v):
    return N_FRACTION, (v.numerator, v.denominator)


def _d_ordereddict(v):
    return N_ORDEREDDICT, dict(v.items())


def _d_deque(v):
    return N_DEQUE, (list(v), v.maxlen)


def _d_counter(v):
    return N_COUNTER, dict(v)


def _d_defaultdict(v):
    f = v.default_factory
    if f is None:
        return N_DEFAULTDICT, (None, dict(v))
    name = _FACTORY_NAMES.get(f) if type(f) is type else None
    if name is None or _FACTORIES[name] is not f:
        return None
    return N_DEFAULTDICT, (name, dict(v))


def _d_uuid(v):
    return N_UUID, v.int


def _d_purepath(v):
    return N_PUREPOSIXPATH, str(v)


def _d_path(v):
    return N_POSIXPATH, str(v)


def _d_range(v):
    return N_RANGE, (v.start, v.stop, v.step)


def _d_slice(v):
    return N_SLICE, (v.start, v.stop, v.step)


# exact type -> describer, for the types of always-present modules
_DESCRIBERS: dict[type, Any] = {
    datetime.date: _d_date,
    datetime.datetime: _d_datetime,
    datetime.time: _d_time,
    datetime.timedelta: _d_timedelta,
    datetime.timezone: _d_timezone,
    decimal.Decimal: _d_decimal,
    fractions.Fraction: _d_fraction,
    collections.OrderedDict: _d_ordereddict,
    collections.deque: _d_deque,
    collections.Counter: _d_counter,
    collections.defaultdict: _d_defaultdict,
    uuid.UUID: _d_uuid,
    pathlib.PurePosixPath: _d_purepath,
    pathlib.PosixPath: _d_path,
    range: _d_range,
    slice: _d_slice,
}


def _np_bytes(a):
    """The raw bytes of ndarray `a` in C order, as a bytearray (one copy when contiguous)."""
    np = sys.modules["numpy"]
    c = np.ascontiguousarray(a)
    return bytearray(c.reshape(-1).view(np.uint8))


def _describe_numpy(np, v):
    t = type(v)
    if t is np.ndarray:
        dt = v.dtype
        if dt.hasobject:
            if dt != np.dtype(object):
                return None  # structured with objects
            return N_NDARRAY_OBJECT, (tuple(v.shape), v.ravel().tolist())
        if not _DTYPE_RE.fullmatch(dt.str) or dt.fields is not None or dt.subdtype is not None:
            return None
        return N_NDARRAY, (dt.str, tuple(v.shape), _np_bytes(v))
    if isinstance(v, np.generic):
        dt = v.dtype
        if t is not dt.type or not _DTYPE_RE.fullmatch(dt.str) or dt.fields is not None:
            return None
        return N_NPSCALAR, (dt.str, v.tobytes())
    if isinstance(v, np.dtype):
        s = v.str
        if s == "|O":
            return N_NPDTYPE, s
        if not _DTYPE_RE.fullmatch(s) or v.fields is not None or v.subdtype is not None:
            return None
        if t is not type(np.dtype(s)):
            return None
        return N_NPDTYPE, s
    return None


def _pd_tz(tz):
    """A pandas time zone as it can cross: a pytz tzinfo as its zone (pandas 2 gives a
    Timestamp the localized instance; pandas converts instants by the zone alone)."""
    pytz = sys.modules.get("pytz")
    if pytz is not None and isinstance(tz, pytz.BaseTzInfo):
        base = _pytz_base(pytz, tz)
        return base if base is not None else tz
    return tz


def _pd_values(pd, np, x):
    """The description of the values of a Series or Index `x`, or None."""
    dtype = x.dtype
    if isinstance(dtype, np.dtype):
        values = x.to_numpy()
        if type(values) is not np.ndarray:
            return None
        return ("np", values)
    if isinstance(dtype, pd.DatetimeTZDtype):
        utc = x.array.tz_convert("UTC").tz_localize(None)
        return ("dt_tz", np.asarray(utc), _pd_tz(dtype.tz))
    if isinstance(dtype, pd.CategoricalDtype):
        cat = x.array
        return ("cat", np.asarray(cat.codes), cat.categories, bool(cat.ordered))
    name = getattr(dtype, "name", None)
    if name in _EXT_DTYPES:
        return ("ext", name, x.to_numpy(dtype=object))
    return None


def _describe_pandas(pd, np, v):
    t = type(v)
    if v is pd.NaT:
        return N_NAT, None
    if v is pd.NA:
        return N_NA, None
    if t is pd.Timestamp:
        return N_TIMESTAMP, (v.asm8, _pd_tz(v.tz))
    if t is pd.Timedelta:
        return N_PDTIMEDELTA, v.asm8
    if t is pd.Series:
        values = _pd_values(pd, np, v)
        return None if values is None else (N_SERIES, (values, v.index, v.name))
    if t is pd.DataFrame:
        cols = []
        for i in range(v.shape[1]):
            values = _pd_values(pd, np, v.iloc[:, i])
            if values is None:
                return None
            cols.append(values)
        return N_DATAFRAME, (v.columns, v.index, cols)
    if t is pd.RangeIndex:
        return N_RANGEINDEX, (v.start, v.stop, v.step, v.name)
    if t is pd.Index:
        values = _pd_values(pd, np, v)
        return None if values is None else (N_INDEX, (values, v.name))
    if t is pd.DatetimeIndex:
        values = _pd_values(pd, np, v)
        return None if values is None else (N_DATETIMEINDEX, (values, v.name, v.freqstr))
    if t is pd.MultiIndex:
        return N_MULTIINDEX, (
            list(v.levels), [np.asarray(c) for c in v.codes], list(v.names),
        )
    if t is pd.Categorical:
        return N_CATEGORICAL, (np.asarray(v.codes), v.categories, bool(v.ordered))
    return None


def describe(obj: Any) -> tuple[str, Any] | None:
    """The ext hook of the worker: (name, payload) for a value of an exact supported type,
    else None (it cannot cross)."""
    t = type(obj)
    f = _DESCRIBERS.get(t)
    if f is not None:
        return f(obj)
    zoneinfo = sys.modules.get("zoneinfo")
    if zoneinfo is not None and t is zoneinfo.ZoneInfo:
        return _d_zoneinfo(obj)
    pytz = sys.modules.get("pytz")
    if pytz is not None and isinstance(obj, pytz.BaseTzInfo):
        return _d_pytz(pytz, obj)
    np = sys.modules.get("numpy")
    if np is None:
        return None
    r = _describe_numpy(np, obj)
    if r is not None:
        return r
    pd = sys.modules.get("pandas")
    if pd is None or not hasattr(pd, "DataFrame"):  # not imported, or half-imported
        return None
    return _describe_pandas(pd, np, obj)


# ----------------------------------------------------------------------------- build


class _Refused(Exception):
    """A payload that does not have the shape its name says."""


class Unavailable(ValueError):
    """A well-formed value the host cannot build: its library is not installed here."""


def _tuple(p, n, what):
    if type(p) is not tuple or len(p) != n:
        raise _Refused(f"{what} takes a tuple of {n}")
    return p


def _int(v, what, lo=None, hi=None):
    if type(v) is not int:
        raise _Refused(f"{what} must be an int")
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        raise _Refused(f"{what} out of range")
    return v


def _str(v, what, max_len=None):
    if type(v) is not str:
        raise _Refused(f"{what} must be a str")
    if max_len is not None and len(v) > max_len:
        raise _Refused(f"{what} too long")
    return v


def _hashable(v, what):
    try:
        hash(v)
    except TypeError:
        raise _Refused(f"{what} must be hashable") from None
    return v


class Builder:
    """The build hook of the host side, for one decode.

    `budget`: how much the builders may make in all, in bytes as they estimate it (None: no
    bound). `loads` gives 64 times the input's size plus 1 MiB: what well-formed input asks
    for stays far below it (every builder's estimate is at most a few times the bytes its
    payload took), while one payload shared by many records (each builder copies it) runs
    out of it.
    """

    __slots__ = ("budget",)

    def __init__(self, budget: int | None = None):
        self.budget = budget

    @classmethod
    def for_input(cls, data: Any) -> Builder:
        return cls(64 * memoryview(data).nbytes + (1 << 20))

    def charge(self, nbytes: int) -> None:
        if self.budget is not None:
            self.budget -= nbytes
            if self.budget < 0:
                raise _Refused(
                    "the extension values would make more than the input's size allows "
                    "(a payload shared by many records?)"
                )

    def __call__(self, name: str, payload: Any) -> Any:
        f = _BUILDERS.get(name) if type(name) is str else None
        if f is None:
            raise ValueError(f"malformed value: unknown extension value {name!r}")
        try:
            return f(self, payload)
        except Unavailable:
            raise
        except _Refused as e:
            raise ValueError(f"malformed value: {name}: {e}") from None
        except (TypeError, ValueError, OverflowError, ArithmeticError, LookupError) as e:
            # the constructor refused the (well-typed) payload: a range, a date...
            raise ValueError(
                f"malformed value: {name}: {type(e).__name__}: {e}"
            ) from None


def _b_date(b, p):
    y, m, d = _tuple(p, 3, "date")
    return datetime.date(_int(y, "year"), _int(m, "month"), _int(d, "day"))


def _tzinfo(tz):
    """`tz` when it is None or a time zone one of the builders made (a payload's objects
    are plain data or such values)."""
    zoneinfo = sys.modules.get("zoneinfo")
    pytz = sys.modules.get("pytz")
    if (
        tz is None
        or type(tz) is datetime.timezone
        or (zoneinfo is not None and type(tz) is zoneinfo.ZoneInfo)
        or (pytz is not None and isinstance(tz, pytz.BaseTzInfo))
    ):
        return tz
    raise _Refused("tzinfo must be None, a datetime.timezone, a zoneinfo.ZoneInfo or a pytz zone")


def _b_datetime(b, p):
    y, mo, d, h, mi, s, us, tz, fold = _tuple(p, 9, "datetime")
    ints = [_int(x, "datetime field") for x in (y, mo, d, h, mi, s, us)]
    return datetime.datetime(*ints, tzinfo=_tzinfo(tz), fold=_int(fold, "fold", 0, 1))


def _b_time(b, p):
    h, mi, s, us, tz, fold = _tuple(p, 6, "time")
    ints = [_int(x, "time field") for x in (h, mi, s, us)]
    return datetime.time(*ints, tzinfo=_tzinfo(tz), fold=_int(fold, "fold", 0, 1))


def _b_timedelta(b, p):
    d, s, us = _tuple(p, 3, "timedelta")
    return datetime.timedelta(
        days=_int(d, "days"), seconds=_int(s, "seconds"), microseconds=_int(us, "microseconds")
    )


def _b_timezone(b, p):
    offset, name = _tuple(p, 2, "timezone")
    if type(offset) is not datetime.timedelta:
        raise _Refused("the offset must be a timedelta")
    if name is None:
        return datetime.timezone(offset)
    return datetime.timezone(offset, _str(name, "name", 64))


def _b_zoneinfo(b, p):
    key = _str(p, "key", 160)
    if not _ZONE_KEY_RE.fullmatch(key):
        raise _Refused("not a time zone key")
    return zoneinfo.ZoneInfo(key)


def _b_pytz(b, p):
    """A pytz zone by name: pytz's own when the host has pytz, else the zoneinfo zone of the
    same name."""
    key = _str(p, "zone", 160)
    if not _ZONE_KEY_RE.fullmatch(key):
        raise _Refused("not a time zone key")
    try:
        import pytz
    except ImportError:
        return zoneinfo.ZoneInfo(key)
    return pytz.timezone(key)  # a known zone name, or UnknownTimeZoneError (a KeyError)


def _b_decimal(b, p):
    s = _str(p, "Decimal")
    b.charge(len(s) + 100)
    return decimal.Decimal(s)


def _b_fraction(b, p):
    n, d = _tuple(p, 2, "Fraction")
    _int(n, "numerator")
    _int(d, "denominator", 1)
    if n.bit_length() > _MAX_FRACTION_BITS or d.bit_length() > _MAX_FRACTION_BITS:
        raise _Refused("numerator or denominator too large")
    return fractions.Fraction(n, d)


def _dict(p, what):
    if type(p) is not dict:
        raise _Refused(f"{what} takes a dict")
    return p


def _b_ordereddict(b, p):
    d = _dict(p, "OrderedDict")
    b.charge(128 * len(d) + 200)
    return collections.OrderedDict(d)


def _b_deque(b, p):
    items, maxlen = _tuple(p, 2, "deque")
    if type(items) is not list:
        raise _Refused("deque takes a list")
    if maxlen is not None:
        _int(maxlen, "maxlen", 0, sys.maxsize)
    b.charge(8 * len(items) + 700)
    return collections.deque(items, maxlen)


def _b_counter(b, p):
    d = _dict(p, "Counter")
    b.charge(64 * len(d) + 200)
    return collections.Counter(d)


def _b_defaultdict(b, p):
    name, d = _tuple(p, 2, "defaultdict")
    _dict(d, "defaultdict")
    if name is None:
        factory = None
    else:
        factory = _FACTORIES.get(name) if type(name) is str else None
        if factory is None:
            raise _Refused("default_factory must be None, list, dict, set, int, str or float")
    b.charge(64 * len(d) + 200)
    return collections.defaultdict(factory, d)


def _b_uuid(b, p):
    return uuid.UUID(int=_int(p, "UUID", 0, (1 << 128) - 1))


def _path_str(b, p):
    s = _str(p, "path")
    if "\0" in s:
        raise _Refused("a path has no NUL")
    b.charge(2 * len(s) + 200)
    return s


def _b_purepath(b, p):
    return pathlib.PurePosixPath(_path_str(b, p))


def _b_path(b, p):
    return pathlib.PosixPath(_path_str(b, p))


def _b_range(b, p):
    start, stop, step = _tuple(p, 3, "range")
    _int(start, "start")
    _int(stop, "stop")
    if _int(step, "step") == 0:
        raise _Refused("step must not be 0")
    return range(start, stop, step)


def _b_slice(b, p):
    start, stop, step = _tuple(p, 3, "slice")
    return slice(start, stop, step)


# ----------------------------------------------------------------------------- numpy


def _numpy():
    np = sys.modules.get("numpy")
    if np is None:
        try:
            import numpy as np
        except ImportError:
            raise Unavailable("numpy is not installed on the host") from None
    return np


def _pandas():
    pd = sys.modules.get("pandas")
    if pd is None or not hasattr(pd, "DataFrame"):
        try:
            import pandas as pd
        except ImportError:
            raise Unavailable("pandas is not installed on the host") from None
    return pd


def _np_dtype(np, s):
    if type(s) is not str or len(s) > 32 or not _DTYPE_RE.fullmatch(s):
        raise _Refused("not a simple numpy dtype")
    dt = np.dtype(s)
    if (
        dt.kind not in "biufcmMSU"
        or dt.hasobject
        or dt.fields is not None
        or dt.subdtype is not None
        or dt.itemsize < 1
        or ("[" in s and dt.kind not in "mM")
    ):
        raise _Refused("not a simple numpy dtype")
    return dt


def _np_check_data(np, dt, data):
    """Refuses bytes that are not values of `dt`: a str code unit past U+10FFFF (numpy
    raises SystemError reading it) or a bool byte other than 0 and 1."""
    if not data:
        return
    if dt.kind == "U":
        units = np.frombuffer(data, dtype=np.dtype(np.uint32).newbyteorder(dt.byteorder))
        if int(units.max()) > 0x10FFFF:
            raise _Refused("a str code point past U+10FFFF")
    elif dt.kind == "b":
        if int(np.frombuffer(data, dtype=np.uint8).max()) > 1:
            raise _Refused("a bool byte other than 0 and 1")


def _shape(p):
    if type(p) is not tuple or len(p) > _MAX_NDIM:
        raise _Refused(f"a shape is a tuple of at most {_MAX_NDIM} ints")
    n = 1
    for d in p:
        _int(d, "dimension", 0, _MAX_DIM)
        if d:
            n *= d
            if n > _MAX_DIM:
                raise _Refused("too many elements")
    return p, math.prod(p)


def _b_ndarray(b, p):
    np = _numpy()
    dts, shape, data = _tuple(p, 3, "ndarray")
    dt = _np_dtype(np, dts)
    shape, n = _shape(shape)
    if type(data) is not bytearray or len(data) != n * dt.itemsize:
        raise _Refused("the data must be a bytearray of the shape's size")
    _np_check_data(np, dt, data)
    b.charge(len(data) + 112)
    return np.frombuffer(data, dtype=dt).reshape(shape)


def _b_ndarray_object(b, p):
    np = _numpy()
    shape, items = _tuple(p, 2, "object ndarray")
    shape, n = _shape(shape)
    if type(items) is not list or len(items) != n:
        raise _Refused("the items must be a list of the shape's size")
    b.charge(8 * n + 112)
    out = np.empty(n, dtype=object)
    for i, v in enumerate(items):  # no broadcasting of items that are sequences
        out[i] = v
    return out.reshape(shape)


def _b_npscalar(b, p):
    np = _numpy()
    dts, data = _tuple(p, 2, "numpy scalar")
    dt = _np_dtype(np, dts)
    if type(data) is not bytes or len(data) != dt.itemsize:
        raise _Refused("the data must be bytes of the dtype's size")
    _np_check_data(np, dt, data)
    b.charge(len(data) + 100)
    return np.frombuffer(data, dtype=dt)[0]


def _b_npdtype(b, p):
    np = _numpy()
    if p == "|O" and type(p) is str:
        return np.dtype(object)
    return _np_dtype(np, p)


# ----------------------------------------------------------------------------- pandas


def _ndarray(np, v, what, ndim=1):
    if type(v) is not np.ndarray or v.ndim != ndim:
        raise _Refused(f"{what} must be a {ndim}-d ndarray")
    return v


def _index(pd, v, what):
    if type(v) not in (pd.Index, pd.RangeIndex, pd.DatetimeIndex, pd.MultiIndex):
        raise _Refused(f"{what} must be a pandas index")
    return v


def _pd_array(b, pd, np, p):
    """Values of a column or index from their description (see _pd_values)."""
    if type(p) is not tuple or not p or type(p[0]) is not str:
        raise _Refused("a pandas array description is a tuple")
    kind = p[0]
    if kind == "np":
        _, values = _tuple(p, 2, "numpy values")
        return _ndarray(np, values, "the values")
    if kind == "dt_tz":
        _, values, tz = _tuple(p, 3, "datetime values")
        _ndarray(np, values, "the values")
        if values.dtype.kind != "M":
            raise _Refused("datetime values must be datetime64")
        if tz is None:
            raise _Refused("datetime values with a time zone need one")
        _tzinfo(tz)
        b.charge(8 * len(values) + 1000)
        return pd.DatetimeIndex(values).tz_localize("UTC").tz_convert(tz).array
    if kind == "cat":
        _, codes, categories, ordered = _tuple(p, 4, "categorical values")
        return _categorical(b, pd, np, codes, categories, ordered)
    if kind == "ext":
        _, name, values = _tuple(p, 3, "extension values")
        if type(name) is not str or name not in _EXT_DTYPES:
            raise _Refused("not a supported pandas extension dtype")
        _ndarray(np, values, "the values")
        if values.dtype != np.dtype(object):
            raise _Refused("extension values are objects")
        b.charge(16 * len(values) + 1000)
        return pd.array(values, dtype=name)
    raise _Refused(f"unknown kind of pandas values {kind!r}")


def _categorical(b, pd, np, codes, categories, ordered):
    _ndarray(np, codes, "the codes")
    if codes.dtype.kind != "i":
        raise _Refused("codes must be ints")
    _index(pd, categories, "the categories")
    if type(ordered) is not bool:
        raise _Refused("ordered must be a bool")
    b.charge(8 * (len(codes) + len(categories)) + 1000)
    return pd.Categorical.from_codes(codes, categories=categories, ordered=ordered)


def _b_series(b, p):
    pd, np = _pandas(), _numpy()
    values, index, name = _tuple(p, 3, "Series")
    values = _pd_array(b, pd, np, values)
    _index(pd, index, "the index")
    _hashable(name, "the name")
    if len(values) != len(index):
        raise _Refused("values and index differ in length")
    b.charge(8 * len(values) + 2000)
    dtype = values.dtype if type(values) is np.ndarray else None
    return pd.Series(values, index=index, name=name, dtype=dtype, copy=False)


def _b_dataframe(b, p):
    pd, np = _pandas(), _numpy()
    columns, index, cols = _tuple(p, 3, "DataFrame")
    _index(pd, columns, "the columns")
    _index(pd, index, "the index")
    if type(cols) is not list or len(cols) != len(columns):
        raise _Refused("one description of values per column")
    arrays = []
    for c in cols:
        values = _pd_array(b, pd, np, c)
        if len(values) != len(index):
            raise _Refused("a column's length is not the index's")
        if type(values) is np.ndarray:
            values = pd.Series(values, index=index, dtype=values.dtype, copy=False)
        b.charge(8 * len(values) + 1000)
        arrays.append(values)
    b.charge(4000)
    if not arrays:
        return pd.DataFrame(index=index, columns=columns)
    df = pd.DataFrame(dict(enumerate(arrays)), index=index)
    df.columns = columns
    return df


def _b_index(b, p):
    pd, np = _pandas(), _numpy()
    values, name = _tuple(p, 2, "Index")
    values = _pd_array(b, pd, np, values)
    _hashable(name, "the name")
    b.charge(8 * len(values) + 1000)
    dtype = values.dtype if type(values) is np.ndarray else None
    return pd.Index(values, name=name, dtype=dtype)


def _b_rangeindex(b, p):
    pd = _pandas()
    start, stop, step, name = _tuple(p, 4, "RangeIndex")
    for x, what in ((start, "start"), (stop, "stop"), (step, "step")):
        _int(x, what, -(1 << 63), (1 << 63) - 1)
    if step == 0:
        raise _Refused("step must not be 0")
    _hashable(name, "the name")
    return pd.RangeIndex(start, stop, step, name=name)


def _b_datetimeindex(b, p):
    pd, np = _pandas(), _numpy()
    values, name, freq = _tuple(p, 3, "DatetimeIndex")
    values = _pd_array(b, pd, np, values)
    if values.dtype.kind != "M":
        raise _Refused("a DatetimeIndex holds datetimes")
    _hashable(name, "the name")
    if freq is not None and (type(freq) is not str or not _FREQ_RE.fullmatch(freq)):
        raise _Refused("not a frequency")
    b.charge(8 * len(values) + 1000)
    return pd.DatetimeIndex(values, name=name, freq=freq)


def _b_multiindex(b, p):
    pd, np = _pandas(), _numpy()
    levels, codes, names = _tuple(p, 3, "MultiIndex")
    if type(levels) is not list or type(codes) is not list or type(names) is not list:
        raise _Refused("levels, codes and names are lists")
    if not levels or len(codes) != len(levels) or len(names) != len(levels):
        raise _Refused("one code array and one name per level")
    for lv in levels:
        _index(pd, lv, "a level")
    n = None
    for c in codes:
        _ndarray(np, c, "codes")
        if c.dtype.kind != "i":
            raise _Refused("codes must be ints")
        if n is not None and len(c) != n:
            raise _Refused("the code arrays differ in length")
        n = len(c)
    for nm in names:
        _hashable(nm, "a name")
    b.charge(8 * (n or 0) * len(levels) + sum(8 * len(lv) for lv in levels) + 2000)
    return pd.MultiIndex(levels=levels, codes=codes, names=names, verify_integrity=True)


def _b_categorical(b, p):
    pd, np = _pandas(), _numpy()
    codes, categories, ordered = _tuple(p, 3, "Categorical")
    return _categorical(b, pd, np, codes, categories, ordered)


def _b_timestamp(b, p):
    pd, np = _pandas(), _numpy()
    value, tz = _tuple(p, 2, "Timestamp")
    if type(value) is not np.datetime64 or np.isnat(value):
        raise _Refused("a Timestamp is a datetime64 that is not NaT")
    t = pd.Timestamp(value)
    if tz is not None:
        _tzinfo(tz)
        t = t.tz_localize("UTC").tz_convert(tz)
    return t


def _b_pdtimedelta(b, p):
    pd, np = _pandas(), _numpy()
    if type(p) is not np.timedelta64 or np.isnat(p):
        raise _Refused("a Timedelta is a timedelta64 that is not NaT")
    return pd.Timedelta(p)


def _b_nat(b, p):
    if p is not None:
        raise _Refused("NaT has no payload")
    return _pandas().NaT


def _b_na(b, p):
    if p is not None:
        raise _Refused("NA has no payload")
    return _pandas().NA


# extension name -> builder: the only way from a name in the input to code
_BUILDERS = {
    N_DATE: _b_date,
    N_DATETIME: _b_datetime,
    N_TIME: _b_time,
    N_TIMEDELTA: _b_timedelta,
    N_TIMEZONE: _b_timezone,
    N_ZONEINFO: _b_zoneinfo,
    N_PYTZ: _b_pytz,
    N_DECIMAL: _b_decimal,
    N_FRACTION: _b_fraction,
    N_ORDEREDDICT: _b_ordereddict,
    N_DEQUE: _b_deque,
    N_COUNTER: _b_counter,
    N_DEFAULTDICT: _b_defaultdict,
    N_UUID: _b_uuid,
    N_PUREPOSIXPATH: _b_purepath,
    N_POSIXPATH: _b_path,
    N_RANGE: _b_range,
    N_SLICE: _b_slice,
    N_NDARRAY: _b_ndarray,
    N_NDARRAY_OBJECT: _b_ndarray_object,
    N_NPSCALAR: _b_npscalar,
    N_NPDTYPE: _b_npdtype,
    N_SERIES: _b_series,
    N_DATAFRAME: _b_dataframe,
    N_INDEX: _b_index,
    N_RANGEINDEX: _b_rangeindex,
    N_DATETIMEINDEX: _b_datetimeindex,
    N_MULTIINDEX: _b_multiindex,
    N_CATEGORICAL: _b_categorical,
    N_TIMESTAMP: _b_timestamp,
    N_PDTIMEDELTA: _b_pdtimedelta,
    N_NAT: _b_nat,
    N_NA: _b_na,
}

_UNBOUNDED = Builder(None)


def build(name: str, payload: Any) -> Any:
    """The build hook of the host: the value of an extension record, from an untrusted
    payload. With no bound on what the builders make in all: `loads` (or
    `Builder.for_input(data)` as the hook) bounds it."""
    return _UNBOUNDED(name, payload)


# ----------------------------------------------------------------------------- wrappers


def dumps(obj: Any, max_depth: int = 200) -> bytes:
    """The encoding of `obj`, with the extension types above; TypeError for a value that
    cannot cross, ValueError past max_depth or for a cycle through an immutable value."""
    return _core.wire_dumps(obj, describe, max_depth)


def loads(data: Any, deadline: float | None = None, max_depth: int = 200) -> Any:
    """The value of an untrusted encoding (any contiguous buffer). ValueError "malformed
    value: ..." for anything malformed or refused, TimeoutError past `deadline` (a
    time.monotonic() value)."""
    return _core.wire_loads(data, Builder.for_input(data), max_depth, deadline)
