export function compileWat(file: string): Promise<Buffer>;
