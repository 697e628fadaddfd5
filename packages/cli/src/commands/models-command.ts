/**
 * `docqa models pull`: downloads a GGUF model from the Hugging Face hub for the in-process model
 * (`RAG_LLM_PROVIDER=llama-cpp`) and prints the settings that use it. By default docqa's tested
 * model, Qwen2.5-Coder-1.5B-Instruct Q4_K_M (1.1 GB); `--repo`, `--file` and `--sha256` pick
 * another file. The download resumes where an interrupted one stopped and is checked against the
 * SHA-256 before use (see `pullModel`). Nothing else in docqa downloads model weights.
 */
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import type { Command } from "commander";
import { exitCodeForError } from "../exit-codes.js";
import { defaultHubModel, pullModel } from "../models/pull-model.js";
import { createProgress, progressMode } from "../progress/progress-reporter.js";

/** Options of `docqa models pull`. */
interface PullCommandOptions {
  dir?: string;
  repo: string;
  file: string;
  revision: string;
  sha256: string;
  quiet?: boolean;
  json?: boolean;
  progress?: boolean;
}

/** Bytes per MiB, the unit of the progress bar. */
const bytesPerMebibyte = 2 ** 20;

/**
 * The default models folder: `$DOCQA_MODELS_DIR`, else `$XDG_CACHE_HOME/docqa/models`, else
 * `~/.cache/docqa/models` (the XDG base directory convention for downloaded, re-creatable files).
 */
export function defaultModelsDirectory(environment: NodeJS.ProcessEnv = process.env): string {
  if (environment.DOCQA_MODELS_DIR) return resolve(environment.DOCQA_MODELS_DIR);
  return join(environment.XDG_CACHE_HOME || join(homedir(), ".cache"), "docqa", "models");
}

/** Registers `docqa models` and its subcommand `pull`. */
export function registerModelsCommand(program: Command): void {
  const models = program.command("models").description("manage local language models (GGUF files for RAG_LLM_PROVIDER=llama-cpp)");
  models
    .command("pull")
    .description(
      "download a GGUF model from the Hugging Face hub (resumable, SHA-256 verified) and print the settings that use it; default: Qwen2.5-Coder-1.5B-Instruct Q4_K_M",
    )
    .option("--dir <folder>", "models folder (default $DOCQA_MODELS_DIR, else ~/.cache/docqa/models)")
    .option("--repo <repo>", "hub repository", defaultHubModel.repo)
    .option("--file <file>", "file in the repository", defaultHubModel.file)
    .option("--revision <revision>", "branch, tag or commit", defaultHubModel.revision)
    .option("--sha256 <hex>", "expected SHA-256 of the file (required with --file)", defaultHubModel.sha256)
    .option("--json", "progress as JSON events on standard error")
    .option("--no-progress", "no progress bar")
    .option("--quiet", "no progress and no notes")
    .action(async (options: PullCommandOptions, command: Command) => {
      const custom = options.file !== defaultHubModel.file || options.repo !== defaultHubModel.repo;
      if (custom && options.sha256 === defaultHubModel.sha256) {
        command.error("error: --sha256 is required with --repo or --file (the file is verified before use)", { exitCode: 1 });
      }
      const directory = resolve(options.dir ?? defaultModelsDirectory());
      const mode = progressMode(options);
      let progress: ReturnType<typeof createProgress> | undefined;
      try {
        const result = await pullModel(
          {
            repo: options.repo,
            file: options.file,
            revision: options.revision,
            sha256: options.sha256.toLowerCase(),
            size: custom ? undefined : defaultHubModel.size,
          },
          {
            directory,
            onProgress: ({ received, total }) => {
              if (total === undefined) return;
              progress ??= createProgress({ mode, phase: "download", unit: "MiB", total: Math.ceil(total / bytesPerMebibyte) });
              progress.update({ done: Math.floor(received / bytesPerMebibyte), fraction: received / total });
            },
          },
        );
        progress?.stop();
        if (!options.quiet) {
          const note =
            result.status === "present"
              ? `${result.path} is already there and verified`
              : `${result.status} ${result.path} (${(result.bytesTransferred / bytesPerMebibyte).toFixed(0)} MiB), SHA-256 verified`;
          process.stderr.write(`${note}\nUse it with these settings (for example: eval "$(docqa models pull --quiet)"):\n`);
          if (!nodeLlamaCppInstalled()) {
            process.stderr.write("The in-process model also needs the package node-llama-cpp: npm install node-llama-cpp\n");
          }
        }
        process.stdout.write(`export RAG_LLM_PROVIDER=llama-cpp\nexport LOCALLLM_MODEL_PATH=${shellQuote(result.path)}\n`);
      } catch (error) {
        progress?.stop();
        process.stderr.write(`docqa models pull: ${(error as Error).message}\n`);
        process.exitCode = exitCodeForError(error);
      }
    });
}

/** Whether `node-llama-cpp` can be imported from here. */
function nodeLlamaCppInstalled(): boolean {
  try {
    import.meta.resolve("node-llama-cpp");
    return true;
  } catch {
    return false;
  }
}

/** A POSIX shell word for `value`: bare when it is only safe characters, else in single quotes. */
function shellQuote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}
