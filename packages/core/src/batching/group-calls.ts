/**
 * Group commit without a timer, for calls that one statement can serve together (issue 19: each round trip to
 * PostgreSQL is a socket write and a wake-up of another process; on a loaded pod they are most of the CPU).
 *
 * A call that finds fewer than `maxInFlight` batches running starts one at once, alone, so an idle process adds no
 * latency; the calls made while those run wait and leave together as the next batch, up to `maxBatch`. Under load
 * the batches grow by themselves. `run` answers every input of its batch, in order; when it throws, every call of
 * the batch rejects with that error (each caller then does what it did when its own statement failed).
 */
export interface GroupedCalls<I, O> {
  call(input: I): Promise<O>;
  /**
   * Several calls made together: they leave in one run (up to `maxBatch`) when a slot is free, instead of the first
   * going alone (a job that carries several attempts claims and records them in one statement).
   */
  callAll(inputs: readonly I[]): Promise<O>[];
}

export interface GroupCallsOptions {
  /** Most inputs one run takes; 1 makes every call a run of its own. */
  maxBatch: number;
  /** Most runs at once. */
  maxInFlight: number;
  /** Told the size of each run started (a metric, a test). */
  onBatch?: (size: number) => void;
}

/** One input's own answer: its value, or the error its call rejects with. */
export type CallOutcome<O> = { ok: true; value: O } | { ok: false; error: unknown };

export function groupCalls<I, O>(
  run: (inputs: readonly I[]) => Promise<readonly CallOutcome<O>[]>,
  options: GroupCallsOptions,
): GroupedCalls<I, O> {
  const waiting: { input: I; resolve: (value: O) => void; reject: (error: unknown) => void }[] = [];
  let inFlight = 0;
  const settle = async (batch: typeof waiting) => {
    let outcomes: readonly CallOutcome<O>[];
    try {
      outcomes = await run(batch.map((item) => item.input));
    } catch (error) {
      outcomes = batch.map(() => ({ ok: false, error }));
    }
    for (const [index, item] of batch.entries()) {
      const outcome = outcomes[index];
      if (outcome?.ok) item.resolve(outcome.value);
      else item.reject(outcome ? outcome.error : new Error("call left without an answer by its batch"));
    }
  };
  const pump = () => {
    while (inFlight < options.maxInFlight && waiting.length > 0) {
      const batch = waiting.splice(0, Math.max(1, options.maxBatch));
      inFlight++;
      options.onBatch?.(batch.length);
      void settle(batch).finally(() => {
        inFlight--;
        pump();
      });
    }
  };
  const enqueue = (input: I) =>
    new Promise<O>((resolve, reject) => {
      waiting.push({ input, resolve, reject });
    });
  return {
    call(input) {
      const answer = enqueue(input);
      pump();
      return answer;
    },
    callAll(inputs) {
      const answers = inputs.map(enqueue);
      pump();
      return answers;
    },
  };
}
