/**
 * Clustering for RAPTOR: bisecting k-means (Steinbach, Karypis & Kumar, 2000, "A Comparison of
 * Document Clustering Techniques") on unit vectors with cosine similarity. Any cluster larger
 * than `maximumSize` is split in two with 2-means (k-means++ seeding, Arthur & Vassilvitskii,
 * 2007), until every cluster has at most `maximumSize` members. Cost is
 * O(n · d · log(n / maximumSize) · iterations), so thousands of chunks cluster in well under a
 * second, where flat k-means with k ≈ n / size would be quadratic. Seeding uses a fixed-seed
 * PRNG, so results are reproducible.
 */

/** Settings of {@link clusterVectors}. */
export interface ClusterSettings {
  /** Largest cluster; default 8. */
  maximumSize?: number;
  /** 2-means iterations per split; default 15. */
  iterations?: number;
  /** PRNG seed; default 1. */
  seed?: number;
}

/**
 * Clusters unit vectors. Returns clusters as lists of input indices, each sorted, in order of
 * their first member.
 */
export function clusterVectors(vectors: readonly Float32Array[], settings: ClusterSettings = {}): number[][] {
  const maximumSize = Math.max(2, settings.maximumSize ?? 8);
  const iterations = settings.iterations ?? 15;
  const random = mulberry32(settings.seed ?? 1);
  const done: number[][] = [];
  const pending: number[][] = vectors.length > 0 ? [vectors.map((_, index) => index)] : [];
  while (pending.length > 0) {
    const cluster = pending.pop() as number[];
    if (cluster.length <= maximumSize) {
      done.push(cluster);
      continue;
    }
    const [left, right] = splitInTwo(vectors, cluster, iterations, random);
    pending.push(left, right);
  }
  return done.map((cluster) => [...cluster].sort((a, b) => a - b)).sort((a, b) => (a[0] as number) - (b[0] as number));
}

function splitInTwo(vectors: readonly Float32Array[], members: number[], iterations: number, random: () => number): [number[], number[]] {
  const dimension = (vectors[members[0] as number] as Float32Array).length;
  // k-means++: the first centre at random, the second with probability proportional to the squared distance.
  const first = vectors[members[Math.floor(random() * members.length)] as number] as Float32Array;
  const weights = members.map((member) => Math.max(0, 1 - dot(vectors[member] as Float32Array, first)) ** 2);
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  let second = first;
  if (total > 0) {
    let target = random() * total;
    for (let index = 0; index < members.length; index++) {
      target -= weights[index] as number;
      if (target <= 0) {
        second = vectors[members[index] as number] as Float32Array;
        break;
      }
    }
  }
  let centres: Float32Array[] = [Float32Array.from(first), Float32Array.from(second)];
  let assignment = new Uint8Array(members.length);
  for (let iteration = 0; iteration < iterations; iteration++) {
    const next = new Uint8Array(members.length);
    members.forEach((member, index) => {
      const vector = vectors[member] as Float32Array;
      next[index] = dot(vector, centres[1] as Float32Array) > dot(vector, centres[0] as Float32Array) ? 1 : 0;
    });
    const changed = iteration === 0 || next.some((value, index) => value !== assignment[index]);
    assignment = next;
    if (!changed) break;
    centres = [0, 1].map((side) => {
      const centre = new Float32Array(dimension);
      members.forEach((member, index) => {
        if (assignment[index] !== side) return;
        const vector = vectors[member] as Float32Array;
        for (let d = 0; d < dimension; d++) centre[d] = (centre[d] as number) + (vector[d] as number);
      });
      return normalize(centre);
    });
  }
  const left = members.filter((_, index) => assignment[index] === 0);
  const right = members.filter((_, index) => assignment[index] === 1);
  // Identical vectors cannot be separated: fall back to halves, which still bounds cluster size.
  if (left.length === 0 || right.length === 0) return [members.slice(0, members.length >> 1), members.slice(members.length >> 1)];
  return [left, right];
}

/** Inner product. */
export function dot(left: Float32Array, right: Float32Array): number {
  let sum = 0;
  for (let index = 0; index < left.length; index++) sum += (left[index] as number) * (right[index] as number);
  return sum;
}

/** Scales `vector` to unit length in place (a zero vector stays zero) and returns it. */
export function normalize(vector: Float32Array): Float32Array {
  let norm = 0;
  for (const value of vector) norm += value * value;
  if (norm > 0) {
    const scale = 1 / Math.sqrt(norm);
    for (let index = 0; index < vector.length; index++) vector[index] = (vector[index] as number) * scale;
  }
  return vector;
}

/** Mulberry32, a small fast 32-bit PRNG, for reproducible seeding. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
