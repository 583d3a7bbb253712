/**
 * The process groups that `bash` calls started and that still run, so that the CLI can kill them
 * all before it exits. Depends on nothing but Node, so that the CLI's entry point can reap without
 * loading the engine.
 *
 * @module
 */

/** Process group ids of commands still running. */
const running = new Set<number>();

/** Sends `signal` to every process of group `pgid`; a group already gone is ignored. */
export function killGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // Already gone.
  }
}

/** Records that group `pgid` runs, until {@link forgetGroup} or {@link reapShells}. */
export function trackGroup(pgid: number): void {
  running.add(pgid);
}

/** Records that group `pgid` has ended. */
export function forgetGroup(pgid: number): void {
  running.delete(pgid);
}

/**
 * Kills (SIGKILL) every process group a bash call started that is still running, and returns how
 * many there were: for a process about to exit, so that no command outlives it. Synchronous, so it
 * can run in a `process.on('exit')` handler.
 */
export function reapShells(): number {
  const count = running.size;
  for (const pgid of running) killGroup(pgid, 'SIGKILL');
  running.clear();
  return count;
}
