/**
 * Downloads a GGUF model file from the Hugging Face hub for `RAG_LLM_PROVIDER=llama-cpp`
 * (`docqa models pull`): resumable, verified, atomic.
 *
 * - The address is the hub's file URL, `{endpoint}/{repo}/resolve/{revision}/{file}` (the hub's
 *   documented download route; `HF_ENDPOINT` selects a mirror, as in the `huggingface_hub` client).
 * - Resumable: bytes go to `<file>.partial`; a later run asks for the rest with
 *   `Range: bytes=<size>-` (RFC 9110 §14.2) and appends when the server answers 206, or starts over
 *   when it answers 200.
 * - Verified: the finished file must have the expected size (when known) and SHA-256; only then is
 *   it renamed to its final name. A file already there is checked the same way and not downloaded again.
 * - `HF_TOKEN`, when set, is sent as `Authorization: Bearer` (gated repositories).
 */
import { createHash } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { DocqaError } from "@docqa/core";

/** A model file on the hub. */
export interface HubModelFile {
  /** Repository, for example `Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF`. */
  repo: string;
  /** File in the repository, for example `qwen2.5-coder-1.5b-instruct-q4_k_m.gguf`. */
  file: string;
  /** Branch, tag or commit; default `main`. */
  revision?: string | undefined;
  /** Expected SHA-256 (hex); the download is refused when it differs. */
  sha256: string;
  /** Expected size in bytes, when known (checked before hashing). */
  size?: number | undefined;
}

/**
 * docqa's default model: Qwen2.5-Coder-1.5B-Instruct, quantised Q4_K_M by Qwen (Apache-2.0), the
 * model docqa's real-model tests and figures use (docs/model-providers.md). Size and SHA-256 are
 * those of the file Qwen publishes in that repository.
 */
export const defaultHubModel: Readonly<HubModelFile> = {
  repo: "Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF",
  file: "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
  revision: "main",
  sha256: "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
  size: 1_117_320_768,
};

/** The hub's address (`huggingface_hub`'s default `HF_ENDPOINT`). */
export const defaultHubEndpoint = "https://huggingface.co";

/** Progress of a download, in bytes. */
export interface PullProgress {
  /** Bytes in the file so far (a resumed download starts above 0). */
  received: number;
  /** Bytes of the whole file, when known. */
  total: number | undefined;
}

/** Options of {@link pullModel}. */
export interface PullOptions {
  /** Folder the file goes to (created when missing). */
  directory: string;
  /** Hub address; default `HF_ENDPOINT` or {@link defaultHubEndpoint}. */
  endpoint?: string | undefined;
  /** Sent as `Authorization: Bearer`; default `HF_TOKEN`. */
  token?: string | undefined;
  /** Called as bytes arrive. */
  onProgress?: ((progress: PullProgress) => void) | undefined;
  signal?: AbortSignal | undefined;
}

/** Result of {@link pullModel}. */
export interface PullResult {
  /** Absolute path of the verified file. */
  path: string;
  /** `downloaded`, `resumed` (a partial download was completed) or `present` (nothing downloaded). */
  status: "downloaded" | "resumed" | "present";
  /** Bytes transferred by this run. */
  bytesTransferred: number;
}

/** The hub URL of a file. */
export function hubFileUrl(model: HubModelFile, endpoint: string = defaultHubEndpoint): string {
  const path = model.file.split("/").map(encodeURIComponent).join("/");
  return `${endpoint.replace(/\/+$/, "")}/${model.repo}/resolve/${encodeURIComponent(model.revision ?? "main")}/${path}`;
}

/**
 * Downloads `model` into `options.directory` unless a verified copy is there.
 *
 * @throws {DocqaError} `not_found` when the hub has no such file (HTTP 404); `model_unavailable` for
 *   other HTTP errors, a connection failure (run again to resume) or a size or SHA-256 that differs
 *   from the expected one (the partial file is removed).
 */
export async function pullModel(model: HubModelFile, options: PullOptions): Promise<PullResult> {
  await mkdir(options.directory, { recursive: true });
  const target = join(options.directory, model.file.split("/").at(-1) as string);
  const partial = `${target}.partial`;
  if (await verifiedFile(target, model)) return { path: target, status: "present", bytesTransferred: 0 };

  const url = hubFileUrl(model, options.endpoint ?? process.env.HF_ENDPOINT ?? defaultHubEndpoint);
  const token = options.token ?? process.env.HF_TOKEN;
  const already = (await stat(partial).catch(() => undefined))?.size ?? 0;
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (already > 0) headers.range = `bytes=${already}-`;
  const failed = (message: string, cause?: unknown) =>
    new DocqaError("model_unavailable", `${message} (${url})`, {
      component: "models",
      cause,
      details: { reason: "unreachable", attempts: 1 },
    });

  let response: Response;
  try {
    response = await fetch(url, { headers, signal: options.signal, redirect: "follow" });
  } catch (error) {
    if (options.signal?.aborted) throw error;
    throw failed(`could not reach the model hub: ${(error as Error).message}; run the command again to resume`, error);
  }
  if (response.status === 404) {
    throw new DocqaError("not_found", `the hub has no file ${model.file} in ${model.repo} at ${model.revision ?? "main"} (${url})`, {
      component: "models",
    });
  }
  // 416: the partial file already holds every byte (a run stopped between download and rename).
  const complete = response.status === 416 && already > 0;
  if (!response.ok && !complete) throw failed(`the model hub answered HTTP ${response.status}`);
  const resumed = response.status === 206 && already > 0;
  const start = resumed || complete ? already : 0;
  const total = model.size ?? totalSize(response, start);
  let received = start;
  options.onProgress?.({ received, total });
  if (!complete) {
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        received += chunk.length;
        options.onProgress?.({ received, total });
        callback(null, chunk);
      },
    });
    try {
      if (!response.body) throw new Error("the response has no body");
      await pipeline(
        Readable.fromWeb(response.body as import("node:stream/web").ReadableStream),
        counter,
        createWriteStream(partial, { flags: resumed ? "a" : "w" }),
      );
    } catch (error) {
      if (options.signal?.aborted) throw error;
      throw failed(`the download broke off after ${received} bytes: ${(error as Error).message}; run the command again to resume`, error);
    }
  } else {
    await response.body?.cancel();
  }
  if (!(await verifiedFile(partial, model))) {
    const actual = await stat(partial);
    const sha256 = await fileSha256(partial);
    await rm(partial, { force: true });
    throw failed(
      `the downloaded file (${actual.size} bytes, sha256 ${sha256}) is not the expected one (${model.size ?? "any"} bytes, sha256 ${model.sha256}); it was removed`,
    );
  }
  await rename(partial, target);
  return { path: target, status: start > 0 ? "resumed" : "downloaded", bytesTransferred: received - start };
}

/** The whole file's size from `Content-Range` (`bytes a-b/total`) or `Content-Length` plus the bytes already there. */
function totalSize(response: Response, start: number): number | undefined {
  const range = /\/(\d+)\s*$/.exec(response.headers.get("content-range") ?? "");
  if (range) return Number(range[1]);
  const length = Number(response.headers.get("content-length"));
  return Number.isFinite(length) && length > 0 ? start + length : undefined;
}

/** True when `path` exists with the expected size (if known) and SHA-256. */
async function verifiedFile(path: string, model: HubModelFile): Promise<boolean> {
  const info = await stat(path).catch(() => undefined);
  if (!info?.isFile()) return false;
  if (model.size !== undefined && info.size !== model.size) return false;
  return (await fileSha256(path)) === model.sha256.toLowerCase();
}

/** SHA-256 of a file, streamed (about 0.4 GB/s: three seconds for the default model). */
async function fileSha256(path: string): Promise<string> {
  const hash = createHash("sha256");
  await pipeline(createReadStream(path), hash);
  return hash.digest("hex");
}
