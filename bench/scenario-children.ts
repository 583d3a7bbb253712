/**
 * The servers a scenario starts (redis-server, nginx, `agenttool serve`: each registered by
 * test/support's `reaped()`) die with the scenario's process however it ends: its `finally`
 * stops them when it runs to its end; a scenario stopped by a signal kills them here first.
 *
 * @module
 */
import type { ChildProcess } from 'node:child_process';
import { constants } from 'node:os';

const REGISTRY = Symbol.for('agenttool.test.children');

/** Kills every child registered so far, with its process group when it leads one. */
function killRegistered(): void {
  const registry = (globalThis as Record<symbol, unknown>)[REGISTRY] as
    Set<ChildProcess> | undefined;
  for (const child of registry ?? []) {
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) continue;
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      child.kill('SIGKILL');
    }
  }
}

/** From now on, this process kills the children it registered when it exits or is signalled. */
export function stopChildrenWithProcess(): void {
  process.on('exit', killRegistered);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
    process.once(signal, () => {
      killRegistered();
      process.exit(128 + constants.signals[signal]);
    });
}
