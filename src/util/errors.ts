/**
 * An error caused by something the user gave us (a file, a flag, a value).
 * The CLI prints it as one line and exits 2; it never shows a stack.
 */
export class InputError extends Error {
  readonly file: string | undefined;
  readonly line: number | undefined;

  constructor(message: string, where: { file?: string; line?: number; cause?: unknown } = {}) {
    super(message, where.cause === undefined ? undefined : { cause: where.cause });
    this.name = 'InputError';
    this.file = where.file;
    this.line = where.line;
  }

  /** `file:line: message`, the form editors and humans both jump to. */
  get location(): string {
    if (this.file === undefined) return '';
    return this.line === undefined ? this.file : `${this.file}:${this.line}`;
  }

  override toString(): string {
    const loc = this.location;
    return loc ? `${loc}: ${this.message}` : this.message;
  }
}

/** The thing named does not exist (a job): still the caller's mistake (exit 2), 404 over HTTP. */
export class NotFoundError extends InputError {
  override name = 'NotFoundError';
}

/** The request was fine but the world moved on (the job is no longer blocked on that question): exit 2, 409 over HTTP. */
export class ConflictError extends InputError {
  override name = 'ConflictError';
}

export function isInputError(e: unknown): e is InputError {
  return e instanceof InputError;
}

/** The one-line form of an error for a person: `file:line: message` for input errors. */
export function describeError(e: unknown): string {
  if (e instanceof InputError) return e.toString();
  return e instanceof Error ? e.message : String(e);
}
