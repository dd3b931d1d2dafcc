/**
 * A WebAssembly module shipped inside the JavaScript as base64 (scripts/build-wasm.mjs),
 * instantiated on first use and kept: `make` turns its exports into what its callers use.
 */
export function lazyWasm<T>(base64: string, make: (exports: WebAssembly.Exports) => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make(new WebAssembly.Instance(new WebAssembly.Module(Buffer.from(base64, 'base64'))).exports) }).value;
}
