"""drfbench.figures' grid of small multiples: labels where a reader looks for them, no
empty panel drawn."""
import pytest

from drfbench import figures


@pytest.mark.parametrize("n, cols, shape", [(5, 3, (2, 3)), (3, 3, (1, 3)), (1, 2, (1, 2))])
def test_panels_label_the_outer_axes_and_switch_off_the_unused(n, cols, shape):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = figures.panels(n, "time", "share", cols=cols)
    try:
        assert axes.shape == shape
        assert [ax.get_xlabel() for ax in axes[-1]] == ["time"] * shape[1]
        assert [ax.get_ylabel() for ax in axes[:, 0]] == ["share"] * shape[0]
        assert all(ax.get_xlabel() == "" for ax in axes[:-1].flat)
        assert all(ax.get_ylabel() == "" for ax in axes[:, 1:].flat)
        assert [ax.axison for ax in axes.flat] == [True] * n + [False] * (axes.size - n)
    finally:
        plt.close(fig)
