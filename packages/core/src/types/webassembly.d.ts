/**
 * The part of the WebAssembly JavaScript API that docqa uses. TypeScript ships these types only
 * in its DOM library, which a Node library should not include; Node provides the API itself.
 */
declare global {
  namespace WebAssembly {
    class Module {
      constructor(bytes: ArrayBufferView | ArrayBuffer);
    }
    class Instance {
      constructor(module: Module, imports?: Record<string, Record<string, unknown>>);
      readonly exports: Record<string, unknown>;
    }
    class Memory {
      readonly buffer: ArrayBuffer;
      grow(pages: number): number;
    }
  }
}

export {};
