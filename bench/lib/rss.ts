// Resident memory of child processes from /proc/<pid>/status: VmRSS sampled every `intervalMs`, and VmHWM (the
// kernel's own high-water mark, which also catches peaks between two samples) read when sampling stops. Also the
// CPU time each used (/proc/<pid>/stat, user + system): on a machine shared with other work, CPU per unit of work
// moves much less than a rate does.
import { execFileSync } from "node:child_process";
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
  /** CPU time (user + system) the process used from the first sample to the last, in ms. */
  cpuMs: number | null;
}

let ticksPerSecond: number | undefined;
/** The kernel's clock ticks per second, the unit of /proc/<pid>/stat's times (100 on Linux almost always). */
function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** utime + stime of a process in ms, or null once it is gone. */
export function cpuMsOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces, hence the last ")"): state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? (ticks * 1000) / clockTicks() : null;
  } catch {
    return null;
  }
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
  private readonly reports = new Map<string, RssReport & { pid: number; cpuStartMs: number | null }>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    processes: { name: string; pid: number }[],
    private readonly intervalMs = 200,
  ) {
    for (const p of processes)
      this.reports.set(p.name, {
        pid: p.pid,
        peakKb: null,
        hwmKb: null,
        firstKb: null,
        lastKb: null,
        samples: 0,
        cpuMs: null,
        cpuStartMs: null,
      });
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
      const cpu = cpuMsOf(report.pid);
      if (cpu !== null) {
        report.cpuStartMs ??= cpu;
        report.cpuMs = cpu - report.cpuStartMs;
      }
    }
  }

  /** The figures so far, sampling going on. */
  snapshot(): Record<string, RssReport> {
    const out: Record<string, RssReport> = {};
    for (const [name, { peakKb, hwmKb, firstKb, lastKb, samples, cpuMs }] of this.reports)
      out[name] = { peakKb, hwmKb, firstKb, lastKb, samples, cpuMs };
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
