"""Builds the tiny cross-encoder test fixture (packages/core/test-fixtures/tiny-cross-encoder).

A stand-in with no weights, in the layout transformers.js loads for a BERT sequence classifier
(`config.json`, `onnx/model.onnx`), so that tests run the real `CrossEncoderReranker` scoring path
(pair tokenisation, the ONNX session, the logits, the logistic) in the caller thread and in the
reranker thread. Its logit is a known function of the tokenised pair:

    logit = 0.1 * (passage tokens - query tokens)

counting the tokens the attention mask keeps, with `token_type_ids` 1 for the passage segment
([SEP] included). The tokenizer files are not part of the fixture: tests copy them from a BERT
model in ../shared/data/models (all-MiniLM-L6-v2 uses the uncased BERT vocabulary).

Usage: python scripts/make-tiny-cross-encoder.py   (needs the `onnx` package)
"""
import json
import pathlib

import onnx
from onnx import TensorProto, helper

root = pathlib.Path(__file__).resolve().parent.parent / "packages/core/test-fixtures/tiny-cross-encoder"
(root / "onnx").mkdir(parents=True, exist_ok=True)

inputs = [
    helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "sequence"])
    for name in ("input_ids", "attention_mask", "token_type_ids")
]
output = helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 1])
nodes = [
    helper.make_node("Cast", ["attention_mask"], ["mask"], to=TensorProto.FLOAT),
    helper.make_node("Cast", ["token_type_ids"], ["segment"], to=TensorProto.FLOAT),
    helper.make_node("Mul", ["mask", "segment"], ["passage_mask"]),
    helper.make_node("ReduceSum", ["passage_mask", "axis"], ["passage"], keepdims=1),
    helper.make_node("ReduceSum", ["mask", "axis"], ["total"], keepdims=1),
    helper.make_node("Sub", ["total", "passage"], ["query"]),
    helper.make_node("Sub", ["passage", "query"], ["difference"]),
    helper.make_node("Mul", ["difference", "scale"], ["logits"]),
]
initializers = [
    helper.make_tensor("axis", TensorProto.INT64, [1], [1]),
    helper.make_tensor("scale", TensorProto.FLOAT, [], [0.1]),
]
graph = helper.make_graph(nodes, "tiny-cross-encoder", inputs, [output], initializers)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="docqa")
model.ir_version = 8
onnx.checker.check_model(model)
onnx.save(model, root / "onnx/model.onnx")

config = {
    "architectures": ["BertForSequenceClassification"],
    "model_type": "bert",
    "num_labels": 1,
    "id2label": {"0": "LABEL_0"},
    "label2id": {"LABEL_0": 0},
    "max_position_embeddings": 512,
    "vocab_size": 30522,
}
(root / "config.json").write_text(json.dumps(config, indent=2) + "\n")
print("wrote", root)
