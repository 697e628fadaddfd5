/** Types of `build-state.mjs` (the quick start's check that the build is up to date). */
export declare const requiredOutputs: string[];
export declare function stampPath(root: string): string;
export declare function buildInputs(root: string): string[];
export declare function buildFingerprint(root: string): string;
export declare function buildIsCurrent(root: string): boolean;
export declare function recordBuild(root: string): void;
