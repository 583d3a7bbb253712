// `npm run test:loaded`: the suite on a busy machine. Starts two busy-loop processes, runs
// `npm test` beside them, then stops them; exits as `npm test` did, whose closing line
// ("N passed, N failed") stays the last line printed (README, "Development").
import { spawn } from 'node:child_process';
import console from 'node:console';
import { constants } from 'node:os';
import process from 'node:process';

const hogs = [0, 1].map(() =>
  spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore', detached: true }),
);
const stopHogs = () => {
  for (const hog of hogs) {
    try {
      process.kill(-hog.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
};
process.on('exit', stopHogs);
console.log(
  `test:loaded: two busy loops beside the suite (pids ${hogs.map((h) => h.pid).join(', ')})`,
);

const suite = spawn('npm', ['test'], { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM'])
  process.on(signal, () => {
    suite.kill(signal);
  });
suite.once('exit', (code, signal) => {
  stopHogs();
  process.exit(code ?? 128 + (signal === null ? 0 : (constants.signals[signal] ?? 0)));
});
