/**
 * Registers the processes tests start, so that none outlives the run: after each file, its mocha
 * worker kills what is still running (the process group of a child spawned `detached`, otherwise
 * its process tree; test/support/root-hooks.cjs), and the reporter lists and kills survivors
 * (test/support/processes.cjs; README, "Development").
 */
import type { ChildProcess } from 'node:child_process';

const REGISTRY = Symbol.for('agenttool.test.children');

/** Registers `child` with the reaper; returns it. */
export function reaped<T extends ChildProcess>(child: T): T {
  const registry = ((globalThis as Record<symbol, unknown>)[REGISTRY] ??=
    new Set()) as Set<ChildProcess>;
  registry.add(child);
  return child;
}
