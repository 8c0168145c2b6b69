"""
Optional JIT compilation of the physics hot path.

The equations are written once, as plain Python/NumPy functions in the subset
numba compiles. With numba installed they run compiled; without it, or with
RALLY_SIM_NO_JIT=1 set, the very same functions run as plain Python (used by
the tests to check that both agree).
"""

import atexit
import hashlib
import os
import pathlib
import sys
import time

from .files import cache_folder

try:
    import numba
except ImportError:  # pragma: no cover - numba is part of the project's venv
    numba = None

ENABLED = numba is not None and os.environ.get('RALLY_SIM_NO_JIT', '') not in ('1', 'true')


KERNEL_SOURCES = ('physics/**/*.py', 'world/*.py', 'control/*_kernels.py',
                  'sim/*_kernels.py', 'campaign/compiled_loop.py')
"""The package's files that hold compiled functions or that they call (rally's set-up hashes
the same files to know when to compile again)."""


def kernel_sources(package: pathlib.Path):
    """Return the files of KERNEL_SOURCES under the package's folder."""
    return [path for pattern in KERNEL_SOURCES for path in package.glob(pattern)]


def _cache_dir() -> str:
    """
    Return a compiled-code cache folder named by the hash of the kernel sources.

    numba's own cache notices a change of the file that holds a function but
    not of the files it calls into, so an edit of tyre.py could leave a stale
    compiled model.py behind (or an edit of integrators.py a stale compiled
    loop). A folder per hash of every kernel source rules that out.
    """
    digest = hashlib.sha256()
    package = pathlib.Path(__file__).parent.parent
    for path in sorted(kernel_sources(package)):
        digest.update(str(path.relative_to(package)).encode() + b'\0' + path.read_bytes())
    return cache_folder('numba', digest.hexdigest()[:16])


COMPILING = ('rally_sim: compiling the physics kernels for this machine, once after an install '
             'or an update (one to four minutes; `./rally setup` does it for the whole project); '
             'later runs, from any install of the same sources, load them from the cache '
             'in {where}')
COMPILED = 'rally_sim: compiled {count} kernels in {seconds:.0f} s: {names}'

PACKAGE = pathlib.Path(__file__).resolve().parent.parent
"""The rally_sim package's folder, whichever path imported it."""


if ENABLED and not os.environ.get('NUMBA_CACHE_DIR'):
    numba.config.CACHE_DIR = _cache_dir()


if ENABLED:
    from numba.core import caching as numba_caching
    from numba.core import event as numba_event

    class PackageCacheLocator(numba_caching.UserProvidedCacheLocator):
        """
        Caches the package's kernels under their path inside the package, not the absolute one.

        numba names a cache entry's folder by the hash of the source file's
        absolute folder, so the same sources imported from the source tree,
        from colcon's build (a symlink) and from a pip install compiled three
        times over. Inside a cache folder that is already named by the hash of
        every kernel source (_cache_dir), the path within the package is all
        that tells two files apart; numba's own stamp (the file's content hash)
        and index key (bytecode, signature, CPU) still guard each entry.
        """

        def __init__(self, py_func, py_file: str):
            super().__init__(py_func, py_file)
            inside = pathlib.Path(py_file).resolve().parent.relative_to(PACKAGE)
            self._cache_path = os.path.join(numba.config.CACHE_DIR, 'rally_sim', *inside.parts)

        @classmethod
        def from_function(cls, py_func, py_file: str):
            """Locate the package's own files (None for any other: numba's locators take them)."""
            try:
                pathlib.Path(py_file).resolve().relative_to(PACKAGE)
            except (ValueError, OSError):
                return None
            return super().from_function(py_func, py_file)

    if PackageCacheLocator not in numba_caching.CacheImpl._locator_classes:
        numba_caching.CacheImpl._locator_classes.insert(0, PackageCacheLocator)

    class _Compiles(numba_event.Listener):
        """
        Says, once per process on stderr, that numba compiles (a cache miss) as it starts.

        And, when the process ends, which kernels were compiled and the time spent
        compiling them (the sum of the outermost compiles; nested ones are inside).
        """

        def __init__(self):
            self.depth = 0
            self.began_s = 0.0
            self.seconds = 0.0
            self.names = []

        def on_start(self, event) -> None:
            if not self.names:
                print(COMPILING.format(where=numba.config.CACHE_DIR), file=sys.stderr, flush=True)
                atexit.register(self.report)
            if self.depth == 0:
                self.began_s = time.monotonic()
                self.names.append(event.data['dispatcher'].py_func.__qualname__)
            self.depth += 1

        def on_end(self, event) -> None:
            self.depth -= 1
            if self.depth == 0:
                self.seconds += time.monotonic() - self.began_s

        def report(self) -> None:
            """Print what was compiled and how long the compiling took."""
            names = sorted(set(self.names))
            more = f' and {len(names) - 6} more' if len(names) > 6 else ''
            print(COMPILED.format(count=len(names), names=', '.join(names[:6]) + more,
                                  seconds=self.seconds), file=sys.stderr, flush=True)

    numba_event.register('numba:compile', _Compiles())


def njit(function):
    """Compile `function` in nopython mode (cached on disk) when JIT is enabled."""
    if not ENABLED:
        return function
    return numba.njit(cache=True, fastmath=False, error_model='numpy')(function)


def njit_inline(function):
    """njit(), the body inlined into each compiled caller (a hot helper split out for reuse)."""
    if not ENABLED:
        return function
    return numba.njit(cache=True, fastmath=False, error_model='numpy',
                      inline='always')(function)


def njit_parallel(function):
    """njit() with numba's parallel loops (prange) over the machine's cores."""
    if not ENABLED:
        return function
    return numba.njit(cache=True, fastmath=False, error_model='numpy', parallel=True)(function)


prange = numba.prange if ENABLED else range
"""The loop of an njit_parallel function whose iterations run on the cores (range without JIT)."""


def _fused_multiply_add(a: float, b: float, c: float) -> float:
    """Return a * b + c (plain Python: rounded twice; compiled: once, llvm.fma)."""
    return a * b + c


if ENABLED:
    from llvmlite import ir
    from numba.core import types
    from numba.extending import intrinsic

    @intrinsic
    def _fma_intrinsic(typing_context, a, b, c):
        """llvm.fma on three float64: one rounding, one vectorisable instruction (FMA3)."""
        signature = types.float64(types.float64, types.float64, types.float64)

        def codegen(context, builder, sig, args):
            double = ir.DoubleType()
            function = builder.module.declare_intrinsic(
                'llvm.fma', [double], ir.FunctionType(double, [double] * 3))
            return builder.call(function, args)
        return signature, codegen

    @numba.njit(cache=True, inline='always')
    def fma(a: float, b: float, c: float) -> float:
        """Return a * b + c rounded once (compiled: llvm.fma, vectorised with the loop)."""
        return _fma_intrinsic(a, b, c)
else:
    fma = _fused_multiply_add
