/**
 * Ceilings in the tests, raised on a busy machine by one factor: `TEST_TIME_SCALE` (set by
 * `.mocharc.cjs` from the load average when it is not given; README, "Development").
 */
import { loadavg, availableParallelism } from 'node:os';

function readScale(): number {
  const given = Number(process.env['TEST_TIME_SCALE']);
  if (process.env['TEST_TIME_SCALE'] !== undefined && Number.isFinite(given) && given > 0)
    return given;
  return Math.max(1, Math.round((loadavg()[0]! / Math.max(1, availableParallelism())) * 10) / 10);
}

/** The factor every ceiling is multiplied by (1 on a quiet machine). */
export const timeScale = readScale();

/** `ms` scaled for this machine: for mocha's `this.timeout` and every wait's ceiling. */
export function scaled(ms: number): number {
  return Math.round(ms * timeScale);
}

/** The last `count` non-empty lines of `text`, for saying what a wait saw. */
export function lastLines(text: string, count = 5): string {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  return lines.length === 0 ? '(nothing)' : lines.slice(-count).join('\n');
}
