/**
 * Builds the example app with Angular's application builder (`@angular/build:application`, the
 * builder behind `ng build`), from the workspace in angular.json, without the Angular CLI.
 *
 *     node --import tsx examples/angular-app/build.ts     # writes examples/angular-app/dist/browser
 *
 * @module
 */
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Architect, type BuilderOutput } from '@angular-devkit/architect';
import { WorkspaceNodeModulesArchitectHost } from '@angular-devkit/architect/node/index.js';
import { json, logging } from '@angular-devkit/core';

/** The folder of the app's workspace (angular.json). */
export const APP_ROOT = dirname(fileURLToPath(import.meta.url));

interface Workspace {
  projects: Record<
    string,
    { root: string; sourceRoot?: string; architect: Record<string, TargetDefinition> }
  >;
}
interface TargetDefinition {
  builder: string;
  options?: json.JsonObject;
}

/** Options of {@link buildApp}. */
export interface BuildAppOptions {
  /** Where the build goes (default `dist` in the app's folder); the page is in its `browser/`. */
  outputPath?: string;
  /** Receives the builder's warnings and errors, one message each (default: stderr). */
  log?: (message: string) => void;
}

/**
 * Runs the app's `build` target. Resolves to the folder holding index.html and the scripts;
 * rejects with the builder's errors when the build fails (type errors in the app included: the
 * application builder compiles and checks templates ahead of time).
 */
export async function buildApp(options: BuildAppOptions = {}): Promise<string> {
  const workspace = JSON.parse(await readFile(join(APP_ROOT, 'angular.json'), 'utf8')) as Workspace;
  const target = (project: string, name: string): TargetDefinition => {
    const found = workspace.projects[project]?.architect[name];
    if (found === undefined) throw new Error(`no target ${project}:${name} in angular.json`);
    return found;
  };
  const host = new WorkspaceNodeModulesArchitectHost(
    {
      getBuilderName: async (project, name) => target(project, name).builder,
      getOptions: async (project, name) => target(project, name).options ?? {},
      getMetadata: async (project) => {
        const { root, sourceRoot } = workspace.projects[project]!;
        return { root, ...(sourceRoot !== undefined && { sourceRoot }) };
      },
      hasTarget: async (project, name) =>
        workspace.projects[project]?.architect[name] !== undefined,
      getDefaultConfigurationName: async () => undefined,
    },
    APP_ROOT,
  );
  const logger = new logging.Logger('angular-app');
  const errors: string[] = [];
  const log = options.log ?? ((message: string) => process.stderr.write(`${message}\n`));
  logger.subscribe((entry) => {
    // eslint-disable-next-line no-control-regex
    const message = entry.message.replace(/\x1b\[[0-9;]*m/g, '');
    if (entry.level === 'error' || entry.level === 'fatal') errors.push(message);
    if (entry.level !== 'debug' && entry.level !== 'info') log(message);
  });
  const outputPath = resolve(APP_ROOT, options.outputPath ?? 'dist');
  const architect = new Architect(host);
  const run = await architect.scheduleTarget(
    { project: 'agent-app', target: 'build' },
    { outputPath, progress: false },
    { logger },
  );
  let output: BuilderOutput;
  try {
    output = await run.lastOutput;
  } finally {
    await run.stop();
  }
  if (!output.success)
    throw new Error(`the Angular build failed:\n${errors.join('\n') || (output.error ?? '')}`);
  return join(outputPath, 'browser');
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const started = Date.now();
  const folder = await buildApp();
  process.stdout.write(`built ${folder} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}
