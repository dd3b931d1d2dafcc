// Compiles the WebAssembly text modules and writes each one's bytes, base64,
// into a TypeScript module beside it: the module ships inside the JavaScript,
// so tsc, the CLI bundle and vitest all load it with no file next to them.
// Each module's test compiles its .wat again and fails on a stale copy.
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import wabt from 'wabt';

/** Each .wat (from the repository's root), the .ts written from it, and the name of the constant. */
const MODULES = [
  { wat: 'src/screen/plain-scan.wat', ts: 'src/screen/plain-scan-wasm.ts', name: 'PLAIN_SCAN_WASM' },
  { wat: 'src/record/json-escape.wat', ts: 'src/record/json-escape-wasm.ts', name: 'JSON_ESCAPE_WASM' },
];

export async function compileWat(file) {
  const w = await wabt();
  const module = w.parseWat(file, await readFile(file, 'utf8'), { simd: true });
  try {
    module.validate();
    return Buffer.from(module.toBinary({}).buffer);
  } finally {
    module.destroy();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = new URL('../', import.meta.url);
  for (const m of MODULES) {
    const bytes = await compileWat(fileURLToPath(new URL(m.wat, root)));
    const base = m.wat.split('/').pop();
    await writeFile(new URL(m.ts, root), `/** ${base} compiled (npm run build:wasm); do not edit. */\nexport const ${m.name} = '${bytes.toString('base64')}';\n`);
    console.log(`${m.ts}: ${bytes.length} bytes of WebAssembly`);
  }
}
