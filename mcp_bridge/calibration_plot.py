"""`lyra calibration plot`: a reliability diagram a person can look at (issue 14).

Draws what ``calibrate(action="get_diagram_data")`` returns: per bin the share of right
predictions against their mean probability, the bins' counts as bars behind, the
diagonal of perfect calibration, and the ECE in the title.
"""

from __future__ import annotations

import io
from typing import Any


class PlotUnavailable(RuntimeError):
    """matplotlib is not installed."""


def render_reliability(diagram: dict[str, Any]) -> bytes:
    """``diagram`` (get_diagram_data's result) as the bytes of a PNG; the caller writes
    them, whole or not at all."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise PlotUnavailable(
            "matplotlib is not installed: pip install matplotlib (it comes with Lyra's setup)"
        ) from exc
    bins = diagram["bins"]
    figure, axes = plt.subplots(figsize=(5.5, 5))
    counts = axes.twinx()
    centres = [(b["lower"] + b["upper"]) / 2 for b in bins]
    width = bins[0]["upper"] - bins[0]["lower"] if bins else 0.1
    counts.bar(centres, [b["count"] for b in bins], width=width * 0.9, color="#dddddd")
    counts.set_ylabel("samples in the bin")
    axes.set_zorder(counts.get_zorder() + 1)
    axes.patch.set_visible(False)
    axes.plot([0, 1], [0, 1], linestyle="--", color="grey", label="perfect calibration")
    filled = [b for b in bins if b["count"]]
    axes.plot(
        [b["mean_confidence"] for b in filled],
        [b["accuracy"] for b in filled],
        marker="o",
        color="#1f5fa8",
        label="share right",
    )
    version = diagram.get("calibration_version")
    where = f"evaluation {diagram['evaluation_id']}" if diagram.get("evaluation_id") else "samples"
    axes.set(
        xlabel="predicted probability",
        ylabel="share of predictions that were right",
        xlim=(0, 1),
        ylim=(0, 1),
        title=(
            f"{diagram['source']}: ECE {diagram['overall_ece']:.3f}\n"
            f"{diagram['samples']} predictions ({where}), calibration version {version}"
        ),
    )
    axes.legend(loc="upper left", fontsize=8)
    figure.tight_layout()
    png = io.BytesIO()
    figure.savefig(png, format="png", dpi=120)
    plt.close(figure)
    return png.getvalue()
