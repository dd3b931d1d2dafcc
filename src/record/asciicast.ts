/**
 * asciicast recordings (the asciinema format), as the rest of nightshift sees
 * them. The reader accepts v2 and v3; the writer produces v2.
 */

export interface CastHeader {
  version: 2 | 3;
  /** Terminal columns (v3 `term.cols`). */
  width: number;
  /** Terminal rows (v3 `term.rows`). */
  height: number;
  /** Unix seconds when the recording started. */
  timestamp?: number;
  command?: string;
  title?: string;
  env?: Record<string, string>;
  /** Header fields we do not know are kept as they were. */
  [k: string]: unknown;
}

export interface CastEvent {
  /** ABSOLUTE seconds since the start, for both v2 and v3 (v3 intervals are summed). */
  t: number;
  /** 'o' output, 'i' input, 'm' marker, 'r' resize, 'x' exit; unknown codes are kept. */
  code: string;
  /** For 'r': "COLSxROWS"; for 'x': the exit status as a string. */
  data: string;
}

export interface Cast {
  header: CastHeader;
  events: CastEvent[];
}
