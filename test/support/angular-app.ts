/**
 * The example Angular app, built once per test run: the package first (the app imports
 * `agenttool` by its name, as a user's app does, so it is built against `dist/`), then the app
 * with Angular's application builder.
 */
import { join } from 'node:path';
import { buildApp } from '../../examples/angular-app/build.js';
import { root } from './cli.js';
import { buildPackage } from './package.js';

let built: Promise<string> | undefined;

/** The folder of the built app's index.html; the build runs on the first call only. */
export function builtAngularApp(): Promise<string> {
  built ??= Promise.resolve().then(() => {
    buildPackage();
    // Warnings (CommonJS dependencies) are left out of the test's output; errors reject.
    return buildApp({ outputPath: join(root, 'test-output', 'angular-app'), log: () => undefined });
  });
  return built;
}
