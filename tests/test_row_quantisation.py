"""Per-row activation quantisation of int8 ONNX graphs (decision 0039).

A two-layer graph quantised by onnxruntime's ``quantize_dynamic`` (the way Lyra's stance
graph and pulled models are) gives a row a result that depends on the other rows of
its batch; rewritten by `quantise_rows`, each row's result depends on that row alone,
and stays as close to the float graph as before or closer.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnxruntime.quantization import QuantType, quantize_dynamic

from lyra.pipelines.evidence.row_quantisation import quantise_rows, quantise_rows_file

DIMS = (64, 48, 8)


def _float_graph(path: Path) -> Path:
    """x (batch, tokens, 64) -> MatMul -> +bias -> Relu -> MatMul -> y (batch, tokens, 8)."""
    rng = np.random.default_rng(7)
    w1 = rng.normal(0, 0.2, (DIMS[0], DIMS[1])).astype(np.float32)
    b1 = rng.normal(0, 0.1, DIMS[1]).astype(np.float32)
    w2 = rng.normal(0, 0.2, (DIMS[1], DIMS[2])).astype(np.float32)
    graph = helper.make_graph(
        [
            helper.make_node("MatMul", ["x", "w1"], ["h"]),
            helper.make_node("Add", ["h", "b1"], ["hb"]),
            helper.make_node("Relu", ["hb"], ["r"]),
            helper.make_node("MatMul", ["r", "w2"], ["y"]),
        ],
        "two_layers",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "tokens", DIMS[0]])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", "tokens", DIMS[2]])],
        [
            numpy_helper.from_array(w1, "w1"),
            numpy_helper.from_array(b1, "b1"),
            numpy_helper.from_array(w2, "w2"),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(path))
    return path


def _run(path: Path, x: np.ndarray) -> np.ndarray:
    # x86 CPUs without VNNI (AVX2 only) saturate onnxruntime's u8 x s8 products; this
    # option has it widen them, so the error measured is the quantisation's, not the
    # CPU's (a VNNI CPU gives the same figures with or without it).
    options = ort.SessionOptions()
    options.add_session_config_entry("session.x64quantprecision", "1")
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    return np.asarray(session.run(["y"], {"x": x})[0])


@pytest.fixture(scope="module")
def graphs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("rows")
    fp32 = _float_graph(folder / "fp32.onnx")
    tensor = folder / "int8_tensor.onnx"
    quantize_dynamic(str(fp32), str(tensor), weight_type=QuantType.QInt8, per_channel=True)
    rows = folder / "int8_rows.onnx"
    assert quantise_rows_file(tensor, rows) == 2
    return {"fp32": fp32, "tensor": tensor, "rows": rows}


def _inputs() -> tuple[np.ndarray, np.ndarray]:
    """One ordinary pair of rows, and a batch where it meets a row 40 times larger."""
    rng = np.random.default_rng(11)
    alone = rng.normal(0, 1, (1, 2, DIMS[0])).astype(np.float32)
    loud = rng.normal(0, 40, (1, 2, DIMS[0])).astype(np.float32)
    return alone, np.concatenate([loud, alone, loud])


def test_per_tensor_quantisation_lets_batch_mates_move_a_row(graphs: dict[str, Path]) -> None:
    alone, batch = _inputs()
    moved = np.abs(_run(graphs["tensor"], batch)[1] - _run(graphs["tensor"], alone)[0]).max()
    assert moved > 0.05  # what the rewrite is for


def test_per_row_quantisation_gives_each_row_its_own_result(graphs: dict[str, Path]) -> None:
    alone, batch = _inputs()
    np.testing.assert_allclose(
        _run(graphs["rows"], batch)[1], _run(graphs["rows"], alone)[0], rtol=0, atol=1e-6
    )


def test_per_row_results_stay_close_to_the_float_graph(graphs: dict[str, Path]) -> None:
    _, batch = _inputs()
    reference = _run(graphs["fp32"], batch)
    rows_error = np.abs(_run(graphs["rows"], batch) - reference)[1].max()
    tensor_error = np.abs(_run(graphs["tensor"], batch) - reference)[1].max()
    scale = np.abs(reference[1]).max()
    assert rows_error < 0.02 * scale
    assert rows_error < tensor_error


def test_the_weights_stay_as_quantised(graphs: dict[str, Path]) -> None:
    def int8_weights(path: Path) -> dict[str, bytes]:
        graph = onnx.load(str(path)).graph
        return {i.name: i.raw_data for i in graph.initializer if i.data_type == TensorProto.INT8}

    before, after = int8_weights(graphs["tensor"]), int8_weights(graphs["rows"])
    assert sorted(before) == sorted(after)
    assert len(before) == 4  # two weights, two per-channel zero points
    assert all(before[name] == after[name] for name in before)
    ops = [n.op_type for n in onnx.load(str(graphs["rows"])).graph.node]
    assert "DynamicQuantizeLinear" not in ops
    assert ops.count("MatMulIntegerToFloat") == 2


def test_a_quantiser_feeding_anything_else_is_left_alone(graphs: dict[str, Path]) -> None:
    model = onnx.load(str(graphs["tensor"]))
    quantiser = next(n for n in model.graph.node if n.op_type == "DynamicQuantizeLinear")
    # Something outside the quantize_dynamic pattern reads its scale.
    model.graph.node.append(helper.make_node("Identity", [quantiser.output[1]], ["peek"]))
    model.graph.output.append(helper.make_tensor_value_info("peek", TensorProto.FLOAT, []))
    before = [n.op_type for n in model.graph.node]
    assert quantise_rows(model) == 1  # the other quantiser only
    after = [n.op_type for n in model.graph.node]
    assert after.count("DynamicQuantizeLinear") == before.count("DynamicQuantizeLinear") - 1
    assert after.count("MatMulInteger") == 1


def test_a_graph_without_dynamic_quantisers_is_unchanged(graphs: dict[str, Path]) -> None:
    model = onnx.load(str(graphs["fp32"]))
    before = model.SerializeToString()
    assert quantise_rows(model) == 0
    assert model.SerializeToString() == before
