/**
 * The process groups that `bash` calls started and that still run, so that the CLI can kill them
 * all before it exits. Depends on nothing but Node, so that the CLI's entry point can reap without
 * loading the engine.
 *
 * Why not `execa`: its `kill()`, `timeout` and `cleanup` signal the process it started, not that
 * process's group, so a command's own children (`sleep 30 &`, a pipeline) would outlive a cancel;
 * the group kill below (`process.kill(-pgid)`) and the watchdog would stay all the same. Against
 * that, execa 9.6 brings 12 dependencies (cross-spawn, get-stream, human-signals, signal-exit, ...)
 * to a CLI whose `bash` tool spawns with `node:child_process` directly (cli/tools/bash.ts).
 *
 * @module
 */

import { spawn } from 'node:child_process';

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

/**
 * Kills group `pgid` (SIGKILL) if this process dies first, however it dies (SIGKILL included, where
 * no handler of its own runs): a small `sh` in a group of its own waits on a pipe from this
 * process, which the kernel closes when it dies. Call the returned function once the command has
 * ended: the watchdog goes, leaving the group alone.
 */
export function watchGroup(pgid: number): () => void {
  const watchdog = spawn(
    '/bin/sh',
    ['-c', 'read _; kill -s KILL -- -"$1" 2>/dev/null', 'agenttool-watchdog', String(pgid)],
    {
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
    },
  );
  watchdog.on('error', () => undefined);
  // Neither the watchdog nor its pipe keeps this process alive.
  watchdog.unref();
  (watchdog.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  watchdog.stdin?.on('error', () => undefined);
  return () => {
    watchdog.kill('SIGKILL');
  };
}
