/**
 * What machine a run was on, for the record beside its numbers.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { availableParallelism, cpus, freemem, loadavg, totalmem } from 'node:os';

/** The facts BENCHMARKS.md records with every table. */
export interface MachineInfo {
  readonly cpu: string;
  readonly cores: number;
  readonly memoryGiB: number;
  readonly freeGiB: number;
  readonly node: string;
  readonly loadAverage: readonly number[];
  readonly date: string;
}

function cpuModel(): string {
  try {
    const line = readFileSync('/proc/cpuinfo', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('model name'));
    if (line !== undefined) return line.slice(line.indexOf(':') + 1).trim();
  } catch {
    // Not Linux: os.cpus() has a model too.
  }
  return cpus()[0]?.model ?? 'unknown';
}

/** This machine, now: CPU model, cores, memory, node version, load average, date. */
export function machineInfo(): MachineInfo {
  const gib = (bytes: number) => Math.round((bytes / 2 ** 30) * 10) / 10;
  return {
    cpu: cpuModel(),
    cores: availableParallelism(),
    memoryGiB: gib(totalmem()),
    freeGiB: gib(freemem()),
    node: process.version,
    loadAverage: loadavg().map((l) => Math.round(l * 100) / 100),
    date: new Date().toISOString(),
  };
}

/** One line for the top of a run's output. */
export function describeMachine(info: MachineInfo): string {
  return (
    `${info.cpu}, ${info.cores} cores, ${info.memoryGiB} GiB (${info.freeGiB} free), ` +
    `node ${info.node}, load average ${info.loadAverage.join(' ')}`
  );
}
