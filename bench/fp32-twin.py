"""An fp32 twin of a dynamically quantized ONNX encoder, for bench/embedding-throughput.ts.

docqa loaded fp32 weights by default before it picked int8 on the CPU; the shared models hold only
the int8 file (onnx/model_quantized.onnx), so the benchmark times that old default on a twin: the
same graph with every integer matrix product (DynamicQuantizeLinear -> MatMulInteger -> Cast ->
Mul by the two scales) replaced by a float MatMul with the dequantized weights,
W = (W_int8 - zero_point) * scale. The twin does the same float work per token as the original fp32
model, so its speed stands for it; its weights are the int8 model's, so its vectors are not the
original fp32 model's (they agree with the int8 model's at cosine >= 0.98 or so).

Usage: python fp32-twin.py <model_quantized.onnx> <model.onnx>. Needs the onnx and numpy packages
(the benchmark runs it in bench/.venv/onnx, created from PyPI).
"""

import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper


def main(source: str, target: str) -> None:
    model = onnx.load(source)
    graph = model.graph
    initializers = {initializer.name: initializer for initializer in graph.initializer}
    constants = {node.output[0]: numpy_helper.to_array(node.attribute[0].t) for node in graph.node if node.op_type == "Constant"}

    def value(name: str) -> np.ndarray:
        return numpy_helper.to_array(initializers[name]) if name in initializers else constants[name]

    producer = {output: node for node in graph.node for output in node.output}
    consumers: dict[str, list] = {}
    for node in graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)

    replaced = set()
    weights = []
    for node in list(graph.node):
        if node.op_type != "MatMulInteger":
            continue
        quantized_input, quantized_weight, _input_zero_point, weight_zero_point = node.input
        quantize = producer[quantized_input]
        cast = consumers[node.output[0]][0]
        rescale = consumers[cast.output[0]][0]
        if quantize.op_type != "DynamicQuantizeLinear" or cast.op_type != "Cast" or rescale.op_type != "Mul":
            raise SystemExit(f"unexpected pattern around {node.name}")
        scales = producer[next(name for name in rescale.input if name != cast.output[0])]
        weight_scale = next(name for name in scales.input if name != quantize.output[1])
        dequantized = (value(quantized_weight).astype(np.float32) - value(weight_zero_point).astype(np.float32)) * value(weight_scale).astype(np.float32)
        weight_name = f"{quantized_weight}_fp32"
        weights.append(numpy_helper.from_array(dequantized.astype(np.float32), weight_name))
        graph.node.insert(list(graph.node).index(node), helper.make_node("MatMul", [quantize.input[0], weight_name], [rescale.output[0]], name=f"{node.name}_fp32"))
        replaced.update({id(node), id(cast), id(rescale)})

    kept = [node for node in graph.node if id(node) not in replaced]
    del graph.node[:]
    graph.node.extend(kept)
    graph.initializer.extend(weights)
    # Drop what no longer feeds anything (the activation quantizers, the scale products).
    outputs = {output.name for output in graph.output}
    while True:
        used = {name for node in graph.node for name in node.input} | outputs
        dead = [node for node in graph.node if not any(output in used for output in node.output)]
        if not dead:
            break
        for node in dead:
            graph.node.remove(node)
    used = {name for node in graph.node for name in node.input}
    live = [initializer for initializer in graph.initializer if initializer.name in used]
    del graph.initializer[:]
    graph.initializer.extend(live)
    onnx.checker.check_model(model)
    onnx.save(model, target)
    print(f"{len(weights)} integer matrix products made float: {target}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
