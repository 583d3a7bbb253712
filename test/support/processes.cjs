// The processes a test run starts, and their end. Every process the tests start carries
// AGENTTOOL_TEST_RUN=<run> in its environment (set by .mocharc.cjs); helpers register the
// children they spawn (test/support/reaper.ts); each mocha worker kills what its file left
// running, and the summary reporter lists and kills any survivor at the end (README,
// "Development").
'use strict';
const fs = require('node:fs');

const MARK = 'AGENTTOOL_TEST_RUN';
const REGISTRY = Symbol.for('agenttool.test.children');

/** The children registered in this process (a Set shared with test/support/reaper.ts). */
function registry() {
  return (globalThis[REGISTRY] ??= new Set());
}

/** pid → { ppid, pgid } of every live (not zombie) process. */
function table() {
  const rows = new Map();
  let names = [];
  try {
    names = fs.readdirSync('/proc');
  } catch {
    return rows;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const [state, ppid, pgid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (state === 'Z' || state === 'X') continue;
      rows.set(Number(name), { ppid: Number(ppid), pgid: Number(pgid) });
    } catch {
      // gone meanwhile
    }
  }
  return rows;
}

function commandLine(pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
  } catch {
    return '(gone)';
  }
}

/** A process that serves the test runner itself, not a test: esbuild's service under tsx. */
function isRunnerHelper(pid) {
  return /\besbuild\b.*--service/.test(commandLine(pid));
}

/** Every descendant of `root`, children first. */
function descendants(root, rows = table()) {
  const found = [];
  const queue = [root];
  while (queue.length > 0) {
    const parent = queue.shift();
    for (const [pid, row] of rows) {
      if (row.ppid === parent) {
        found.push(pid);
        queue.push(pid);
      }
    }
  }
  return found;
}

/** This process and its ancestors. */
function ancestry(rows = table()) {
  const chain = new Set();
  for (let pid = process.pid; pid > 1 && !chain.has(pid); pid = rows.get(pid)?.ppid ?? 0)
    chain.add(pid);
  return chain;
}

function kill(target) {
  try {
    process.kill(target, 'SIGKILL');
  } catch {
    // already gone
  }
}

/**
 * Kills what this process started and still runs: each registered child's process group (it was
 * spawned detached, so it leads one) or process tree, then every other descendant except
 * `keep` (pids that were there before). Returns the command lines of what it killed.
 */
function reapChildren(keep = new Set()) {
  const rows = table();
  const killed = [];
  for (const child of registry()) {
    const pid = child.pid;
    if (pid === undefined || !rows.has(pid)) continue;
    killed.push(commandLine(pid));
    for (const below of descendants(pid, rows)) kill(below);
    if (rows.get(pid).pgid === pid) kill(-pid);
    kill(pid);
  }
  registry().clear();
  for (const pid of descendants(process.pid, rows)) {
    if (keep.has(pid) || !rows.has(pid) || isRunnerHelper(pid)) continue;
    killed.push(commandLine(pid));
    kill(pid);
  }
  return killed;
}

/** The live processes that carry this run's mark, other than this process and its ancestors. */
function marked(run = process.env[MARK], rows = table()) {
  if (run === undefined) return [];
  const needle = `\0${MARK}=${run}\0`;
  const mine = ancestry(rows);
  const found = [];
  for (const pid of rows.keys()) {
    if (mine.has(pid)) continue;
    try {
      if (`\0${fs.readFileSync(`/proc/${pid}/environ`, 'latin1')}`.includes(needle))
        found.push(pid);
    } catch {
      // not ours to read, or gone
    }
  }
  return found;
}

/**
 * The survivors of the run: processes that carry its mark or descend from this process (other
 * than the runner's own helpers), with their command lines. Kills them after listing them.
 */
function survivors(run = process.env[MARK]) {
  const rows = table();
  const pids = new Set([...descendants(process.pid, rows), ...marked(run, rows)]);
  const found = [];
  for (const pid of pids) {
    if (isRunnerHelper(pid)) continue;
    found.push({ pid, command: commandLine(pid) });
  }
  for (const { pid } of found) kill(pid);
  return found;
}

module.exports = { MARK, registry, reapChildren, survivors, descendants, table };
