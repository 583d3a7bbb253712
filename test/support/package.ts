/**
 * The package as it ships, built and packed once per test run and shared by the tests that need
 * it (entry points, bundle size, publint and attw, consumer type checks).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { root } from './cli.js';

let built = false;
let tarball: string | undefined;

/**
 * Builds dist/ as `npm run build` does (cleaned first, the page left out), once per process
 * unless `again`. Skipped when `AGENTTOOL_DIST_BUILT` is set: `npm test` builds dist/ once before
 * mocha starts, since its test files run two at a time in separate processes and one's clean
 * would pull dist/ from under the other.
 */
export function buildPackage(options: { again?: boolean } = {}): void {
  if (process.env['AGENTTOOL_DIST_BUILT'] && options.again !== true) built = true;
  if (built && options.again !== true) return;
  rmSync(join(root, 'dist'), { recursive: true, force: true });
  try {
    execFileSync(
      process.execPath,
      [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
      { cwd: root, encoding: 'utf8' },
    );
    // The comments out of the .js, the .d.ts no entry point loads out: package.json's own step.
    execFileSync('npm', ['run', '--silent', 'build:slim'], { cwd: root, encoding: 'utf8' });
  } catch (err) {
    throw new Error(`the build failed:\n${(err as { stdout?: string }).stdout ?? String(err)}`);
  }
  built = true;
}

/** The path of the package's tarball (`npm pack` of the built dist/), made once per process. */
export function packedPackage(): string {
  if (tarball !== undefined) return tarball;
  buildPackage();
  // test-output/ is not in a clean clone, and this may be the first test to need it.
  mkdirSync(join(root, 'test-output'), { recursive: true });
  const out = mkdtempSync(join(root, 'test-output', 'pack-'));
  const json = execFileSync(
    'npm',
    ['pack', '--ignore-scripts', '--json', '--pack-destination', out],
    { cwd: root, encoding: 'utf8' },
  );
  const [{ filename }] = JSON.parse(json) as [{ filename: string }];
  tarball = join(out, filename);
  return tarball;
}

/**
 * A folder inside test-output/ where `import 'agenttool'` resolves to the built package as an
 * installed one would (through its exports), and zod and rxjs to the repository's.
 */
export function consumerFolder(name: string): string {
  buildPackage();
  const dir = join(root, 'test-output', name);
  const link = join(dir, 'node_modules', 'agenttool');
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  if (!existsSync(link)) symlinkSync(root, link, 'dir');
  return dir;
}

/**
 * The compiler options every consumer the tests type-check starts from, as a tsconfig.json
 * writes them: strict NodeNext ESM.
 */
export const consumerCompilerOptions = {
  target: 'ES2022',
  module: 'NodeNext',
  moduleResolution: 'NodeNext',
  strict: true,
} as const;
