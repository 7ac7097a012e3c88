"""The vector-width variants: the loader's choice, its refusals, and agreement of results."""
import numpy as np
import pytest

import drfbench
from drfbench import _isa, build_variants
from drfbench._variants import VARIANTS, WIDEST_FIRST, on_x86, to_build
from conftest import ROOT


def test_default_is_the_widest_runnable(monkeypatch):
    monkeypatch.delenv(_isa.ENV_VARIABLE, raising=False)
    runnable = _isa.runnable()
    assert "generic" in runnable
    assert _isa.resolve() == next(v for v in WIDEST_FIRST if v in runnable)


def test_the_default_build_is_generic_and_the_widest_the_cpu_runs():
    avx2_cpu, avx512_cpu = {"avx", "avx2", "fma"}, set(VARIANTS["avx512"].cpu_flags)
    if on_x86():
        assert to_build(None, avx2_cpu) == ["generic", "avx2"]
        assert to_build(None, avx512_cpu) == ["generic", "avx512"]
        assert to_build("all", set()) == list(VARIANTS)
    assert to_build(None, set()) == ["generic"]
    assert to_build("scalar", avx2_cpu) == ["scalar", "generic"]          # generic always
    assert to_build(None, set(), built_before=["scalar"]) == ["scalar", "generic"]
    with pytest.raises(ValueError, match="DRFBENCH_VARIANTS: unknown kernel variant 'sse9'.*or all"):
        to_build("scalar,sse9", set())


def test_environment_variable_and_argument(monkeypatch):
    monkeypatch.setenv(_isa.ENV_VARIABLE, "generic")
    assert _isa.resolve() == "generic"
    assert drfbench.allocate(np.array([[0.5]])).isa == "generic"
    widest = _isa.runnable()[-1]
    assert _isa.resolve(widest) == widest            # the argument wins


def test_unknown_variant_rejected(monkeypatch):
    with pytest.raises(ValueError, match="unknown kernel variant 'sse9'.*avx2"):
        drfbench.allocate(np.array([[0.5]]), isa="sse9")
    monkeypatch.setenv(_isa.ENV_VARIABLE, "avx1024")
    with pytest.raises(ValueError, match="DRFBENCH_ISA"):
        _isa.resolve()


def test_variant_the_cpu_lacks_is_refused_before_loading(monkeypatch):
    monkeypatch.setattr(_isa, "cpu_flags", lambda: {"sse4_2", "avx", "avx2", "fma"})
    loaded = []
    monkeypatch.setattr(_isa, "_load", lambda name: loaded.append(name))
    with pytest.raises(_isa.UnsupportedVariantError, match="avx512f"):
        drfbench.allocate(np.array([[0.5]]), isa="avx512")
    assert loaded == [] and "avx512" not in _isa.runnable()


@pytest.mark.parametrize("isa", [v for v in _isa.VARIANTS if v in _isa.runnable()])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_every_runnable_variant_gives_the_same_bits(isa, dtype):
    """Vector width changes the speed, not the result: no variant contracts a*b+c into an FMA
    (_variants.OPT_FLAGS), so each gives the generic build's allocation bit for bit."""
    rng = np.random.default_rng(5)
    for _ in range(3):
        D = np.where(rng.random((1500, 150)) < 0.05, rng.random((1500, 150)), 0.0)
        for method, options in [("dcdrf", {"epsilon": 1e-3, "threads": 2}),
                                ("sdcdrf", {"epsilon": 1e-2}), ("edrf", {}),
                                ("edrf-event", {"threads": 2})]:
            ref = drfbench.allocate(D, method, isa="generic", dtype=dtype, **options)
            got = drfbench.allocate(D, method, isa=isa, dtype=dtype, **options)
            assert got.isa == isa and got.rounds == ref.rounds
            np.testing.assert_array_equal(got.allocation.data, ref.allocation.data)
            np.testing.assert_array_equal(got.level, ref.level)


def test_a_variant_that_was_not_built_is_not_chosen(monkeypatch):
    monkeypatch.delenv(_isa.ENV_VARIABLE, raising=False)
    real = _isa.importlib.util.find_spec
    monkeypatch.setattr(_isa.importlib.util, "find_spec",
                        lambda name: None if name.startswith("drfbench._kernels_") else real(name))
    assert _isa.resolve() == "generic"
    with pytest.raises(_isa.VariantNotBuiltError,
                       match=r"'scalar' \(isa argument\) was not built here; build it with: "
                             r"python -m drfbench.build_variants scalar$"):
        _isa.resolve("scalar")


@pytest.mark.parametrize("isa", [v for v in _isa.VARIANTS
                                 if _isa.built(v) and not _isa.missing_features(v)])
def test_every_kernel_of_a_built_variant_loads(isa):
    """Each variant's modules hold that variant's code: a module compiled with wider
    instructions (as once happened when variants compiled in parallel shared an object
    file) dies of SIGILL on import, so import them in a child process. It has a module
    for every kernel source, drfbench/**/<name>.pyx, by its file name (setup.py's rule);
    a variant the vector-width sweep added (`build_variants --family dcdrf`), at least the
    DC-DRF family's and the house's (platform)."""
    import ast
    import subprocess
    import sys
    code = f"from drfbench import _isa; print(sorted(vars(_isa.kernels({isa!r}))))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, f"variant {isa}: exit {done.returncode}\n{done.stderr[-2000:]}"
    sources = {p.stem for p in (ROOT / "drfbench").rglob("*.pyx")}
    assert "dcdrf" in sources and "platform" in sources
    kernels = set(ast.literal_eval(done.stdout)) - {"name", "compile_flags"}
    family = {p.stem for p in (ROOT / "drfbench/dcdrf").glob("*.pyx")} | {"platform"}
    if isa in ("generic", _isa.resolve()) or isa in _isa.runnable():   # built whole
        assert kernels == sources
    else:
        assert family <= kernels < sources


@pytest.mark.parametrize("kernels, chosen", [({"dcdrf", "platform"}, False), (None, True)])
def test_a_variant_built_in_part_is_given_by_name_only(monkeypatch, kernels, chosen):
    """A variant `build_variants --family dcdrf` built (the smoke's vector-width sweep) is
    given when asked by name, but runnable() (what every test that tries each variant, and
    the default choice, read) holds only variants built whole: after the smoke, a DRFH test
    on the part-built `scalar` stopped on its missing kernel (CI, 2026-11-27)."""
    whole = _isa._kernel_names("generic")
    names, built = _isa._kernel_names, _isa.built
    monkeypatch.setattr(_isa, "built", lambda name: name == "scalar" or built(name))
    monkeypatch.setattr(_isa, "_kernel_names", lambda name: (kernels or whole) if name == "scalar"
                        else names(name))
    assert ("scalar" in _isa.runnable()) == chosen
    assert _isa.resolve("scalar") == "scalar"


def test_a_kernel_a_variant_was_built_without_names_the_command_that_builds_it():
    kernels = _isa.Kernels(name="scalar", compile_flags="", dcdrf="the module")
    assert kernels.dcdrf == "the module" and not hasattr(kernels, "__wrapped__")
    with pytest.raises(_isa.VariantNotBuiltError,
                       match=r"^kernel variant 'scalar' was built here without its kernel 'drf'; "
                             r"build it with: python -m drfbench.build_variants scalar$"):
        kernels.drf


def test_build_variants_outside_a_checkout_checks_or_names_the_reinstall(monkeypatch, tmp_path, capsys):
    """Installed without the sources (no setup.py beside the package), build_variants
    cannot build: it passes when the variants are there and otherwise says how to get them."""
    monkeypatch.setattr(build_variants, "CHECKOUT", tmp_path)
    with pytest.raises(SystemExit) as done:
        build_variants.main(["generic"])
    assert done.value.code == 0 and "generic already built" in capsys.readouterr().err
    monkeypatch.setattr(build_variants, "built", lambda name: name == "generic")
    with pytest.raises(SystemExit) as done:
        build_variants.main(["generic", "scalar"])
    assert done.value.code == 2
    assert "DRFBENCH_VARIANTS=generic,scalar pip install CHECKOUT" in capsys.readouterr().err


def test_build_variants_names_what_it_lacks(monkeypatch, capsys):
    with pytest.raises(SystemExit) as done:
        build_variants.main(["sse9"])
    assert done.value.code == 2 and "invalid choice: 'sse9'" in capsys.readouterr().err
    real = build_variants.importlib.util.find_spec
    monkeypatch.setattr(build_variants.importlib.util, "find_spec",
                        lambda name: None if name == "Cython" else real(name))
    with pytest.raises(SystemExit) as done:
        build_variants.main(["scalar"])
    assert done.value.code == 2 and "building needs Cython" in capsys.readouterr().err


def test_build_variants_refuses_a_family_without_kernels(capsys):
    with pytest.raises(SystemExit) as done:
        build_variants.main(["--family", "nope", "scalar"])
    assert done.value.code == 2
    assert "--family nope: no kernel source in drfbench/nope/" in capsys.readouterr().err
