/**
 * Synthetic 384-dimension vectors for the index benchmarks: a seeded generator, unit vectors and
 * clustered vectors with the structure of real embeddings ({@link clusteredVectors}).
 */
import { mulberry32 } from "@docqa/core/testing";

/** Dimension of the benchmarks' vectors (all-MiniLM-L6-v2's and bge-small's). */
export const dimension = 384;

/** The seeded generator of the benchmarks: Mulberry32 (`mulberry32` of `@docqa/core/testing`). */
export const random: (seed: number) => () => number = mulberry32;

/** A random unit vector of {@link dimension} components. */
export function unitVector(next: () => number): Float32Array {
  const vector = Float32Array.from({ length: dimension }, () => next() - 0.5);
  const norm = Math.hypot(...vector);
  return vector.map((value) => value / norm);
}

/**
 * Vectors with the clustered structure of real embeddings: 2,000 random centres, each vector a
 * centre plus isotropic noise (per-component standard deviation 0.04, so a vector's cosine with
 * its centre is about 0.7). Uniform random vectors would be a worst case no embedding model
 * produces, and approximate indexes have no neighbourhoods to find in them.
 */
export function clusteredVectors(next: () => number): () => Float32Array {
  const centres = Array.from({ length: 2000 }, () => unitVector(next));
  const gaussian = () => Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());
  return () => {
    const centre = centres[Math.floor(next() * centres.length)] as Float32Array;
    const vector = centre.map((value) => value + 0.04 * gaussian());
    const norm = Math.hypot(...vector);
    return vector.map((value) => value / norm);
  };
}
