/**
 * Upload: each chosen file is sent in its own request (so each has its own progress bar and its
 * own ingestion job), then its job is followed until it finishes: ingested (with its documents
 * and chunks), unchanged (the same bytes were already stored), or rejected with the reason.
 */
import { useState } from "preact/hooks";
import type { UiConfig, UiJob } from "../src/ui-api-types.ts";
import { type ApiClient, messageOf } from "./api-client.ts";

interface UploadRow {
  id: number;
  name: string;
  size: number;
  /** Fraction of the bytes sent, 0 to 1. */
  sent: number;
  phase: "uploading" | "queued" | "running" | "done" | "failed";
  result?: { outcome: "ingested" | "unchanged" | "rejected"; detail: string } | undefined;
}

/** Milliseconds between two looks at a running job. */
const pollInterval = 400;

const finished = (job: UiJob) => job.state !== "queued" && job.state !== "running";

function outcomeOf(job: UiJob): NonNullable<UploadRow["result"]> {
  const error = job.errors[0];
  if (job.files.failed > 0 && error) return { outcome: "rejected", detail: `${error.message} (${error.code})` };
  if (job.state === "failed") return { outcome: "rejected", detail: job.failure ?? "the job failed" };
  if (job.files.unchanged > 0) return { outcome: "unchanged", detail: "the same file is already stored" };
  const warnings = job.warnings.map((warning) => warning.message).join("; ");
  return { outcome: "ingested", detail: `${job.documents} document(s), ${job.chunks} chunk(s)${warnings ? `; ${warnings}` : ""}` };
}

const sizeOf = (bytes: number) =>
  bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** The formats, as the hint names them: `PDF, DOCX, TXT, MD, JSON or CSV`. */
const formatsOf = (formats: readonly string[]) => {
  const names = formats.map((format) => format.toUpperCase());
  return names.length > 1 ? `${names.slice(0, -1).join(", ")} or ${names.at(-1)}` : (names[0] ?? "");
};

export function UploadPanel({ api, config }: { api: ApiClient; config: UiConfig }) {
  const { maxUploadBytes } = config;
  const [files, setFiles] = useState<File[]>([]);
  const [share, setShare] = useState(false);
  const [rows, setRows] = useState<UploadRow[]>([]);
  const [inputKey, setInputKey] = useState(0);

  const update = (id: number, change: Partial<UploadRow>) =>
    setRows((current) => current.map((row) => (row.id === id ? { ...row, ...change } : row)));

  const follow = async (id: number, job: UiJob) => {
    let current = job;
    while (!finished(current)) {
      update(id, { phase: current.state === "running" ? "running" : "queued" });
      await new Promise((resolve) => setTimeout(resolve, pollInterval));
      current = await api.job(current.jobId);
    }
    update(id, { phase: "done", result: outcomeOf(current) });
  };

  const uploadOne = async (file: File, id: number) => {
    if (file.size > maxUploadBytes) {
      update(id, { phase: "failed", result: { outcome: "rejected", detail: `larger than the ${sizeOf(maxUploadBytes)} limit` } });
      return;
    }
    try {
      const job = await api.upload(file, share, (sent, total) => update(id, { sent: total > 0 ? sent / total : 1 }));
      update(id, { sent: 1 });
      await follow(id, job);
    } catch (error) {
      update(id, { phase: "failed", result: { outcome: "rejected", detail: messageOf(error) } });
    }
  };

  const start = () => {
    const first = rows.length;
    const added = files.map(
      (file, index): UploadRow => ({ id: first + index, name: file.name, size: file.size, sent: 0, phase: "uploading" }),
    );
    setRows((current) => [...added, ...current]);
    files.forEach((file, index) => void uploadOne(file, first + index));
    setFiles([]);
    setInputKey((key) => key + 1);
  };

  return (
    <div class="upload">
      <form
        class="card"
        onSubmit={(event) => {
          event.preventDefault();
          start();
        }}
      >
        <h2>Upload documents</h2>
        <p class="hint">
          {formatsOf(config.fileFormats)}, up to {sizeOf(maxUploadBytes)} each. You own what you upload.
        </p>
        <input
          key={inputKey}
          type="file"
          multiple
          data-testid="file-input"
          accept={config.fileExtensions.join(",")}
          onChange={(event) => setFiles([...(event.currentTarget.files ?? [])])}
        />
        <label class="check">
          <input type="checkbox" data-testid="share" checked={share} onChange={(event) => setShare(event.currentTarget.checked)} />
          Readable by everyone in my organisation (otherwise only by me)
        </label>
        <button type="submit" data-testid="upload" disabled={files.length === 0}>
          Upload {files.length > 0 ? `${files.length} file(s)` : ""}
        </button>
      </form>
      {rows.length > 0 && (
        <table class="uploads" data-testid="uploads">
          <thead>
            <tr>
              <th>File</th>
              <th>Size</th>
              <th>Progress</th>
              <th>Result</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.id} data-testid="upload-row" data-file={row.name} data-outcome={row.result?.outcome ?? ""}>
                <td>{row.name}</td>
                <td>{sizeOf(row.size)}</td>
                <td>
                  <progress max={1} value={row.sent} />
                  <span class="phase">{row.phase === "done" ? "" : row.phase}</span>
                </td>
                <td class={row.result ? `outcome ${row.result.outcome}` : "outcome"}>
                  {row.result && (
                    <>
                      <strong>{row.result.outcome}</strong> {row.result.detail}
                    </>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
