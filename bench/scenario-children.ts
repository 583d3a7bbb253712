/**
 * The servers a scenario starts (redis-server, nginx, `agenttool serve`: each registered by
 * test/support's `reaped()`) die with the scenario's process however it ends: its `finally`
 * stops them when it runs to its end; a scenario stopped by a signal has them killed first, by
 * the tests' own reaper (test/support/processes.cjs).
 *
 * @module
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { constants } from 'node:os';
import { root } from '../test/support/cli.js';

const { reapChildren } = createRequire(import.meta.url)(
  join(root, 'test/support/processes.cjs'),
) as { reapChildren(): string[] };

/** From now on, this process kills the children it started when it exits or is signalled. */
export function stopChildrenWithProcess(): void {
  process.on('exit', () => reapChildren());
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
    process.once(signal, () => {
      reapChildren();
      process.exit(128 + constants.signals[signal]);
    });
}
