/**
 * The example Angular app, built once per test run: the package first (the app imports
 * `agenttool` by its name, as a user's app does, so it is built against `dist/`), then the app
 * with Angular's application builder.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { buildApp } from '../../examples/angular-app/build.js';
import { root } from './cli.js';

let built: Promise<string> | undefined;

async function build(): Promise<string> {
  try {
    await promisify(execFile)(
      process.execPath,
      [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
      { cwd: root, encoding: 'utf8' },
    );
  } catch (err) {
    throw new Error(`npm run build failed:\n${(err as { stdout?: string }).stdout ?? String(err)}`);
  }
  // Warnings (CommonJS dependencies) are left out of the test's output; errors reject.
  return buildApp({ outputPath: join(root, 'test-output', 'angular-app'), log: () => undefined });
}

/** The folder of the built app's index.html; the build runs on the first call only. */
export function builtAngularApp(): Promise<string> {
  built ??= build();
  return built;
}
