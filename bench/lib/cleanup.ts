// Everything a stage starts registers how to undo it here; the stage runs the list at the end (last in, first
// out), and Ctrl-C or SIGTERM runs it too, so no child process or Redis key outlives an interrupted bench.

type Step = { label: string; run: () => Promise<unknown> };

export class Cleanup {
  private readonly steps: Step[] = [];
  private running: Promise<void> | null = null;
  /** Set when a signal started the cleanup. */
  interrupted: NodeJS.Signals | null = null;

  constructor() {
    // One Ctrl-C reaches this process several times (from the terminal, then relayed by pnpm and tsx, as SIGINT
    // or SIGTERM): the first signal starts the cleanup, later ones are ignored. A hung cleanup gives up after 90 s.
    const onSignal = (signal: NodeJS.Signals): void => {
      if (this.interrupted) return;
      this.interrupted = signal;
      const code = signal === "SIGINT" ? 130 : 143;
      console.error(`\n${signal}: stopping the child processes and deleting the stage's Redis keys`);
      setTimeout(() => process.exit(code), 90_000).unref();
      void this.run().finally(() => process.exit(code));
    };
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
  }

  add(label: string, run: () => Promise<unknown>): void {
    this.steps.push({ label, run });
  }

  /** Runs every step once, newest first; a failing step is reported and the others still run. */
  run(): Promise<void> {
    this.running ??= (async () => {
      for (let step = this.steps.pop(); step; step = this.steps.pop()) {
        try {
          await step.run();
        } catch (error) {
          console.error(`cleanup "${step.label}" failed: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
    })();
    return this.running;
  }
}
