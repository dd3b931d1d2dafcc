/**
 * Automatic answers: a prompt is answered at most once (the responder hears
 * when it was asked before), and one still on screen verifyMs after its
 * answer goes to a person.
 */
export class AnswerCheck {
  private pending: { key: string; due: number } | undefined;
  private readonly answered = new Set<string>();

  askedBefore(key: string): boolean {
    return this.answered.has(key);
  }

  sent(key: string, due: number): void {
    this.answered.add(key);
    this.pending = { key, due };
  }

  /** When the pending answer is judged. */
  get due(): number | undefined {
    return this.pending?.due;
  }

  /** Whether the answer did not take: its prompt (`key` is what is on screen now) is still there when due. */
  failed(key: string | undefined, now: number): boolean {
    const p = this.pending;
    if (!p) return false;
    if (key !== p.key) this.pending = undefined;
    else if (now >= p.due) {
      this.pending = undefined;
      return true;
    }
    return false;
  }
}
