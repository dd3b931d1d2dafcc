export const MODULES: readonly { wat: string; ts: string; name: string }[];
export function compileWat(file: string): Promise<Buffer>;
