/**
 * Every open stream of the web view (the terminal socket, the board's push
 * stream), by whose it is: access that ends (logout ends a session, revoke
 * or a new token ends a person's) closes that access's streams at once, not
 * when they next ask for something, since a stream never asks again.
 */
import { toDisposable, type Disposable } from '../util/lifecycle.js';
import type { Caller } from './identity.js';

/** Whose a stream is: the person, and the browser session when it came with a cookie. */
export interface StreamOwner {
  readonly person: string;
  readonly sid?: string;
}

export const ownerOf = (caller: Caller): StreamOwner => (caller.via === 'session' ? { person: caller.person.name, sid: caller.sid } : { person: caller.person.name });

interface Tracked {
  readonly owner: StreamOwner;
  readonly close: () => void;
}

export class OpenStreams {
  private readonly open = new Set<Tracked>();

  /** `close` ends the stream; dispose the answer when the stream ends by itself. */
  track(owner: StreamOwner, close: () => void): Disposable {
    const t = { owner, close };
    this.open.add(t);
    return toDisposable(() => void this.open.delete(t));
  }

  /** Closes the session's streams (logout). */
  closeSession(sid: string): number {
    return this.closeWhere((o) => o.sid === sid);
  }

  /** Closes every stream of the person, token or session (revoke, a new token). */
  closePerson(name: string): number {
    return this.closeWhere((o) => o.person === name);
  }

  /** Closes the streams whose access has ended by itself (a session idle or past its end): `alive` says which still hold. */
  sweep(alive: (o: StreamOwner) => boolean): number {
    return this.closeWhere((o) => !alive(o));
  }

  get size(): number {
    return this.open.size;
  }

  private closeWhere(match: (o: StreamOwner) => boolean): number {
    let n = 0;
    for (const t of [...this.open]) {
      if (!match(t.owner)) continue;
      this.open.delete(t);
      t.close();
      n++;
    }
    return n;
  }
}
