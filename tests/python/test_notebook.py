"""examples/tour.ipynb runs cell by cell in a real Jupyter kernel; a cell
that raises fails the test (and CI)."""

import os
import pathlib
import sys

import pytest

nbclient = pytest.importorskip("nbclient", reason="the test extra installs nbclient and ipykernel")
nbformat = pytest.importorskip("nbformat")

TOUR = pathlib.Path(__file__).resolve().parents[2] / "examples" / "tour.ipynb"


def test_tour_notebook_runs_without_errors(tmp_path):
    notebook = nbformat.read(TOUR, as_version=4)
    # One more cell says which interpreter the kernel runs: it must be this
    # one, so that the notebook imports the Ember under test.
    notebook.cells.append(nbformat.v4.new_code_cell("import sys; print(sys.executable)"))
    client = nbclient.NotebookClient(notebook, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()  # raises CellExecutionError, naming the cell, if one fails
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    kernel_python = notebook.cells[-1].outputs[0]["text"].strip()
    assert os.path.realpath(kernel_python) == os.path.realpath(sys.executable)
    # The tensors' HTML view reached the notebook.
    pages = [o["data"]["text/html"] for o in outputs
             if o.output_type == "execute_result" and "text/html" in o.get("data", {})]
    assert any("ember.Tensor" in page and "<table>" in page for page in pages)
