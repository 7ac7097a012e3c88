"""Build drfbench's Cython kernels.

A kernel's source sits beside the package that calls it, drfbench/<family>/<name>.pyx; the
house's own kernel (platform.pyx) and the declarations every kernel cimports (_common.pxd,
_heap.pxd, _platform.pxd and its _platform.h) are in drfbench/_native/, a folder of sources
that is not a Python package. The rule: every drfbench/**/*.pyx is a kernel, named by its
file name (unique across drfbench/, whatever folder it is in). Each is translated to C once
as a top-level module of that name (the __init__.py files around it play no part; its
cimports of the shared .pxd resolve in drfbench/_native/) and compiled into one extension
package per vector-width variant (faiss's pattern), with OpenMP when the compiler has it;
drfbench/dcdrf/floor.pyx becomes drfbench._kernels.floor, drfbench._kernels_avx512.floor, ...

  drfbench._kernels          generic: the architecture's baseline ISA (SSE2 on x86-64)
  drfbench._kernels_scalar   no auto-vectorization (the paper's "scalar")
  drfbench._kernels_avx2     256-bit AVX2 + FMA (x86-64 only)
  drfbench._kernels_avx512   512-bit AVX-512 F/VL/BW/DQ (x86-64 only)

By default only what this machine runs is built: the generic variant and the widest one
its CPU has the flags for (/proc/cpuinfo); a build in place (`pip install -e`,
build_variants) also rebuilds every variant already built in this checkout, so that none
is left behind, out of date, when a kernel changes. The
vector-width sweep builds the others in place when it needs them, with
`python -m drfbench.build_variants NAME...` (drfbench/build_variants.py).

The variants, their packages, CPU flags and compile flags are drfbench/_variants.py's
table, which drfbench._isa also reads to pick one at run time from the CPU's features.
Cython directives are set once here for the whole build.

Rebuilds are incremental, by content rather than by timestamps: pip builds an editable
install in a fresh build environment every time, whose Cython and headers are all new
files, so timestamps would make every run re-translate and recompile everything. A .pyx
is translated again only when it, a header it can include (any drfbench/**/*.pxd or *.h),
Cython's version or the directives changed (a fingerprint beside its .c in build/cython);
an extension is compiled only when no build of the same C source with the same flags and
compiler is in build/kernel-cache, else the cached one is copied.

One build runs at a time in a checkout (a lock on build/lock): the pipeline may build two
variants at once, and builds share build/. A compiled kernel is replaced by renaming a new
file over it, never rewritten in place, so a process that has the old one loaded keeps it;
one that did not change is not replaced at all.

Environment switches:
  DRFBENCH_DEBUG=1      bounds checking and wraparound back on, -O0 -g (for tests/debugging)
  DRFBENCH_NO_OPENMP=1  build without OpenMP even if the compiler has it
  DRFBENCH_VARIANTS=scalar,avx512   build these variants (and generic, and those already
                        built in place) instead of the widest the CPU runs; `all`: every one
  DRFBENCH_KERNELS=dcdrf,edrf   a build in place adds only these kernels to a variant
                        other than generic: it brings up to date the kernels already in
                        place (all of them where a variant is whole) and adds these
                        (build_variants --family: the vector-width sweep needs its family's)
Nothing built by default uses -march=native: the default build targets the baseline x86-64
(or aarch64) instruction set so that it runs on any machine of that architecture.
"""
import contextlib
import fcntl
import hashlib
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

import Cython
import numpy
from Cython.Build import cythonize
from setuptools import Extension, find_packages, setup
from setuptools.command.build_ext import build_ext

DEBUG = os.environ.get("DRFBENCH_DEBUG", "0") == "1"
DIRECTIVES = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "wraparound": DEBUG,
    "initializedcheck": DEBUG,
    "cdivision": True,
    "embedsignature": True,
}


def load(name):
    """drfbench/<name>.py, loaded by its path: drfbench cannot be imported before its
    kernels are built (both modules it loads import nothing from drfbench)."""
    spec = importlib.util.spec_from_file_location(f"drfbench_{name}", f"drfbench/{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def compiled_modules(root, package):
    """The compiled modules of `package` under `root` (this Python's)."""
    return Path(root, *package.split(".")).glob(f"*{sysconfig.get_config_var('EXT_SUFFIX')}")


def built_in_place(variants):
    """The variants whose kernels an earlier in-place build (`pip install -e`,
    build_variants) left in this checkout."""
    return [name for name, variant in variants.items() if any(compiled_modules(".", variant.package))]


_variants = load("_variants")
OPT_FLAGS = list(_variants.DEBUG_FLAGS if DEBUG else _variants.OPT_FLAGS)
# Python's own flags ask for debug info (-g), which took a third of the compile time; GCC
# generates the same code either way. DRFBENCH_DEBUG=1 keeps it.
NO_DEBUG_INFO = [] if DEBUG else ["-g0"]
# every variant of the architecture has its extensions; BuildExt builds the chosen ones
VARIANTS = {name: _variants.VARIANTS[name] for name in _variants.platform_variants()}


def chosen_variants(in_place):
    """The variants this build compiles (drfbench._variants.to_build): those already built
    in place count only for an in-place build, the one they could be left stale by."""
    try:
        return _variants.to_build(os.environ.get(_variants.ENV_VARIABLE),
                                  load("_machine").cpu_info()[1],
                                  built_in_place(VARIANTS) if in_place else ())
    except ValueError as exc:
        sys.exit(f"setup.py: {exc}")


def compiler_has_openmp(compiler):
    """Compile and link a tiny OpenMP program; True if that works."""
    if os.environ.get("DRFBENCH_NO_OPENMP", "0") == "1":
        return False
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp, "omp_check.c")
        src.write_text("#include <omp.h>\nint main(void){return omp_get_max_threads() < 1;}\n")
        try:
            objs = compiler.compile([str(src)], output_dir=tmp, extra_postargs=["-fopenmp"])
            compiler.link_executable(objs, str(Path(tmp, "omp_check")), extra_postargs=["-fopenmp"])
        except Exception:  # any compile or link failure means: no usable OpenMP
            return False
    return True


def fingerprint(*parts):
    """A hex digest of strings and bytes, in order."""
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part if isinstance(part, bytes) else str(part).encode())
        digest.update(b"\0")
    return digest.hexdigest()


PACKAGE = Path("drfbench")
NATIVE = PACKAGE / "_native"          # the declarations every kernel shares
C_DIR = Path("build/cython")
CACHE = Path("build/kernel-cache")
SHARED_UTILITY = "drfbench._cyutility"
# Cython's metadata comment in a .c file names the build environment's paths: not content.
METADATA = re.compile(rb"/\* BEGIN: Cython Metadata.*?END: Cython Metadata \*/", re.S)


def kernel_sources():
    """{name: drfbench/**/<name>.pyx}: every kernel's source, by the name of its module
    (setup.py's rule: its file name); two sources of one name are refused."""
    sources = {}
    for pyx in sorted(PACKAGE.rglob("*.pyx")):
        if pyx.stem in sources:
            sys.exit(f"setup.py: two kernels named {pyx.stem!r}: {sources[pyx.stem]} and {pyx}")
        sources[pyx.stem] = pyx
    return sources


def translate(kernels):
    """{name: its .pyx as C in build/cython} for `kernels` ({name: .pyx}), each translated
    by Cython as the top-level module `name` (all those that need it at once, one process
    per CPU) only if its fingerprint (the .pyx, every .pxd and .h under drfbench/, Cython's
    version, the directives) differs from the one recorded beside its .c. Cython's utility
    code is left out of them: see shared_utility."""
    headers = sorted(PACKAGE.rglob("*.pxd")) + sorted(PACKAGE.rglob("*.h"))
    c_files, stale = {}, {}
    for name, pyx in kernels.items():
        c_file = C_DIR / pyx.with_suffix(".c")
        recorded = c_file.with_name(c_file.name + ".fingerprint")
        key = fingerprint(Cython.__version__, sorted(DIRECTIVES.items()), SHARED_UTILITY,
                          *(b for f in [pyx, *headers] for b in (str(f), f.read_bytes())))
        if not (c_file.exists() and recorded.exists() and recorded.read_text() == key):
            stale[name] = (recorded, key)
        c_files[name] = c_file
    if stale:   # an Extension named `name` makes Cython translate it as that module
        cythonize([Extension(name, [str(kernels[name])]) for name in stale],
                  compiler_directives=DIRECTIVES, include_path=[str(NATIVE)],
                  build_dir=str(C_DIR), force=True, quiet=True, nthreads=os.cpu_count(),
                  shared_utility_qualified_name=SHARED_UTILITY)
        for recorded, key in stale.values():
            recorded.write_text(key)
    return c_files


def shared_utility():
    """Cython's utility code (typed memoryviews and the like) as the C of one module,
    SHARED_UTILITY, generated again only when Cython's version changes: every kernel of
    every variant imports it rather than carrying its own copy, which was half of each
    kernel's C and of its compile time. It runs no kernel loop: built once, generic."""
    c_file = C_DIR / (SHARED_UTILITY.replace(".", "/") + ".c")
    recorded = c_file.with_name(c_file.name + ".fingerprint")
    if not (c_file.exists() and recorded.exists() and recorded.read_text() == Cython.__version__):
        c_file.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "cython", f"--generate-shared={c_file}"], check=True)
        recorded.write_text(Cython.__version__)
    return c_file


class BuildExt(build_ext):
    """Builds the chosen variants' extensions (and the shared utility module), adds the
    OpenMP flags when available (and says loudly when not), and compiles an extension only
    when build/kernel-cache has no build of the same C source with the same flags and
    compiler. Compiled modules are put in place with `install`."""

    def finalize_options(self):
        super().finalize_options()          # an editable install's build is in place
        chosen = chosen_variants(self.inplace)
        packages = {VARIANTS[name].package for name in chosen}
        if not self.inplace:    # a wheel takes build/lib whole: drop what in-place builds left
            for variant in VARIANTS.values():
                if variant.package not in packages:
                    for module in compiled_modules(self.build_lib, variant.package):
                        module.unlink()
        self.extensions = [ext for ext in self.extensions
                           if ext.name == SHARED_UTILITY or ext.name.rpartition(".")[0] in packages]
        only = {name.strip() for name in os.environ.get(_variants.KERNELS_VARIABLE, "").split(",")} - {""}
        if only and self.inplace:
            unknown = sorted(only - set(kernel_sources()))
            if unknown:
                sys.exit(f"setup.py: {_variants.KERNELS_VARIABLE}: no kernel named {', '.join(unknown)}")
            self.extensions = [ext for ext in self.extensions
                               if kept(ext.name, only, self.get_ext_fullpath(ext.name))]
        print(f"drfbench: building the kernel variants {', '.join(chosen)}", file=sys.stderr)

    def build_extensions(self):
        openmp = compiler_has_openmp(self.compiler)
        if not openmp:
            bar = "!" * 78
            print(f"\n{bar}\n drfbench: the C compiler has no usable OpenMP; the kernels are built\n"
                  f" SINGLE-THREADED. drfbench.show_config() reports 'openmp: False'.\n{bar}\n",
                  file=sys.stderr)
        for ext in self.extensions:     # their variant's flags are set (see extensions)
            ext.extra_compile_args = ext.extra_compile_args + (["-fopenmp"] if openmp else [])
            ext.extra_link_args = ["-fopenmp"] if openmp else []
        self.force = True               # build_extension decides, by content
        self.parallel = self.parallel or os.cpu_count()
        super().build_extensions()

    def build_extension(self, ext):
        target = Path(self.get_ext_fullpath(ext.name))
        source = METADATA.sub(b"", Path(ext.sources[0]).read_bytes())
        # (not the include paths: pip's build environment is a new directory each time;
        # numpy's version stands for its headers)
        key = fingerprint(source, ext.define_macros, ext.extra_compile_args, ext.extra_link_args,
                          self.compiler.compiler_so, sysconfig.get_config_var("EXT_SUFFIX"),
                          numpy.__version__)
        cached = CACHE / f"{ext.name}.{key[:24]}{target.suffix}"
        if cached.exists():
            install(cached, target)
            return
        super().build_extension(ext)
        install(target, cached)

    def copy_extensions_to_source(self):
        """An in-place build's last step (setuptools' copies each module over the old one,
        rewriting a file running processes may have loaded)."""
        for ext in self.extensions:
            name = self.get_ext_filename(ext.name)
            install(Path(self.build_lib, name), Path(name))


def kept(extension, kernels, path):
    """Whether a build in place with DRFBENCH_KERNELS (`kernels`, a set of names) builds
    `extension` (its module's name; `path`, its compiled file in place): one of those
    kernels, the shared utility module, any kernel of the generic variant, or one already
    in place."""
    package, _, kernel = extension.rpartition(".")
    return (extension == SHARED_UTILITY or kernel in kernels
            or package == VARIANTS["generic"].package or Path(path).exists())


def install(source, target):
    """Put a copy of `source` at `target`, unless `target` already holds the same bytes, by
    renaming a complete copy over it: a process that has the old `target` loaded (a
    pipeline's running job) keeps its file, and no reader sees half a copy."""
    if target.exists() and target.read_bytes() == source.read_bytes():
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    shutil.copyfile(source, partial)
    os.replace(partial, target)


@contextlib.contextmanager
def exclusive(path):
    """Hold an exclusive lock on `path` while the block runs."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def variant_source(c_file, package):
    """A copy of `c_file` for one variant (build/cython/<package>/<name>.c): each variant's
    object file is named after its source, so variants compiled in parallel never
    overwrite each other's objects. Rewritten only when the C differs."""
    copy = C_DIR / package / c_file.name
    content = c_file.read_bytes()
    if not (copy.exists() and copy.read_bytes() == content):
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.write_bytes(content)
    return copy


with exclusive(Path("build/lock")):  # one build at a time in this checkout
    # Cython translates each .pyx to C once; every variant compiles that same C with its flags.
    sources = translate(kernel_sources())
    common = dict(include_dirs=[numpy.get_include(), str(NATIVE)],
                  define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_9_API_VERSION")])
    extensions = [Extension(SHARED_UTILITY, [str(shared_utility())],
                            extra_compile_args=OPT_FLAGS + NO_DEBUG_INFO, **common)] + [
        Extension(f"{variant.package}.{name}", [str(variant_source(c_file, variant.package))],
                  extra_compile_args=OPT_FLAGS + list(variant.compile_flags) + NO_DEBUG_INFO, **common)
        for variant in VARIANTS.values() for name, c_file in sources.items()
    ]
    setup(
        packages=find_packages(include=["drfbench", "drfbench.*"]),
        ext_modules=extensions,
        cmdclass={"build_ext": BuildExt},
    )
