"""Reference embedding pipelines for bench/embedding-throughput.ts: fastembed (Qdrant) and
sentence-transformers (ONNX backend), on the same texts, model files and cores as docqa.

Reads one JSON object per line ({"text": ...}) from --texts, embeds them all with the library's
defaults (fastembed: batch 256, ONNX Runtime with --threads intra-op threads; sentence-transformers:
batch 32, sorted by length, ONNX Runtime's default threads), writes the unit-length vectors in input
order as little-endian float32 to --output, and prints one JSON line with the timing: wall seconds
and CPU seconds of the process (all threads). The model is loaded and warmed up on 8 texts before
the clocks start.

Run by the benchmark inside its own virtual environment (bench/.venv/<library>), never directly
against the system Python.
"""

import argparse
import json
import sys
import time

import numpy as np


def embed_fastembed(args, texts):
    import fastembed
    from fastembed import TextEmbedding
    from fastembed.common.model_description import ModelSource, PoolingType

    # A name fastembed does not know, so that it registers these files rather than its own download.
    name = f"docqa-bench/{args.model_name.split('/')[-1]}"
    TextEmbedding.add_custom_model(
        model=name,
        pooling=PoolingType.CLS if args.pooling == "cls" else PoolingType.MEAN,
        normalization=True,
        sources=ModelSource(hf=name),
        dim=args.dimension,
        model_file=args.model_file,
    )
    model = TextEmbedding(model_name=name, specific_model_path=args.model_dir, threads=args.threads, local_files_only=True)
    list(model.embed(texts[:8]))
    started, cpu = time.perf_counter(), time.process_time()
    vectors = np.stack(list(model.embed(texts)))
    return vectors, time.perf_counter() - started, time.process_time() - cpu, {"version": fastembed.__version__, "batchSize": 256}


def embed_sentence_transformers(args, texts):
    import sentence_transformers
    from sentence_transformers import SentenceTransformer, models

    transformer = models.Transformer(
        args.model_dir,
        backend="onnx",
        model_kwargs={"file_name": args.model_file, "provider": "CPUExecutionProvider"},
        max_seq_length=512,
    )
    pooling = models.Pooling(args.dimension, pooling_mode=args.pooling)
    model = SentenceTransformer(modules=[transformer, pooling, models.Normalize()], device="cpu", backend="onnx")
    model.encode(texts[:8])
    started, cpu = time.perf_counter(), time.process_time()
    vectors = model.encode(texts)
    return vectors, time.perf_counter() - started, time.process_time() - cpu, {"version": sentence_transformers.__version__, "batchSize": 32}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--library", choices=["fastembed", "sentence-transformers"], required=True)
    parser.add_argument("--texts", required=True)
    parser.add_argument("--model-dir", required=True)
    parser.add_argument("--model-name", required=True)
    parser.add_argument("--model-file", default="onnx/model_quantized.onnx")
    parser.add_argument("--pooling", choices=["mean", "cls"], required=True)
    parser.add_argument("--dimension", type=int, required=True)
    parser.add_argument("--threads", type=int, required=True)
    parser.add_argument("--output", required=True)
    args = parser.parse_args()
    with open(args.texts, encoding="utf-8") as lines:
        texts = [json.loads(line)["text"] for line in lines if line.strip()]
    embed = embed_fastembed if args.library == "fastembed" else embed_sentence_transformers
    vectors, seconds, cpu_seconds, details = embed(args, texts)
    np.ascontiguousarray(vectors, dtype="<f4").tofile(args.output)
    json.dump({"library": args.library, "chunks": len(texts), "seconds": seconds, "cpuSeconds": cpu_seconds, **details}, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
