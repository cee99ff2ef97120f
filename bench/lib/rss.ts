// Resident memory of child processes from /proc/<pid>/status: VmRSS sampled every `intervalMs`, and VmHWM (the
// kernel's own high-water mark, which also catches peaks between two samples) read when sampling stops.
import { readFileSync } from "node:fs";

export interface RssReport {
  /** Highest VmRSS seen by the sampler, in kB. */
  peakKb: number | null;
  /** VmHWM when sampling stopped, in kB. */
  hwmKb: number | null;
  /** First and last VmRSS samples, in kB (growth during the measurement). */
  firstKb: number | null;
  lastKb: number | null;
  samples: number;
}

function readStatus(pid: number): { rssKb: number; hwmKb: number } | null {
  try {
    const text = readFileSync(`/proc/${pid}/status`, "utf8");
    const rss = /^VmRSS:\s+(\d+) kB/m.exec(text)?.[1];
    const hwm = /^VmHWM:\s+(\d+) kB/m.exec(text)?.[1];
    if (rss === undefined || hwm === undefined) return null;
    return { rssKb: Number(rss), hwmKb: Number(hwm) };
  } catch {
    return null; // the process is gone
  }
}

export class RssSampler {
  private readonly reports = new Map<string, RssReport & { pid: number }>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    processes: { name: string; pid: number }[],
    private readonly intervalMs = 200,
  ) {
    for (const p of processes)
      this.reports.set(p.name, { pid: p.pid, peakKb: null, hwmKb: null, firstKb: null, lastKb: null, samples: 0 });
  }

  start(): this {
    this.sample();
    this.timer = setInterval(() => this.sample(), this.intervalMs);
    this.timer.unref();
    return this;
  }

  private sample(): void {
    for (const report of this.reports.values()) {
      const status = readStatus(report.pid);
      if (!status) continue;
      report.samples++;
      report.firstKb ??= status.rssKb;
      report.lastKb = status.rssKb;
      report.peakKb = Math.max(report.peakKb ?? 0, status.rssKb);
      report.hwmKb = status.hwmKb;
    }
  }

  /** The figures so far, sampling going on. */
  snapshot(): Record<string, RssReport> {
    const out: Record<string, RssReport> = {};
    for (const [name, { peakKb, hwmKb, firstKb, lastKb, samples }] of this.reports)
      out[name] = { peakKb, hwmKb, firstKb, lastKb, samples };
    return out;
  }

  /** Call before the processes are stopped, so VmHWM is still readable. */
  stop(): Record<string, RssReport> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.sample();
    return this.snapshot();
  }

  /** The larger of the sampled peak and VmHWM. */
  static peak(report: RssReport | undefined): number | null {
    if (!report) return null;
    const values = [report.peakKb, report.hwmKb].filter((v): v is number => v !== null);
    return values.length ? Math.max(...values) : null;
  }
}
