"""Int8 graphs whose output for one input row depends on that row alone.

onnxruntime's dynamic quantisation (``quantize_dynamic``) quantises each MatMul's input
with ``DynamicQuantizeLinear``: one scale and zero point for the whole tensor, computed
at every run. In a batch, the scale comes from the largest activation of any pair, so a
pair's scores move with its batch-mates: up to 0.08 in stance confidence and 7 labels of
400 HealthVer pairs between batches of 16 and single pairs (decision 0035), and the same
pair judged in two tasks could differ.

`quantise_rows` rewrites such a graph so that every activation row (one token of one
pair) gets its own scale: symmetric int8, ``scale = max|x_row| / 127``, stored as uint8
around a zero point of 128 (``QuantizeLinear`` per row of the flattened tensor). The
integer MatMul becomes ``MatMulIntegerToFloat`` (com.microsoft) with a unit input scale
and the weight's own scales, followed by a multiplication by the row scales; whatever
came after (bias, GELU, residual) is unchanged. The weights stay exactly as quantised.

Measured on the packaged stance graph (decision 0039): 1,917 HealthVer pairs in batches
of 16 against single pairs and reordered, max difference 5e-7 (was 0.47); features'
cosine to the fp32 graph mean 0.9987, min 0.991 (was 0.991, 0.913); about 15 % slower
(173 against 206 pairs/s, cross-encoder alone).

A quantiser whose outputs feed anything but the pattern ``quantize_dynamic`` writes
(MatMulInteger -> Cast -> Mul by input scale x weight scale) is left as it is.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import onnx

MS_DOMAIN = "com.microsoft"


@dataclass(frozen=True)
class _Chain:
    """One integer MatMul fed by a dynamic quantiser, and the nodes that rescale it."""

    matmul: onnx.NodeProto
    cast: onnx.NodeProto
    rescale: onnx.NodeProto  # Cast output x (input scale * weight scale)
    scales: onnx.NodeProto  # input scale * weight scale
    weight_scale: str


def _chains(
    quantiser: onnx.NodeProto,
    consumers: dict[str, list[onnx.NodeProto]],
    producer: dict[str, onnx.NodeProto],
) -> list[_Chain] | None:
    """The MatMul chains ``quantiser`` feeds, or None when its outputs go anywhere else."""
    quantised, scale, zero_point = quantiser.output
    chains = []
    for matmul in consumers.get(quantised, []):
        if matmul.op_type != "MatMulInteger" or matmul.input[0] != quantised:
            return None
        after = consumers.get(matmul.output[0], [])
        if len(after) != 1 or after[0].op_type != "Cast":
            return None
        cast = after[0]
        after = consumers.get(cast.output[0], [])
        if len(after) != 1 or after[0].op_type != "Mul":
            return None
        rescale = after[0]
        other = [name for name in rescale.input if name != cast.output[0]]
        scales = producer.get(other[0]) if len(other) == 1 else None
        if scales is None or scales.op_type != "Mul" or scale not in scales.input:
            return None
        if len(consumers.get(scales.output[0], [])) != 1:
            return None
        weight_scale = [name for name in scales.input if name != scale]
        if len(weight_scale) != 1:
            return None
        chains.append(_Chain(matmul, cast, rescale, scales, weight_scale[0]))
    users = {id(node) for name in (scale, zero_point) for node in consumers.get(name, [])}
    expected = {id(c.scales) for c in chains} | {id(c.matmul) for c in chains}
    if not chains or not users <= expected:
        return None
    return chains


def quantise_rows(model: onnx.ModelProto) -> int:
    """Rewrite ``model`` in place (see the module doc); returns the quantisers rewritten."""
    from onnx import TensorProto, helper, numpy_helper

    graph = model.graph
    consumers: dict[str, list[onnx.NodeProto]] = defaultdict(list)
    producer: dict[str, onnx.NodeProto] = {}
    for node in graph.node:
        for name in node.input:
            consumers[name].append(node)
        for name in node.output:
            producer[name] = node
    weights = {init.name: init for init in graph.initializer}
    constants: dict[str, np.ndarray] = {
        "rowq_eps": np.array(1e-8, dtype=np.float32),  # an all-zero row keeps a scale
        "rowq_inv127": np.array(1 / 127, dtype=np.float32),
        "rowq_flat": np.array([-1], dtype=np.int64),
        "rowq_unit": np.array(1.0, dtype=np.float32),
        "rowq_zero_point": np.array(128, dtype=np.uint8),
    }
    dropped: set[int] = set()
    replaced: dict[int, list[onnx.NodeProto]] = {}
    rewritten = 0
    for quantiser in graph.node:
        if quantiser.op_type != "DynamicQuantizeLinear":
            continue
        chains = _chains(quantiser, consumers, producer)
        if chains is None or any(c.matmul.input[1] not in weights for c in chains):
            continue
        depth = {int(weights[c.matmul.input[1]].dims[0]) for c in chains}
        if len(depth) != 1:
            continue
        rewritten += 1
        x, quantised = quantiser.input[0], quantiser.output[0]
        p = f"rowq{rewritten}_"
        constants[p + "rows"] = np.array([-1, depth.pop()], dtype=np.int64)
        row_scale = p + "scale"
        replaced[id(quantiser)] = [
            helper.make_node("Abs", [x], [p + "abs"]),
            helper.make_node("ReduceMax", [p + "abs"], [p + "max"], axes=[-1], keepdims=1),
            helper.make_node("Max", [p + "max", "rowq_eps"], [p + "max_eps"]),
            helper.make_node("Mul", [p + "max_eps", "rowq_inv127"], [row_scale]),
            helper.make_node("Reshape", [row_scale, "rowq_flat"], [p + "scale_flat"]),
            helper.make_node("Shape", [p + "scale_flat"], [p + "rows_shape"]),
            helper.make_node(
                "ConstantOfShape",
                [p + "rows_shape"],
                [p + "zero_points"],
                value=numpy_helper.from_array(np.array([128], dtype=np.uint8)),
            ),
            helper.make_node("Reshape", [x, p + "rows"], [p + "x2d"]),
            helper.make_node(
                "QuantizeLinear",
                [p + "x2d", p + "scale_flat", p + "zero_points"],
                [p + "q2d"],
                axis=0,
            ),
            helper.make_node("Shape", [x], [p + "x_shape"]),
            helper.make_node("Reshape", [p + "q2d", p + "x_shape"], [quantised]),
        ]
        for chain in chains:
            dropped.update({id(chain.matmul), id(chain.cast), id(chain.scales)})
            out = chain.rescale.output[0]
            replaced[id(chain.rescale)] = [
                helper.make_node(
                    "MatMulIntegerToFloat",
                    [
                        quantised,
                        chain.matmul.input[1],
                        "rowq_unit",
                        chain.weight_scale,
                        "rowq_zero_point",
                        chain.matmul.input[3] if len(chain.matmul.input) > 3 else "",
                    ],
                    [out + "_unscaled"],
                    domain=MS_DOMAIN,
                    name=(chain.matmul.name or out) + "_rows",
                ),
                helper.make_node("Mul", [out + "_unscaled", row_scale], [out]),
            ]
    if not rewritten:
        return 0
    nodes = []
    for node in graph.node:
        if id(node) not in dropped:
            nodes.extend(replaced.get(id(node), [node]))
    del graph.node[:]
    graph.node.extend(nodes)
    graph.initializer.extend(numpy_helper.from_array(v, k) for k, v in constants.items())
    # Shapes recorded for the old scalar scales and zero points no longer hold.
    kept = [v for v in graph.value_info if v.type.tensor_type.elem_type != TensorProto.UINT8]
    outputs = {name for node in graph.node for name in node.output}
    kept = [v for v in kept if v.name in outputs]
    del graph.value_info[:]
    graph.value_info.extend(kept)
    if not any(o.domain == MS_DOMAIN for o in model.opset_import):
        model.opset_import.append(helper.make_opsetid(MS_DOMAIN, 1))
    return rewritten


def quantise_rows_file(source: Path, target: Path) -> int:
    """`quantise_rows` from one ONNX file into another (the same path is fine)."""
    import onnx

    model = onnx.load(str(source))
    count = quantise_rows(model)
    onnx.save(model, str(target))
    return count
