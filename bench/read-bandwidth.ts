/**
 * The hardware floor of an exact vector scan: this machine's single-thread memory read bandwidth,
 * measured by `bench/memory-read-bandwidth.c` (compiled here with `gcc -O3 -march=native`, once
 * per run, into a temporary directory). An exact scan reads every vector once, so it cannot take
 * less than bytes / read bandwidth.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A measured read bandwidth. */
export interface ReadBandwidth {
  /** Bytes read per pass. */
  bytes: number;
  /** Best pass, bytes per second. */
  bytesPerSecond: number;
}

let program: string | undefined;

/** Compiles the C program (once); undefined, with a message, when gcc is missing or fails. */
function compiled(): string | undefined {
  if (program) return program;
  const output = join(mkdtempSync(join(tmpdir(), "docqa-bench-bandwidth-")), "memory-read-bandwidth");
  try {
    execFileSync("gcc", ["-O3", "-march=native", "-o", output, join(import.meta.dirname, "memory-read-bandwidth.c")], { stdio: "pipe" });
  } catch (error) {
    console.log(
      `read bandwidth floor skipped: gcc could not build bench/memory-read-bandwidth.c (${(error as Error).message.split("\n")[0]})`,
    );
    return undefined;
  }
  program = output;
  return program;
}

/**
 * Measures the read bandwidth over a buffer of `bytes` (the size of the scanned vectors), the
 * best of `passes` passes; undefined when the program cannot be built.
 */
export function readBandwidth(bytes: number, passes = 30): ReadBandwidth | undefined {
  const binary = compiled();
  if (!binary) return undefined;
  const result = JSON.parse(execFileSync(binary, [String(bytes), String(passes)], { encoding: "utf8" })) as ReadBandwidth;
  return { bytes: result.bytes, bytesPerSecond: result.bytesPerSecond };
}
