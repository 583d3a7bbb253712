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
const warnings: string[] = [];

/** The folder of the built app's index.html; the build runs on the first call only. */
export function builtAngularApp(): Promise<string> {
  built ??= Promise.resolve().then(() => {
    buildPackage();
    // Warnings are kept for the test that reads them (angularBuildWarnings); errors reject.
    return buildApp({
      outputPath: join(root, 'test-output', 'angular-app'),
      log: (message) => warnings.push(message),
    });
  });
  return built;
}

/** The warnings of that build, as a user's `ng build` prints them. */
export async function angularBuildWarnings(): Promise<readonly string[]> {
  await builtAngularApp();
  return warnings;
}
