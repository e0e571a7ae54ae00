"""Build of the C extension `smolagents_native._core`; metadata lives in pyproject.toml.

Environment switches:
  SMOLAGENTS_NATIVE_WERROR=1    add -Werror (CI)
  SMOLAGENTS_NATIVE_SANITIZE=1  build with AddressSanitizer + UndefinedBehaviorSanitizer
  SMOLAGENTS_NATIVE_FUZZ=1      add edge coverage for the fuzzer (csrc/fuzzcov.c, scripts/fuzz.py)
"""

import os
import sysconfig
from glob import glob

from setuptools import Extension, setup

if sysconfig.get_config_var("Py_GIL_DISABLED"):
    # csrc/compat.h has the same refusal as an #error, for builds that bypass this file
    raise SystemExit(
        "smolagents_native does not support free-threaded CPython builds (3.13t, 3.14t, "
        "Py_GIL_DISABLED): its interpreter relies on the GIL. Use the default build of CPython."
    )


def _flag(name):
    return os.environ.get(name, "") not in ("", "0")


compile_args = [
    "-std=c11",
    "-Wall",
    "-Wextra",
    "-Wno-unused-parameter",
    "-Wno-missing-field-initializers",
    "-O2",
    # PyInit__core is exported by PyMODINIT_FUNC; everything else stays
    # internal, so calls between our files do not go through the PLT
    "-fvisibility=hidden",
]
link_args = []
undef_macros = []

if _flag("SMOLAGENTS_NATIVE_WERROR"):
    compile_args.append("-Werror")

if _flag("SMOLAGENTS_NATIVE_SANITIZE"):
    sanitize = [
        "-fsanitize=address,undefined",
        "-fno-sanitize-recover=undefined",
        "-fno-omit-frame-pointer",
    ]
    # -O1 -g come after -O2 (and after Python's own CFLAGS): the last -O wins.
    compile_args += sanitize + ["-O1", "-g"]
    link_args += sanitize
    undef_macros.append("NDEBUG")  # keep assert() active in the sanitizer build

define_macros = []
if _flag("SMOLAGENTS_NATIVE_FUZZ"):
    compile_args.append("-fsanitize-coverage=trace-pc")
    define_macros.append(("SMOLAGENTS_NATIVE_FUZZ", "1"))

core = Extension(
    "smolagents_native._core",
    sources=sorted(glob("csrc/*.c")),
    depends=sorted(glob("csrc/*.h") + glob("csrc/*.def") + glob("csrc/*.inc")),
    include_dirs=["csrc"],
    extra_compile_args=compile_args,
    extra_link_args=link_args,
    undef_macros=undef_macros,
    define_macros=define_macros,
)

setup(ext_modules=[core])
