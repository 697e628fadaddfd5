/**
 * Python virtual environments of the benchmarks, created from PyPI on first use in `bench/.venv/`
 * (git-ignored): the embedding references (fastembed, sentence-transformers) and onnx, which builds
 * the fp32 twin of an int8 model (`fp32-twin.py`) into `bench/.models/` (git-ignored).
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { LocalModel } from "@docqa/core/testing";

const root = join(import.meta.dirname, "..");
const venvRoot = join(root, "bench", ".venv");

/** The Python environments: the references (library, pinned PyPI requirement) and the fp32 twin's builder. */
const environments = [
  { library: "fastembed", requirement: "fastembed==0.9.1" },
  { library: "sentence-transformers", requirement: "sentence-transformers[onnx]==5.7.0" },
  { library: "onnx", requirement: "onnx==1.23.2 numpy==2.4.6" },
] as const;
type Environment = (typeof environments)[number]["library"];

/** The Python of the library's virtual environment, created on first use; undefined when it cannot be. */
export function pythonEnvironment(library: Environment): string | undefined {
  const reference = environments.find((entry) => entry.library === library) as (typeof environments)[number];
  const directory = join(venvRoot, library);
  const python = join(directory, "bin", "python");
  const marker = join(directory, ".docqa-requirement");
  if (existsSync(marker) && readFileSync(marker, "utf8") === reference.requirement) return python;
  try {
    console.log(`creating ${directory} with ${reference.requirement} from PyPI (first run only)`);
    execFileSync("python3", ["-m", "venv", "--clear", directory], { stdio: "inherit" });
    execFileSync(python, ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", ...reference.requirement.split(" ")], {
      stdio: "inherit",
    });
    writeFileSync(marker, reference.requirement);
    return python;
  } catch (error) {
    console.log(`${library} reference skipped: ${(error as Error).message.split("\n")[0]}`);
    return undefined;
  }
}

/**
 * A model directory with fp32 weights for `model`: its own when it has `onnx/model.onnx`, else an
 * fp32 twin built once by `fp32-twin.py` under `bench/.models/`; undefined without Python.
 */
export function fp32Weights(model: LocalModel): string | undefined {
  if (existsSync(join(model.root, model.id, "onnx", "model.onnx"))) return model.root;
  const twins = join(root, "bench", ".models", "fp32-twin");
  const target = join(twins, model.id, "onnx", "model.onnx");
  if (existsSync(target)) return twins;
  const python = pythonEnvironment("onnx");
  if (!python) return undefined;
  mkdirSync(join(twins, model.id, "onnx"), { recursive: true });
  for (const file of readdirSync(join(model.root, model.id)).filter((name) => name.endsWith(".json"))) {
    copyFileSync(join(model.root, model.id, file), join(twins, model.id, file));
  }
  execFileSync(python, [join(root, "bench", "fp32-twin.py"), join(model.root, model.id, "onnx", "model_quantized.onnx"), target], {
    stdio: "inherit",
  });
  return twins;
}
