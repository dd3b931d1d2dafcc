// Compiles src/screen/plain-scan.wat and writes its bytes, base64, into
// src/screen/plain-scan-wasm.ts: the module ships inside the JavaScript, so
// tsc, the CLI bundle and vitest all load it with no file next to them.
// src/screen/plain-scan.test.ts compiles the .wat again and fails on a stale copy.
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import wabt from 'wabt';

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
  const wat = fileURLToPath(new URL('../src/screen/plain-scan.wat', import.meta.url));
  const out = fileURLToPath(new URL('../src/screen/plain-scan-wasm.ts', import.meta.url));
  const bytes = await compileWat(wat);
  await writeFile(
    out,
    `/** plain-scan.wat compiled (npm run build:wasm); do not edit. */\nexport const PLAIN_SCAN_WASM = '${bytes.toString('base64')}';\n`,
  );
  console.log(`${out}: ${bytes.length} bytes of WebAssembly`);
}
