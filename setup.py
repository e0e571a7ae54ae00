"""Build of the C extension `smolagents_native._core`; metadata lives in pyproject.toml.

Environment switches:
  SMOLAGENTS_NATIVE_WERROR=1    add -Werror (CI)
  SMOLAGENTS_NATIVE_SANITIZE=1  build with AddressSanitizer + UndefinedBehaviorSanitizer
  SMOLAGENTS_NATIVE_FUZZ=1      add edge coverage for the fuzzer (csrc/module/fuzzcov.c, scripts/fuzz.py)
  SMOLAGENTS_NATIVE_PGO=0       no profile-guided optimization (a plain -O3 + LTO build)

The release build (neither SANITIZE nor FUZZ) with GCC is optimized as CPython's own
`--enable-optimizations --with-lto` build is (README, "CI, supported versions and
packaging"): -O3, link-time optimization across the extension's files, and profile-guided
optimization. The extension is compiled once instrumented, trained on the differential-test
corpus (scripts/pgo_train.py over tests/programs, never the benchmark's workloads), then
compiled again with the profile. When any of that is not possible (another compiler, GCC
before 10, no corpus, a failed training run) the build says why and goes on without the
profile. `smolagents_native._core.BUILD` tells how a build was made.
"""

import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from glob import glob

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

if sysconfig.get_config_var("Py_GIL_DISABLED"):
    # csrc/base/compat.h has the same refusal as an #error, for builds that bypass this file
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
    # PyInit__core is exported by PyMODINIT_FUNC; everything else stays
    # internal, so calls between our files do not go through the PLT
    "-fvisibility=hidden",
]
link_args = []
undef_macros = []

if _flag("SMOLAGENTS_NATIVE_WERROR"):
    compile_args.append("-Werror")

HERE = os.path.dirname(os.path.abspath(__file__))
RELEASE = not _flag("SMOLAGENTS_NATIVE_SANITIZE") and not _flag("SMOLAGENTS_NATIVE_FUZZ")


def _gcc_major():
    """GCC's major version when the extension's compiler is GCC, else None (clang, icc, ...)."""
    cc = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()
    try:
        out = subprocess.run(cc + ["--version"], capture_output=True, text=True, timeout=30)
        ver = subprocess.run(cc + ["-dumpversion"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    text = out.stdout.lower()
    if out.returncode != 0 or "clang" in text or not ("gcc" in text or "free software" in text):
        return None
    try:
        return int(ver.stdout.strip().split(".")[0])
    except ValueError:
        return None


GCC = _gcc_major()
# Flags given to both the compile and the link step: with -flto the code is generated at link
# time, from the link step's options.
opt_args = ["-O2"]
if GCC is not None and RELEASE:
    opt_args = ["-O3", "-fno-plt", "-flto=auto" if GCC >= 10 else "-flto"]
compile_args += opt_args

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

link_args += opt_args if RELEASE else []

core = Extension(
    "smolagents_native._core",
    sources=sorted(glob("csrc/*/*.c")),
    depends=sorted(glob("csrc/*/*.h") + glob("csrc/*/*.def") + glob("csrc/*/*.inc")),
    include_dirs=["csrc"],
    extra_compile_args=compile_args,
    extra_link_args=link_args,
    undef_macros=undef_macros,
    define_macros=define_macros,
)

PGO_CORPUS = os.path.join(HERE, "tests", "programs")
PGO_TRAIN = os.path.join(HERE, "scripts", "pgo_train.py")
PGO_TIMEOUT = 600
PGO_DESC = "profile-guided (trained on tests/programs)"
COMPILER = f"gcc {GCC}" if GCC is not None else "cc"


class PgoBuildExt(build_ext):
    """build_ext with a profile-guided release build (see the module docstring)."""

    def build_extension(self, ext):
        why = self._pgo_unavailable()
        base_c, base_l = list(ext.extra_compile_args), list(ext.extra_link_args)
        if why is not None:
            if RELEASE:
                print(f"smolagents_native: building without profile-guided optimization: {why}")
            return self._build_with(ext, base_c, base_l, f"without profile ({why})")
        with tempfile.TemporaryDirectory(prefix="smolagents-native-pgo-") as tmp:
            profile = os.path.join(tmp, "profile")
            os.mkdir(profile)
            gen = ["-fprofile-generate", f"-fprofile-dir={profile}", "-fprofile-update=atomic"]
            use = ["-fprofile-use", f"-fprofile-dir={profile}", "-fprofile-partial-training",
                   "-Wno-missing-profile"]
            self._build_with(ext, base_c + gen, base_l + gen, PGO_DESC)
            why = self._train(ext, tmp, profile)
            if why is not None:
                print(f"smolagents_native: building without profile-guided optimization: {why}")
                return self._build_with(ext, base_c, base_l, f"without profile ({why})")
            print("smolagents_native: profile-guided build: compiling with the profile")
            self._build_with(ext, base_c + use, base_l + use, PGO_DESC)

    def _pgo_unavailable(self):
        if not RELEASE:
            return "sanitizer or fuzzer build"
        if os.environ.get("SMOLAGENTS_NATIVE_PGO", "1") in ("0", ""):
            return "SMOLAGENTS_NATIVE_PGO=0"
        if GCC is None:
            return "the compiler is not GCC"
        if GCC < 10:
            return f"GCC {GCC} (10 or later is needed)"
        if not os.path.isdir(PGO_CORPUS) or not os.path.isfile(PGO_TRAIN):
            return "the training corpus (tests/programs, scripts/pgo_train.py) is not here"
        return None

    def _build_with(self, ext, cflags, lflags, profile):
        # _core.BUILD; the same text in the instrumented and the optimized build (a
        # different one would be another source to the profile)
        what = f"{COMPILER}, {' '.join(opt_args)}"
        if not RELEASE:
            what = f"{COMPILER}, {'sanitizers' if _flag('SMOLAGENTS_NATIVE_SANITIZE') else 'fuzzing'}"
        macro = ("SMOLAGENTS_NATIVE_BUILD", '"' + f"{what}, {profile}".replace('"', "'") + '"')
        ext.define_macros = [m for m in ext.define_macros if m[0] != macro[0]] + [macro]
        base = ext.extra_compile_args, ext.extra_link_args
        ext.extra_compile_args, ext.extra_link_args = cflags, lflags
        force, self.force = self.force, True  # same objects, new flags: recompile all
        cforce = getattr(self.compiler, "force", None)
        if cforce is not None:
            self.compiler.force = True
        try:
            super().build_extension(ext)
        finally:
            ext.extra_compile_args, ext.extra_link_args = base
            self.force = force
            if cforce is not None:
                self.compiler.force = cforce

    def _train(self, ext, tmp, profile):
        """Run the corpus on the instrumented build; None, or why the profile is not used."""
        root = os.path.join(tmp, "pkg")
        shutil.copytree(
            os.path.join(HERE, "smolagents_native"),
            os.path.join(root, "smolagents_native"),
            ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__"),
        )
        built = self.get_ext_fullpath(ext.name)
        shutil.copy2(built, os.path.join(root, "smolagents_native", os.path.basename(built)))
        env = dict(os.environ, PYTHONHASHSEED="0", PYTHONDONTWRITEBYTECODE="1")
        print("smolagents_native: profile-guided build: training on tests/programs")
        try:
            proc = subprocess.run(
                [sys.executable, "-I", PGO_TRAIN, root, PGO_CORPUS],
                cwd=tmp, env=env, capture_output=True, text=True, timeout=PGO_TIMEOUT,
            )
        except (OSError, subprocess.SubprocessError) as e:
            return f"the training run failed to run ({e})"
        if proc.returncode != 0:
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
            return f"the training run failed (exit {proc.returncode}: {' | '.join(tail)})"
        # GCC names the files after the objects: flattened ("#"-separated) for a relative
        # object path, a directory tree under the profile directory for an absolute one
        if not any(n.endswith(".gcda") for _, _, names in os.walk(profile) for n in names):
            return "the training run wrote no profile (was another build imported?)"
        print(f"smolagents_native: {proc.stderr.strip().splitlines()[-1]}")
        return None


setup(ext_modules=[core], cmdclass={"build_ext": PgoBuildExt})
