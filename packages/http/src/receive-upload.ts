/**
 * Receives a `multipart/form-data` upload by streaming each file to disk as it arrives
 * (`@fastify/busboy`), so no upload is ever held in memory, let alone twice. Limits are applied
 * while the bytes flow: each file's size (`MAX_UPLOAD_BYTES`: 413 `file_too_large`), the number of
 * files (`MAX_UPLOAD_FILES`: 413 `too_many_files`) and the size of text fields; the whole body's
 * size is counted by `createDocqaApp` (`MAX_UPLOAD_REQUEST_BYTES`). On any failure the files
 * received so far are deleted.
 */
import { createWriteStream, type WriteStream } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { Readable } from "node:stream";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import { DocqaError } from "@docqa/core";
import { Busboy, type BusboyFileStream } from "@fastify/busboy";

/** A file received by {@link receiveUpload}. */
export interface ReceivedFile {
  /** The file name the client sent, without any directory. */
  name: string;
  /** Where it was written. */
  path: string;
  /** Its size in bytes. */
  bytes: number;
}

/** What {@link receiveUpload} received. */
export interface ReceivedUpload {
  /** The directory holding the files; the caller deletes it when done. */
  directory: string;
  /** The files, in the order they arrived. */
  files: ReceivedFile[];
  /** The accepted text fields that were sent. */
  fields: Record<string, string>;
}

/** Options of {@link receiveUpload}. */
export interface ReceiveUploadOptions {
  /** The directory to write the files to; created, and deleted on failure. */
  directory: string;
  /** The form field holding the files (for example `files`); at least one file is required. */
  fileField: string;
  /** The text fields kept; others are ignored. */
  fields: readonly string[];
  limits: {
    /** `MAX_UPLOAD_BYTES`: the largest file, in bytes. */
    maxFileBytes: number;
    /** `MAX_UPLOAD_FILES`: the most files. */
    maxFiles: number;
    /** The largest text field, in bytes; default 1 MiB. */
    maxFieldBytes?: number | undefined;
  };
  /**
   * Called when a file starts, before any of it is written, with its name and the names received
   * before it: throw to refuse the upload (for example 415 for an unsupported type).
   */
  checkFile?: ((name: string, earlier: readonly ReceivedFile[]) => void) | undefined;
  /** Component named in error messages. */
  component: string;
}

const defaultMaxFieldBytes = 1024 * 1024;

/** The file name without any directory the client sent with it. */
export function baseFileName(name: string): string {
  return name.split(/[\\/]/).at(-1) ?? name;
}

/**
 * Streams the files of a `multipart/form-data` request to `options.directory`.
 *
 * @throws {DocqaError} `unsupported_media_type` (415) for another `Content-Type`;
 *   `invalid_request` (400) for a malformed body, no file, or a text value in the file field;
 *   `file_too_large` (413), `too_many_files` (413), `payload_too_large` (413, a text field or the
 *   whole body); anything `checkFile` throws.
 */
export async function receiveUpload(request: Request, options: ReceiveUploadOptions): Promise<ReceivedUpload> {
  const { component, fileField, limits } = options;
  const contentType = request.headers.get("Content-Type") ?? "";
  if (!/^multipart\/form-data\s*;/i.test(contentType.trim())) {
    throw new DocqaError("unsupported_media_type", `the request body must be multipart/form-data with the field ${fileField}`, {
      component,
    });
  }
  const maxFieldBytes = limits.maxFieldBytes ?? defaultMaxFieldBytes;
  let parser: ReturnType<typeof Busboy>;
  try {
    parser = Busboy({
      headers: { "content-type": contentType },
      limits: { fileSize: limits.maxFileBytes, files: limits.maxFiles, fieldSize: maxFieldBytes, fields: 100 },
    });
  } catch (error) {
    throw new DocqaError("invalid_request", "the request body is not valid multipart/form-data", { component, cause: error });
  }
  await mkdir(options.directory, { recursive: true });
  const files: ReceivedFile[] = [];
  const fields: Record<string, string> = {};
  const writes: Promise<void>[] = [];
  /** Files being written: on failure each is unpiped, drained and its output destroyed. */
  const open = new Map<BusboyFileStream, WriteStream>();
  const source = request.body ? Readable.fromWeb(request.body as unknown as NodeReadableStream<Uint8Array>) : Readable.from([]);

  try {
    await new Promise<void>((resolve, reject) => {
      let failed = false;
      const fail = (error: unknown) => {
        if (failed) return;
        failed = true;
        source.unpipe(parser);
        source.destroy();
        for (const [stream, output] of open) {
          stream.unpipe(output);
          stream.resume();
          output.destroy();
        }
        reject(
          DocqaError.isInstance(error)
            ? error
            : new DocqaError("invalid_request", "the request body is not valid multipart/form-data", { component, cause: error }),
        );
      };
      parser.on("file", (field, stream, filename) => {
        if (failed || field !== fileField) {
          stream.resume();
          return;
        }
        const name = baseFileName(filename ?? "");
        try {
          options.checkFile?.(name, files);
        } catch (error) {
          stream.resume();
          fail(error);
          return;
        }
        const file: ReceivedFile = { name, path: join(options.directory, String(files.length)), bytes: 0 };
        files.push(file);
        const output = createWriteStream(file.path);
        open.set(stream, output);
        stream.on("limit", () =>
          fail(
            new DocqaError("file_too_large", `${name} exceeds ${limits.maxFileBytes} bytes (MAX_UPLOAD_BYTES)`, {
              component,
            }),
          ),
        );
        stream.on("error", fail);
        // Settles when the file is on disk, or when its output is closed after a failure.
        writes.push(
          new Promise<void>((settle) => {
            output.on("finish", () => {
              file.bytes = stream.bytesRead;
              open.delete(stream);
              settle();
            });
            output.on("close", () => settle());
            output.on("error", (error) => {
              fail(error);
              settle();
            });
          }),
        );
        stream.pipe(output);
      });
      parser.on("field", (field, value, _nameTruncated, valueTruncated) => {
        if (field === fileField) {
          fail(new DocqaError("invalid_request", `${fileField}: every value must be a file`, { component }));
        } else if (options.fields.includes(field)) {
          if (valueTruncated)
            fail(new DocqaError("payload_too_large", `the form field ${field} exceeds ${maxFieldBytes} bytes`, { component }));
          else fields[field] = value;
        }
      });
      parser.on("filesLimit", () =>
        fail(new DocqaError("too_many_files", `the upload holds more than ${limits.maxFiles} files (MAX_UPLOAD_FILES)`, { component })),
      );
      parser.on("error", fail);
      parser.on("finish", () => {
        void Promise.all(writes).then(() => {
          if (failed) return;
          if (files.length === 0) fail(new DocqaError("invalid_request", `${fileField}: at least one file is required`, { component }));
          else resolve();
        }, fail);
      });
      source.on("error", fail);
      source.pipe(parser);
    });
  } catch (error) {
    await Promise.allSettled(writes);
    await rm(options.directory, { recursive: true, force: true });
    throw error;
  }
  return { directory: options.directory, files, fields };
}
