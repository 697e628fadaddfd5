/**
 * `npm run bench`: runs every benchmark and prints one table of figures with their same-run
 * baselines. Needs `npm run build`. Set BENCH_ITERATIONS to change the sample count.
 */
import { cpus } from "node:os";
import { benchmarkPredictLatency } from "./predict-latency.ts";
import { printRows } from "./statistics.ts";

const iterations = Number(process.env.BENCH_ITERATIONS ?? 300);
console.log(`docqa benchmarks: node ${process.version}, ${cpus().length} x ${cpus()[0]?.model ?? "cpu"}, ${iterations} iterations\n`);
printRows(await benchmarkPredictLatency(iterations));
