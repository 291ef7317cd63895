/**
 * A gate that lets at most `limit` pieces of work run at once; the others wait their turn, first
 * come first served. Used for work that is heavy for the database (keyword searches that miss the
 * cache): past the database's cores, more at once only makes each one slower, until all of them
 * pass the statement time-out together.
 */
export interface Gate {
  run<T>(work: () => Promise<T>): Promise<T>;
  /** Work running now and work waiting (for metrics and tests). */
  readonly running: number;
  readonly waiting: number;
}

/** A gate of `limit` places; 0 lets everything through at once. */
export function createGate(limit: number): Gate {
  let running = 0;
  const queue: (() => void)[] = [];
  const release = () => {
    const next = queue.shift();
    if (next) next();
    else running--;
  };
  return {
    async run<T>(work: () => Promise<T>): Promise<T> {
      if (limit <= 0) return await work();
      if (running < limit) running++;
      else await new Promise<void>((resolve) => queue.push(resolve));
      try {
        return await work();
      } finally {
        release();
      }
    },
    get running() {
      return running;
    },
    get waiting() {
      return queue.length;
    },
  };
}
