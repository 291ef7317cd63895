/**
 * When a fresh process's background work may start: once nothing has asked it anything for
 * `idleMs`; or, `maxMs` after its start, as soon as no request is in flight; or, under traffic that
 * never leaves it without one, `lastMs` after its start.
 *
 * A server loads its list index, reads its questions' word vectors and fills its cubes in the
 * background (main.ts). On this project's 2-core machine, a 1,000,000-row catalogue's list index
 * is a 3 s scan and the word vectors' reading a 1 s statement: started with the process, they
 * shared the two cores with its first answers, and a first question took 1.3-2 s where the same
 * question took 0.35 s a moment later. The first answers go without those structures anyway
 * (each has a fallback in PostgreSQL), so the background work waits for them: it starts in the
 * first quiet moment, and after `maxMs` between two answers rather than during one (at 1,000,000
 * rows, a first question that met the list index's read took 0.95-1.7 s, bench/results/COLD.md).
 */

/** Requests in flight, and the moment a fresh process's background work may start. */
export interface FirstRequests {
  /** Counts one request in flight; call the function it returns when it is answered. */
  enter(): () => void;
  /** Resolves once the process is quiet (`idleMs` with no request in flight), or late. */
  settled(): Promise<void>;
}

/**
 * The defaults: 500 ms without a request (longer than the gaps of a health check that polls every
 * 100-200 ms, shorter than a person's pause); from 2.5 s after the start, the first moment without
 * a request in flight; at the latest 10 s after the start.
 */
export function firstRequests(
  { idleMs = 500, maxMs = 2_500, lastMs = 10_000 }: {
    idleMs?: number;
    maxMs?: number;
    lastMs?: number;
  } = {},
): FirstRequests {
  let inFlight = 0;
  let done = false;
  let due = false;
  let resolve!: () => void;
  const settled = new Promise<void>((r) => resolve = r);
  let idle: ReturnType<typeof setTimeout> | undefined;
  const settle = () => {
    if (done) return;
    done = true;
    clearTimeout(idle);
    clearTimeout(late);
    clearTimeout(last);
    resolve();
  };
  const waitIdle = () => {
    clearTimeout(idle);
    idle = setTimeout(settle, idleMs);
  };
  const late = setTimeout(() => {
    due = true;
    if (inFlight === 0) settle();
  }, maxMs);
  const last = setTimeout(settle, lastMs);
  waitIdle();
  return {
    enter() {
      if (done) return () => {};
      inFlight++;
      clearTimeout(idle);
      let left = false;
      return () => {
        if (left) return;
        left = true;
        inFlight--;
        if (inFlight === 0 && !done) due ? settle() : waitIdle();
      };
    },
    settled: () => settled,
  };
}
