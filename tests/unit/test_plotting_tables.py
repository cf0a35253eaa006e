"""Tables drawn as figures (privacy tables, Table I-III): no header or cell is cut, whatever its length."""

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

from repro.plotting import close, draw_tables, table_layout  # noqa: E402


def _cut_cells(fig):
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    cut = []
    for ax in fig.axes:
        for tab in ax.tables:
            for (r, c), cell in tab.get_celld().items():
                box, text = cell.get_window_extent(renderer), cell.get_text().get_window_extent(renderer)
                if text.width and (text.x0 < box.x0 - 0.5 or text.x1 > box.x1 + 0.5 or text.y0 < box.y0 - 0.5
                                   or text.y1 > box.y1 + 0.5):
                    cut.append((r, c, cell.get_text().get_text()))
    return cut


@pytest.mark.parametrize("widths", [None, "auto", [0.5, 0.1, 0.1, 0.1, 0.1, 0.1]])
def test_no_header_or_cell_is_cut(widths):
    header = ["panel", "nominal eps (eq. 8)", "RDP upper bound: eq. (7) Delta s", "... tight (PLD)",
              "... RDP, samples held", "z per T (eq. 7)"]
    rows = [["DNN / MNIST", 10, 151, 142, 182, ", ".join(f"{0.0679 * k:.4g}" for k in range(1, 14))],
            ["MLR / MNIST", 100, "1.2e+04", "1.1e+04", "1.2e+04", "0.0068, 0.0096"]]
    fig = draw_tables([(None, header, rows), ("a second block", header[:2], [["x", "y"]])], "A table", "quick",
                      fontsize=7, col_widths=widths)
    try:
        assert _cut_cells(fig) == []
    finally:
        close(fig)


def test_layout_wraps_long_headers_and_number_lists():
    head, body, cols, lines = table_layout(["a very long column header of many words"], [["1, 2, 3, " * 10]])
    assert max(len(x) for x in head[0].split("\n")) <= 16 and lines[0] >= 3
    assert max(len(x) for x in body[0][0].split("\n")) <= 44 and lines[1] >= 2 and cols[0] <= 44
